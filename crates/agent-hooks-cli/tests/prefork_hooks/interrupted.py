# A hook stopped by Ctrl-C: an uncaught KeyboardInterrupt ends `python3 script.py` by SIGINT
# itself, after its traceback.
import json
import sys

json.load(sys.stdin)
print("stopping", file=sys.stderr)
raise KeyboardInterrupt
