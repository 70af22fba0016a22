#!/usr/bin/env python3
"""Refuses to let a turn stop until the tests were run (once; respects stop_hook_active)."""
import json
import sys

payload = json.load(sys.stdin)
if payload.get("stop_hook_active"):
    sys.exit(0)
if "cargo_test" not in payload.get("tool_names", []):
    print(json.dumps({"decision": "block", "reason": "Run the tests (cargo_test) before you finish."}))
