#!/usr/bin/env node
// PreToolUse (Bash): pushing is the user's call.
let raw = "";
process.stdin.on("data", (chunk) => (raw += chunk));
process.stdin.on("end", () => {
  const input = JSON.parse(raw);
  const command = (input.tool_input && input.tool_input.command) || "";
  if (/\bgit\s+push\b/.test(command)) {
    console.log(JSON.stringify({
      hookSpecificOutput: {
        hookEventName: "PreToolUse",
        permissionDecision: "ask",
        permissionDecisionReason: `Confirm the push: ${command}`,
      },
    }));
  }
  process.exit(0);
});
