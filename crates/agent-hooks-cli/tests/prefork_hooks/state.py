# Module state is fresh on every call; state kept on purpose goes to STATE_DIR.
import json
import os
import sys

CALLS = []
CALLS.append(1)
counter = os.path.join(os.environ["STATE_DIR"], "count")
try:
    with open(counter) as f:
        seen = int(f.read())
except FileNotFoundError:
    seen = 0
with open(counter, "w") as f:
    f.write(str(seen + 1))
log = open(os.path.join(os.environ["STATE_DIR"], "log.txt"), "a")
log.write("call %d\n" % (seen + 1))  # never closed: flushed when the interpreter ends
json.load(sys.stdin)
print(json.dumps({"context": "module calls %d, call %d" % (len(CALLS), seen + 1)}))
