//! The skill-hook source: every `hooks.json` under `skills/`, recursively (SPEC §6). Entries run
//! through `sh -c` in their skill directory, need no approval, and speak the skill dialect.
//! Problems carry the source runtime's own diagnostic types: `hook_invalid_json` for a file that
//! is not JSON, `hook_invalid_format` for a wrong shape, `hook_missing_fields` for an entry
//! without a name, a command or a valid event.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Map, Value};

use super::{ConfigError, FileLoad, FileState};
use crate::diag::DiagKind;
use crate::dialect::Dialect;
use crate::dialect::skill::{SKILL_EVENTS, canonical};
use crate::hook::{Hook, MAX_TIMEOUT_SECS, OnError, SourceKind};
use crate::transport::{CommandSpec, TransportSpec};
use crate::wording::{did_you_mean, kind_of as json_kind, nearest};
use crate::workspace::Workspace;

/// Default timeout of a skill hook, as in its source runtime.
pub const DEFAULT_TIMEOUT_SECS: f64 = 10.0;

const KNOWN_KEYS: &[&str] = &[
    "name",
    "command",
    "events",
    "event",
    "env",
    "timeout_seconds",
    "include_conversation",
];

pub(crate) fn load(ws: &Workspace, _agent: &super::agent::AgentSettings) -> Vec<FileLoad> {
    let mut files = Vec::new();
    let mut visited = HashSet::new();
    find_hooks_json(&ws.skills_dir(), 0, &mut visited, &mut files);
    files.sort();
    files.into_iter().map(|path| load_file(ws, path)).collect()
}

/// How deep below `skills/` a `hooks.json` is looked for. Skills nest a level or two; the
/// bound stops a pathological tree from costing every dispatch its time.
const MAX_DEPTH: usize = 16;

/// Collects every `hooks.json` below `dir`. Unreadable directories are skipped: they cannot
/// hold hooks this process could run anyway. Each directory is entered once, by its canonical
/// path, so a symlink back up the tree (`ln -s .. skills/a/loop`) neither loops nor makes a
/// skill's hooks run twice.
fn find_hooks_json(
    dir: &Path,
    depth: usize,
    visited: &mut HashSet<PathBuf>,
    out: &mut Vec<PathBuf>,
) {
    let Ok(canonical) = std::fs::canonicalize(dir) else {
        return;
    };
    if depth > MAX_DEPTH || !visited.insert(canonical) {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    // In name order, so when two paths lead to one directory the same one always wins.
    let mut entries: Vec<_> = entries.flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let path = entry.path();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() || (kind.is_symlink() && path.is_dir()) {
            // Skip dependency and VCS folders a skill may vendor; they never hold its hooks.
            let name = entry.file_name();
            if name == "node_modules" || name == ".git" || name == ".venv" {
                continue;
            }
            find_hooks_json(&path, depth + 1, visited, out);
        } else if entry.file_name() == "hooks.json" {
            out.push(path);
        }
    }
}

fn load_file(ws: &Workspace, path: PathBuf) -> FileLoad {
    let display = ws.display(&path).into_owned();
    let mut load = FileLoad::new(ws, SourceKind::Skill, path.clone());
    load.state = FileState::Loaded;
    let error = |kind, line, column, message: String| ConfigError {
        kind,
        file: display.clone(),
        line,
        column,
        message,
    };
    let text = match crate::store::read_optional(&path) {
        Ok(Some(text)) => text,
        // Removed between discovery and reading: nothing configured, as for any missing file.
        Ok(None) => {
            load.state = FileState::Missing;
            return load;
        }
        Err(e) => {
            load.state = FileState::Broken;
            load.errors.push(error(
                DiagKind::HookInvalidJson,
                0,
                0,
                format!("cannot read: {e}"),
            ));
            return load;
        }
    };
    let doc: Value = match serde_json::from_str(&text) {
        Ok(doc) => doc,
        Err(e) => {
            load.state = FileState::Broken;
            load.errors.push(error(
                DiagKind::HookInvalidJson,
                e.line() as u64,
                e.column() as u64,
                format!("not valid JSON: {e}"),
            ));
            return load;
        }
    };
    let Some(entries) = doc.get("hooks").and_then(Value::as_array) else {
        load.state = FileState::Broken;
        load.errors.push(error(
            DiagKind::HookInvalidFormat,
            1,
            1,
            format!(
                "expected an object with a \"hooks\" list, found {}",
                match doc.get("hooks") {
                    Some(h) => format!("\"hooks\" as {}", json_kind(h)),
                    None => json_kind(&doc).to_owned(),
                }
            ),
        ));
        return load;
    };
    let skill_dir = path
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| ws.skills_dir());
    let lines = entry_lines(&text);
    for (index, entry) in entries.iter().enumerate() {
        let line = lines.get(index).copied().unwrap_or(0);
        let at = |kind, message: String| error(kind, line, if line > 0 { 1 } else { 0 }, message);
        let Value::Object(map) = entry else {
            load.errors.push(at(
                DiagKind::HookInvalidFormat,
                format!(
                    "hook #{}: expected an object, found {}",
                    index + 1,
                    json_kind(entry)
                ),
            ));
            continue;
        };
        for key in map.keys() {
            if !KNOWN_KEYS.contains(&key.as_str()) {
                load.warnings.push(at(
                    DiagKind::HookConfigError,
                    format!("hook #{}: unknown key \"{key}\" ignored", index + 1),
                ));
            }
        }
        match parse_entry(ws, &skill_dir, &path, &display, line, index, map) {
            Ok(hook) => load.hooks.push(hook),
            Err((kind, message)) => load.errors.push(at(kind, message)),
        }
    }
    load
}

