// The team console's login: the operator token is sent once, as JSON, and traded for an
// HttpOnly session cookie; the page then opens the console.
"use strict";

document.addEventListener("DOMContentLoaded", () => {
  document.getElementById("login").addEventListener("submit", async e => {
    e.preventDefault();
    const state = document.getElementById("login-state");
    const answer = await fetch("/login", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ token: document.getElementById("token").value }),
    });
    const json = await answer.json();
    if (json.ok) location.assign("/");
    else state.textContent = json.error;
  });
});
