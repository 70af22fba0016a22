#!/usr/bin/env python3
"""PreToolUse (Bash): this repository uses pnpm. Rewrites the command and approves it."""
import json
import re
import sys

data = json.load(sys.stdin)
command = data["tool_input"].get("command", "")
if re.match(r"^npm\s", command):
    print(json.dumps({
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "allow",
            "permissionDecisionReason": "npm is pnpm here",
            # Claude Code replaces the whole tool input with this object.
            "updatedInput": {"command": "pnpm " + command[4:]},
        }
    }))
