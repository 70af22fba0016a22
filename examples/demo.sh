#!/bin/sh
# Runs the example workspace: approves its hooks for this checkout (approvals pin the programs
# and file contents found here, so they are made here rather than committed), then fires each
# example payload and prints the outcome. AGENT_HOOKS_BIN=<path> runs that binary instead of
# building one. Its hooks need only sh and grep. It exits non-zero when a
# hook could not run or misbehaved, so a demo that "works" by failing open cannot pass.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
ws="$here/workspace"
if [ -n "${AGENT_HOOKS_BIN:-}" ]; then
    # A binary already built or installed: the demo runs it as it is.
    bin=$AGENT_HOOKS_BIN
else
    # From any directory: the build is named by its manifest, and the binary is where cargo says
    # it put it (CARGO_TARGET_DIR, a relative one, a config's target-dir or a --target triple
    # all move it). The dev profile is the one `cargo test` builds, so the tests reuse this build.
    bin=$(cargo build -q -p agent-hooks-cli --bin agent-hooks --manifest-path "$here/../Cargo.toml" \
        --message-format=json-render-diagnostics |
        sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | tail -n 1)
    if [ -z "$bin" ]; then
        echo "demo: cargo built agent-hooks but did not say where (no executable in its report)" >&2
        exit 1
    fi
fi
"$bin" --workspace "$ws" approve hooks/block_dangerous.sh
"$bin" --workspace "$ws" approve hooks/project_context.sh
failed=0
for payload in "$ws"/payloads/*.json; do
    name=$(basename "$payload" .json)
    event=${name%%.*}
    echo "== $name"
    outcome=$("$bin" --workspace "$ws" fire "$event" < "$payload")
    echo "$outcome"
    # Every hook report has a status; these mean the hook did not answer as written.
    case "$outcome" in
        *'"status":"error"'* | *'"status":"timeout"'* | *'"status":"invalid_output"'*)
            echo "demo: a hook of $name could not run (see its status and detail above)" >&2
            failed=1
            ;;
    esac
done
if [ "$failed" -ne 0 ]; then
    exit 1
fi
echo "== every example hook ran"
