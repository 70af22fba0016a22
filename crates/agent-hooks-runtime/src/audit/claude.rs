//! Claude Code's transcript: `~/.claude/projects/<project>/<session>.jsonl`, one JSON object a
//! line; a tool call is a `tool_use` block (`id`, `name`, `input`) in an assistant message's
//! `content`. Subagents write their own files beside it, in
//! `<session>/subagents/agent-<id>.jsonl`, in the same format with `isSidechain` and `agentId`;
//! their calls reach hooks with the parent's `session_id`.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{AuditError, Read, ToolCall, json_lines};

/// Whether `first`, a transcript's first record, is Claude Code's.
pub(super) fn recognises(first: &Value) -> bool {
    first.get("sessionId").is_some()
        || first.get("message").is_some()
        || matches!(
            first.get("type").and_then(Value::as_str),
            Some("summary" | "user" | "assistant" | "system" | "file-history-snapshot")
        )
}

/// The tool calls of the session at `path` (its text is `text`) and of its subagents.
pub(super) fn read(path: &Path, text: &str) -> Result<Read, AuditError> {
    let mut read = Read::default();
    read.files.push(path.to_path_buf());
    read.calls.extend(calls(path, text));
    for sub in subagent_files(path) {
        let text = std::fs::read_to_string(&sub).map_err(|source| AuditError::Io {
            path: sub.display().to_string(),
            source,
        })?;
        read.calls.extend(calls(&sub, &text));
        read.files.push(sub);
    }
    Ok(read)
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

fn calls(path: &Path, text: &str) -> Vec<ToolCall> {
    let mut calls = Vec::new();
    for (line, record) in json_lines(text) {
        if record.get("type").and_then(Value::as_str) != Some("assistant") {
            continue;
        }
        let Some(content) = record
            .get("message")
            .and_then(|m| m.get("content"))
            .and_then(Value::as_array)
        else {
            continue;
        };
        let text_of = |key: &str| record.get(key).and_then(Value::as_str).map(str::to_owned);
        let sidechain = record.get("isSidechain").and_then(Value::as_bool) == Some(true);
        let subagent = text_of("agentId").or_else(|| sidechain.then(|| "sidechain".to_owned()));
        // `server_tool_use` blocks run on the model's side, where no hook can see them.
        for block in content
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_use"))
        {
            calls.push(ToolCall {
                agent: "claude",
                session_id: text_of("sessionId"),
                id: block.get("id").and_then(Value::as_str).map(str::to_owned),
                tool_name: block
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_owned(),
                input: block.get("input").cloned().unwrap_or(Value::Null),
                transcript: path.to_path_buf(),
                line,
                subagent: subagent.clone(),
            });
        }
    }
    calls
}
