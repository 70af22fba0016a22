#!/bin/sh
# The slow-body attack (issue: 1,030 connections that send a head and trickle the body froze
# every health check): the sidecar must keep answering GET /v1/health within 100 ms while
# 1,000 clients of its own owner trickle request bodies. Builds the release binaries, serves a
# throwaway workspace (its own state directory, so the user's token is not touched) on the
# Unix socket and then on loopback TCP with the token, and runs test-helpers'
# `sidecar-trickle` against each: it opens the trickling clients, keeps them trickling a byte
# every half second, and times health checks on fresh connections meanwhile.
#
# Usage: sh benches/sidecar_trickle.sh [clients] [checks]   (default 1000 200)
#        SERVE_FLAGS='--max-client-connections 4096' sh benches/sidecar_trickle.sh 1100
#        (every trickler then counts only against the overall cap, which they exceed)
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
clients=${1:-1000}
checks=${2:-200}
cargo build -q --release -p agent-hooks-cli -p test-helpers --manifest-path "$here/Cargo.toml"
target=${CARGO_TARGET_DIR:-$here/target}
bin="$target/release/agent-hooks"
trickle="$target/release/sidecar-trickle"

ws=$(mktemp -d)
server=
cleanup() {
    [ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null
    rm -rf "$ws"
}
trap cleanup EXIT
mkdir -p "$ws/config" "$ws/state-home"
chmod 700 "$ws/state-home"
printf 'shell_hooks:\n  enabled: true\n' > "$ws/config/agent.yaml"
export AGENT_HOOKS_STATE_DIR="$ws/state-home"
# Room for the clients: each holds a descriptor in both processes.
ulimit -n 8192 2>/dev/null || true

start() {
    : > "$ws/ready"
    "$bin" --workspace "$ws" serve "$@" > "$ws/ready" 2>"$ws/serve.err" &
    server=$!
    i=0
    until grep -q ' on ' "$ws/ready" 2>/dev/null; do
        i=$((i + 1))
        [ "$i" -gt 200 ] && { echo "the sidecar did not start:" >&2; cat "$ws/serve.err" >&2; exit 1; }
        sleep 0.05
    done
}
stop() {
    kill "$server" && wait "$server" || true
    server=
}

echo "== Unix socket, $clients trickling clients of the owner's uid, $(nproc) cores"
# shellcheck disable=SC2086
start ${SERVE_FLAGS:-}
socket=$(sed -n 's/.* on unix:\(.*\)$/\1/p' "$ws/ready")
"$trickle" --socket "$socket" --clients "$clients" --checks "$checks"
stop

echo "== loopback TCP with the token, $clients trickling clients"
# shellcheck disable=SC2086
start --listen 127.0.0.1:0 ${SERVE_FLAGS:-}
port=$(sed -n 's/.*on http:\/\/127\.0\.0\.1:\([0-9]*\).*/\1/p' "$ws/ready")
"$trickle" --port "$port" --token-file "$ws/state-home/sidecar.token" --clients "$clients" --checks "$checks"
stop
