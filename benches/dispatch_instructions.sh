#!/usr/bin/env bash
# Instructions per in-process dispatch of ten hooks whose matchers all miss, counted by
# callgrind: a figure the machine's load does not change, to compare two commits with.
# Wall-clock time of the same case: `cargo bench -p agent-hooks-runtime --bench dispatch`.
#
# Usage: benches/dispatch_instructions.sh
# Needs: valgrind (Debian: apt-get install -y valgrind).
set -euo pipefail
cd "$(dirname "$0")/.."

BIN="$(cargo bench -p agent-hooks-runtime --bench dispatch --no-run --message-format=json 2>/dev/null \
  | sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | tail -n 1)"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
INTERLEAVED_ROUNDS=0 valgrind --tool=callgrind --callgrind-out-file="$TMP/out" \
  "$BIN" --bench dispatch/ten_hooks_none_matching --profile-time 3 > "$TMP/log" 2>&1
# The calls into Engine::dispatch from the benchmark loop: "<instructions> (..) => ... (<calls>x)".
callgrind_annotate --inclusive=yes "$TMP/out" \
  | grep -E '=> .*engine::Engine::dispatch::\{\{closure\}\} \(' \
  | sed -E 's/^ *([0-9,]+) .*\(([0-9,]+)x\).*/\1 \2/; s/,//g' \
  | sort -k2 -n | tail -n 1 \
  | awk '{printf "instructions per dispatch: %.0f (over %d dispatches)\n", $1 / $2, $2}'
