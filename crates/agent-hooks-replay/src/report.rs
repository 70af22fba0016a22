//! The replay's result and its two plain renderings: the terminal summary (sessions, events,
//! flips by kind and by hook, the ten most frequent flips, then each flip) and the JSON for
//! CI. The HTML page (`html.rs`) is built from the JSON.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::time::Duration;

use agent_hooks_runtime::decisions::preview;
use serde_json::{Value, json};

use crate::compare::{FLIP_KINDS, FlipKind, Verdict};

/// How many flips the terminal summary lists one by one.
const LISTED: usize = 50;

/// One step of a replayed session and what each policy said of its event.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct EventReport {
    /// What happened (`tool call`, `prompt`, `stop`, `compaction`, ...).
    pub step: &'static str,
    /// The canonical event dispatched for it (`None`: no event stands for it).
    pub event: Option<&'static str>,
    /// The tool, for tool steps.
    pub tool_name: Option<String>,
    /// The tool's input, for tool steps.
    pub input: Option<Value>,
    /// `transcript:line`.
    pub place: String,
    /// When, as the agent wrote it.
    pub timestamp: Option<String>,
    /// The subagent that did it.
    pub subagent: Option<String>,
    /// The baseline's verdict (`--against`).
    pub before: Option<Verdict>,
    /// The policy's verdict (`--policy`).
    pub after: Option<Verdict>,
    /// How it changed, if it did.
    pub flip: Option<FlipKind>,
}

/// One replayed session.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct SessionReport {
    /// The agent whose transcript it is.
    pub agent: &'static str,
    /// The session's id.
    pub id: String,
    /// Its steps, in order.
    pub events: Vec<EventReport>,
}

/// The result of a replay.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct Report {
    /// The policy under test, as named.
    pub policy: String,
    /// The baseline, as named.
    pub against: String,
    /// Every transcript file read.
    pub transcripts: Vec<PathBuf>,
    /// Every session, in the order read.
    pub sessions: Vec<SessionReport>,
    /// Records no event stands for, by `agent: kind`.
    pub ignored: BTreeMap<String, usize>,
    /// Records of a kind no reader knows, by `agent: kind`.
    pub unknown: BTreeMap<String, usize>,
    /// The hooks that ran, with how many times (both policies).
    pub ran: BTreeMap<String, usize>,
    /// The hooks replay did not run, with why.
    pub withheld: BTreeMap<String, String>,
    /// The command hooks that ran with no network of this machine's (the default).
    pub confined: BTreeSet<String>,
    /// The command hooks that ran with this machine's network (`--run-hooks-unconfined`).
    pub unconfined: BTreeSet<String>,
    /// How long the replay took.
    pub elapsed: Duration,
}

/// What the report says of a command hook that ran with this machine's network.
const UNCONFINED: &str =
    "a command hook: it ran in the scratch copy with this machine's network (not confined)";

/// What the report says of a command hook that ran with no network.
fn confined() -> String {
    format!(
        "a command hook: it ran in the scratch copy with no network, in {}",
        agent_hooks_runtime::netns::MECHANISM
    )
}

impl Report {
    /// Every flip, in session order.
    pub fn flips(&self) -> impl Iterator<Item = (&SessionReport, &EventReport)> {
        self.sessions
            .iter()
            .flat_map(|s| s.events.iter().map(move |e| (s, e)))
            .filter(|(_, e)| e.flip.is_some())
    }

    /// How many flips of `kind` there are.
    pub fn count(&self, kind: FlipKind) -> usize {
        self.flips().filter(|(_, e)| e.flip == Some(kind)).count()
    }

    /// How many events were dispatched.
    pub fn event_count(&self) -> usize {
        self.sessions
            .iter()
            .flat_map(|s| &s.events)
            .filter(|e| e.event.is_some())
            .count()
    }

    /// How many tool calls were replayed.
    pub fn tool_calls(&self) -> usize {
        self.sessions
            .iter()
            .flat_map(|s| &s.events)
            .filter(|e| e.event == Some("pre_tool_call"))
            .count()
    }

    /// Flips by the hook that decided (after, else before).
    fn by_hook(&self) -> BTreeMap<String, usize> {
        let mut counts = BTreeMap::new();
        for (_, e) in self.flips() {
            *counts.entry(flip_hook(e)).or_default() += 1;
        }
        counts
    }

