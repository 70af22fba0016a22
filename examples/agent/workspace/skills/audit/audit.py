import json
import os
import sys

# A skill hook: records every tool call next to itself and leaves the event unchanged.
event = json.loads(sys.stdin.readline())
with open(os.path.join(os.environ["STATE_DIR"], "audit.jsonl"), "a") as log:
    log.write(json.dumps({"tool": event.get("tool"), "status": event.get("status")}) + "\n")
