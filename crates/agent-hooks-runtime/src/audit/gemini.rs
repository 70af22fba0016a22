//! Gemini CLI's saved chat: `~/.gemini/tmp/<project_hash>/chats/session-<time>-<id>.json`, one
//! JSON document `{"sessionId", "projectHash", "startTime", "lastUpdated", "messages"}`. A
//! message has a `type` (`user`, `gemini`, `info`, `error`, `warning`) and `content`; a
//! `gemini` message lists its `toolCalls`, each with `id`, `name`, `args`, `result` and
//! `status` (`success`, `error`, `cancelled`). Positions are the message's number, the
//! document having no line per record.

use std::path::Path;

use serde_json::Value;

use super::transcript::{AuditError, Entry, ResultStatus, Step, Transcript, text_of};

/// Whether `document`, a whole file's JSON, is a Gemini CLI chat.
pub(super) fn recognises(document: &Value) -> bool {
    document.get("sessionId").is_some() && document.get("messages").is_some_and(Value::is_array)
}

/// The chat `document` read from `path`.
pub(super) fn read(path: &Path, document: &Value) -> Result<Transcript, AuditError> {
    let mut transcript = Transcript::new("gemini");
    transcript.files.push(path.to_path_buf());
    let Some(messages) = document.get("messages").and_then(Value::as_array) else {
        return Err(AuditError::Format {
            path: path.display().to_string(),
            why: "a Gemini CLI chat without a \"messages\" list".into(),
        });
    };
    let mut entries = Vec::new();
    for (index, message) in messages.iter().enumerate() {
        let timestamp = message
            .get("timestamp")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let mut push =
            |step: Step| entries.push(Entry::at(path, index + 1, timestamp.clone(), None, step));
        let content = message.get("content").map(text_of).unwrap_or_default();
        match message.get("type").and_then(Value::as_str) {
            Some("user") => push(Step::Prompt { text: content }),
            Some("gemini") => {
                if !content.is_empty() {
                    push(Step::Reply { text: content });
                }
                let calls = message.get("toolCalls").and_then(Value::as_array);
                for call in calls.into_iter().flatten() {
                    let id = call.get("id").and_then(Value::as_str).map(str::to_owned);
                    let tool_name = call
                        .get("name")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_owned();
                    let input = call.get("args").cloned().unwrap_or(Value::Null);
                    push(Step::ToolCall {
                        id: id.clone(),
                        tool_name: tool_name.clone(),
                        input: input.clone(),
                    });
                    let status = match call.get("status").and_then(Value::as_str) {
                        Some("error") => ResultStatus::Error,
                        Some("cancelled") => ResultStatus::Interrupted,
                        _ => ResultStatus::Success,
                    };
                    // A call still awaiting approval when the chat was saved has no result.
                    if call.get("result").is_some() || status != ResultStatus::Success {
                        push(Step::ToolResult {
                            id,
                            tool_name,
                            input,
                            output: call.get("result").cloned().unwrap_or(Value::Null),
                            status,
                        });
                    }
                }
            }
            Some(kind @ ("info" | "error" | "warning")) => transcript.ignore(kind),
            Some(other) => transcript.unknown(other),
            None => transcript.unknown("(no type)"),
        }
    }
    let id = document
        .get("sessionId")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned();
    let session = transcript.session(&id);
    session.entries = entries;
    session.close_turns();
    Ok(transcript)
}
