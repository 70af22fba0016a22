#!/usr/bin/env python3
"""PreToolUse (Edit|Write): never let the agent touch .env files."""
import json
import sys

data = json.load(sys.stdin)
path = data.get("tool_input", {}).get("file_path", "")
if path.endswith(".env") or "/.env." in path:
    print(json.dumps({
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": f"{path} holds secrets; edit .env.example instead",
        }
    }))
sys.exit(0)
