#!/usr/bin/env node
// PostToolUse (Edit|Write): after a Python file is written, point out tabs to the model.
const fs = require("fs");
const input = JSON.parse(fs.readFileSync(0, "utf8"));
const file = (input.tool_input && input.tool_input.file_path) || "";
const content = (input.tool_input && (input.tool_input.content || input.tool_input.new_string)) || "";
if (file.endsWith(".py") && content.includes("\t")) {
  console.log(JSON.stringify({
    decision: "block",
    reason: `${file}: indentation uses tabs; convert to 4 spaces.`,
  }));
}
