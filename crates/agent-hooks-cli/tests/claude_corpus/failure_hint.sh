#!/usr/bin/env bash
# PostToolUseFailure (Bash): exit 2 feeds stderr back to the model.
error=$(jq -r '.error // ""')
if [[ "$error" == *"command not found"* ]]; then
    echo "Hint: install missing tools with ./scripts/bootstrap.sh" >&2
    exit 2
fi
