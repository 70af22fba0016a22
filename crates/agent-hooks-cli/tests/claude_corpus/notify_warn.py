#!/usr/bin/env python3
"""Notification: keep a log and show the user a one-line summary."""
import json
import os
import sys

data = json.load(sys.stdin)
with open(os.path.join(os.environ["CLAUDE_PROJECT_DIR"], ".claude", "notifications.log"), "a") as f:
    f.write(data.get("notification_type", "") + ": " + data.get("message", "") + "\n")
print(json.dumps({"systemMessage": "notified: " + data.get("message", ""), "suppressOutput": True}))
