#!/usr/bin/env bash
# The Claude Code bridge's cost per event, both wirings, on one PreToolUse input through a
# workspace with security_guard installed (a built-in: the figure is the bridge, not a script):
# `agent-hooks claude-hook` as a process (what `claude-install` wires), and a POST to a running
# `agent-hooks serve` on /v1/hooks/claude-code (what `claude-install --http` wires; curl's own
# start-up is in that figure, Claude Code's HTTP client has none).
#
# Usage: benches/claude_bridge.sh        (builds the release binary first)
# Needs: hyperfine and curl.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo build --release -q -p agent-hooks-cli
BIN="$PWD/target/release/agent-hooks"
WS="$(mktemp -d)"
SERVER=""
trap '[ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null; rm -rf "$WS"' EXIT

"$BIN" --workspace "$WS" on >/dev/null
"$BIN" --workspace "$WS" install security_guard >/dev/null
printf '%s' '{"session_id":"bench","cwd":"/tmp","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls -la"}}' > "$WS/input.json"

"$BIN" --workspace "$WS" serve --listen 127.0.0.1:0 > "$WS/ready" &
SERVER=$!
for _ in $(seq 100); do grep -q 127.0.0.1 "$WS/ready" 2>/dev/null && break; sleep 0.05; done
URL="http://$(grep -o '127.0.0.1:[0-9]*' "$WS/ready" | head -n 1)/v1/hooks/claude-code"

# Through sh for the redirection; hyperfine subtracts the shell's start-up from both.
hyperfine --warmup 20 --runs "${RUNS:-200}" \
  "$BIN --workspace $WS claude-hook < $WS/input.json" \
  "curl -s -H 'Content-Type: application/json' --data-binary @$WS/input.json $URL"
