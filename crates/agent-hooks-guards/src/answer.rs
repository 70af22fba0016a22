//! Building decision-protocol answers (`docs/protocol.md`) and reading payload fields. Kept in one
//! place so every guard speaks the protocol the same way.

use serde_json::{Map, Value, json};

/// `{}`: continue, no change.
pub(crate) fn noop() -> Value {
    Value::Object(Map::new())
}

/// `{"decision": "block", "reason": ...}`.
pub(crate) fn block(reason: impl Into<String>) -> Value {
    json!({"decision": "block", "reason": reason.into()})
}

/// `{<key>: <text>}` for the one-field answers (`response`, `note`, `context`, ...).
pub(crate) fn field(key: &str, text: impl Into<String>) -> Value {
    let mut map = Map::new();
    map.insert(key.to_owned(), Value::String(text.into()));
    Value::Object(map)
}

/// A string field of the payload, `""` when absent or not a string.
pub(crate) fn str_field<'a>(payload: &'a Value, key: &str) -> &'a str {
    payload.get(key).and_then(Value::as_str).unwrap_or("")
}

/// The session the payload belongs to (`""` when the caller gave none).
pub(crate) fn session(payload: &Value) -> &str {
    str_field(payload, "session_id")
}

/// `stop_hook_active`, also inferred from `redo_count > 0` (`docs/protocol.md`).
pub(crate) fn stop_hook_active(payload: &Value) -> bool {
    payload
        .get("stop_hook_active")
        .and_then(Value::as_bool)
        .unwrap_or(false)
        || payload
            .get("redo_count")
            .and_then(Value::as_u64)
            .is_some_and(|count| count > 0)
}

/// `tool_names` as a list of strings (other entries are skipped).
pub(crate) fn tool_names(payload: &Value) -> Vec<&str> {
    payload
        .get("tool_names")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// The text of a `tool_result`, whatever its shape: a string as is, anything else as JSON.
pub(crate) fn result_text(payload: &Value) -> String {
    match payload.get("tool_result") {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Null) | None => String::new(),
        Some(other) => other.to_string(),
    }
}

/// Fills `{name}` placeholders; unknown placeholders are left as typed.
pub(crate) fn fill(template: &str, values: &[(&str, &str)]) -> String {
    let mut out = template.to_owned();
    for (name, value) in values {
        out = out.replace(&format!("{{{name}}}"), value);
    }
    out
}

/// Case-insensitive membership of a tool name in a configured list.
pub(crate) fn tool_in(list: &[impl AsRef<str>], name: &str) -> bool {
    list.iter()
        .any(|entry| entry.as_ref().eq_ignore_ascii_case(name))
}

/// `{"decision": "ask", "reason": ...}`: the user decides (a host that cannot ask blocks).
pub(crate) fn ask(reason: impl Into<String>) -> Value {
    json!({"decision": "ask", "reason": reason.into()})
}
