#!/usr/bin/env node
// pre_tool_call guard: blocks a shell command that would delete the filesystem root.
let input = "";
process.stdin.on("data", (chunk) => (input += chunk));
process.stdin.on("end", () => {
  const payload = JSON.parse(input);
  const command = (payload.tool_input || {}).command || "";
  if (command.includes("rm -rf /")) {
    console.log(JSON.stringify({
      decision: "block",
      reason: "refusing to run rm -rf / (it deletes everything)",
    }));
  }
});
