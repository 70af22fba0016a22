# Reads a payload larger than a pipe holds, to its end, and says what it got; or, asked to,
# answers without reading it at all.
import hashlib
import json
import os
import sys

if os.environ.get("HOOK_EVENT") == "on_session_start":
    print(json.dumps({"context": "did not read the input"}))
    sys.exit(0)
raw = sys.stdin.buffer.read()
data = json.loads(raw)
digest = hashlib.sha256(data["message"].encode()).hexdigest()[:16]
print(json.dumps({"context": "%d chars, sha256 %s" % (len(data["message"]), digest)}))
