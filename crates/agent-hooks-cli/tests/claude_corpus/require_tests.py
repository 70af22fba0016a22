#!/usr/bin/env python3
"""Stop: do not stop until the transcript shows a test run. Respects stop_hook_active so it
never loops forever."""
import json
import os
import sys

data = json.load(sys.stdin)
if data.get("stop_hook_active"):
    sys.exit(0)
transcript = data.get("transcript_path", "")
text = ""
if transcript and os.path.exists(transcript):
    with open(transcript, encoding="utf-8") as f:
        text = f.read()
if "tests passed" not in text:
    print(json.dumps({
        "decision": "block",
        "reason": "Run the test suite and report the result before finishing.",
    }))
