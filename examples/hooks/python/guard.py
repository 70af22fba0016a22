#!/usr/bin/env python3
"""pre_tool_call guard: blocks a shell command that would delete the filesystem root."""
import json
import sys

payload = json.load(sys.stdin)
command = payload.get("tool_input", {}).get("command", "")
if "rm -rf /" in command:
    print(json.dumps({"decision": "block",
                      "reason": "refusing to run rm -rf / (it deletes everything)"}))
# No output: continue, no change.
