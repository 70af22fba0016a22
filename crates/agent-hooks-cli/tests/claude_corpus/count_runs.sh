#!/bin/sh
# Counts its runs: one line per run in the file named by its first argument.
cat > /dev/null
echo run >> "$1"
