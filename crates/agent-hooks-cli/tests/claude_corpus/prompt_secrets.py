#!/usr/bin/env python3
"""UserPromptSubmit: refuse prompts that carry a credential."""
import json
import re
import sys

data = json.load(sys.stdin)
if re.search(r"(?i)\b(password|api[_-]?key)\s*[:=]", data.get("prompt", "")):
    print(json.dumps({
        "decision": "block",
        "reason": "The prompt contains a credential; remove it and resend.",
    }))
    sys.exit(0)
