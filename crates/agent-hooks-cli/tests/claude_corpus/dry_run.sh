#!/usr/bin/env bash
# PreToolUse (Bash): turn `terraform apply` into `terraform plan`. No decision, only updatedInput,
# which keeps every other key of the input (Claude Code replaces the whole input with it).
input=$(cat)
command=$(printf '%s' "$input" | jq -r '.tool_input.command')
case "$command" in
    "terraform apply"*)
        printf '%s' "$input" | jq -c '{hookSpecificOutput: {hookEventName: "PreToolUse",
            updatedInput: (.tool_input + {command: (.tool_input.command | sub("^terraform apply"; "terraform plan"))})}}'
        ;;
esac
exit 0
