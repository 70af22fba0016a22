#!/usr/bin/env bash
# `agent-hooks replay` throughput with built-in guards only: a generated corpus of 100,000 tool
# calls across 500 Claude Code sessions (benches/replay_corpus.py), replayed once under a
# workspace with security_guard on the strict pack against the same workspace's committed
# defaults. Issue 38 asks for at least 20,000 replayed tool calls a second.
#
# Usage: benches/replay.sh                  (builds the release binary first)
#        SESSIONS=50 CALLS=100 benches/replay.sh   (a smaller corpus)
# Needs: python3 and git.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo build --release -q -p agent-hooks-cli
BIN="$(cd "${CARGO_TARGET_DIR:-target}" && pwd)/release/agent-hooks"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT

python3 benches/replay_corpus.py "$TMP/corpus" "${SESSIONS:-500}" "${CALLS:-200}"

WS="$TMP/ws"
mkdir -p "$WS"
"$BIN" --workspace "$WS" install security_guard >/dev/null
git -C "$WS" init -q
git -C "$WS" add -A
git -C "$WS" -c user.name=bench -c user.email=bench@example.invalid commit -qm defaults
"$BIN" --workspace "$WS" install --pack strict security_guard >/dev/null

"$BIN" --workspace "$WS" replay "$TMP/corpus" --against HEAD --json > "$TMP/report.json"
python3 - "$TMP/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
calls, seconds = r["tool_calls"], r["elapsed_seconds"]
print(f"{r['sessions']} sessions, {calls} tool calls, {r['events']} events, "
      f"{r['flip_count']} flips in {seconds:.2f} s: {calls / seconds:,.0f} tool calls/s")
PY
