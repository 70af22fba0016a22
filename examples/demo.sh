#!/bin/sh
# Runs the example workspace: approves its hooks for this checkout (approvals record absolute
# paths and file times, so they are made here rather than committed), then fires each example
# payload and prints the outcome. Its hooks need only sh and grep. It exits non-zero when a
# hook could not run or misbehaved, so a demo that "works" by failing open cannot pass.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
ws="$here/workspace"
# From any directory: the build is named by its manifest, the binary found where cargo puts it.
cargo build -q --release -p agent-hooks-cli --manifest-path "$here/../Cargo.toml"
bin="${CARGO_TARGET_DIR:-$here/../target}/release/agent-hooks"
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