    /// The most frequent flips: kind, tool, hook and reason alike, most first.
    fn most_frequent(&self, n: usize) -> Vec<(usize, String)> {
        let mut counts: BTreeMap<String, usize> = BTreeMap::new();
        for (_, e) in self.flips() {
            let (hook, reason) = decided(e);
            let key = format!(
                "{} {}{} by {hook}{}",
                e.flip.map(FlipKind::as_str).unwrap_or_default(),
                e.event.unwrap_or_default(),
                e.tool_name
                    .as_deref()
                    .map(|t| format!(" {t}"))
                    .unwrap_or_default(),
                reason.map(|r| format!(": {r}")).unwrap_or_default(),
            );
            *counts.entry(key).or_default() += 1;
        }
        let mut sorted: Vec<(usize, String)> = counts.into_iter().map(|(k, n)| (n, k)).collect();
        sorted.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
        sorted.truncate(n);
        sorted
    }

    /// The summary for a terminal.
    pub fn render(&self) -> String {
        let mut out = String::new();
        let flips = self.flips().count();
        out.push_str(&format!(
            "replayed {} session{} from {} transcript file{}: {} events, {} tool calls, in {:.2} s\n",
            self.sessions.len(),
            plural(self.sessions.len()),
            self.transcripts.len(),
            plural(self.transcripts.len()),
            self.event_count(),
            self.tool_calls(),
            self.elapsed.as_secs_f64(),
        ));
        out.push_str(&format!(
            "policy:  {}\nagainst: {}\n",
            self.policy, self.against
        ));
        let decisions = |pick: fn(&EventReport) -> Option<&Verdict>, d: &str| {
            self.sessions
                .iter()
                .flat_map(|s| &s.events)
                .filter_map(pick)
                .filter(|v| v.decision == d)
                .count()
        };
        out.push_str("decisions (against -> policy):");
        for d in ["block", "ask", "allow"] {
            out.push_str(&format!(
                " {d} {} -> {}",
                decisions(|e| e.before.as_ref(), d),
                decisions(|e| e.after.as_ref(), d)
            ));
        }
        out.push('\n');
        out.push_str(&format!("flips: {flips}\n"));
        if flips > 0 {
            let kinds: Vec<String> = FLIP_KINDS
                .iter()
                .map(|k| (k.as_str(), self.count(*k)))
                .filter(|(_, n)| *n > 0)
                .map(|(k, n)| format!("{k} {n}"))
                .collect();
            out.push_str(&format!("  by kind: {}\n", kinds.join(", ")));
            let hooks: Vec<String> = self
                .by_hook()
                .into_iter()
                .map(|(h, n)| format!("{h} {n}"))
                .collect();
            out.push_str(&format!("  by hook: {}\n", hooks.join(", ")));
            out.push_str("most frequent:\n");
            for (n, what) in self.most_frequent(10) {
                out.push_str(&format!("  {n:>4} x {what}\n"));
            }
            out.push_str("each flip:\n");
            for (session, e) in self.flips().take(LISTED) {
                out.push_str(&format!(
                    "  {} {} {} {}{}\n      before: {}\n      after:  {}\n      ({})\n",
                    e.flip.map(FlipKind::as_str).unwrap_or_default(),
                    session.id,
                    e.timestamp.as_deref().unwrap_or("-"),
                    e.event.unwrap_or_default(),
                    e.tool_name
                        .as_deref()
                        .map(|t| format!(
                            " {t} {}",
                            e.input.as_ref().map(preview).unwrap_or_default()
                        ))
                        .unwrap_or_default(),
                    side(e.before.as_ref()),
                    side(e.after.as_ref()),
                    e.place,
                ));
            }
            if flips > LISTED {
                out.push_str(&format!(
                    "  ... {} more (--json or --html lists them all)\n",
                    flips - LISTED
                ));
            }
        }
        for (label, counts) in [
            ("records of no known kind (not replayed)", &self.unknown),
            ("records no event stands for", &self.ignored),
        ] {
            if !counts.is_empty() {
                let listed: Vec<String> = counts.iter().map(|(k, n)| format!("{k} {n}")).collect();
                out.push_str(&format!("{label}: {}\n", listed.join(", ")));
            }
        }
        if !self.withheld.is_empty() {
            out.push_str("hooks not run:\n");
            for (hook, why) in &self.withheld {
                out.push_str(&format!("  {hook}: {why}\n"));
            }
        }
        if !self.ran.is_empty() {
            let ran: Vec<String> = self.ran.iter().map(|(h, n)| format!("{h} {n}")).collect();
            out.push_str(&format!("hooks run: {}\n", ran.join(", ")));
        }
        for hook in &self.confined {
            out.push_str(&format!("  {hook}: {}\n", confined()));
        }
        for hook in &self.unconfined {
            out.push_str(&format!("  {hook}: {UNCONFINED}\n"));
        }
        out
    }

