//! `agent-hooks audit`: proof of coverage. Reads an agent's session transcript (one reader per
//! agent, each keeping that agent's field names to itself), lists every tool call in it, its
//! subagents' included, and matches each to its line in the decision log: by the agent's tool
//! call id, else by session, tool and input. A call no hook saw, or saw with a lapse, is named
//! (`docs/decision-log.md`). The readers give every step of a session, not only its calls
//! ([`Step`]): `agent-hooks replay` reads transcripts through [`read`].

mod claude;
mod codex;
mod gemini;
mod open_strix;
mod transcript;

pub use transcript::{AuditError, Entry, ResultStatus, Session, Step, Transcript};

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::decisions::{self, DecisionRecord};

/// One tool call as a transcript records it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ToolCall {
    /// The agent whose transcript it is (`claude`, `codex`, `gemini`, `open-strix`).
    pub agent: &'static str,
    /// The session it belongs to (a subagent's calls belong to its parent's session).
    pub session_id: Option<String>,
    /// The agent's id for the call (`tool_use_id` as hooks receive it).
    pub id: Option<String>,
    /// The tool, as the agent names it.
    pub tool_name: String,
    /// The tool's input as the agent recorded it.
    pub input: Value,
    /// The transcript file and the line (from 1) it is on.
    pub transcript: PathBuf,
    /// The line of `transcript`.
    pub line: usize,
    /// The subagent that made the call, when one did.
    pub subagent: Option<String>,
}

/// How a call fared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Coverage {
    /// A hook saw it before it ran, and nothing lapsed.
    Seen,
    /// A hook saw it, but something lapsed (a hook failed, timed out or was skipped for trust,
    /// a configuration error, or no hook saw it before it ran).
    Lapsed,
    /// No decision record names it: no hook saw it.
    Unseen,
}

impl Coverage {
    /// The name `--json` uses.
    pub fn as_str(self) -> &'static str {
        match self {
            Coverage::Seen => "seen",
            Coverage::Lapsed => "lapse",
            Coverage::Unseen => "unseen",
        }
    }
}

/// One tool call and what the decision log says of it.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct AuditedCall {
    /// The call.
    pub call: ToolCall,
    /// How it fared.
    pub coverage: Coverage,
    /// What matched it to its records: `id`, or `input` (session, tool and input).
    pub matched_by: Option<&'static str>,
    /// The decisions recorded for it, in order (`allow`, `block`, ...).
    pub decisions: Vec<String>,
    /// Each lapse, as `kind: detail`.
    pub lapses: Vec<String>,
}

/// The result of an audit.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Audit {
    /// The transcript files read (subagents' included).
    pub transcripts: Vec<PathBuf>,
    /// The decision log read.
    pub log: PathBuf,
    /// Every tool call, in transcript order.
    pub calls: Vec<AuditedCall>,
    /// Bridge calls of these sessions that failed before any hook could run, matched to no
    /// call, as `ts: detail`.
    pub failed_calls: Vec<String>,
    /// Lines of the decision log that are not records.
    pub unreadable_lines: usize,
}

impl Audit {
    /// How many calls fared as `coverage`.
    pub fn count(&self, coverage: Coverage) -> usize {
        self.calls.iter().filter(|c| c.coverage == coverage).count()
    }

    /// Whether every call was seen with nothing lapsed and no bridge call failed.
    pub fn is_complete(&self) -> bool {
        self.count(Coverage::Seen) == self.calls.len() && self.failed_calls.is_empty()
    }

    /// The share of calls a hook saw with nothing lapsed, in percent (100 with no calls).
    pub fn percent(&self) -> f64 {
        if self.calls.is_empty() {
            return 100.0;
        }
        // Exact for any realistic count of calls.
        #[expect(clippy::cast_precision_loss, reason = "counts far below 2^52")]
        let share = self.count(Coverage::Seen) as f64 / self.calls.len() as f64;
        share * 100.0
    }

