//! Which payloads a hook runs on. A matcher is a regex compiled once at load; the shell and skill
//! dialects search it in the payload's *match text* (every string value, common fields left
//! out, one per line), Claude Code in the tool name ([`super::claude::match_target`]).

use regex::Regex;
use serde_json::{Map, Value};

use agent_hooks_core::event::COMMON_FIELDS;

/// A compiled matcher. Compiled once at load; a miss means the hook is not spawned.
#[derive(Debug, Clone)]
pub struct Matcher {
    /// The pattern as written, for display.
    pub pattern: String,
    /// The compiled pattern.
    pub regex: Regex,
}

impl Matcher {
    /// Whether the matcher selects `text` (the dialect decides what text that is).
    pub fn is_match(&self, text: &str) -> bool {
        self.regex.is_match(text)
    }
}

/// Compiles a shell-hook matcher. The match text holds the payload's strings one per line, so
/// `^` and `$` mean the start and end of a value (`^rm` matches a command that starts with rm).
pub fn multi_line(pattern: String) -> Result<Matcher, regex::Error> {
    let regex = regex::RegexBuilder::new(&pattern)
        .multi_line(true)
        .build()?;
    Ok(Matcher { pattern, regex })
}

/// The payload's string values (nested ones too), common fields excluded, joined with newlines.
pub fn match_text(payload: &Map<String, Value>) -> String {
    let mut text = String::new();
    for (key, value) in payload {
        if COMMON_FIELDS.contains(&key.as_str()) {
            continue;
        }
        collect_strings(value, &mut text);
    }
    text
}

fn collect_strings(value: &Value, out: &mut String) {
    match value {
        Value::String(s) => {
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(s);
        }
        Value::Array(items) => items.iter().for_each(|v| collect_strings(v, out)),
        Value::Object(map) => map.values().for_each(|v| collect_strings(v, out)),
        _ => {}
    }
}
