# A hook with a bug: an uncaught exception (a traceback on stderr, a non-zero exit).
import json
import sys


def field(data):
    return data["tool_input"]["missing"]


field(json.load(sys.stdin))
