#!/bin/sh
# Peak resident memory of `agent-hooks fire` with one approved command hook (target: under
# 20 MiB). Builds the release binary, makes a throwaway workspace whose hook is a POSIX sh script
# that reads its payload and answers {}, and reports the maximum RSS of the `agent-hooks`
# process alone (the hook is a separate process with its own memory).
#
# Needs GNU time (`/usr/bin/time -v`, Debian package `time`). Usage: sh benches/fire_rss.sh [runs]
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-5}
cargo build -q --release -p agent-hooks-cli --manifest-path "$here/Cargo.toml"
bin="$here/target/release/agent-hooks"

ws=$(mktemp -d)
trap 'rm -rf "$ws"' EXIT
mkdir -p "$ws/config" "$ws/hooks"
printf 'shell_hooks:\n  enabled: true\n' > "$ws/config/agent.yaml"
printf '#!/bin/sh\ncat > /dev/null\necho "{}"\n' > "$ws/hooks/answer.sh"
chmod +x "$ws/hooks/answer.sh"
printf 'hooks:\n  - name: answer\n    event: pre_tool_call\n    command: hooks/answer.sh\n' \
    > "$ws/config/shell_hooks.yaml"
"$bin" --workspace "$ws" approve hooks/answer.sh > /dev/null
payload='{"tool_name": "bash", "tool_input": {"command": "ls -la"}}'

if ! /usr/bin/time -v true > /dev/null 2>&1; then
    echo "fire_rss.sh needs GNU time (/usr/bin/time -v): apt-get install time" >&2
    exit 2
fi

# One run: prints the peak RSS of the agent-hooks process in KiB.
peak_kib() {
    echo "$payload" | /usr/bin/time -v -o "$ws/time.txt" "$bin" --workspace "$ws" fire pre_tool_call > "$ws/out.json"
    grep -q '"status":"noop"' "$ws/out.json" || { echo "the hook did not run: $(cat "$ws/out.json")" >&2; exit 1; }
    sed -n 's/^[[:space:]]*Maximum resident set size (kbytes): //p' "$ws/time.txt"
}

max=0
i=0
while [ "$i" -lt "$runs" ]; do
    kib=$(peak_kib)
    echo "run $((i + 1)): peak RSS ${kib} KiB"
    [ "$kib" -gt "$max" ] && max=$kib
    i=$((i + 1))
done
limit=$((20 * 1024))
echo "agent-hooks fire, one command hook: max peak RSS over $runs runs = ${max} KiB ($(awk "BEGIN {printf \"%.1f\", $max / 1024}") MiB); target < ${limit} KiB"
[ "$max" -lt "$limit" ]
