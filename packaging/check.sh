#!/bin/sh
# Builds the Python wheel and the npm package from this checkout, installs each where a user
# would (a fresh venv; a scratch npm project), and checks what the user then has: `agent-hooks`
# on PATH answering `--version`, and the installed client dispatching an event through a sidecar
# to a real, approved hook that blocks it. Nothing is left in the checkout, and nothing is
# downloaded: the builds are offline and the installs come from the files just built.
#
# Usage: sh packaging/check.sh [wheel] [npm]        (both when neither is named)
#
# AGENT_HOOKS_PROFILE   cargo profile of the packaged binary (default dist, what a release
#                       ships; dev reuses the binary `cargo test` has built)
# AGENT_HOOKS_BINARY    an agent-hooks already built, packaged as it is into the npm package
#                       (the wheel is always built by maturin, through cargo)
# CARGO_TARGET_DIR      where cargo builds (default target/ in the checkout)
# AGENT_HOOKS_MATURIN   maturin to build the wheel with (default: maturin on PATH)
# AGENT_HOOKS_TSC       tsc to compile the TypeScript client with (default: tsc on PATH)
# AGENT_HOOKS_SDK_WHEEL a wheel of agent-hooks-sdk, installed into the same venv first to show
#                       that the two distributions live side by side
#
# A part whose tools are missing is reported as "skipped: <part>: <reason>" and exits 0; a
# failed check exits 1. Each part that passes prints "<part>: ok" with the package's size.
set -eu

. "$(dirname "$0")/common.sh"

parts=${*:-wheel npm}
scratch=$(mktemp -d "${TMPDIR:-/tmp}/agent-hooks-packaging.XXXXXX")
trap 'rm -rf "$scratch"' EXIT INT TERM

# What the installed packages run sees a scratch HOME: approvals, the sidecar's token and socket
# go there, and the user's own agent settings (~/.claude, ...) are not read. The build tools keep
# the real one (cargo's, rustup's and pyenv's homes live under it).
unset XDG_RUNTIME_DIR XDG_STATE_HOME AGENT_HOOKS_BIN AGENT_HOOKS_APPROVALS AGENT_HOOKS_WORKSPACE \
    AGENT_HOOKS_STATE_DIR || true
mkdir -p "$scratch/home"
as_user() {
    env HOME="$scratch/home" npm_config_cache="$scratch/npm-cache" npm_config_update_notifier=false "$@"
}

# A workspace with one hook, `hooks/guard.sh`, that blocks `rm -rf /`: switched on and approved
# by the `agent-hooks` the package installed (given as $2), as the README's guide does it.
make_workspace() {
    ws=$1
    mkdir -p "$ws/config" "$ws/hooks"
    cat >"$ws/config/shell_hooks.yaml" <<'EOF'
hooks:
  - name: guard
    event: pre_tool_call
    command: hooks/guard.sh
EOF
    cat >"$ws/hooks/guard.sh" <<'EOF'
#!/bin/sh
case "$(cat)" in
  *'rm -rf /'*) echo '{"decision": "block", "reason": "no rm -rf /"}' ;;
esac
EOF
    chmod +x "$ws/hooks/guard.sh"
    (cd "$ws" && as_user "$2" on >/dev/null && as_user "$2" approve hooks/guard.sh >/dev/null) ||
        fail "the installed $2 could not switch on and approve the workspace's hook"
}

check_version() {
    said=$(as_user "$1" --version) || fail "$1 --version failed"
    [ "$said" = "agent-hooks $version" ] || fail "$1 --version said '$said', not 'agent-hooks $version'"
}

size_of() {
    du -k "$1" | awk '{ printf "%.1f MB", $1 / 1024 }'
}

# Everything in a directory except bytecode caches, which a test's interpreter may write at any time.
listing() {
    (cd "$1" && find . -name __pycache__ -prune -o -print | LC_ALL=C sort)
}