    /// The report as JSON, for CI and the HTML page.
    pub fn to_json(&self) -> Value {
        let kinds: serde_json::Map<String, Value> = FLIP_KINDS
            .iter()
            .map(|k| (k.as_str().to_owned(), json!(self.count(*k))))
            .collect();
        json!({
            "policy": self.policy,
            "against": self.against,
            "transcripts": self.transcripts.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
            "sessions": self.sessions.len(),
            "events": self.event_count(),
            "tool_calls": self.tool_calls(),
            "elapsed_seconds": self.elapsed.as_secs_f64(),
            "flip_count": self.flips().count(),
            "flips_by_kind": kinds,
            "flips_by_hook": self.by_hook(),
            "most_frequent": self.most_frequent(10).into_iter().map(|(n, what)| json!({"count": n, "flip": what})).collect::<Vec<_>>(),
            "flips": self.flips().map(|(s, e)| event_json(s, e)).collect::<Vec<_>>(),
            "timeline": self.sessions.iter().map(|s| json!({
                "agent": s.agent,
                "session_id": s.id,
                "events": s.events.iter().map(|e| event_json(s, e)).collect::<Vec<_>>(),
            })).collect::<Vec<_>>(),
            "unknown_records": self.unknown,
            "ignored_records": self.ignored,
            "hooks_run": self.ran,
            "hooks_not_run": self.withheld,
            "hooks_confined": self.confined.iter().map(|h| (h.clone(), json!(confined()))).collect::<serde_json::Map<_, _>>(),
            "hooks_unconfined": self.unconfined.iter().map(|h| (h.clone(), json!(UNCONFINED))).collect::<serde_json::Map<_, _>>(),
        })
    }
}

fn event_json(session: &SessionReport, e: &EventReport) -> Value {
    json!({
        "session_id": session.id,
        "agent": session.agent,
        "step": e.step,
        "event": e.event,
        "tool_name": e.tool_name,
        "tool_input": e.input,
        "place": e.place,
        "timestamp": e.timestamp,
        "subagent": e.subagent,
        "before": e.before.as_ref().map(Verdict::to_json),
        "after": e.after.as_ref().map(Verdict::to_json),
        "flip": e.flip.map(FlipKind::as_str),
        "hook": e.flip.map(|_| flip_hook(e)),
    })
}

/// The hook a flip is put down to: the one that decided after, else before.
fn flip_hook(e: &EventReport) -> String {
    decided(e).0
}

/// The hook and reason a flip is put down to.
fn decided(e: &EventReport) -> (String, Option<&str>) {
    fn of(v: Option<&Verdict>) -> Option<(String, Option<&str>)> {
        let v = v?;
        Some((v.hook.clone()?, v.reason.as_deref()))
    }
    of(e.after.as_ref())
        .or_else(|| of(e.before.as_ref()))
        .unwrap_or_else(|| ("(none)".to_owned(), None))
}

fn side(v: Option<&Verdict>) -> String {
    let Some(v) = v else {
        return "-".to_owned();
    };
    let mut text = v.decision.to_owned();
    if let Some(hook) = &v.hook {
        text.push_str(&format!(" ({hook}"));
        if let Some(reason) = &v.reason {
            text.push_str(&format!(": {reason}"));
        }
        text.push(')');
    }
    if !v.rewritten.is_empty() {
        text.push_str(&format!(", rewrote {}", Value::Object(v.rewritten.clone())));
    }
    if !v.context.is_empty() {
        text.push_str(&format!(", context: {}", v.context.join(" | ")));
    }
    text
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}
