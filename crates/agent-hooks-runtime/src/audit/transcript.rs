//! A session transcript read in order: each user prompt, tool call, tool result, reply, turn
//! end and compaction, whatever agent wrote it. `audit` takes its tool calls; `replay` turns
//! every step into the canonical event it was. Records no step stands for are counted by kind,
//! never dropped silently.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::Value;

/// Why a transcript could not be read, or an audit made.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AuditError {
    /// A transcript or the decision log could not be read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The underlying failure.
        source: std::io::Error,
    },
    /// The file is not a transcript this runtime can read.
    #[error("{path}: {why}")]
    Format {
        /// The file.
        path: String,
        /// What was wrong.
        why: String,
    },
    /// `logs.decisions: false` and no log was named: nothing to match against.
    #[error(
        "the decision log is off (logs.decisions: false in config/agent.yaml); name a log with --log"
    )]
    LogOff,
}

/// How a tool call ended, as its result records it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ResultStatus {
    /// The tool ran and returned.
    Success,
    /// The tool ran and failed (an error result).
    Error,
    /// The user or the agent stopped it before it finished.
    Interrupted,
}

impl ResultStatus {
    /// The name reports and payloads use.
    pub fn as_str(self) -> &'static str {
        match self {
            ResultStatus::Success => "success",
            ResultStatus::Error => "error",
            ResultStatus::Interrupted => "interrupted",
        }
    }
}

/// One thing a session did.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Step {
    /// The user's message.
    Prompt {
        /// Its text.
        text: String,
    },
    /// The model called a tool.
    ToolCall {
        /// The agent's id for the call, when it records one.
        id: Option<String>,
        /// The tool, as the agent names it.
        tool_name: String,
        /// Its input.
        input: Value,
    },
    /// A tool call's result.
    ToolResult {
        /// The id of the call it answers.
        id: Option<String>,
        /// The tool, taken from its call.
        tool_name: String,
        /// The call's input, taken from its call.
        input: Value,
        /// What the tool returned.
        output: Value,
        /// How it ended.
        status: ResultStatus,
    },
    /// Text the model wrote to the user.
    Reply {
        /// Its text.
        text: String,
    },
    /// The turn ended (`interrupted`: the user stopped it, so no stop was asked for).
    TurnEnd {
        /// Whether the turn was cut short.
        interrupted: bool,
    },
    /// The agent compacted its context.
    Compaction,
    /// A stop hook refused the stop and sent the agent on with `text` (Claude Code records it
    /// as "Stop hook feedback: ..."): the turn goes on, one redo more.
    StopRefused {
        /// What the hook said.
        text: String,
    },
}

/// A step and where it was read.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Entry {
    /// What happened.
    pub step: Step,
    /// The file it was read from.
    pub transcript: PathBuf,
    /// Its line in that file (from 1); for a JSON document (Gemini CLI), the message's number.
    pub line: usize,
    /// When, as the agent wrote it.
    pub timestamp: Option<String>,
    /// The subagent that did it, when one did.
    pub subagent: Option<String>,
}

impl Entry {
    /// `step`, read at `line` of `transcript`.
    pub(super) fn at(
        transcript: &std::path::Path,
        line: usize,
        timestamp: Option<String>,
        subagent: Option<String>,
        step: Step,
    ) -> Entry {
        Entry {
            step,
            transcript: transcript.to_path_buf(),
            line,
            timestamp,
            subagent,
        }
    }
}

/// One session's steps, in order.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct Session {
    /// The session's id (`session_id` as hooks get it), or the file's name when it names none.
    pub id: String,
    /// Its steps in order; a subagent's are interleaved by time.
    pub entries: Vec<Entry>,
}

/// A transcript read whole.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct Transcript {
    /// The agent that wrote it (`claude`, `codex`, `gemini`, `open-strix`).
    pub agent: &'static str,
    /// Every file read, subagents' included.
    pub files: Vec<PathBuf>,
    /// Its sessions (one, except open-strix's log, which holds every run).
    pub sessions: Vec<Session>,
    /// Records of a kind this reader knows and that no event stands for (metadata, token
    /// counts), by kind.
    pub ignored: BTreeMap<String, usize>,
    /// Records of a kind this reader does not know, by kind (`(not JSON)` for a line that does
    /// not parse).
    pub unknown: BTreeMap<String, usize>,
}

impl Transcript {
    /// An empty transcript of `agent`.
    pub(super) fn new(agent: &'static str) -> Transcript {
        Transcript {
            agent,
            ..Transcript::default()
        }
    }