wheel() {
    maturin=${AGENT_HOOKS_MATURIN:-$(command -v maturin || true)}
    if [ -z "$maturin" ]; then
        echo "skipped: wheel: maturin not found (set AGENT_HOOKS_MATURIN or pip install maturin; .ci/run installs it)"
        return 0
    fi
    # pip builds through maturin's PEP 517 backend, which must be importable by the Python that
    # runs pip: the one maturin was installed with, else python3.
    py=""
    for candidate in "$(dirname "$maturin")/python" python3; do
        if "$candidate" -c "import maturin" >/dev/null 2>&1; then
            py=$candidate
            break
        fi
    done
    if [ -z "$py" ]; then
        echo "skipped: wheel: no Python beside $maturin can import maturin's build backend"
        return 0
    fi
    command -v python3 >/dev/null 2>&1 || fail "python3 is needed for the venv"

    # The same build as `pip install ./clients/python`, kept as a wheel file; it must leave
    # nothing in the checkout (setuptools used to leave build/ and *.egg-info there).
    # maturin asks `cargo metadata`, which resolves the dependencies of every platform, not
    # only those this build compiles: they are fetched first (from the lock file), so the
    # build itself runs offline.
    cargo fetch --locked --manifest-path "$repo/Cargo.toml" >/dev/null ||
        fail "cargo fetch --locked failed: the wheel's build needs every locked crate"
    before=$(listing "$repo/clients/python")
    PATH="$(dirname "$maturin"):$PATH" CARGO_TARGET_DIR="$target" "$py" -m pip wheel \
        --quiet --no-build-isolation --no-deps --no-index --wheel-dir "$scratch/wheels" \
        --config-settings "build-args=--profile $profile --offline" "$repo/clients/python" ||
        fail "building the wheel failed"
    after=$(listing "$repo/clients/python")
    if [ "$before" != "$after" ]; then
        printf '%s\n' "$before" >"$scratch/before"
        printf '%s\n' "$after" >"$scratch/after"
        fail "building the wheel left files in clients/python:
$(diff "$scratch/before" "$scratch/after" | sed -n 's/^> /  /p')"
    fi
    set -- "$scratch"/wheels/agent_hooks_runtime-"$version"-*.whl
    [ -f "$1" ] || fail "no agent_hooks_runtime-$version wheel in $(ls "$scratch/wheels")"
    whl=$1

    venv="$scratch/venv"
    python3 -m venv "$venv" || fail "python3 -m venv failed"
    if [ -n "${AGENT_HOOKS_SDK_WHEEL:-}" ]; then
        "$venv/bin/pip" install --quiet --no-index --no-deps "$AGENT_HOOKS_SDK_WHEEL" ||
            fail "installing $AGENT_HOOKS_SDK_WHEEL failed"
    fi
    "$venv/bin/pip" install --quiet --no-index "$whl" || fail "pip install $whl failed"

    # As an activated venv has it: the venv's scripts first on PATH.
    found=$(PATH="$venv/bin:$PATH" command -v agent-hooks)
    [ "$found" = "$venv/bin/agent-hooks" ] || fail "agent-hooks on PATH is '$found', not the venv's"
    check_version "$venv/bin/agent-hooks"
    make_workspace "$scratch/wheel-ws" "$venv/bin/agent-hooks"

    cat >"$scratch/dispatch.py" <<'EOF'
import os, sys
import agent_hooks_runtime
import agent_hooks_runtime.integrations.open_strix
from agent_hooks_runtime import AgentHooks, Sidecar

venv, workspace = sys.argv[1], sys.argv[2]
for module in (agent_hooks_runtime, agent_hooks_runtime.integrations.open_strix):
    if not os.path.realpath(module.__file__).startswith(os.path.realpath(venv) + os.sep):
        sys.exit(f"{module.__name__} was imported from {module.__file__}, not from the venv")
if os.environ.get("AGENT_HOOKS_SDK_WHEEL"):
    import agent_hooks  # agent-hooks-sdk's package, beside ours

    if not os.path.realpath(agent_hooks.__file__).startswith(os.path.realpath(venv) + os.sep):
        sys.exit(f"agent_hooks was imported from {agent_hooks.__file__}")
with Sidecar.start(workspace) as sidecar:
    # Found with the venv not activated: the binary the wheel installed beside this client.
    exe = f"/proc/{sidecar.process.pid}/exe"
    mine = os.path.realpath(os.path.join(venv, "bin", "agent-hooks"))
    if os.path.exists(exe) and os.path.realpath(exe) != mine:
        sys.exit(f"the sidecar runs {os.path.realpath(exe)}, not {mine}")
    with AgentHooks(sidecar.url) as hooks:
        outcome = hooks.dispatch("pre_tool_call", {"tool_name": "bash", "tool_input": {"command": "rm -rf /"}})
if (outcome.decision, outcome.reason) != ("block", "no rm -rf /"):
    sys.exit(f"the guard did not block through the installed client: {outcome}")
EOF
    (cd "$scratch" && as_user "$venv/bin/python" "$scratch/dispatch.py" "$venv" "$scratch/wheel-ws") ||
        fail "the installed Python client could not dispatch through the installed agent-hooks"
    with_sdk=""
    [ -z "${AGENT_HOOKS_SDK_WHEEL:-}" ] || with_sdk=", beside agent-hooks-sdk"
    echo "wheel: ok ($(basename "$whl"), $(size_of "$whl"); agent-hooks $(size_of "$venv/bin/agent-hooks")$with_sdk)"
}

