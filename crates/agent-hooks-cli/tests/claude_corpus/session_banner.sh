#!/bin/sh
# SessionStart: plain stdout is added to the context. Never reads its input.
echo "Branch: main. Open tasks: see TODO.md."
