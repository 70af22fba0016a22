//! Canonical payload → Claude Code's hook input (`hook_event_name`, `tool_name`, `prompt`, ...),
//! what a hook declared in `.claude/settings*.json` reads on stdin.

use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::{Map, Value};

use super::event::{ClaudeEvent, session_cause};
use super::transcript;
use crate::PayloadView;
use crate::home::ToolAliases;

/// A tool-use id for payloads that bring none, unique enough within one machine.
pub fn generate_tool_use_id() -> String {
    let (nanos, pid, n) = unique_parts();
    format!("toolu_{nanos:016x}{pid:08x}{:04x}", n & 0xffff)
}

/// A session id in Claude Code's shape (a UUID) for payloads that bring none, unique enough
/// within one machine; Claude Code never sends an empty one and scripts key files on it.
pub(crate) fn generate_session_id() -> String {
    let (nanos, pid, n) = unique_parts();
    format!(
        "{:08x}-{:04x}-4{:03x}-8{:03x}-{:012x}",
        (nanos >> 32) as u32,
        (nanos >> 16) as u16,
        nanos & 0xfff,
        n & 0xfff,
        (u64::from(pid) << 16) | (n & 0xffff)
    )
}

fn unique_parts() -> (u64, u32, u64) {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    (
        nanos as u64,
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed),
    )
}

/// Claude Code's hook input for a canonical payload. `transcript` is a Claude Code-format
/// transcript to point `transcript_path` at when the payload names none (without either the
/// field is left out: a hook must never get a file in another format); `session_id` and
/// `tool_use_id` give ids where the payload has none.
pub(crate) fn claude_input(
    claude: ClaudeEvent,
    payload: &Map<String, Value>,
    aliases: &ToolAliases,
    transcript: Option<&str>,
    session_id: impl FnOnce() -> String,
    tool_use_id: impl FnOnce() -> String,
) -> Map<String, Value> {
    let text = |k: &str| {
        payload
            .get(k)
            .cloned()
            .unwrap_or(Value::String(String::new()))
    };
    let mut input = Map::new();
    let session = match payload.get("session_id").and_then(Value::as_str) {
        Some(id) if !id.is_empty() => id.to_owned(),
        _ => session_id(),
    };
    input.insert("session_id".into(), Value::String(session));
    let given = payload
        .get("transcript_path")
        .filter(|v| v.as_str().is_some_and(|s| !s.is_empty()))
        .cloned();
    if let Some(path) = given.or_else(|| transcript.map(|t| Value::String(t.to_owned()))) {
        input.insert("transcript_path".into(), path);
    }
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

/// The JSON a Claude Code-style hook reads on stdin for the payload in `view`, in the event
/// and field names of `family`'s agent.
pub fn input(
    view: &PayloadView<'_>,
    family: &dyn super::ClaudeFamily,
    claude: ClaudeEvent,
    aliases: &ToolAliases,
) -> Vec<u8> {
    let session = || {
        view.cache
            .session_id
            .get_or_init(generate_session_id)
            .clone()
    };
    let session_id = view
        .payload
        .get("session_id")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map_or_else(session, str::to_owned);
    let transcript = view
        .cache
        .transcript
        .get_or_init(|| transcript::build(view.ws, &session_id));
    let mut input = claude_input(
        claude,
        view.payload,
        aliases,
        transcript.as_deref(),
        || session_id.clone(),
        || {
            view.cache
                .tool_use_id
                .get_or_init(generate_tool_use_id)
                .clone()
        },
    );
    family.complete_input(&mut input, view.payload);
    let mut bytes = serde_json::to_vec(&input).unwrap_or_else(|_| b"{}".to_vec());
    bytes.push(b'\n');
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::claude::event::match_target;

    #[test]
    fn session_fields_fall_back_to_the_canonical_status() {
        let mut payload = Map::new();
        payload.insert("status".into(), Value::from("resume"));
        let input = claude_input(
            ClaudeEvent::SessionStart,
            &payload,
            &ToolAliases::default(),
            Some("/t"),
            || "generated".to_owned(),
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

    #[test]
    fn session_id_is_never_empty_and_transcript_path_is_left_out_without_one() {
        let input = claude_input(
            ClaudeEvent::Stop,
            &Map::new(),
            &ToolAliases::default(),
            None,
            generate_session_id,
            String::new,
        );
        let id = input["session_id"].as_str().unwrap_or_default();
        assert_eq!(id.len(), 36, "{id}");
        assert!(!input.contains_key("transcript_path"));
        assert_ne!(generate_session_id(), generate_session_id());
    }
}
