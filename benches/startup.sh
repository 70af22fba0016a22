#!/usr/bin/env bash
# Start-up cost of one-shot commands, as whole processes, against /bin/true in the same run:
# `agent-hooks guard security_guard` on a small pre_tool_call payload, and `agent-hooks fire`
# on an empty workspace. The README's start-up figures come from this script.
#
# Usage: benches/startup.sh            (builds the release binary first; RUNS=1000 by default)
# Needs: hyperfine (Debian: apt-get install -y hyperfine).
set -euo pipefail
cd "$(dirname "$0")/.."

cargo build --release -q -p agent-hooks-cli
BIN="$PWD/target/release/agent-hooks"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
printf '{"event": "pre_tool_call", "tool_name": "bash", "tool_input": {"command": "ls -la"}}' > "$TMP/payload.json"
export STATE_DIR="$TMP/state"
ls -l "$BIN" | awk '{printf "binary: %.1f MiB\n", $5 / 1048576}'

# Every command goes through sh for the redirection; hyperfine measures the shell's own
# start-up and subtracts it from each.
hyperfine --warmup 50 --runs "${RUNS:-1000}" --export-json "$TMP/result.json" \
  "/bin/true < $TMP/payload.json" \
  "$BIN --workspace $TMP guard security_guard < $TMP/payload.json" \
  "$BIN --workspace $TMP fire pre_tool_call < $TMP/payload.json"

python3 - "$TMP/result.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
true, guard, fire = (x["median"] * 1000 for x in r)
print(f"median: /bin/true {true:.3f} ms, guard {guard:.3f} ms (+{guard - true:.3f} ms), fire {fire:.3f} ms (+{fire - true:.3f} ms)")
print("PASS" if guard - true <= 0.5 else "FAIL", "(target: guard security_guard within 0.5 ms of /bin/true)")
PY
