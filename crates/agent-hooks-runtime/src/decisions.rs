//! The decision log: one JSON line for every tool-call event that reaches the runtime through a
//! bridge, a sidecar route, `fire` or the host API — an allow as much as a block — naming the
//! call (agent, session, the agent's tool call id), the decision, the hooks that ran and every
//! lapse. `agent-hooks audit` reads it to prove which of a session's tool calls a hook saw
//! (`docs/decision-log.md`). It is the runtime's own file, in its own directory for the workspace
//! ([`Workspace::runtime_dir`]), never the host's `logs/` or `state/`; secrets are
//! masked as the guards mask them, and a tool input is kept only as a short preview and a hash.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use crate::config::agent::AgentSettings;
use crate::dispatch::DispatchOptions;
use crate::engine::Engine;
use agent_hooks_core::answer::Decision;
use agent_hooks_core::diag::{LogDestination, append_line_with, now_rfc3339};
use agent_hooks_core::event::Event;
use agent_hooks_core::outcome::{HookStatus, LapseKind, Outcome, TRUST_SKIPS};
use agent_hooks_core::workspace::Workspace;
use agent_hooks_dialects::agent::Agent;

/// The decision log's file in the runtime's own directory for the workspace
/// ([`Workspace::runtime_dir`]), where it goes unless `logs.decisions` in `config/agent.yaml`
/// says otherwise: beside the runtime's other bookkeeping (locks, `hook_decision` records),
/// away from the host's files.
pub const FILE_NAME: &str = "decisions.jsonl";

/// The longest tool-input preview a record keeps, in characters.
const PREVIEW_CHARS: usize = 120;
/// The longest reason or lapse detail a record keeps, in characters.
const DETAIL_CHARS: usize = 300;

/// The door a dispatch came through, as the decision log names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Surface {
    /// An agent's bridge process (`agent-hooks claude-hook`, ...).
    Bridge,
    /// The sidecar (`agent-hooks serve`): an agent's route or the host's event route.
    Sidecar,
    /// `agent-hooks fire`.
    Fire,
    /// The library, called by a host (`host::call_tool`, [`Engine::dispatch_recorded`]).
    Host,
}

impl Surface {
    /// The `surface` written to the log.
    pub fn as_str(self) -> &'static str {
        match self {
            Surface::Bridge => "bridge",
            Surface::Sidecar => "sidecar",
            Surface::Fire => "fire",
            Surface::Host => "host",
        }
    }
}

/// One line of the decision log (`docs/decision-log.md`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct DecisionRecord {
    /// When the decision was made, RFC 3339 UTC.
    pub ts: String,
    /// The agent whose bridge dispatched it (`claude`, `codex`, `gemini`, `cursor`), else
    /// `fire` or `host`.
    pub agent: String,
    /// The door it came through ([`Surface`]).
    pub surface: String,
    /// The agent's session.
    #[serde(default)]
    pub session_id: Option<String>,
    /// The agent's id for the tool call (Claude Code's and Codex's `tool_use_id`), when it
    /// gives one.
    #[serde(default)]
    pub tool_call_id: Option<String>,
    /// The tool, as the hooks saw it.
    #[serde(default)]
    pub tool_name: Option<String>,
    /// The canonical event (`pre_tool_call`, `post_tool_call`, ...); empty when the call
    /// failed before its event could be read.
    pub event: String,
    /// `allow`, `block`, `ask` or `rewrite`; `none` when no decision could be made.
    pub decision: String,
    /// Why, when a hook blocked or asked (masked, cut short).
    #[serde(default)]
    pub reason: Option<String>,
    /// Every hook that ran, with its status.
    #[serde(default)]
    pub hooks: Vec<HookRun>,
    /// Whatever kept the policy from being fully evaluated.
    #[serde(default)]
    pub lapses: Vec<LapseRecord>,
    /// The start of the tool input (its command or path when it has one), masked.
    #[serde(default)]
    pub input_preview: Option<String>,
    /// SHA-256 of the tool input as the agent sent it (keys sorted), to match a call that has
    /// no id.
    #[serde(default)]
    pub input_sha256: Option<String>,
}

/// One hook's run in a [`DecisionRecord`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct HookRun {
    /// The hook's name.
    pub hook: String,
    /// The file that declared it.
    pub source: String,
    /// `ok`, `noop`, `blocked`, `timeout`, `error`, `invalid_output`.
    pub status: String,
}

