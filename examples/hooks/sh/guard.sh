#!/bin/sh
# pre_tool_call guard: blocks a shell command that would delete the filesystem root.
# Needs jq. Exit 2 with a reason on stderr is a block too (the Claude Code convention).
command=$(jq -r '.tool_input.command // ""')
case "$command" in
    *"rm -rf /"*)
        echo '{"decision": "block", "reason": "refusing to run rm -rf / (it deletes everything)"}'
        ;;
esac
