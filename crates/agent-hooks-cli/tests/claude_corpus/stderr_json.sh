#!/bin/sh
# PreToolUse: a common mistake — the JSON goes to stderr, with exit 2. Claude Code does not parse
# stderr: exit 2 blocks and the raw stderr text is the reason.
cat > /dev/null
echo '{"decision": "block", "reason": "no tools during the freeze"}' >&2
exit 2