/// One lapse in a [`DecisionRecord`]: a reason the policy was not fully evaluated.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct LapseRecord {
    /// `hook_failed`, `hook_timeout`, `trust_skip`, `config_error` or `unread_input`.
    pub kind: String,
    /// The hook concerned, when there is one.
    #[serde(default)]
    pub hook: Option<String>,
    /// What happened (masked, cut short).
    pub detail: String,
}

impl LapseRecord {
    fn new(kind: &str, hook: Option<&str>, detail: &str) -> LapseRecord {
        LapseRecord {
            kind: kind.to_owned(),
            hook: hook.map(str::to_owned),
            detail: masked(detail, DETAIL_CHARS),
        }
    }
}

/// The facts of one tool call read off its payload before the dispatch (hooks may rewrite the
/// input; the record names the call as the agent made it).
#[derive(Debug, Clone, Default)]
pub(crate) struct Call {
    session_id: Option<String>,
    tool_call_id: Option<String>,
    tool_name: Option<String>,
    input_preview: Option<String>,
    input_sha256: Option<String>,
}

impl Call {
    /// The call `payload` (a canonical payload of `event`) stands for; `None` when `event` is
    /// not a tool-call event, which the log does not record.
    pub(crate) fn of(event: Event, payload: &Map<String, Value>) -> Option<Call> {
        if !is_tool_call(event) {
            return None;
        }
        let text = |key: &str| {
            payload
                .get(key)
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
        };
        let input = payload.get("tool_input");
        Some(Call {
            session_id: text("session_id"),
            tool_call_id: text("tool_use_id"),
            tool_name: text("tool_name"),
            input_preview: input.map(preview),
            input_sha256: input.map(input_hash),
        })
    }
}

/// Whether `event` is about one tool call: its payload names the tool.
fn is_tool_call(event: Event) -> bool {
    event.spec().fields.iter().any(|f| f.name == "tool_name")
}

/// The file the decision log of `ws` goes to under `destination`; `None` when it is off.
pub(crate) fn log_path(ws: &Workspace, destination: &LogDestination) -> Option<PathBuf> {
    match destination {
        LogDestination::Off => None,
        LogDestination::File(path) => Some(ws.root().join(path)),
        _ => Some(ws.runtime_dir().join(FILE_NAME)),
    }
}

/// The decision log `config/agent.yaml` of `ws` names (the default when the file is missing or
/// broken); `None` when `logs.decisions: false` turns it off.
pub fn configured_path(ws: &Workspace) -> Option<PathBuf> {
    log_path(ws, &AgentSettings::load(ws).decisions_log)
}

impl Engine {
    /// Dispatches like [`Engine::dispatch_with`], lets `settle` finish the outcome (the lapse
    /// rule, [`crate::lapse::settle`]), and records the decision so finished in the decision
    /// log when `event` is a tool-call event: what a host calls so `agent-hooks audit` can
    /// prove its tool calls were seen (`host::call_tool` does). `agent` is the agent whose
    /// bridge this is, if any.
    pub async fn dispatch_recorded(
        &self,
        surface: Surface,
        agent: Option<Agent>,
        event: Event,
        payload: Map<String, Value>,
        options: &DispatchOptions,
        settle: impl FnOnce(&Engine, &mut Outcome),
    ) -> Outcome {
        let call = Call::of(event, &payload);
        let mut outcome = self.dispatch_with(event, payload, options).await;
        settle(self, &mut outcome);
        if let Some(call) = call {
            self.record_decision(surface, agent, &call, &outcome);
        }
        tell_watch(agent, &outcome);
        outcome
    }

    /// The decision log this engine writes to; `None` when `logs.decisions: false`.
    pub fn decision_log_path(&self) -> Option<PathBuf> {
        log_path(
            self.workspace(),
            &self.snapshot().config.agent.decisions_log,
        )
    }

