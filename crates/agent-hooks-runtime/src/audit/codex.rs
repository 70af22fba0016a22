//! Codex's rollout: `~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl`, one
//! `{"timestamp", "type", "payload"}` object a line. `session_meta` names the session (its
//! `payload.id` is the `session_id` hooks get); a tool call is a `response_item` whose payload
//! is a `function_call`, `custom_tool_call` or `local_shell_call`, with the `call_id` hooks get
//! as `tool_use_id`. A subagent runs in a thread of its own with its own rollout file: name
//! each file to audit it.

use std::path::Path;

use serde_json::Value;

use super::{Read, ToolCall, json_lines};

/// Whether `first`, a transcript's first record, is a Codex rollout's.
pub(super) fn recognises(first: &Value) -> bool {
    first.get("payload").is_some()
        && matches!(
            first.get("type").and_then(Value::as_str),
            Some("session_meta" | "response_item" | "event_msg" | "turn_context")
        )
}

/// The tool calls of the rollout at `path` (its text is `text`).
pub(super) fn read(path: &Path, text: &str) -> Read {
    let mut read = Read::default();
    read.files.push(path.to_path_buf());
    let mut session: Option<String> = None;
    for (line, record) in json_lines(text) {
        let Some(payload) = record.get("payload") else {
            continue;
        };
        let field = |key: &str| payload.get(key).and_then(Value::as_str).map(str::to_owned);
        match record.get("type").and_then(Value::as_str) {
            Some("session_meta") => session = field("id").or(session),
            Some("response_item") => {
                let input = match payload.get("type").and_then(Value::as_str) {
                    // The model's arguments are JSON text; what does not parse is kept as text.
                    Some("function_call") => {
                        let arguments = field("arguments").unwrap_or_default();
                        serde_json::from_str(&arguments).unwrap_or(Value::String(arguments))
                    }
                    Some("custom_tool_call") => payload.get("input").cloned().unwrap_or_default(),
                    Some("local_shell_call") => payload.get("action").cloned().unwrap_or_default(),
                    _ => continue,
                };
                read.calls.push(ToolCall {
                    agent: "codex",
                    session_id: session.clone(),
                    id: field("call_id").or_else(|| field("id")),
                    tool_name: field("name").unwrap_or_else(|| "local_shell".to_owned()),
                    input,
                    transcript: path.to_path_buf(),
                    line,
                    subagent: None,
                });
            }
            _ => {}
        }
    }
    read
}
