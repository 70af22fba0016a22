#!/usr/bin/env node
// SessionStart: JSON additionalContext. Never reads stdin.
console.log(JSON.stringify({
  hookSpecificOutput: {
    hookEventName: "SessionStart",
    additionalContext: "Coding standard: 4-space indents, no tabs.",
  },
}));
