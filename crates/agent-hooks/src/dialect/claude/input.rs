//! Canonical payload → Claude Code's hook input (`hook_event_name`, `tool_name`, `prompt`, ...),
//! what a hook declared in `.claude/settings*.json` reads on stdin.

use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::{Map, Value};

use super::event::{ClaudeEvent, ToolAliases, session_cause};
use crate::dialect::PayloadView;

/// A tool-use id for payloads that bring none, unique enough within one machine.
pub fn generate_tool_use_id() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    format!(
        "toolu_{:016x}{:08x}{:04x}",
        nanos as u64,
        std::process::id(),
        n & 0xffff
    )
}

/// Claude Code's hook input for a canonical payload.
pub fn claude_input(
    claude: ClaudeEvent,
    payload: &Map<String, Value>,
    aliases: &ToolAliases,
    transcript_default: &str,
    tool_use_id: impl FnOnce() -> String,
) -> Map<String, Value> {
    let text = |k: &str| {
        payload
            .get(k)
            .cloned()
            .unwrap_or(Value::String(String::new()))
    };
    let mut input = Map::new();
    input.insert("session_id".into(), text("session_id"));
    input.insert(
        "transcript_path".into(),
        payload
            .get("transcript_path")
            .filter(|v| v.as_str().is_some_and(|s| !s.is_empty()))
            .cloned()
            .unwrap_or_else(|| Value::String(transcript_default.to_owned())),
    );
    input.insert("cwd".into(), text("cwd"));
    input.insert(
        "permission_mode".into(),
        payload
            .get("permission_mode")
            .cloned()
            .unwrap_or_else(|| Value::String("default".into())),
    );
    input.insert(
        "hook_event_name".into(),
        Value::String(claude.name().to_owned()),
    );
    if claude.is_tool_event() {
        let tool = payload
            .get("tool_name")
            .and_then(Value::as_str)
            .unwrap_or("");
        input.insert(
            "tool_name".into(),
            Value::String(aliases.to_claude(tool).to_owned()),
        );
        input.insert(
            "tool_input".into(),
            payload
                .get("tool_input")
                .cloned()
                .unwrap_or_else(|| Value::Object(Map::new())),
        );
        let id = match payload.get("tool_use_id").and_then(Value::as_str) {
            Some(id) if !id.is_empty() => id.to_owned(),
            _ => tool_use_id(),
        };
        input.insert("tool_use_id".into(), Value::String(id));
    }
    match claude {
        ClaudeEvent::UserPromptSubmit => {
            input.insert("prompt".into(), text("message"));
        }
        ClaudeEvent::PostToolUse => {
            input.insert(
                "tool_response".into(),
                payload.get("tool_result").cloned().unwrap_or(Value::Null),
            );
        }
        ClaudeEvent::PostToolUseFailure => {
            input.insert(
                "error".into(),
                payload.get("error").cloned().unwrap_or(Value::Null),
            );
            input.insert("is_interrupt".into(), Value::Bool(false));
        }
        ClaudeEvent::Stop => {
            input.insert(
                "stop_hook_active".into(),
                payload
                    .get("stop_hook_active")
                    .cloned()
                    .unwrap_or(Value::Bool(false)),
            );
            input.insert("last_assistant_message".into(), text("response"));
        }
        ClaudeEvent::SessionStart => {
            input.insert("source".into(), session_cause(claude, payload).into());
            if let Some(model) = payload.get("model") {
                input.insert("model".into(), model.clone());
            }
        }
        ClaudeEvent::SessionEnd => {
            input.insert("reason".into(), session_cause(claude, payload).into());
        }
        ClaudeEvent::Notification => {
            input.insert("message".into(), text("notification"));
            input.insert("notification_type".into(), text("type"));
            if let Some(title) = payload.get("title") {
                input.insert("title".into(), title.clone());
            }
        }
        ClaudeEvent::PreToolUse => {}
    }
    input
}

pub(crate) fn input(view: &PayloadView<'_>, claude: ClaudeEvent, aliases: &ToolAliases) -> Vec<u8> {
    let transcript = view.ws.chat_history().to_string_lossy().into_owned();
    let input = claude_input(claude, view.payload, aliases, &transcript, || {
        view.cache
            .tool_use_id
            .get_or_init(generate_tool_use_id)
            .clone()
    });
    let mut bytes = serde_json::to_vec(&input).unwrap_or_else(|_| b"{}".to_vec());
    bytes.push(b'\n');
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialect::claude::event::match_target;

    #[test]
    fn session_fields_fall_back_to_the_canonical_status() {
        let mut payload = Map::new();
        payload.insert("status".into(), Value::from("resume"));
        let input = claude_input(
            ClaudeEvent::SessionStart,
            &payload,
            &ToolAliases::default(),
            "/t",
            String::new,
        );
        assert_eq!(input["source"], "resume");
        payload.insert("source".into(), Value::from("clear"));
        let aliases = ToolAliases::default();
        assert_eq!(
            match_target(ClaudeEvent::SessionStart, &payload, &aliases),
            Some("clear")
        );
        assert_eq!(
            match_target(ClaudeEvent::SessionEnd, &Map::new(), &aliases),
            Some("other")
        );
    }
}