npm_package() {
    tsc=${AGENT_HOOKS_TSC:-$(command -v tsc || true)}
    for tool in node npm; do
        if ! command -v "$tool" >/dev/null 2>&1; then
            echo "skipped: npm: $tool not found (.ci/run installs it)"
            return 0
        fi
    done
    if [ -z "$tsc" ]; then
        echo "skipped: npm: tsc not found (set AGENT_HOOKS_TSC; .ci/run installs it)"
        return 0
    fi
    tarball=$(AGENT_HOOKS_PROFILE=$profile CARGO_TARGET_DIR=$target AGENT_HOOKS_TSC=$tsc \
        sh "$repo/packaging/npm-pack.sh" "$scratch/npm-out") || fail "building the npm package failed"

    # A user's project that installs the tarball (offline: the package has no dependencies).
    project="$scratch/project"
    mkdir -p "$project"
    (cd "$project" && as_user npm init -y >/dev/null &&
        as_user npm install --silent --offline --no-audit --no-fund "$tarball" >/dev/null) ||
        fail "npm install $tarball failed"
    said=$(cd "$project" && as_user npx --offline agent-hooks-runtime --version) ||
        fail "npx agent-hooks-runtime --version failed"
    [ "$said" = "agent-hooks $version" ] || fail "npx agent-hooks-runtime --version said '$said'"
    check_version "$project/node_modules/.bin/agent-hooks"
    make_workspace "$scratch/npm-ws" "$project/node_modules/.bin/agent-hooks"

    cat >"$project/dispatch.js" <<'EOF'
const { AgentHooks, Sidecar } = require("agent-hooks-runtime");
const fs = require("node:fs");
const path = require("node:path");

(async () => {
  const where = require.resolve("agent-hooks-runtime");
  if (!where.startsWith(path.join(__dirname, "node_modules") + path.sep)) {
    throw new Error(`agent-hooks-runtime resolved to ${where}, not the installed package`);
  }
  const sidecar = await Sidecar.start(process.argv[2]);
  // Found with nothing on PATH: the binary the package carries.
  const exe = `/proc/${sidecar.process.pid}/exe`;
  const mine = fs.realpathSync(path.join(__dirname, "node_modules", "agent-hooks-runtime", "bin", "agent-hooks"));
  if (fs.existsSync(exe) && fs.realpathSync(exe) !== mine) {
    throw new Error(`the sidecar runs ${fs.realpathSync(exe)}, not ${mine}`);
  }
  const hooks = new AgentHooks(sidecar.url);
  const outcome = await hooks.dispatch("pre_tool_call", { tool_name: "bash", tool_input: { command: "rm -rf /" } });
  hooks.close();
  await sidecar.stop();
  if (outcome.decision !== "block" || outcome.reason !== "no rm -rf /") {
    throw new Error(`the guard did not block through the installed client: ${JSON.stringify(outcome)}`);
  }
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
EOF
    (cd "$project" && as_user node dispatch.js "$scratch/npm-ws") ||
        fail "the installed TypeScript client could not dispatch through the installed agent-hooks"
    echo "npm: ok ($(basename "$tarball"), $(size_of "$tarball"); agent-hooks $(size_of "$project/node_modules/agent-hooks-runtime/bin/agent-hooks"))"
}

for part in $parts; do
    case "$part" in
        wheel) wheel ;;
        npm) npm_package ;;
        *) fail "unknown part '$part' (wheel, npm)" ;;
    esac
done
