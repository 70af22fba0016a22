#!/bin/sh
# Runs the example workspace: approves its hooks for this checkout (approvals record absolute
# paths and file times, so they are made here rather than committed), then fires each example
# payload and prints the outcome.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
ws="$here/workspace"
cargo build -q --release -p agent-hooks-cli
bin="$here/../target/release/agent-hooks"
"$bin" --workspace "$ws" approve hooks/block_dangerous.py
"$bin" --workspace "$ws" approve hooks/project_context.sh
for payload in "$ws"/payloads/*.json; do
    name=$(basename "$payload" .json)
    event=${name%%.*}
    echo "== $name"
    "$bin" --workspace "$ws" fire "$event" < "$payload"
done
