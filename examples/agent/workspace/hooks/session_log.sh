#!/bin/sh
# Appends one line per finished session to the hook's state directory.
payload=$(cat)
printf '%s\n' "$payload" >> "$STATE_DIR/sessions.jsonl"
