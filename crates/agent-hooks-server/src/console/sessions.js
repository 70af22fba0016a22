// The Sessions page: each session of the decision log, and one session's decisions in the
// order they were made, with what the audit of its transcript says of its coverage.
"use strict";

loaders.sessions = () => loadSessions();

async function loadSessions() {
  const state = document.getElementById("sessions-state");
  const json = await (await fetch("/api/sessions")).json();
  const rows = document.getElementById("session-rows");
  rows.replaceChildren();
  if (!json.ok) { state.textContent = json.error; return; }
  const unreadable = json.unreadable_lines ? ` (${json.unreadable_lines} lines not records)` : "";
  state.textContent = `${json.sessions.length} sessions in the decision log${unreadable}`;
  state.title = json.log;
  for (const s of json.sessions) {
    const tr = document.createElement("tr");
    tr.dataset.session = s.session;
    tr.className = "session" + (s.lapses ? " lapse" : "");
    const open = text("a", s.session || "(no session)");
    open.href = "#sessions";
    open.onclick = e => { e.preventDefault(); loadSession(s.session); };
    const first = document.createElement("td");
    first.appendChild(open);
    tr.appendChild(first);
    tr.appendChild(text("td", s.agents.join(", ")));
    tr.appendChild(text("td", s.first));
    tr.appendChild(text("td", s.last));
    tr.appendChild(text("td", s.decisions));
    tr.appendChild(text("td", s.blocks));
    tr.appendChild(text("td", s.lapses));
    rows.appendChild(tr);
  }
}

function coverageText(c) {
  if (c.audit) {
    const a = c.audit;
    const failed = a.failed_calls.length ? `; ${a.failed_calls.length} bridge calls failed before any hook ran` : "";
    return `Audit of ${c.transcript}: ${a.seen} of ${a.total} tool calls seen with nothing lapsed ` +
      `(${a.coverage_percent.toFixed(1)}%), ${a.lapsed} seen with a lapse, ${a.unseen} seen by no hook${failed}.`;
  }
  if (c.audit_error) return `The transcript ${c.transcript} could not be audited: ${c.audit_error}`;
  return `No transcript of this session was found (looked in ${c.searched.join(", ") || "no place: HOME is unset"}), ` +
    `so only the log speaks: ${c.recorded} calls recorded, ${c.with_lapses} with a lapse, ` +
    `${c.unread_calls} that could not be read.`;
}

async function loadSession(id) {
  const state = document.getElementById("sessions-state");
  const json = await (await fetch("/api/sessions/one?id=" + encodeURIComponent(id))).json();
  if (!json.ok) { state.textContent = json.error; return; }
  const detail = document.getElementById("session-detail");
  detail.hidden = false;
  detail.dataset.session = id;
  document.getElementById("session-title").textContent = "Session " + (id || "(no session)");
  const coverage = document.getElementById("session-coverage");
  const c = json.coverage;
  coverage.textContent = coverageText(c);
  coverage.className = c.audit && c.audit.complete ? "health-ok" : "health-bad";
  for (const key of ["total", "seen", "lapsed", "unseen"]) {
    if (c.audit) coverage.dataset[key] = c.audit[key]; else delete coverage.dataset[key];
  }
  const uncovered = document.getElementById("session-uncovered");
  uncovered.replaceChildren();
  for (const call of c.audit ? c.audit.calls.filter(call => call.status !== "seen") : []) {
    const where = `${call.transcript}:${call.line}`;
    const lapses = call.lapses.length ? ` — ${call.lapses.join("; ")}` : "";
    uncovered.appendChild(text("li", `${call.status}: ${call.tool_name} ${call.input_preview} (${where})${lapses}`));
  }
  const rows = document.getElementById("session-events");
  rows.replaceChildren();
  json.decisions.forEach((d, i) => {
    const tr = document.createElement("tr");
    tr.className = "step" + (d.lapses.length ? " lapse" : "");
    tr.appendChild(text("td", i + 1));
    tr.appendChild(text("td", d.ts));
    tr.appendChild(text("td", d.agent));
    tr.appendChild(text("td", d.event));
    tr.appendChild(text("td", d.tool_name));
    tr.appendChild(text("td", d.input_preview));
    tr.appendChild(text("td", d.decision, "decision-" + d.decision));
    const hooks = d.hooks.map(h => `${h.hook} ${h.status}`).join(", ");
    const lapses = d.lapses.map(l => l.detail).join("; ");
    tr.appendChild(text("td", lapses ? `${hooks} — lapse: ${lapses}` : hooks));
    rows.appendChild(tr);
  });
}

document.addEventListener("DOMContentLoaded", () => {
  document.getElementById("reload-sessions").addEventListener("click", loadSessions);
});
