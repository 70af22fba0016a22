#!/usr/bin/env bash
# PreToolUse (Bash): refuse recursive force deletes. Exit 2 = block, stderr = the reason.
set -euo pipefail
command=$(jq -r '.tool_input.command // ""')
if [[ "$command" =~ rm[[:space:]]+-(rf|fr)[[:space:]] ]]; then
    echo "Blocked: '$command' deletes recursively; delete specific files instead." >&2
    exit 2
fi
exit 0
