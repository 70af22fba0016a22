#!/bin/sh
# Greets the session with a line of context for the model.
cat > /dev/null
echo '{"context": "This repository uses cargo; run cargo test before claiming a fix works."}'
