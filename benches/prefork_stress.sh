#!/usr/bin/env bash
# A storm of `agent-hooks fire` calls of `prefork: true` hooks on a loaded machine: not a speed
# figure, a check that nothing hangs, loses a call or leaks under load and concurrency.
#
# Thirteen hooks, each its own forker: one that answers at once, by exit 2 and by JSON; one that
# floods stderr past its cap; one that floods stdout past its cap; one past its timeout; exit 3;
# an uncaught exception; sys.exit("message"); one that leaves a process in its group; one whose
# forked helper keeps stdout open; one that closes stdout early; one that SIGKILLs itself; one
# that never reads an input larger than a pipe. CALLS calls (default 260), CONCURRENCY at once
# (default 8), while HOGS processes spin on the CPU (default 2; killed at the end).
# Every call must come back within its timeout plus BOUND seconds (default 5) with the outcome
# its hook's ending gives, and none may fall back to a plain process. Afterwards: no process of
# a hook left, no forker with more children than its two spares, no forker holding more than a
# handful of descriptors, and every forker gone after its idle time (4 s in this run).
#
# Phases (PHASES, default all seven):
#   storm    the calls above
#   burst    one hook, twice CONCURRENCY calls at once: far more than its two spares
#   spares   SIGKILL a waiting spare every 0.3 s while calls run: a call never hangs, nor runs
#            as a plain process (one a dying spare had accepted goes to the forker again)
#   forkers  SIGKILL a whole forker every second while calls run: a call never hangs; one under
#            way is answered as an error that says its forker ended (its hook's group killed),
#            the next starts a fresh forker
#   edits    edit or revoke a script and approve it again every 0.7 s while calls run: a call
#            runs the approved content, or is skipped as drifted, or (edited between the trust
#            check and the forker's read) ends as an error that says so; never a plain process
#   sidecar  the storm's calls through `agent-hooks serve` (its forkers are its children)
#   sidecar-kill  the same, a forker SIGKILLed every second, as in `forkers`
#
# Usage: benches/prefork_stress.sh
#        CALLS=400 CONCURRENCY=12 HOGS=2 PHASES="storm spares" benches/prefork_stress.sh
# Needs: python3 (3.9 or later). Exit status 0 when every phase held.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo build -q -p agent-hooks-cli
BIN="$PWD/target/debug/agent-hooks"
HOG_PIDS=()
stop_hogs() {
  for pid in "${HOG_PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  HOG_PIDS=()
}
trap stop_hogs EXIT
for _ in $(seq 1 "${HOGS:-2}"); do
  python3 -c 'while True: pass' &
  HOG_PIDS+=("$!")
done

status=0
for phase in ${PHASES:-storm burst spares forkers edits sidecar sidecar-kill}; do
  python3 benches/prefork_stress.py "$BIN" "$phase" "${CALLS:-260}" "${CONCURRENCY:-8}" || status=1
done
exit $status
