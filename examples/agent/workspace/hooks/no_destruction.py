#!/usr/bin/env python3
"""Refuses recursive force-deletes of the root or home directory."""
import json
import re
import sys

payload = json.load(sys.stdin)
command = payload.get("tool_input", {}).get("command", "")
if re.search(r"rm\s+-rf\s+(/|~|\$HOME)(\s|$)", command):
    print(json.dumps({"decision": "block", "reason": f"refusing to run {command!r}: it destroys data"}))
