#!/usr/bin/env python3
"""PreToolUse (Read), the old way: top-level decision approve / block."""
import json
import sys

data = json.load(sys.stdin)
path = data.get("tool_input", {}).get("file_path", "")
if path.startswith("/etc/shadow") or path.endswith("id_rsa"):
    print(json.dumps({"decision": "block", "reason": f"reading {path} is not allowed"}))
elif path.endswith(".md"):
    print(json.dumps({"decision": "approve", "reason": "documentation is always readable"}))
