# The answer comes from a non-daemon thread and an atexit handler, after the body returned.
import atexit
import json
import sys
import threading
import time

parts = []
payload = json.load(sys.stdin)


def worker():
    time.sleep(0.2)
    parts.append("thread")


threading.Thread(target=worker).start()
atexit.register(lambda: print(json.dumps({"context": "+".join(parts + ["atexit"]), "add_warning": payload.get("tool_name")})))
