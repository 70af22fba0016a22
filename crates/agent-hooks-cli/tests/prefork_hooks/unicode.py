# Non-ASCII in and out, stdout written in pieces without a newline, stderr noise, exit 0.
import json
import sys

data = json.loads(sys.stdin.buffer.read().decode("utf-8"))
sys.stderr.write("checked: %s\n" % data.get("message", "")[:20])
sys.stdout.write('{"context": ')
sys.stdout.write(json.dumps("vu: " + data.get("message", "") + " ✓", ensure_ascii=False))
sys.stdout.write("}")