    /// Counts a record no step stands for.
    pub(super) fn ignore(&mut self, kind: impl Into<String>) {
        *self.ignored.entry(kind.into()).or_default() += 1;
    }

    /// Counts a record this reader does not know.
    pub(super) fn unknown(&mut self, kind: impl Into<String>) {
        *self.unknown.entry(kind.into()).or_default() += 1;
    }

    /// The JSON objects of `text`, each with its line; a line that is none is counted as
    /// unknown (`(not JSON)`).
    pub(super) fn objects(&mut self, text: &str) -> Vec<(usize, Value)> {
        let mut objects = Vec::new();
        for (line, record) in json_lines(text) {
            match record {
                Ok(record) => objects.push((line, record)),
                Err(_) => self.unknown("(not JSON)"),
            }
        }
        objects
    }

    /// The session called `id`, made when it is new.
    pub(super) fn session(&mut self, id: &str) -> &mut Session {
        let at = match self.sessions.iter().position(|s| s.id == id) {
            Some(at) => at,
            None => {
                self.sessions.push(Session {
                    id: id.to_owned(),
                    entries: Vec::new(),
                });
                self.sessions.len() - 1
            }
        };
        &mut self.sessions[at]
    }

    /// Every step of every session, in order.
    pub fn entries(&self) -> impl Iterator<Item = (&Session, &Entry)> {
        self.sessions
            .iter()
            .flat_map(|s| s.entries.iter().map(move |e| (s, e)))
    }
}

impl Session {
    /// Ends each turn that no record ended: before a prompt that follows other steps, and at
    /// the end. A subagent's steps never end the parent's turn.
    pub(super) fn close_turns(&mut self) {
        let mut closed = Vec::with_capacity(self.entries.len() + 4);
        let mut open: Option<(PathBuf, usize, Option<String>)> = None;
        for entry in self.entries.drain(..) {
            if entry.subagent.is_none() {
                match entry.step {
                    Step::Prompt { .. } => {
                        if let Some((transcript, line, timestamp)) = open.take() {
                            closed.push(turn_end(transcript, line, timestamp));
                        }
                    }
                    Step::TurnEnd { .. } => open = None,
                    Step::Compaction => {}
                    _ => {
                        open = Some((
                            entry.transcript.clone(),
                            entry.line,
                            entry.timestamp.clone(),
                        ))
                    }
                }
            }
            closed.push(entry);
        }
        if let Some((transcript, line, timestamp)) = open {
            closed.push(turn_end(transcript, line, timestamp));
        }
        self.entries = closed;
    }
}

fn turn_end(transcript: PathBuf, line: usize, timestamp: Option<String>) -> Entry {
    Entry::at(
        &transcript,
        line,
        timestamp,
        None,
        Step::TurnEnd { interrupted: false },
    )
}

/// The calls of a transcript so far, by id: a result names only its call's id, and its step
/// carries the call's tool and input.
#[derive(Debug, Default)]
pub(super) struct Calls(std::collections::HashMap<String, (String, Value)>);

impl Calls {
    /// The step of a call, remembered for its result.
    pub(super) fn call(&mut self, id: Option<String>, tool_name: String, input: Value) -> Step {
        if let Some(id) = &id {
            self.0
                .insert(id.clone(), (tool_name.clone(), input.clone()));
        }
        Step::ToolCall {
            id,
            tool_name,
            input,
        }
    }

    /// The step of the result of call `id`.
    pub(super) fn result(&self, id: Option<String>, output: Value, status: ResultStatus) -> Step {
        let (tool_name, input) = id
            .as_ref()
            .and_then(|id| self.0.get(id).cloned())
            .unwrap_or_default();
        Step::ToolResult {
            id,
            tool_name,
            input,
            output,
            status,
        }
    }
}

/// Each line of `text` with its number (from 1): the JSON object on it, or `Err` with what
/// the line is when it is none (blank lines are passed over).
pub(super) fn json_lines(text: &str) -> impl Iterator<Item = (usize, Result<Value, String>)> + '_ {
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(i, line)| {
            let parsed = match serde_json::from_str::<Value>(line) {
                Ok(value) if value.is_object() => Ok(value),
                Ok(value) => Err(format!(
                    "a JSON {}, not an object",
                    agent_hooks_core::wording::kind_of(&value)
                )),
                Err(e) => Err(format!("not JSON ({e})")),
            };
            (i + 1, parsed)
        })
}

/// The text of a message's content: a string, or the `text` of each text block.
pub(super) fn text_of(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|b| match b {
                Value::String(s) => Some(s.as_str()),
                _ => b.get("text").and_then(Value::as_str),
            })
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}
