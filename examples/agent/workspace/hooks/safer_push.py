#!/usr/bin/env python3
"""Rewrites a force push into --force-with-lease, which cannot overwrite others' work."""
import json
import sys

payload = json.load(sys.stdin)
command = payload["tool_input"].get("command", "")
if "git push --force" in command and "--force-with-lease" not in command:
    safer = command.replace("--force", "--force-with-lease")
    print(json.dumps({"tool_input": {"command": safer}, "add_warning": "force push made safer"}))