    /// The report for a terminal: the totals, then each call that was not fully seen.
    pub fn render(&self) -> String {
        let mut out = String::new();
        let subagents = self
            .calls
            .iter()
            .filter_map(|c| c.call.subagent.as_deref())
            .collect::<std::collections::BTreeSet<_>>()
            .len();
        out.push_str(&format!(
            "{} tool call{} in {} transcript file{} ({} subagent{}); decision log {}\n",
            self.calls.len(),
            plural(self.calls.len()),
            self.transcripts.len(),
            plural(self.transcripts.len()),
            subagents,
            plural(subagents),
            self.log.display(),
        ));
        out.push_str(&format!(
            "coverage: {}/{} seen by a hook ({:.0}%), {} with a lapse, {} not seen\n",
            self.count(Coverage::Seen),
            self.calls.len(),
            self.percent(),
            self.count(Coverage::Lapsed),
            self.count(Coverage::Unseen),
        ));
        for audited in self.calls.iter().filter(|c| c.coverage != Coverage::Seen) {
            let call = &audited.call;
            let label = match audited.coverage {
                Coverage::Unseen => "NOT SEEN",
                _ => "LAPSE   ",
            };
            out.push_str(&format!(
                "{label} {} {} {}  ({}:{}{})\n",
                call.tool_name,
                call.id.as_deref().unwrap_or("(no id)"),
                decisions::preview(&call.input),
                call.transcript.display(),
                call.line,
                call.subagent
                    .as_deref()
                    .map(|a| format!(", subagent {a}"))
                    .unwrap_or_default(),
            ));
            for lapse in &audited.lapses {
                out.push_str(&format!("         {lapse}\n"));
            }
        }
        for failed in &self.failed_calls {
            out.push_str(&format!(
                "FAILED   a bridge call failed before any hook ran: {failed}\n"
            ));
        }
        if self.unreadable_lines > 0 {
            out.push_str(&format!(
                "note: {} line{} of the decision log could not be read\n",
                self.unreadable_lines,
                plural(self.unreadable_lines)
            ));
        }
        out
    }

