#!/bin/sh
# When a tool's output shows failing tests, reminds the agent not to claim success.
cat > /dev/null
echo '{"note": "Note from a hook: the output shows failing tests; fix them before saying it works."}'
