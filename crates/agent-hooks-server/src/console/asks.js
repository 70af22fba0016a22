// The Pending page: asks waiting for an operator, kept live from /api/asks/live, each answered
// with Allow or Deny and a note (a POST with the session's CSRF token).
"use strict";

(() => {
  let token = "";

  function cell(tag, value, cls) {
    const el = document.createElement(tag);
    el.textContent = value == null ? "" : String(value);
    if (cls) el.className = cls;
    return el;
  }

  function showPending() {
    const here = location.hash === "#asks";
    document.getElementById("asks").hidden = !here;
    document.getElementById("nav-asks").classList.toggle("current", here);
  }

  async function answer(ask, decision, note, state) {
    const reply = await fetch("/api/asks/answer", {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": token },
      body: JSON.stringify({ id: ask.id, decision, note }),
    });
    const json = await reply.json();
    state.textContent = json.ok ? `${decision === "allow" ? "allowed" : "denied"} ${ask.tool || ask.event}` : json.error;
  }

  function row(ask, state) {
    const tr = document.createElement("tr");
    tr.dataset.ask = ask.id;
    tr.appendChild(cell("td", new Date(ask.time * 1000).toLocaleTimeString()));
    tr.appendChild(cell("td", ask.agent));
    tr.appendChild(cell("td", ask.session));
    tr.appendChild(cell("td", ask.event));
    tr.appendChild(cell("td", ask.tool));
    const input = document.createElement("td");
    input.appendChild(cell("pre", JSON.stringify(ask.tool_input, null, 2), "ask-input"));
    tr.appendChild(input);
    tr.appendChild(cell("td", `${(ask.hooks || []).join(", ")}: ${ask.reason || "(no reason)"}`, "ask-reason"));
    tr.appendChild(cell("td", new Date(ask.deadline * 1000).toLocaleTimeString()));
    const actions = document.createElement("td");
    const note = document.createElement("input");
    note.type = "text";
    note.className = "note";
    note.placeholder = "note for the agent";
    actions.appendChild(note);
    for (const decision of ["allow", "deny"]) {
      const button = cell("button", decision === "allow" ? "Allow" : "Deny", decision);
      button.type = "button";
      button.onclick = () => answer(ask, decision, note.value, state).catch(e => { state.textContent = e.message; });
      actions.appendChild(button);
    }
    tr.appendChild(actions);
    return tr;
  }

  function render(list) {
    const state = document.getElementById("asks-state");
    if (!list.ok) { state.textContent = list.error; return; }
    const rows = document.getElementById("ask-rows");
    // Keep the notes being typed in rows that are still pending.
    const typed = new Map([...rows.querySelectorAll("tr")].map(tr => [tr.dataset.ask, tr.querySelector("input.note").value]));
    rows.replaceChildren(...list.asks.map(ask => {
      const tr = row(ask, state);
      if (typed.has(ask.id)) tr.querySelector("input.note").value = typed.get(ask.id);
      return tr;
    }));
    document.getElementById("nav-asks").textContent = list.asks.length ? `Pending (${list.asks.length})` : "Pending";
  }

  document.addEventListener("DOMContentLoaded", async () => {
    token = (await (await fetch("/api/session")).json()).csrf || "";
    window.addEventListener("hashchange", showPending);
    showPending();
    const state = document.getElementById("asks-state");
    const source = new EventSource("/api/asks/live");
    source.onopen = () => { state.textContent = "live"; };
    source.onerror = () => { state.textContent = "reconnecting…"; };
    source.addEventListener("asks", e => render(JSON.parse(e.data)));
  });
})();
