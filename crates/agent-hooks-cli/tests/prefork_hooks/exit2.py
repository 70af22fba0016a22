# A Claude Code PreToolUse hook: exit 2 and a reason on stderr block the tool call.
import json
import re
import sys

data = json.load(sys.stdin)
command = data.get("tool_input", {}).get("command", "")
if re.search(r"\bgit\s+push\b.*--force", command):
    print("force-push is not allowed here; push without --force", file=sys.stderr)
    sys.exit(2)
sys.exit(0)
