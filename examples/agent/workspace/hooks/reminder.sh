#!/bin/sh
# Reminds the model of one thing before each call.
cat > /dev/null
echo '{"context": "Reminder: say what you verified, not what you hope."}'
