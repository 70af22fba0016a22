//! Claude Code's transcript: `~/.claude/projects/<project>/<session>.jsonl`, one JSON object a
//! line; a tool call is a `tool_use` block (`id`, `name`, `input`) in an assistant message's
//! `content`, its result a `tool_result` block (`tool_use_id`, `content`, `is_error`) in the
//! next user message. Subagents write their own files beside it, in
//! `<session>/subagents/agent-<id>.jsonl`, in the same format with `isSidechain` and `agentId`;
//! their calls reach hooks with the parent's `session_id`. A compaction is a `system` record
//! of subtype `compact_boundary`, followed by a user record with `isCompactSummary`.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::transcript::{AuditError, Calls, Entry, ResultStatus, Step, Transcript, text_of};

/// What Claude Code writes in a tool result when the user refused or interrupted the call.
/// How Claude Code records a stop hook's refusal, as a user record (marked `isMeta` by
/// recent versions, not by older ones).
const STOP_FEEDBACK: &str = "Stop hook feedback:";

const INTERRUPTED: [&str; 2] = [
    "The user doesn't want to proceed with this tool use",
    "[Request interrupted by user",
];

/// Whether `first`, a transcript's first record, is Claude Code's.
pub(super) fn recognises(first: &Value) -> bool {
    first.get("sessionId").is_some()
        || first.get("message").is_some()
        || matches!(
            first.get("type").and_then(Value::as_str),
            Some("summary" | "user" | "assistant" | "system" | "file-history-snapshot")
        )
}

/// The session at `path` (its text is `text`) and its subagents', one session.
pub(super) fn read(path: &Path, text: &str) -> Result<Transcript, AuditError> {
    let mut transcript = Transcript::new("claude");
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut session_id = None;
    // Each step with the time it happened at: its own, else the last one before it in its
    // file, so that a subagent's steps go where they happened, and the order is total.
    let mut timed: Vec<(String, Entry)> = Vec::new();
    let mut add = |entries: Vec<Entry>| {
        let mut last = String::new();
        for entry in entries {
            if let Some(at) = &entry.timestamp {
                last.clone_from(at);
            }
            timed.push((last.clone(), entry));
        }
    };
    add(steps(path, text, &mut transcript, &mut session_id));
    transcript.files.push(path.to_path_buf());
    for sub in subagent_files(path) {
        let text = std::fs::read_to_string(&sub).map_err(|source| AuditError::Io {
            path: sub.display().to_string(),
            source,
        })?;
        add(steps(&sub, &text, &mut transcript, &mut session_id));
        transcript.files.push(sub);
    }
    // Stable: steps of the same time keep the order they were read in.
    timed.sort_by(|a, b| a.0.cmp(&b.0));
    let entries = timed.into_iter().map(|(_, entry)| entry).collect();
    let session = transcript.session(session_id.as_deref().unwrap_or(&stem));
    session.entries = entries;
    session.close_turns();
    Ok(transcript)
}

/// `<session>/subagents/agent-*.jsonl` beside `<session>.jsonl`, sorted so the report is
/// stable.
fn subagent_files(path: &Path) -> Vec<PathBuf> {
    let (Some(dir), Some(stem)) = (path.parent(), path.file_stem()) else {
        return Vec::new();
    };
    let Ok(entries) = std::fs::read_dir(dir.join(stem).join("subagents")) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            p.extension().is_some_and(|x| x == "jsonl")
                && p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with("agent-"))
        })
        .collect();
    files.sort();
    files
}

