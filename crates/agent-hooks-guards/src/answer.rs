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

/// `tool_names` as a list of strings (other entries are skipped), each followed by the name
/// it stands for when the workspace aliases it ([`TOOL_ALIASES_KEY`]).
pub(crate) fn tool_names(payload: &Value) -> Vec<&str> {
    let mut names = Vec::new();
    for name in payload
        .get("tool_names")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        names.push(name);
        names.extend(alias_of(payload, name));
    }
    names
}

/// The payload's `tool_name` (`""` when absent) and the name it stands for when the workspace
/// aliases it: a guard treats `shell_exec` aliased to `Bash` exactly as `Bash`.
pub(crate) fn tool_name(payload: &Value) -> (&str, Option<&str>) {
    let name = str_field(payload, "tool_name");
    (name, alias_of(payload, name))
}

/// Whether the call's tool (by its name or the name it stands for) is in `list`.
pub(crate) fn tool_is(list: &[impl AsRef<str>], payload: &Value) -> bool {
    let (name, alias) = tool_name(payload);
    tool_in(list, name) || alias.is_some_and(|alias| tool_in(list, alias))
}

/// The name the workspace's tool aliases give `name`, if any.
fn alias_of<'a>(payload: &'a Value, name: &str) -> Option<&'a str> {
    payload
        .get(TOOL_ALIASES_KEY)
        .and_then(|aliases| aliases.get(name))
        .and_then(Value::as_str)
        .filter(|alias| *alias != name)
}

/// The key under which a runtime hands a guard the payload's aliased tool names (host name to
/// the name it stands for, as `claude_hooks.tool_aliases` maps them). It cannot be a field of
/// any agent's payload.
pub const TOOL_ALIASES_KEY: &str = "\u{0}tool_aliases";

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

/// The key under which a guard's answer carries the limit it hit; [`crate::Guard::assess`]
/// takes it out, so no answer a hook prints ever holds it.
pub(crate) const LIMIT_KEY: &str = "\u{0}limit";

/// `{"decision": "ask", "reason": ...}` given because the guard reached a limit of its own
/// (nesting, input it cannot read): the user decides, and the runtime reports the limit.
pub(crate) fn limit(reason: impl Into<String>) -> Value {
    let reason = reason.into();
    json!({"decision": "ask", "reason": reason.clone(), LIMIT_KEY: reason})
}
