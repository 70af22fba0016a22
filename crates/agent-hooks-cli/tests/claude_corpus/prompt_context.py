#!/usr/bin/env python3
"""UserPromptSubmit: plain stdout (exit 0) is added as context for the model."""
import json
import sys

data = json.load(sys.stdin)
words = len(data.get("prompt", "").split())
print(f"Reminder: answer in English. (The prompt had {words} words.)")
