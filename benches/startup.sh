#!/usr/bin/env bash
# Start-up cost of one-shot commands, as whole processes, against /bin/true in the same run:
# an empty Rust program (what any Rust binary costs), `agent-hooks --version` (the binary's
# own start-up: loading, relocation, argument parsing),
# `agent-hooks guard security_guard` on a small pre_tool_call payload, and
# `agent-hooks fire pre_tool_call` on an empty workspace. The README's start-up figures come
# from this script. Rounds alternate the commands (benches/alternate.py), so the differences
# are measured under the same load; compare them, not absolute times across runs.
#
# Usage: benches/startup.sh [OTHER_BINARY]   (builds the release binary first; RUNS=1000)
#   OTHER_BINARY: another build of agent-hooks (say, main's) whose `guard security_guard`
#   joins the same rounds, for an A/B comparison.
# Needs: python3.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo build --release -q -p agent-hooks-cli
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
# Copies are timed, as `cargo install --path` installs one: the file the linker wrote took about 30
# more page faults a start than a copy of it (on this machine's ext4), which is 0.1-0.3 ms.
BIN="$TMP/agent-hooks"
cp target/release/agent-hooks "$BIN"
printf '{"event": "pre_tool_call", "tool_name": "bash", "tool_input": {"command": "ls -la"}}' > "$TMP/payload.json"
export STATE_DIR="$TMP/state"
ls -l "$BIN" | awk '{printf "binary: %.1f MiB\n", $5 / 1048576}'

# The floor for any Rust program: `fn main() {}` built the same way (PIE, std's start-up).
printf 'fn main() {}\n' | rustc -O -o "$TMP/empty" -
commands=(
  /bin/true
  "$TMP/empty"
  "$BIN --version"
  "$BIN --workspace $TMP guard security_guard"
  "$BIN --workspace $TMP fire pre_tool_call"
)
if [ $# -gt 0 ]; then
  cp "$1" "$TMP/other"
  commands+=("$TMP/other --workspace $TMP guard security_guard")
fi
python3 benches/alternate.py "${RUNS:-1000}" "$TMP/payload.json" "${commands[@]}" | tee "$TMP/result"
awk 'NR == 4 { exit !($3 + 0 <= 0.5) }' "$TMP/result" \
  && echo "PASS (target: guard security_guard within 0.5 ms of /bin/true)" \
  || echo "FAIL (target: guard security_guard within 0.5 ms of /bin/true)"
