#!/usr/bin/env node
// on_stop verifier: refuses to stop when the reply claims passing tests that never ran.
let input = "";
process.stdin.on("data", (chunk) => (input += chunk));
process.stdin.on("end", () => {
  const payload = JSON.parse(input);
  if (payload.stop_hook_active) return; // already redoing: let the turn end, never loop
  const claims = (payload.response || "").toLowerCase().includes("tests pass");
  const ranTests = (payload.tool_names || []).includes("run_tests");
  if (claims && !ranTests) {
    console.log(JSON.stringify({
      decision: "block",
      reason: "You said the tests pass but ran none this turn. Run them, then answer again.",
    }));
  }
});
