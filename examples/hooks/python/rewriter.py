#!/usr/bin/env python3
"""on_user_message rewriter: replaces e-mail addresses before the model sees the message."""
import json
import re
import sys

payload = json.load(sys.stdin)
message = payload.get("message", "")
redacted = re.sub(r"[\w.+-]+@[\w-]+\.[\w.]+", "[email]", message)
if redacted != message:
    print(json.dumps({"message": redacted}))