fn parse_entry(
    ws: &Workspace,
    skill_dir: &Path,
    file: &Path,
    display: &str,
    line: u64,
    index: usize,
    map: &Map<String, Value>,
) -> Result<Hook, (DiagKind, String)> {
    let missing = |what: &str| {
        (
            DiagKind::HookMissingFields,
            format!("hook #{}: {what}", index + 1),
        )
    };
    let name = match map.get("name") {
        Some(Value::String(s)) if !s.trim().is_empty() => s.clone(),
        Some(Value::String(_)) | None => return Err(missing("missing \"name\"")),
        Some(other) => {
            return Err(missing(&format!(
                "\"name\" must be a string, found {}",
                json_kind(other)
            )));
        }
    };
    let command = match map.get("command") {
        Some(Value::String(s)) if !s.trim().is_empty() => s.clone(),
        Some(Value::String(_)) | None => {
            return Err(missing(&format!("\"{name}\": missing \"command\"")));
        }
        Some(other) => {
            return Err(missing(&format!(
                "\"{name}\": \"command\" must be a string, found {}",
                json_kind(other)
            )));
        }
    };
    let names: Vec<&Value> = match (map.get("events"), map.get("event")) {
        (Some(Value::Array(list)), _) => list.iter().collect(),
        (Some(Value::String(_)), _) => map.get("events").into_iter().collect(),
        (None, Some(one)) => vec![one],
        (Some(other), _) => {
            return Err(missing(&format!(
                "\"{name}\": \"events\" must be a list of event names, found {}",
                json_kind(other)
            )));
        }
        (None, None) => return Err(missing(&format!("\"{name}\": missing \"events\""))),
    };
    let mut events = Vec::new();
    for value in names {
        let Some(event_name) = value.as_str() else {
            return Err(missing(&format!(
                "\"{name}\": event names must be strings, found {}",
                json_kind(value)
            )));
        };
        match canonical(event_name) {
            Some(e) if !events.contains(&e) => events.push(e),
            Some(_) => {}
            None => {
                let names = SKILL_EVENTS.iter().map(|(n, _)| *n);
                let hint = did_you_mean(nearest(event_name, names, |d, _| d <= 4));
                let valid: Vec<&str> = SKILL_EVENTS.iter().map(|(n, _)| *n).collect();
                return Err(missing(&format!(
                    "\"{name}\": unknown event \"{event_name}\"{hint}; skill hooks take {}",
                    valid.join(", ")
                )));
            }
        }
    }
    if events.is_empty() {
        return Err(missing(&format!("\"{name}\": no events")));
    }
    let timeout = match map.get("timeout_seconds") {
        None | Some(Value::Null) => DEFAULT_TIMEOUT_SECS,
        Some(v) => match v.as_f64() {
            Some(s) if s > 0.0 => s.min(MAX_TIMEOUT_SECS),
            _ => {
                return Err((
                    DiagKind::HookInvalidFormat,
                    format!(
                        "hook #{} \"{name}\": timeout_seconds must be a positive number, found {}",
                        index + 1,
                        json_kind(v)
                    ),
                ));
            }
        },
    };
    let env = match map.get("env") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Object(env)) => env
            .iter()
            .map(|(k, v)| {
                let value = match v {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                (k.clone(), value)
            })
            .collect(),
        Some(other) => {
            return Err((
                DiagKind::HookInvalidFormat,
                format!(
                    "hook #{} \"{name}\": env must be an object, found {}",
                    index + 1,
                    json_kind(other)
                ),
            ));
        }
    };
    let include_conversation = map
        .get("include_conversation")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let _ = ws;
    Ok(Hook {
        name,
        source: SourceKind::Skill,
        file: file.to_path_buf(),
        file_display: display.to_owned(),
        line,
        events,
        matcher: None,
        transport: TransportSpec::Command(CommandSpec::shell(&command, skill_dir.to_path_buf())),
        dialect: Dialect::Skill {
            include_conversation,
        },
        timeout: Duration::from_secs_f64(timeout),
        on_error: OnError::Continue,
        env,
        approval_key: None,
        // The source runtime hands a skill hook its own directory as STATE_DIR.
        state_dir: skill_dir.to_path_buf(),
    })
}

/// The line on which each element of the top-level `hooks` array starts, for messages.
/// JSON offers no positions after parsing, so this scans for object starts at array depth 1.
fn entry_lines(text: &str) -> Vec<u64> {
    let Some(hooks_at) = text.find("\"hooks\"") else {
        return Vec::new();
    };
    let mut lines = Vec::new();
    let mut line = 1 + text[..hooks_at].matches('\n').count() as u64;
    let mut depth = 0i32;
    let mut in_string = false;
    let mut escaped = false;
    let mut started = false;
    for c in text[hooks_at + 7..].chars() {
        if c == '\n' {
            line += 1;
        }
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '[' | '{' => {
                if started && depth == 1 {
                    lines.push(line);
                }
                if c == '[' && !started {
                    started = true;
                }
                depth += 1;
            }
            ']' | '}' => {
                depth -= 1;
                if started && depth == 0 {
                    break;
                }
            }
            _ => {
                if started && depth == 1 && !c.is_whitespace() && c != ',' {
                    // A scalar element: still an entry (reported as the wrong shape).
                    if lines.last() != Some(&line) {
                        lines.push(line);
                    }
                }
            }
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entry_lines_follow_objects() {
        let text = "{\n  \"hooks\": [\n    {\"name\": \"a\", \"x\": {\"y\": 1}},\n    {\n      \"name\": \"b\"\n    }\n  ]\n}\n";
        assert_eq!(entry_lines(text), vec![3, 4]);
    }
}
