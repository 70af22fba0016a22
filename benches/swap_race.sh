#!/bin/sh
# Verify-then-exec race: fires an approved hook ROUNDS times (default 200) while another process
# renames an impostor over its script and back as fast as it can, for each way a script is
# named (`hooks/guard.sh`, started by the kernel from its `#!` line; `sh hooks/guard.sh`, read
# by its interpreter). Every run must be the approved content or a refusal (drift, or "modified
# after its approval was checked"); the expected count of impostor runs is 0.
#
# Usage: sh benches/swap_race.sh [rounds]. AGENT_HOOKS_BIN names a built binary; without it the
# release binary is built. Needs python3 for the swapper (a shell loop swaps too slowly).
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
rounds=${1:-200}
if [ -n "${AGENT_HOOKS_BIN:-}" ]; then
    bin=$AGENT_HOOKS_BIN
else
    cargo build -q --release -p agent-hooks-cli --manifest-path "$here/Cargo.toml"
    bin="${CARGO_TARGET_DIR:-$here/target}/release/agent-hooks"
fi

ws=$(mktemp -d)
swapper=
cleanup() {
    if [ -n "$swapper" ]; then kill "$swapper" 2>/dev/null || true; fi
    rm -rf "$ws"
}
trap cleanup EXIT
mkdir -p "$ws/config" "$ws/hooks"
printf 'shell_hooks:\n  enabled: true\n' > "$ws/config/agent.yaml"
printf '#!/bin/sh\ncat > /dev/null\necho "{\\"context\\": \\"approved\\"}"\n' > "$ws/good"
printf '#!/bin/sh\ncat > /dev/null\necho "{\\"context\\": \\"IMPOSTOR\\"}"\n' > "$ws/evil"
chmod +x "$ws/good" "$ws/evil"
payload='{"message": "hi"}'

for form in "hooks/guard.sh" "sh hooks/guard.sh"; do
    cp "$ws/good" "$ws/hooks/guard.sh"
    printf 'hooks:\n  - name: guard\n    event: on_user_message\n    command: "%s"\n' "$form" \
        > "$ws/config/shell_hooks.yaml"
    "$bin" --workspace "$ws" approve "$form" > /dev/null
    python3 - "$ws" <<'PY' &
import os, shutil, sys
ws = sys.argv[1]
n = 0
while True:
    tmp = os.path.join(ws, "hooks", ".swap%d" % (n % 2))
    shutil.copy(os.path.join(ws, "evil" if n % 2 == 0 else "good"), tmp)
    os.rename(tmp, os.path.join(ws, "hooks", "guard.sh"))
    n += 1
PY
    swapper=$!
    impostor=0 approved=0 refused=0 i=0
    while [ "$i" -lt "$rounds" ]; do
        out=$(echo "$payload" | "$bin" --workspace "$ws" fire on_user_message)
        case "$out" in
            *IMPOSTOR*) impostor=$((impostor + 1)) ;;
            *'"context":["approved"]'*) approved=$((approved + 1)) ;;
            *) refused=$((refused + 1)) ;;
        esac
        i=$((i + 1))
    done
    kill "$swapper"
    wait "$swapper" 2>/dev/null || true
    swapper=
    echo "swap race, command \"$form\": impostor $impostor/$rounds, approved $approved, refused or skipped $refused"
done
