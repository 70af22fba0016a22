#!/usr/bin/env python3
"""Masks anything that looks like an API key before a message leaves the machine."""
import json
import re
import sys

payload = json.load(sys.stdin)
text = payload.get("notification", "")
masked = re.sub(r"sk-[A-Za-z0-9]{8,}", "sk-…[masked]", text)
if masked != text:
    print(json.dumps({"notification": masked}))
