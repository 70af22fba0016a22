#!/bin/sh
# Throughput, latency and memory of the sidecar for an event with no hooks (targets: at least
# 20,000 dispatches/s, p99 under 2 ms, RSS flat over 1,000,000 dispatches). Builds the release
# binaries, serves a throwaway workspace with no hooks on an ephemeral loopback port (with its
# own state directory, so its token is the bench's and the user's is not touched), and drives
# it with test-helpers' `sidecar-load` (keep-alive connections, POST /v1/events/on_session_end,
# each with the bearer token).
#
# The RSS "after warm-up" is taken once the first load run has grown the allocator's arenas and
# the runtime's buffers to their working size; "flat" means the figure after 1,000,000
# dispatches is the same within a few hundred KiB (the script fails past 2 MiB). The event log must stay empty: a dispatch
# with no hooks has nothing to report.
#
# Usage: sh benches/sidecar.sh [connections] [requests per connection]   (default 2 50000)
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
connections=${1:-2}
requests=${2:-50000}
total=1000000
cargo build -q --release -p agent-hooks-cli -p test-helpers --manifest-path "$here/Cargo.toml"
target=${CARGO_TARGET_DIR:-$here/target}
bin="$target/release/agent-hooks"
load="$target/release/sidecar-load"

ws=$(mktemp -d)
server=
cleanup() {
    [ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null
    rm -rf "$ws"
}
trap cleanup EXIT
mkdir -p "$ws/config" "$ws/state-home"
chmod 700 "$ws/state-home"
export AGENT_HOOKS_STATE_DIR="$ws/state-home"
token="$ws/state-home/sidecar.token"
printf 'shell_hooks:\n  enabled: true\n' > "$ws/config/agent.yaml"

"$bin" --workspace "$ws" serve --listen 127.0.0.1:0 > "$ws/ready" &
server=$!
i=0
until grep -q 'on http://' "$ws/ready" 2>/dev/null; do
    i=$((i + 1))
    [ "$i" -gt 200 ] && { echo "the sidecar did not start" >&2; exit 1; }
    sleep 0.05
done
port=$(sed -n 's/.*on http:\/\/127\.0\.0\.1:\([0-9]*\).*/\1/p' "$ws/ready")
rss() { sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$server/status"; }

echo "sidecar pid $server on port $port, workspace $ws (no hooks), $(nproc) cores"
idle=$(rss)
echo "RSS idle: $idle KiB"
"$load" --port "$port" --token-file "$token" --connections "$connections" --requests "$requests"
warm=$(rss)
done_so_far=$((connections * requests))
echo "RSS after warm-up ($done_so_far dispatches): $warm KiB"

# The rest of the million, in runs of the same size, reporting RSS as it goes.
while [ "$done_so_far" -lt "$total" ]; do
    "$load" --port "$port" --token-file "$token" --connections "$connections" --requests "$requests" > "$ws/run"
    done_so_far=$((done_so_far + connections * requests))
    echo "  $done_so_far dispatches: RSS $(rss) KiB; $(sed 's/.*connections in //' "$ws/run")"
done
after=$(rss)
growth=$((after - warm))
echo "RSS after $done_so_far dispatches: $after KiB (growth since warm-up: $growth KiB)"
# A leak of even a few bytes a dispatch would show as megabytes here; the allocator settling
# shows as tens to a few hundred KiB.
if [ "$growth" -gt 2048 ]; then
    echo "memory is not flat: RSS grew by $growth KiB over $((done_so_far - connections * requests)) dispatches" >&2
    exit 1
fi
if [ -s "$ws/logs/events.jsonl" ]; then
    echo "the event log was written by no-hook dispatches:" >&2
    head -3 "$ws/logs/events.jsonl" >&2
    exit 1
fi
echo "logs/events.jsonl: not written"