    /// Writes the line for `call`, decided as `outcome` says.
    pub(crate) fn record_decision(
        &self,
        surface: Surface,
        agent: Option<Agent>,
        call: &Call,
        outcome: &Outcome,
    ) {
        let Some(path) = self.decision_log_path() else {
            return;
        };
        let snapshot = self.snapshot();
        let mut lapses = lapses_of(outcome);
        lapses.extend(
            snapshot
                .errors()
                .map(|e| LapseRecord::new("config_error", None, &e.to_string())),
        );
        let decision = match outcome.decision {
            Decision::Block => "block",
            Decision::Ask => "ask",
            Decision::Continue if !outcome.changed.is_empty() => "rewrite",
            Decision::Continue => "allow",
        };
        let record = DecisionRecord {
            ts: now_rfc3339(),
            agent: caller(surface, agent).to_owned(),
            surface: surface.as_str().to_owned(),
            session_id: call.session_id.clone(),
            tool_call_id: call.tool_call_id.clone(),
            tool_name: call.tool_name.clone(),
            event: outcome.event.name().to_owned(),
            decision: decision.to_owned(),
            reason: outcome
                .reason
                .as_deref()
                .filter(|_| decision == "block" || decision == "ask")
                .map(|r| masked(r, DETAIL_CHARS)),
            hooks: outcome
                .hooks
                .iter()
                .filter(|h| h.status != HookStatus::Skipped)
                .map(|h| HookRun {
                    hook: h.hook.to_string(),
                    source: h.source.to_string(),
                    status: h.status.as_str().to_owned(),
                })
                .collect(),
            lapses,
            input_preview: call.input_preview.clone(),
            input_sha256: call.input_sha256.clone(),
        };
        write(self.workspace(), &path, &record);
    }
}

/// Told of each settled dispatch of the task it watches (the sidecar's metrics and console):
/// the agent whose route or bridge it came through, if any, and the outcome as answered.
pub type Watch = std::sync::Arc<dyn Fn(Option<Agent>, &Outcome) + Send + Sync>;

tokio::task_local! {
    static WATCH: Watch;
}

/// Runs `work` with `watch` told of every dispatch settled in it, by whichever door
/// ([`Engine::dispatch_recorded`], an agent's bridge): a server sees all its routes' decisions
/// in one place, and a task that sets no watch pays one task-local lookup.
pub async fn watched<T>(watch: Watch, work: impl std::future::Future<Output = T>) -> T {
    WATCH.scope(watch, work).await
}

/// Tells the task's watch, if it has one, of a settled dispatch.
pub(crate) fn tell_watch(agent: Option<Agent>, outcome: &Outcome) {
    let _ = WATCH.try_with(|watch| watch(agent, outcome));
}

/// Records a bridge call that failed before anything was dispatched (its input could not be
/// read, or is no hook input of `agent`), in the decision log of `ws`, as a line with no
/// decision and the reason as its lapse. Whatever of the call the input still shows (its
/// session, tool and tool call id) is kept, so `audit` can place it.
pub fn record_unread_call(
    ws: &Workspace,
    surface: Surface,
    agent: Agent,
    input: Option<&Value>,
    why: &str,
) {
    let Some(path) = configured_path(ws) else {
        return;
    };
    let text = |keys: &[&str]| {
        keys.iter().find_map(|k| {
            input
                .and_then(|i| i.get(*k))
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
        })
    };
    let tool_input = input.and_then(|i| i.get("tool_input"));
    let record = DecisionRecord {
        ts: now_rfc3339(),
        agent: agent.name().to_owned(),
        surface: surface.as_str().to_owned(),
        // The names the agents' hook inputs use (Cursor names its session a conversation).
        session_id: text(&["session_id", "conversation_id"]),
        tool_call_id: text(&["tool_use_id"]),
        tool_name: text(&["tool_name"]),
        event: String::new(),
        decision: "none".to_owned(),
        reason: None,
        hooks: Vec::new(),
        lapses: vec![LapseRecord::new("unread_input", None, why)],
        input_preview: tool_input.map(preview),
        input_sha256: tool_input.map(input_hash),
    };
    write(ws, &path, &record);
}

/// What the log calls the dispatcher: the agent, else the surface (`fire`, `host`).
fn caller(surface: Surface, agent: Option<Agent>) -> &'static str {
    match (agent, surface) {
        (Some(agent), _) => agent.name(),
        (None, Surface::Fire) => "fire",
        (None, _) => "host",
    }
}

/// The lapses an outcome shows: hooks that failed or timed out, and hooks the trust gate kept
/// from running.
fn lapses_of(outcome: &Outcome) -> Vec<LapseRecord> {
    let mut lapses = Vec::new();
    for report in &outcome.hooks {
        let detail = report.detail.as_deref().unwrap_or("");
        let kind = match report.status {
            HookStatus::Timeout => "hook_timeout",
            HookStatus::Error | HookStatus::InvalidOutput => "hook_failed",
            // The trust gate's reasons, as the dispatcher words them.
            HookStatus::Skipped if TRUST_SKIPS.contains(&detail) => "trust_skip",
            // Any other failure (a guard past its own limits included).
            status if status.is_failure() => "hook_failed",
            _ => continue,
        };
        let detail = if detail.is_empty() {
            report.status.as_str()
        } else {
            detail
        };
        lapses.push(LapseRecord::new(kind, Some(&report.hook), detail));
    }
    // What the bridge found before any hook ran: input read only in part, no workspace.
    for lapse in &outcome.lapses {
        let kind = match lapse.kind {
            LapseKind::UnreadableInput => "unread_input",
            LapseKind::NoWorkspace => "no_workspace",
            _ => continue,
        };
        lapses.push(LapseRecord::new(
            kind,
            lapse.hook.as_deref(),
            &lapse.message,
        ));
    }
    lapses
}

