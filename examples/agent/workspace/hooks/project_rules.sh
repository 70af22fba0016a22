#!/bin/sh
# Adds the project's rules to every user message.
cat > /dev/null
echo '{"context": "Rule: never delete files outside the repository."}'
