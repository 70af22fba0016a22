#!/usr/bin/env node
// pre_llm_call context injector: adds a project rule to every model call.
process.stdin.resume(); // the payload is not needed, but read it
process.stdin.on("end", () => {
  console.log(JSON.stringify({
    context: "Project rule: run the tests before saying a change works.",
  }));
});
