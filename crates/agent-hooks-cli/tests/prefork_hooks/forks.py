# A hook that forks a helper process which ends first, through sys.exit with a status of its
# own: the hook's status and answer are those of the process the runtime started, not its
# helper's.
import json
import os
import sys

payload = json.load(sys.stdin)
pid = os.fork()
if pid == 0:
    print("helper done", file=sys.stderr)
    sys.exit(7)
_, status = os.waitpid(pid, 0)
print(json.dumps({"context": "helper ended with %d" % os.waitstatus_to_exitcode(status)}))
sys.stdout.flush()
print("the hook ends with 3", file=sys.stderr)
sys.exit(3 if payload.get("fail") else 0)
