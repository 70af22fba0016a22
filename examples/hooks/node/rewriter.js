#!/usr/bin/env node
// on_user_message rewriter: replaces e-mail addresses before the model sees the message.
let input = "";
process.stdin.on("data", (chunk) => (input += chunk));
process.stdin.on("end", () => {
  const message = JSON.parse(input).message || "";
  const redacted = message.replace(/[\w.+-]+@[\w-]+\.[\w.]+/g, "[email]");
  if (redacted !== message) {
    console.log(JSON.stringify({ message: redacted }));
  }
});