    /// The report as JSON, for CI.
    pub fn to_json(&self) -> Value {
        json!({
            "transcripts": self.transcripts.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
            "decision_log": self.log.display().to_string(),
            "total": self.calls.len(),
            "seen": self.count(Coverage::Seen),
            "lapsed": self.count(Coverage::Lapsed),
            "unseen": self.count(Coverage::Unseen),
            "coverage_percent": self.percent(),
            "complete": self.is_complete(),
            "calls": self.calls.iter().map(|c| json!({
                "agent": c.call.agent,
                "session_id": c.call.session_id,
                "tool_call_id": c.call.id,
                "tool_name": c.call.tool_name,
                "input_preview": decisions::preview(&c.call.input),
                "transcript": c.call.transcript.display().to_string(),
                "line": c.call.line,
                "subagent": c.call.subagent,
                "status": c.coverage.as_str(),
                "matched_by": c.matched_by,
                "decisions": c.decisions,
                "lapses": c.lapses,
            })).collect::<Vec<_>>(),
            "failed_calls": self.failed_calls,
            "unreadable_log_lines": self.unreadable_lines,
        })
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// The decision log of `ws`, as `config/agent.yaml` names it.
///
/// # Errors
///
/// [`AuditError::LogOff`] when `logs.decisions: false` turns it off.
pub fn default_log(ws: &crate::Workspace) -> Result<PathBuf, AuditError> {
    decisions::configured_path(ws).ok_or(AuditError::LogOff)
}

/// Audits the tool calls of `transcripts` against the decision log at `log`.
///
/// # Errors
///
/// [`AuditError`] when a transcript cannot be read or is no known format, or the log cannot
/// be read (a log that does not exist yet is empty: every call is then unseen).
pub fn audit(transcripts: &[PathBuf], log: &Path) -> Result<Audit, AuditError> {
    let mut calls = Vec::new();
    let mut files = Vec::new();
    for path in transcripts {
        let (read, read_files) = read_calls(path)?;
        calls.extend(read);
        files.extend(read_files);
    }
    // A subagent's transcript named on its own and with its session is one set of calls.
    let mut seen_ids = std::collections::HashSet::new();
    calls.retain(|c| c.id.as_ref().is_none_or(|id| seen_ids.insert(id.clone())));
    files.dedup();
    let (records, unreadable_lines) =
        decisions::read_log(log).map_err(|source| AuditError::Io {
            path: log.display().to_string(),
            source,
        })?;
    let sessions: std::collections::HashSet<String> =
        calls.iter().filter_map(|c| c.session_id.clone()).collect();
    let mut by_id: HashMap<&str, Vec<&DecisionRecord>> = HashMap::new();
    for record in &records {
        if let Some(id) = record.tool_call_id.as_deref() {
            by_id.entry(id).or_default().push(record);
        }
    }
    let mut used = std::collections::HashSet::new();
    let audited = calls
        .into_iter()
        .map(|call| {
            let (matched, how) = match call.id.as_deref().and_then(|id| by_id.get(id)) {
                Some(found) => (found.clone(), Some("id")),
                None => {
                    let found = by_input(&records, &call);
                    let how = (!found.is_empty()).then_some("input");
                    (found, how)
                }
            };
            for record in &matched {
                used.insert(std::ptr::from_ref::<DecisionRecord>(record));
            }
            judge(call, &matched, how)
        })
        .collect();
    let failed_calls = records
        .iter()
        .filter(|r| r.decision == "none")
        .filter(|r| !used.contains(&std::ptr::from_ref::<DecisionRecord>(r)))
        .filter(|r| {
            r.session_id
                .as_deref()
                .is_some_and(|s| sessions.contains(s))
        })
        .map(|r| {
            let detail: Vec<&str> = r.lapses.iter().map(|l| l.detail.as_str()).collect();
            format!("{} ({}): {}", r.ts, r.agent, detail.join("; "))
        })
        .collect();
    Ok(Audit {
        transcripts: files,
        log: log.to_path_buf(),
        calls: audited,
        failed_calls,
        unreadable_lines,
    })
}

/// The records of `call` found by its session, tool and input, for a call or records without
/// an id.
fn by_input<'a>(records: &'a [DecisionRecord], call: &ToolCall) -> Vec<&'a DecisionRecord> {
    // The log holds the call as it was dispatched, which is not always as it was recorded.
    let (tool_name, input) = as_hooks_see_it(call.agent, &call.tool_name, &call.input);
    let hash = decisions::input_hash(&input);
    records
        .iter()
        .filter(|r| r.input_sha256.as_deref() == Some(hash.as_str()))
        .filter(|r| r.session_id.is_some() && r.session_id == call.session_id)
        .filter(|r| {
            r.tool_name
                .as_deref()
                .is_none_or(|t| t.eq_ignore_ascii_case(&tool_name))
        })
        .collect()
}

/// How `call` fared, from the records that name it.
fn judge(call: ToolCall, records: &[&DecisionRecord], how: Option<&'static str>) -> AuditedCall {
    let mut lapses: Vec<String> = Vec::new();
    for record in records {
        for lapse in &record.lapses {
            let text = match &lapse.hook {
                Some(hook) => format!("{} ({hook}): {}", lapse.kind, lapse.detail),
                None => format!("{}: {}", lapse.kind, lapse.detail),
            };
            if !lapses.contains(&text) {
                lapses.push(text);
            }
        }
    }
    let decided: Vec<&&DecisionRecord> = records.iter().filter(|r| r.decision != "none").collect();
    if !decided.is_empty() && !decided.iter().any(|r| r.event == "pre_tool_call") {
        lapses.push("no hook saw it before it ran (no pre-tool record)".to_owned());
    }
    let coverage = if decided.is_empty() {
        Coverage::Unseen
    } else if lapses.is_empty() {
        Coverage::Seen
    } else {
        Coverage::Lapsed
    };
    AuditedCall {
        decisions: decided.iter().map(|r| r.decision.clone()).collect(),
        call,
        coverage,
        matched_by: how,
        lapses,
    }
}

