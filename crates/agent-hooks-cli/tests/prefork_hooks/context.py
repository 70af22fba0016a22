# Reads what a hook is given besides stdin: argv, environment, working directory, files next
# to the script and relative to the working directory, its module identity and streams.
import json
import os
import sys

payload = json.load(sys.stdin)
here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "words.txt")) as f:
    words = f.read().split()
with open("config/shell_hooks.yaml") as f:
    declared = f.read().count("event:")
answer = {
    "name": __name__,
    "file": __file__,
    "argv": sys.argv,
    "cwd": os.getcwd(),
    "hook": os.environ.get("HOOK_NAME"),
    "event": os.environ.get("HOOK_EVENT"),
    "level": os.environ.get("GUARD_LEVEL"),
    "state": os.path.isdir(os.environ["STATE_DIR"]) or os.environ["STATE_DIR"],
    "words": words,
    "declared": declared,
    "path0": sys.path[0] == here,
    "stdin": [sys.stdin.name, sys.stdin.encoding, sys.stdout.name, sys.stderr.errors],
    "main_loaded": sys.modules["__main__"].__dict__ is globals(),
    "spec": repr(__spec__),
    "tool": payload.get("tool_name"),
}
print(json.dumps({"context": json.dumps(answer, sort_keys=True)}))
