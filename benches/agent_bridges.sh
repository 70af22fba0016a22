#!/usr/bin/env bash
# Every agent's bridge cost per event, every way, in one hyperfine run so the figures are
# ratios on one machine at one moment: one harmless PreToolUse-like input per agent,
# in that agent's own shape, through a workspace with security_guard installed (a built-in:
# the figure is the bridge, not a script):
# - `agent-hooks <agent>-hook` (the process an agent starts per event; what `<agent>-install`
#   wires) while a sidecar serves the workspace on its default socket: the bridge hands the
#   call to it (`docs/agents.md`, "A sidecar answers for the bridge");
# - the same with AGENT_HOOKS_SIDECAR=off: the bridge process loads the workspace itself;
# - a POST to a running `agent-hooks serve` on the agent's route (curl's start-up included).
#
# Usage: benches/agent_bridges.sh        (builds the release binary first; RUNS=N to change,
#        JSON=PREFIX to keep hyperfine's results, one PREFIX.<agent>.json per agent)
# Needs: hyperfine and curl. The first two commands are the baselines: /bin/true and a bare
# GET /v1/health to the same sidecar.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo build --release -q -p agent-hooks-cli
BIN="$(cd "${CARGO_TARGET_DIR:-target}" && pwd)/release/agent-hooks"
WS="$(mktemp -d)"
SERVER=""
SOCKET_SERVER=""
trap '[ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null; [ -n "$SOCKET_SERVER" ] && kill "$SOCKET_SERVER" 2>/dev/null; rm -rf "$WS"' EXIT

"$BIN" --workspace "$WS" on >/dev/null
"$BIN" --workspace "$WS" install security_guard >/dev/null

# One input per agent, as each agent's hooks reference shapes it.
printf '%s' '{"session_id":"bench","cwd":"/tmp","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls -la"}}' > "$WS/claude.json"
printf '%s' '{"session_id":"bench","turn_id":"t1","cwd":"/tmp","hook_event_name":"PreToolUse","model":"gpt-5","permission_mode":"default","tool_name":"Bash","tool_input":{"command":"ls -la"},"tool_use_id":"c1"}' > "$WS/codex.json"
printf '%s' '{"session_id":"bench","cwd":"/tmp","hook_event_name":"BeforeTool","timestamp":"2026-12-01T10:00:00Z","tool_name":"run_shell_command","tool_input":{"command":"ls -la"}}' > "$WS/gemini.json"
printf '%s' '{"sessionId":"bench","timestamp":1704614600000,"cwd":"/tmp","toolName":"bash","toolArgs":"{\"command\":\"ls -la\"}"}' > "$WS/copilot.json"
printf '%s' '{"agent_action_name":"pre_run_command","trajectory_id":"bench","execution_id":"e1","timestamp":"2026-12-01T10:00:00Z","model_name":"SWE-1.5","tool_info":{"command_line":"ls -la","cwd":"/tmp"}}' > "$WS/windsurf.json"
printf '%s' "{\"conversation_id\":\"bench\",\"generation_id\":\"g1\",\"hook_event_name\":\"beforeShellExecution\",\"workspace_roots\":[\"$WS\"],\"command\":\"ls -la\",\"cwd\":\"/tmp\"}" > "$WS/cursor.json"

mkdir -m 700 "$WS/state-home"
export AGENT_HOOKS_STATE_DIR="$WS/state-home"
"$BIN" --workspace "$WS" serve --listen 127.0.0.1:0 > "$WS/ready" &
SERVER=$!
for _ in $(seq 100); do grep -q 127.0.0.1 "$WS/ready" 2>/dev/null && break; sleep 0.05; done
BASE="http://$(grep -o '127.0.0.1:[0-9]*' "$WS/ready" | head -n 1)"

# A second sidecar on the workspace's default socket, which the bridges find by themselves.
"$BIN" --workspace "$WS" serve > "$WS/socket-ready" &
SOCKET_SERVER=$!
for _ in $(seq 100); do grep -q unix: "$WS/socket-ready" 2>/dev/null && break; sleep 0.05; done

# Every route but health wants the sidecar's token (its own state directory, set above).
AUTH="Authorization: Bearer $(cat "$AGENT_HOOKS_STATE_DIR/sidecar.token")"
post() { echo "curl -s -H 'Content-Type: application/json' -H '$AUTH' --data-binary @$WS/$1.json $BASE$2"; }

# One hyperfine run per agent, without a shell (`-N`, the input on stdin with `--input`), so
# that each figure is a ratio against its own `/bin/true` measured in the same run. Baselines
# of the routes: a bare request to the same sidecar, in the same run.
OUT="${JSON:-}"
for agent in claude codex gemini cursor copilot windsurf; do
  route="/v1/hooks/$agent"
  [ "$agent" = claude ] && route=/v1/hooks/claude-code
  args=(-n "/bin/true" "/bin/true"
        -n "$agent-hook" "$BIN --workspace $WS $agent-hook"
        -n "$agent-hook (in process)" "env AGENT_HOOKS_SIDECAR=off $BIN --workspace $WS $agent-hook")
  # Windsurf's Cascade calls no HTTP hooks: it has no route.
  if [ "$agent" != windsurf ]; then
    args+=(-n "GET /v1/health" "curl -s $BASE/v1/health"
           -n "POST $route" "curl -s -H Content-Type:application/json -H '$AUTH' --data-binary @$WS/$agent.json $BASE$route")
  fi
  export_to=/dev/null
  [ -n "$OUT" ] && export_to="$OUT.$agent.json"
  hyperfine -N --warmup 10 --runs "${RUNS:-100}" --input "$WS/$agent.json" \
    --export-json "$export_to" "${args[@]}"
done
