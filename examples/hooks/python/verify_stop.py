#!/usr/bin/env python3
"""on_stop verifier: refuses to stop when the reply claims passing tests that never ran."""
import json
import sys

payload = json.load(sys.stdin)
if payload.get("stop_hook_active"):
    sys.exit(0)  # already redoing because of a hook: let the turn end, never loop
claims = "tests pass" in payload.get("response", "").lower()
ran_tests = "run_tests" in payload.get("tool_names", [])
if claims and not ran_tests:
    print(json.dumps({"decision": "block",
                      "reason": "You said the tests pass but ran none this turn. "
                                "Run them, then answer again."}))