/// Appends `record`. The log must never take a call down: a failure to write is reported
/// through `tracing` and otherwise swallowed, as the event log does.
///
/// The file is held open between appends (`append_line` says how a rotation is noticed), so a
/// long-lived process costs a `stat` and a `write` a record.
fn write(ws: &Workspace, path: &Path, record: &DecisionRecord) {
    let written = serde_json::to_vec(record)
        .map_err(std::io::Error::other)
        .and_then(|mut line| {
            line.push(b'\n');
            append_line_with(path, &line, |dir| ws.create_log_dir(dir))
        });
    if let Err(err) = written {
        tracing::warn!(path = %path.display(), %err, "cannot write the decision log");
    }
}

/// `text` with secrets masked as the guards mask them, then cut to `max` characters (masked
/// first, so a cut never leaves half a secret the scanner would no longer recognise).
pub(crate) fn masked(text: &str, max: usize) -> String {
    let masked = agent_hooks_guards::mask_secrets(text);
    let text = masked.as_deref().unwrap_or(text);
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

/// A tool input's preview: its command, path or URL when it has one, else its JSON; masked.
pub fn preview(input: &Value) -> String {
    let named = ["command", "file_path", "pattern", "url", "query", "path"]
        .iter()
        .find_map(|k| input.get(*k))
        .and_then(|v| match v {
            Value::String(s) => Some(s.clone()),
            Value::Array(words) => Some(
                words
                    .iter()
                    .map(|w| w.as_str().map_or_else(|| w.to_string(), str::to_owned))
                    .collect::<Vec<_>>()
                    .join(" "),
            ),
            _ => None,
        });
    let text = named.unwrap_or_else(|| match input {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    });
    masked(&text, PREVIEW_CHARS)
}

/// SHA-256 (hex) of `input` written with its object keys sorted, so two copies of one input
/// hash the same whatever order their keys came in.
pub(crate) fn input_hash(input: &Value) -> String {
    let mut text = String::new();
    canonical(input, &mut text);
    format!("{:x}", Sha256::digest(text.as_bytes()))
}

fn canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(key.clone()).to_string());
                out.push(':');
                canonical(&map[key.as_str()], out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                canonical(item, out);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

/// Reads every record of the decision log at `path`, the rotated `<path>.1` first; lines that
/// are not records (a torn write, another program's) are counted, not fatal.
///
/// # Errors
///
/// When a file that exists cannot be read.
pub fn read_log(path: &Path) -> std::io::Result<(Vec<DecisionRecord>, usize)> {
    let mut records = Vec::new();
    let mut skipped = 0;
    let mut rotated = path.as_os_str().to_owned();
    rotated.push(".1");
    for file in [PathBuf::from(rotated), path.to_path_buf()] {
        let text = match std::fs::read_to_string(&file) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(e),
        };
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            match serde_json::from_str::<DecisionRecord>(line) {
                Ok(record) => records.push(record),
                Err(_) => skipped += 1,
            }
        }
    }
    Ok((records, skipped))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_log_past_its_size_is_rotated_and_the_held_file_follows() -> std::io::Result<()> {
        let dir = tempfile::tempdir()?;
        let path = dir.path().join("logs/d.jsonl");
        let rotated = dir.path().join("logs/d.jsonl.1");
        let append =
            |line: &str| append_line_with(&path, line.as_bytes(), |d| std::fs::create_dir_all(d));
        append("{\"n\": 1}\n")?;
        // Held open now; grown past the limit by someone else, it is rotated at the next
        // record, which goes to a new file at the path.
        std::fs::OpenOptions::new()
            .write(true)
            .open(&path)?
            .set_len(agent_hooks_core::diag::ROTATE_AT)?;
        append("{\"n\": 2}\n")?;
        append("{\"n\": 3}\n")?;
        assert_eq!(
            std::fs::metadata(&rotated)?.len(),
            agent_hooks_core::diag::ROTATE_AT
        );
        assert_eq!(std::fs::read_to_string(&path)?, "{\"n\": 2}\n{\"n\": 3}\n");
        Ok(())
    }

    #[test]
    fn an_input_hashes_the_same_whatever_its_key_order() {
        let a = json!({"command": "ls", "description": "list", "n": [1, {"b": 2, "a": 1}]});
        let b: Value = serde_json::from_str(
            r#"{"n": [1, {"a": 1, "b": 2}], "description": "list", "command": "ls"}"#,
        )
        .unwrap_or_default();
        assert_eq!(input_hash(&a), input_hash(&b));
        assert_ne!(input_hash(&a), input_hash(&json!({"command": "ls"})));
    }

    #[test]
    fn a_preview_masks_credentials_and_is_cut_short() {
        let key = "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB";
        let shown = preview(&json!({"command": format!("curl -H 'Authorization: token {key}' x")}));
        assert!(!shown.contains(key), "{shown}");
        let long = preview(&json!({"command": "x".repeat(500)}));
        assert_eq!(long.chars().count(), PREVIEW_CHARS + 1);
    }

    #[test]
    fn only_tool_call_events_are_recorded() {
        let payload = json!({"session_id": "s", "tool_use_id": "t1", "tool_name": "Bash", "tool_input": {"command": "ls"}});
        let Value::Object(payload) = payload else {
            unreachable!("an object literal")
        };
        let call = Call::of(Event::PreToolCall, &payload);
        assert_eq!(call.and_then(|c| c.tool_call_id).as_deref(), Some("t1"));
        assert!(Call::of(Event::OnStop, &payload).is_none());
        assert!(Call::of(Event::OnUserMessage, &payload).is_none());
    }

    #[test]
    fn logs_decisions_moves_the_log_turns_it_off_or_is_an_error() -> std::io::Result<()> {
        let dir = tempfile::tempdir()?;
        let ws = Workspace::new(dir.path());
        std::fs::create_dir_all(dir.path().join("config"))?;
        let with = |yaml: &str| -> std::io::Result<(Option<PathBuf>, Option<String>)> {
            std::fs::write(dir.path().join("config/agent.yaml"), yaml)?;
            let settings = AgentSettings::load(&ws);
            Ok((
                log_path(&ws, &settings.decisions_log),
                settings.error.map(|e| e.to_string()),
            ))
        };
        let default = Some(ws.runtime_dir().join(FILE_NAME));
        assert_eq!(
            with("shell_hooks: {enabled: true}\n")?,
            (default.clone(), None)
        );
        assert_eq!(
            with("logs: {decisions: audit/d.jsonl}\n")?,
            (Some(ws.root().join("audit/d.jsonl")), None)
        );
        assert_eq!(with("logs: {decisions: false}\n")?, (None, None));
        let (path, error) = with("logs: {decisions: 3}\n")?;
        assert_eq!(path, default);
        let error = error.unwrap_or_default();
        assert!(
            error.contains("logs.decisions: expected a file path or false, found 3"),
            "{error}"
        );
        Ok(())
    }

    #[test]
    fn the_host_api_records_a_tool_call_before_and_after_it_runs() -> std::io::Result<()> {
        use crate::host::{AskPolicy, ToolStatus, call_tool};
        let dir = tempfile::tempdir()?;
        let engine = Engine::open(Workspace::new(dir.path()));
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let call = rt.block_on(call_tool(
            &engine,
            "s1",
            "echo",
            json!({"text": "hi"}),
            AskPolicy::Block,
            |input| async move { Ok::<_, String>(input["text"].clone()) },
        ));
        assert_eq!(call.status, ToolStatus::Success);
        let path = engine.decision_log_path().unwrap_or_default();
        let (records, unreadable) = read_log(&path)?;
        assert_eq!(unreadable, 0);
        let events: Vec<(&str, &str, &str)> = records
            .iter()
            .map(|r| (r.agent.as_str(), r.surface.as_str(), r.event.as_str()))
            .collect();
        assert_eq!(
            events,
            [
                ("host", "host", "pre_tool_call"),
                ("host", "host", "post_tool_call")
            ]
        );
        assert!(records.iter().all(|r| r.decision == "allow"
            && r.session_id.as_deref() == Some("s1")
            && r.input_sha256 == Some(input_hash(&json!({"text": "hi"})))));
        Ok(())
    }
}
