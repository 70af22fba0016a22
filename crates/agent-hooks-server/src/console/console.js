// The console's pages: the live decisions (server-sent events) and the declared hooks.
// Every POST carries the session's CSRF token; the cookie itself is HttpOnly.
"use strict";

let csrf = "";
let paused = false;
const held = [];
// What each page loads when it is shown; the pages' own scripts add theirs.
const loaders = {};

function text(tag, value, cls) {
  const el = document.createElement(tag);
  el.textContent = value == null ? "" : String(value);
  if (cls) el.className = cls;
  return el;
}

function show(page) {
  if (!document.getElementById(page)) page = "live";
  for (const section of document.querySelectorAll("main > section")) {
    section.hidden = section.id !== page;
    const link = document.getElementById("nav-" + section.id);
    if (link) link.classList.toggle("current", section.id === page);
  }
  if (loaders[page]) loaders[page]();
}

function matches(row) {
  const want = document.getElementById("filter").value.trim().toLowerCase();
  return !want || row.textContent.toLowerCase().includes(want);
}

function addDecision(d) {
  const tr = document.createElement("tr");
  tr.className = "decision" + (d.lapses && d.lapses.length ? " lapse" : "");
  tr.appendChild(text("td", new Date(d.time * 1000).toLocaleTimeString()));
  tr.appendChild(text("td", d.agent));
  tr.appendChild(text("td", d.session));
  tr.appendChild(text("td", d.event));
  tr.appendChild(text("td", d.tool));
  tr.appendChild(text("td", d.decision, "decision-" + d.decision));
  const hooks = (d.hooks || []).map(h => `${h.hook} ${h.status} ${h.ms.toFixed(1)} ms`).join(", ");
  const lapses = (d.lapses || []).map(l => l.message || l.kind).join("; ");
  tr.appendChild(text("td", lapses ? `${hooks} — lapse: ${lapses}` : hooks));
  tr.hidden = !matches(tr);
  const body = document.getElementById("decisions");
  body.insertBefore(tr, body.firstChild);
}

function live() {
  const state = document.getElementById("live-state");
  const source = new EventSource("/api/live");
  source.onopen = () => { state.textContent = "live"; };
  source.onerror = () => { state.textContent = "reconnecting…"; };
  source.addEventListener("decision", e => {
    const d = JSON.parse(e.data);
    if (paused) held.push(d); else addDecision(d);
  });
}

async function post(path, body) {
  const answer = await fetch(path, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
    body: JSON.stringify(body),
  });
  const json = await answer.json();
  if (!json.ok) throw new Error(json.error);
  return json;
}

loaders.hooks = () => loadHooks();

async function loadHooks() {
  const state = document.getElementById("hooks-state");
  const answer = await fetch("/api/hooks");
  const json = await answer.json();
  const rows = document.getElementById("hook-rows");
  rows.replaceChildren();
  if (!json.ok) { state.textContent = json.error; return; }
  state.textContent = json.master_enabled ? "hooks are on" : "hooks are off (agent-hooks on)";
  for (const h of json.hooks) {
    const tr = document.createElement("tr");
    tr.dataset.hook = h.name;
    tr.appendChild(text("td", h.name));
    tr.appendChild(text("td", (h.events || []).join(", ")));
    const ok = h.health === "approved" || h.health === "no_approval_needed";
    tr.appendChild(text("td", h.why ? `${h.health}: ${h.why}` : h.health, ok ? "health-ok" : "health-bad"));
    tr.appendChild(text("td", h.line ? `${h.file}:${h.line}` : h.file));
    const run = document.createElement("td");
    run.appendChild(text("code", h.run));
    tr.appendChild(run);
    const actions = document.createElement("td");
    if (h.approval_key && h.health === "changed") {
      // A changed hook is approved only after its changes are on the screen.
      const review = text("button", "Review changes", "review");
      review.type = "button";
      review.onclick = () => reviewChanges(h, tr, state);
      actions.appendChild(review);
    } else if (h.approval_key) {
      const approved = (h.approved_events || []).length > 0;
      const button = text("button", approved ? "Revoke" : "Approve", approved ? "revoke" : "approve");
      button.type = "button";
      button.onclick = async () => {
        try {
          await post(approved ? "/api/hooks/revoke" : "/api/hooks/approve", { key: h.approval_key });
          state.textContent = `${approved ? "revoked" : "approved"} ${h.name}`;
          loadHooks();
        } catch (e) { state.textContent = e.message; }
      };
      actions.appendChild(button);
    }
    tr.appendChild(actions);
    rows.appendChild(tr);
  }
}

// A line diff (longest common subsequence): "  " kept, "- " approved only, "+ " new.
function diffLines(before, after) {
  const a = before.split("\n"), b = after.split("\n");
  const n = a.length, m = b.length;
  const common = Array.from({ length: n + 1 }, () => new Array(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      common[i][j] = a[i] === b[j] ? common[i + 1][j + 1] + 1 : Math.max(common[i + 1][j], common[i][j + 1]);
  const out = [];
  let i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) { out.push(["  ", a[i]]); i++; j++; }
    else if (j < m && (i === n || common[i][j + 1] >= common[i + 1][j])) { out.push(["+ ", b[j]]); j++; }
    else { out.push(["- ", a[i]]); i++; }
  }
  return out;
}

async function reviewChanges(h, tr, state) {
  const answer = await (await fetch("/api/hooks/changes?key=" + encodeURIComponent(h.approval_key))).json();
  if (!answer.ok) { state.textContent = answer.error; return; }
  const cell = document.createElement("td");
  cell.colSpan = 6;
  cell.appendChild(text("p", h.why));
  for (const f of answer.files.filter(f => f.changed)) {
    cell.appendChild(text("h3", f.path));
    const pre = document.createElement("pre");
    pre.className = "diff";
    if (f.approved == null) {
      pre.appendChild(text("span", "(the approved text was not kept: approved before this version, or over 1 MiB)"));
    } else {
      for (const [mark, line] of diffLines(f.approved, f.now == null ? "" : f.now)) {
        pre.appendChild(text("span", mark + line + "\n", mark === "+ " ? "added" : mark === "- " ? "removed" : ""));
      }
    }
    cell.appendChild(pre);
  }
  const approve = text("button", "Approve these changes", "approve");
  approve.type = "button";
  approve.onclick = async () => {
    try {
      await post("/api/hooks/approve", { key: h.approval_key });
      state.textContent = `approved ${h.name}`;
      loadHooks();
    } catch (e) { state.textContent = e.message; }
  };
  cell.appendChild(approve);
  const row = document.createElement("tr");
  row.className = "changes";
  row.dataset.changesOf = h.name;
  row.appendChild(cell);
  tr.after(row);
}

document.addEventListener("DOMContentLoaded", async () => {
  const session = await (await fetch("/api/session")).json();
  csrf = session.csrf || "";
  document.getElementById("filter").addEventListener("input", () => {
    for (const tr of document.querySelectorAll("#decisions tr")) tr.hidden = !matches(tr);
  });
  document.getElementById("pause").addEventListener("click", e => {
    paused = !paused;
    e.target.textContent = paused ? "Resume" : "Pause";
    if (!paused) while (held.length) addDecision(held.shift());
  });
  document.getElementById("reload-hooks").addEventListener("click", loadHooks);
  window.addEventListener("hashchange", () => show(location.hash.slice(1) || "live"));
  show(location.hash.slice(1) || "live");
  live();
});
