#!/usr/bin/env bash
# The Claude Code bridge's cost per event, both wirings, on one PreToolUse input through a
# workspace with security_guard installed (a built-in: the figure is the bridge, not a script):
# `agent-hooks claude-hook` as a process (what `claude-install` wires), and a POST to a running
# `agent-hooks serve` on /v1/hooks/claude-code (what `claude-install --http` wires; curl's own
# start-up is in that figure, Claude Code's HTTP client has none). Each has its baseline in the
# same run, so the ratios hold on a loaded machine: `/bin/true` for the process, and a bare
# request to the same sidecar (`GET /v1/health`, no dispatch) for the route.
#
# Usage: benches/claude_bridge.sh        (builds the release binary first; RUNS=200 by default)
# Needs: hyperfine, curl and python3.
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
BASE="http://$(grep -o '127.0.0.1:[0-9]*' "$WS/ready" | head -n 1)"
URL="$BASE/v1/hooks/claude-code"
# The route must answer what claude-hook answers (here: nothing to say, an empty body).
[ "$(curl -s -H 'Content-Type: application/json' --data-binary @"$WS/input.json" "$URL")" = \
  "$("$BIN" --workspace "$WS" claude-hook < "$WS/input.json")" ]

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
# Through sh for the redirection; hyperfine subtracts the shell's start-up from each.
hyperfine --warmup 20 --runs "${RUNS:-200}" --export-json "$WS/result.json" \
  "/bin/true < $WS/input.json" \
  "$BIN --workspace $WS claude-hook < $WS/input.json" \
  "curl -s -o /dev/null $BASE/v1/health" \
  "curl -s -H 'Content-Type: application/json' --data-binary @$WS/input.json $URL"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

python3 - "$WS/result.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
true, hook, bare, route = (x["median"] * 1000 for x in r)
ratio = lambda a, b: f"{a / b:.1f}x" if b > 0 else "no ratio (baseline median 0 after hyperfine's shell correction)"
print(f"medians: /bin/true {true:.2f} ms, claude-hook {hook:.2f} ms, GET /v1/health {bare:.2f} ms, POST /v1/hooks/claude-code {route:.2f} ms")
print(f"process: claude-hook +{hook - true:.2f} ms over /bin/true ({ratio(hook, true)})")
print(f"http: the route +{route - bare:.2f} ms over a bare request ({ratio(route, bare)}; curl's start-up is in both)")
PY
