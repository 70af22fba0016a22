#!/usr/bin/env bash
# PostToolUse (*): append every tool call to the project's audit log.
set -eu
tool=$(jq -r '.tool_name')
printf '%s\t%s\t%s\n' "$tool" "$(pwd)" "$CLAUDE_PROJECT_DIR" >> "$CLAUDE_PROJECT_DIR/.claude/audit.log"