/// The steps of one file, in order; `session_id` takes the first one it names.
fn steps(
    path: &Path,
    text: &str,
    transcript: &mut Transcript,
    session_id: &mut Option<String>,
) -> Vec<Entry> {
    let mut entries = Vec::new();
    // Each call by id, for its result's tool name and input.
    let mut calls = Calls::default();
    for (line, record) in transcript.objects(text) {
        let text_field = |key: &str| record.get(key).and_then(Value::as_str).map(str::to_owned);
        if session_id.is_none() {
            *session_id = text_field("sessionId");
        }
        let sidechain = record.get("isSidechain").and_then(Value::as_bool) == Some(true);
        let subagent = text_field("agentId").or_else(|| sidechain.then(|| "sidechain".to_owned()));
        let timestamp = text_field("timestamp");
        let mut push = |step: Step| {
            entries.push(Entry::at(
                path,
                line,
                timestamp.clone(),
                subagent.clone(),
                step,
            ));
        };
        let kind = record.get("type").and_then(Value::as_str).unwrap_or("");
        let content = record.get("message").and_then(|m| m.get("content"));
        match kind {
            "assistant" => {
                let Some(blocks) = content.and_then(Value::as_array) else {
                    transcript.ignore("assistant without content");
                    continue;
                };
                let said = text_of(&Value::Array(
                    blocks
                        .iter()
                        .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
                        .cloned()
                        .collect(),
                ));
                if !said.is_empty() && subagent.is_none() {
                    push(Step::Reply { text: said });
                }
                // `server_tool_use` blocks run on the model's side, where no hook can see them.
                for block in blocks
                    .iter()
                    .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_use"))
                {
                    let id = block.get("id").and_then(Value::as_str).map(str::to_owned);
                    let tool_name = block
                        .get("name")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_owned();
                    let input = block.get("input").cloned().unwrap_or(Value::Null);
                    push(calls.call(id, tool_name, input));
                }
            }
            "user" => {
                if record.get("isCompactSummary").and_then(Value::as_bool) == Some(true) {
                    transcript.ignore("user (compact summary)");
                    continue;
                }
                let feedback = content
                    .map(text_of)
                    .filter(|said| subagent.is_none() && said.starts_with(STOP_FEEDBACK));
                if let Some(text) = feedback {
                    push(Step::StopRefused { text });
                    continue;
                }
                if record.get("isMeta").and_then(Value::as_bool) == Some(true) {
                    transcript.ignore("user (meta)");
                    continue;
                }
                let results: Vec<&Value> = content
                    .and_then(Value::as_array)
                    .map(|blocks| {
                        blocks
                            .iter()
                            .filter(|b| {
                                b.get("type").and_then(Value::as_str) == Some("tool_result")
                            })
                            .collect()
                    })
                    .unwrap_or_default();
                if results.is_empty() {
                    let said = content.map(text_of).unwrap_or_default();
                    if subagent.is_some() {
                        // The task the parent gave its subagent: the parent's tool call, not
                        // the user's prompt.
                        transcript.ignore("user (subagent task)");
                    } else if INTERRUPTED.iter().any(|m| said.starts_with(m)) {
                        push(Step::TurnEnd { interrupted: true });
                    } else {
                        push(Step::Prompt { text: said });
                    }
                    continue;
                }
                for block in results {
                    let id = block
                        .get("tool_use_id")
                        .and_then(Value::as_str)
                        .map(str::to_owned);
                    let output = block.get("content").cloned().unwrap_or(Value::Null);
                    let said = text_of(&output);
                    let status = if INTERRUPTED.iter().any(|m| said.starts_with(m)) {
                        ResultStatus::Interrupted
                    } else if block.get("is_error").and_then(Value::as_bool) == Some(true) {
                        ResultStatus::Error
                    } else {
                        ResultStatus::Success
                    };
                    push(calls.result(id, output, status));
                }
            }
            "system" => match record.get("subtype").and_then(Value::as_str) {
                Some("compact_boundary") => push(Step::Compaction),
                Some(sub) => transcript.ignore(format!("system ({sub})")),
                None => transcript.ignore("system"),
            },
            "summary" | "file-history-snapshot" | "queue-operation" => transcript.ignore(kind),
            "" => transcript.unknown("(no type)"),
            other => transcript.unknown(other),
        }
    }
    entries
}
