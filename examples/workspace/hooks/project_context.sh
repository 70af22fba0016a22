#!/bin/sh
# Injects a line of project context into the prompt whenever a user message arrives.
# It does not need the payload, so it never reads stdin (that is fine).
branch=$(git -C "$AGENT_HOOKS_WORKSPACE" rev-parse --abbrev-ref HEAD 2>/dev/null || echo "none")
printf '{"context": "Project rules: run the tests before saying a change works. Current git branch: %s."}\n' "$branch"
