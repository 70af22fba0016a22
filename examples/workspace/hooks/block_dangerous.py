#!/usr/bin/env python3
"""Blocks shell commands that destroy data irreversibly (a pre_tool_call guard)."""
import json
import re
import sys

DANGEROUS = [
    (re.compile(r"\brm\s+(-[a-zA-Z]*r[a-zA-Z]*f|-[a-zA-Z]*f[a-zA-Z]*r)\w*\s+(/|~|\$HOME)(\s|$)"),
     "recursive force-delete of / or the home directory"),
    (re.compile(r"\bdd\s+.*\bof=/dev/(sd|nvme|hd|vd)"), "dd onto a block device"),
    (re.compile(r"\bmkfs(\.\w+)?\s"), "formatting a filesystem"),
]

payload = json.load(sys.stdin)
command = payload.get("tool_input", {}).get("command", "")
for pattern, what in DANGEROUS:
    if pattern.search(command):
        print(json.dumps({"decision": "block", "reason": f"blocked: {what} ({command!r})"}))
        sys.exit(0)
# Empty stdout: continue, no change.
