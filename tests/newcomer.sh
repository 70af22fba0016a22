#!/bin/sh
# Plays a newcomer on a fresh clone of this checkout, with the binary CI already built (no
# second build): the README's two commands from another directory, `--help` of every command
# and every manual page `man` names, each agent's installer and uninstaller in a scratch home
# compared byte for byte with the tree before, the example agent loop where python3 is, and
# the packaged installs where packaging/ provides them. Exits non-zero at the first surprise.
#
#   AGENT_HOOKS_BIN=target/debug/agent-hooks sh tests/newcomer.sh
#
# Without AGENT_HOOKS_BIN the binary is the one cargo reports for this checkout (built if it
# must be).
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
step() { printf '== newcomer: %s\n' "$*"; }
fail() {
    printf 'newcomer: %s\n' "$*" >&2
    exit 1
}

if [ -z "${AGENT_HOOKS_BIN:-}" ]; then
    AGENT_HOOKS_BIN=$(cargo build -q -p agent-hooks-cli --bin agent-hooks \
        --manifest-path "$repo/Cargo.toml" --message-format=json-render-diagnostics |
        sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | tail -n 1)
fi
case "$AGENT_HOOKS_BIN" in
    /*) ;;
    *) AGENT_HOOKS_BIN="$PWD/$AGENT_HOOKS_BIN" ;;
esac
[ -x "$AGENT_HOOKS_BIN" ] || fail "no agent-hooks binary at $AGENT_HOOKS_BIN"
export AGENT_HOOKS_BIN
bin_dir="$scratch/bin"
mkdir -p "$bin_dir"
ln -s "$AGENT_HOOKS_BIN" "$bin_dir/agent-hooks"
elsewhere="$scratch/elsewhere"
mkdir -p "$elsewhere"

step "a fresh clone"
clone="$scratch/clone"
if git -C "$repo" rev-parse --git-dir >/dev/null 2>&1; then
    git clone -q --no-hardlinks "$repo" "$clone"
else
    mkdir -p "$clone" && (cd "$repo" && tar --exclude=./target -cf - .) | (cd "$clone" && tar -xf -)
fi

# The README's first code block is the two commands a newcomer runs first.
readme_commands=$(awk '/^```/ { if (open) exit; open = 1; next } open' "$clone/README.md" |
    sed 's/[[:space:]]*#.*$//')
printf '%s\n' "$readme_commands" | grep -q '^sh examples/demo.sh$' ||
    fail "the README no longer starts with sh examples/demo.sh: $readme_commands"
printf '%s\n' "$readme_commands" | grep -q '^cargo test --workspace$' ||
    fail "the README no longer starts with cargo test --workspace: $readme_commands"

step "sh examples/demo.sh of the clone, from another directory, on the built binary"
(cd "$elsewhere" && sh "$clone/examples/demo.sh") >"$scratch/demo.out" 2>&1 ||
    fail "the demo failed: $(cat "$scratch/demo.out")"
grep -q '^== every example hook ran$' "$scratch/demo.out" || fail "the demo did not finish"

step "sh examples/demo.sh with CARGO_TARGET_DIR set, from another directory (cargo's own build)"
target_dir=$(dirname "$(dirname "$AGENT_HOOKS_BIN")")
(cd "$elsewhere" && env -u AGENT_HOOKS_BIN CARGO_TARGET_DIR="$target_dir" sh "$repo/examples/demo.sh") \
    >"$scratch/demo-cargo.out" 2>&1 || fail "the demo with CARGO_TARGET_DIR failed: $(cat "$scratch/demo-cargo.out")"
grep -q '^== every example hook ran$' "$scratch/demo-cargo.out" || fail "the demo did not finish"

step "cargo test --workspace from another directory resolves (already built and run by CI)"
(cd "$elsewhere" && CARGO_TARGET_DIR="$target_dir" cargo test -q --workspace \
    --manifest-path "$repo/Cargo.toml" --no-run) >"$scratch/test.out" 2>&1 ||
    fail "the README's test command does not resolve from elsewhere: $(tail -n 20 "$scratch/test.out")"

step "--help of every command, and every manual page man names"
commands=$("$AGENT_HOOKS_BIN" --help | awk '/^Commands:/ { on = 1; next } on && /^$/ { exit } on { print $1 }')
[ "$(printf '%s\n' "$commands" | wc -l)" -gt 30 ] || fail "--help lists too few commands: $commands"
for command in $commands; do
    "$AGENT_HOOKS_BIN" "$command" --help >"$scratch/help.out" 2>&1 ||
        fail "agent-hooks $command --help exits $?: $(cat "$scratch/help.out")"
    grep -q "Usage: agent-hooks $command" "$scratch/help.out" || fail "$command --help shows no usage"
done
pages=$("$AGENT_HOOKS_BIN" man | tr -d '\\' | grep -o 'agent-hooks-[a-z-]*(1)' | sed 's/^agent-hooks-//; s/(1)$//' | sort -u)
[ -n "$pages" ] || fail "man names no command page"
for page in $pages; do
    "$AGENT_HOOKS_BIN" man "$page" | grep -q "^\.TH agent-hooks-$page 1" ||
        fail "man names agent-hooks-$page(1), which man $page does not produce"
done

# A tree's every file, directory and symlink: type, mode, and contents or target.
tree_of() {
    (cd "$1" && find . -mindepth 1 | LC_ALL=C sort | while IFS= read -r path; do
        if [ -L "$path" ]; then
            printf '%s link %s\n' "$path" "$(readlink "$path")"
        elif [ -d "$path" ]; then
            printf '%s dir %s\n' "$path" "$(stat -c %a "$path")"
        else
            printf '%s file %s %s\n' "$path" "$(stat -c %a "$path")" "$(sha256sum <"$path" | cut -c1-64)"
        fi
    done)
}

# The project file each agent's installer writes.
agent_file() {
    case "$1" in
        claude) echo .claude/settings.json ;;
        codex) echo .codex/hooks.json ;;
        gemini) echo .gemini/settings.json ;;
        cursor) echo .cursor/hooks.json ;;
        copilot) echo .github/hooks/agent-hooks.json ;;
        windsurf) echo .windsurf/hooks.json ;;
    esac
}

step "install + uninstall of every agent in a scratch home leaves every byte as it was"
for agent in claude codex gemini cursor copilot windsurf; do
    for setup in fresh own-file symlink; do
        home="$scratch/home-$agent-$setup"
        project="$home/project"
        mkdir -p "$project/.git"
        file="$project/$(agent_file "$agent")"
        case "$setup" in
            own-file)
                mkdir -p "$(dirname "$file")"
                printf '{"zeta":[1,2],"alpha":{"nested":true}}' >"$file"
                chmod 600 "$file"
                ;;
            symlink)
                mkdir -p "$(dirname "$file")" "$home/dotfiles"
                printf '{\n    "kept": "as is"\n}\n' >"$home/dotfiles/$agent.json"
                ln -s "$home/dotfiles/$agent.json" "$file"
                ;;
        esac
        before=$(tree_of "$home")
        (cd "$project" && env -u AGENT_HOOKS_WORKSPACE -u XDG_STATE_HOME -u XDG_CONFIG_HOME \
            HOME="$home" PATH="$bin_dir:$PATH" sh -c "agent-hooks $agent-install && agent-hooks $agent-uninstall") \
            >"$scratch/install.out" 2>&1 || fail "$agent ($setup): $(cat "$scratch/install.out")"
        after=$(tree_of "$home")
        if [ "$before" != "$after" ]; then
            printf '%s\n' "$before" >"$scratch/before"
            printf '%s\n' "$after" >"$scratch/after"
            fail "$agent ($setup): install + uninstall changed the tree:
$(diff "$scratch/before" "$scratch/after" || true)"
        fi
    done
    # In the home directory itself the file is the user's own: refused without --user.
    home="$scratch/home-$agent-user"
    mkdir -p "$home"
    if (cd "$home" && HOME="$home" "$AGENT_HOOKS_BIN" "$agent-install" >/dev/null 2>"$scratch/user.err"); then
        fail "$agent-install in \$HOME wrote the user's configuration without --user"
    fi
    grep -q -- '--user' "$scratch/user.err" || fail "$agent-install in \$HOME does not say --user"
done

if command -v python3 >/dev/null 2>&1; then
    step "python3 examples/hosts/agent_loop.py, with no argument, destroys nothing"
    (cd "$elsewhere" && python3 "$clone/examples/hosts/agent_loop.py") >"$scratch/loop.out" 2>&1 ||
        fail "the example agent loop failed: $(cat "$scratch/loop.out")"
    grep -q '^scratch file kept' "$scratch/loop.out" || fail "the agent loop's rm -rf was not blocked"
else
    step "skipped the example agent loop: python3 is not on PATH"
fi

# ---- Packaged installs -------------------------------------------------------------------
# The pip wheel and the npm tarball, installed as a newcomer would: each script under
# packaging/ named here builds its package from the clone, installs it into a scratch prefix
# and checks `agent-hooks --version` and the client's import. They run when they exist.
packaged_installs() {
    # The packages are built from this checkout (not the clone) so that cargo reuses the build
    # CI already made; packaging/check.sh says `skipped: <part>: <reason>` where a tool is absent.
    if [ -f "$repo/packaging/check.sh" ]; then
        step "packaging/check.sh: the pip wheel and the npm tarball, installed and used"
        (cd "$repo" && sh packaging/check.sh) || fail "packaging/check.sh failed"
    else
        step "no packaging/check.sh: the pip and npm installs are not played"
    fi
}
packaged_installs

step "done: nothing surprising, nothing destroyed, nothing left behind"