/// Reads the transcript at `path` with the reader of the agent that wrote it, told by its
/// first record: Claude Code's session JSONL (with its subagents' files), Codex's rollout
/// JSONL, Gemini CLI's saved chat (JSON), or open-strix's `logs/events.jsonl`.
///
/// # Errors
///
/// [`AuditError::Io`] when it cannot be read, [`AuditError::Format`] naming the line when it
/// is none of these.
pub fn read(path: &Path) -> Result<Transcript, AuditError> {
    let text = std::fs::read_to_string(path).map_err(|source| AuditError::Io {
        path: path.display().to_string(),
        source,
    })?;
    let format_error = |why: String| AuditError::Format {
        path: path.display().to_string(),
        why,
    };
    // Gemini CLI writes one JSON document, pretty-printed over many lines.
    if text.trim_start().starts_with('{')
        && let Ok(document) = serde_json::from_str::<Value>(&text)
        && gemini::recognises(&document)
    {
        return gemini::read(path, &document);
    }
    let Some((line, first)) = transcript::json_lines(&text).next() else {
        return Err(format_error(
            "no JSON lines: not a session transcript (Claude Code's or Codex's JSONL, Gemini CLI's chat, open-strix's events.jsonl)"
                .into(),
        ));
    };
    let first = first.map_err(|what| {
        format_error(format!(
            "line {line}: {what}: not a session transcript (Claude Code's or Codex's JSONL, Gemini CLI's chat, open-strix's events.jsonl)"
        ))
    })?;
    if codex::recognises(&first) {
        return Ok(codex::read(path, &text));
    }
    if open_strix::recognises(&first) {
        return Ok(open_strix::read(path, &text));
    }
    if claude::recognises(&first) {
        return claude::read(path, &text);
    }
    let keys: Vec<&str> = first
        .as_object()
        .map(|o| o.keys().map(String::as_str).take(6).collect())
        .unwrap_or_default();
    Err(format_error(format!(
        "line {line}: a record of no transcript format this runtime reads (keys: {}); it reads Claude Code's session JSONL, Codex's rollout JSONL, Gemini CLI's saved chat and open-strix's logs/events.jsonl (Cursor documents no transcript format)",
        keys.join(", ")
    )))
}

/// A tool call of `agent`'s transcript as the runtime dispatches it when that agent's hook
/// reports it: Codex's shell calls as `Bash` with the script as `command` (what Codex sends
/// its hooks); Gemini CLI's read by its dialect as its bridge reads them (`run_shell_command`
/// is `bash`); every other call as recorded.
pub fn as_hooks_see_it(agent: &str, tool_name: &str, input: &Value) -> (String, Value) {
    match agent {
        "codex" => codex::as_hooks_see_it(tool_name, input),
        "gemini" => {
            let hook_input = serde_json::json!({
                "session_id": "",
                "hook_event_name": "BeforeTool",
                "tool_name": tool_name,
                "tool_input": input,
            });
            let read = agent_hooks_dialects::agent::Agent::Gemini
                .home()
                .read_input(
                    &hook_input,
                    &agent_hooks_dialects::home::ToolAliases::default(),
                    agent_hooks_dialects::home::RewritePermission::default(),
                );
            match read {
                Ok(bridged) => (
                    bridged
                        .payload
                        .get("tool_name")
                        .and_then(Value::as_str)
                        .unwrap_or(tool_name)
                        .to_owned(),
                    bridged
                        .payload
                        .get("tool_input")
                        .cloned()
                        .unwrap_or_else(|| input.clone()),
                ),
                Err(_) => (tool_name.to_owned(), input.clone()),
            }
        }
        _ => (tool_name.to_owned(), input.clone()),
    }
}

/// The tool calls of the transcript at `path`, its subagents' included, and the files read.
fn read_calls(path: &Path) -> Result<(Vec<ToolCall>, Vec<PathBuf>), AuditError> {
    let transcript = read(path)?;
    let mut calls = Vec::new();
    for (session, entry) in transcript.entries() {
        if let Step::ToolCall {
            id,
            tool_name,
            input,
        } = &entry.step
        {
            calls.push(ToolCall {
                agent: transcript.agent,
                session_id: Some(session.id.clone()),
                id: id.clone(),
                tool_name: tool_name.clone(),
                input: input.clone(),
                transcript: entry.transcript.clone(),
                line: entry.line,
                subagent: entry.subagent.clone(),
            });
        }
    }
    Ok((calls, transcript.files))
}
