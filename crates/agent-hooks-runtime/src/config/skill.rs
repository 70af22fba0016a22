//! The skill-hook source: every `hooks.json` under `skills/`, recursively (`docs/skill-hooks.md`).
//! Entries run through `/bin/sh -c` in their skill directory, need no approval, and speak the skill
//! dialect. Problems carry the source runtime's own diagnostic types: `hook_invalid_json` for a
//! file that is not JSON, `hook_invalid_format` for a wrong shape, `hook_missing_fields` for an
//! entry without a name, a command or a valid event. Values the source runtime coerces the way
//! Python does (`timeout_seconds: "5"`, `env: {"N": 1}`, a truthy `include_conversation`) load the
//! same way here, each with a warning; they never cost a hook.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;

use super::typed::{Entries, Given, Typed, field_names, from_object};
use super::{ConfigError, FileLoad, FileState};
use crate::hook::{Hook, OnError, SourceKind};
use agent_hooks_core::config_error::Location;
use agent_hooks_core::diag::DiagKind;
use agent_hooks_core::event::Event;
use agent_hooks_core::wording::{did_you_mean, kind_of as json_kind, nearest};
use agent_hooks_core::workspace::Workspace;
use agent_hooks_dialects::Dialect;
use agent_hooks_dialects::skill::{BlockVerb, SKILL_EVENTS, canonical};
use agent_hooks_transports::{CommandSpec, TransportSpec};

/// Default timeout of a skill hook, as in its source runtime.
pub(crate) const DEFAULT_TIMEOUT_SECS: f64 = 10.0;

/// One entry of `hooks` as written. The source runtime reads most values as Python would
/// (`str()`, `float()`, truthiness), so a value of another type is kept ([`Typed`]) and read
/// that way with a warning; a key written as `null` is there ([`Given`]), as in Python.
#[derive(Deserialize, Default)]
#[serde(default)]
struct Entry {
    name: Given<Typed<String>>,
    command: Given<Typed<String>>,
    events: Given<Typed<Vec<Typed<String>>>>,
    event: Given<Typed<String>>,
    env: Given<Typed<Entries<Typed<String>>>>,
    /// Any value, read as `float()` reads it; warnings quote it as written.
    timeout_seconds: Given<Value>,
    include_conversation: Given<Typed<bool>>,
    /// Read by [`crate::hook::configure_prefork`], which owns its layout.
    prefork: Given<Value>,
}

/// A `hooks.json`: its entries, each checked to be an object before it is read as [`Entry`].
#[derive(Deserialize)]
struct HooksFile {
    #[serde(default)]
    hooks: Given<Typed<Vec<Value>>>,
}

pub(crate) fn load(ws: &Workspace, agent: &super::agent::AgentSettings) -> Vec<FileLoad> {
    let mut files = Vec::new();
    let mut visited = HashSet::new();
    find_hooks_json(&ws.skills_dir(), 0, &mut visited, &mut files);
    files.sort();
    files
        .into_iter()
        .map(|path| load_file(ws, path, agent.skill_block))
        .collect()
}

/// How deep below `skills/` a `hooks.json` is looked for. Skills nest a level or two; the
/// bound stops a pathological tree from costing every dispatch its time.
const MAX_DEPTH: usize = 16;

/// Collects every `hooks.json` below `dir` as the source runtime's `rglob` finds them: a
/// symlinked `skills/` or `hooks.json` is followed, a symlinked directory below `skills/` is not
/// descended into. Each directory is entered once, by its canonical path, to a bounded depth,
/// so no arrangement of links or mounts can make discovery loop. Unreadable directories are
/// skipped: they cannot hold hooks this process could run anyway.
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
        // Not followed: a symlink to a directory is neither descended nor a hooks file.
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
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

fn load_file(ws: &Workspace, path: PathBuf, block: BlockVerb) -> FileLoad {
    let display = ws.display(&path).into_owned();
    let mut load = FileLoad::new(ws, SourceKind::Skill, path.clone());
    load.state = FileState::Loaded;
    let error = |kind, line, column, message: String| {
        ConfigError::located(&display, Location::from_parser(line, column), message).with_kind(kind)
    };
    let text = match agent_hooks_core::store::read_optional(&path) {
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
    // Read as open-strix's `json.loads` reads it: `1e400` is `inf` and `NaN` a number, not a
    // file lost; only text Python refuses too is an error (placed by serde_json's reading).
    let read = serde_json::from_str(&text).or_else(|e| {
        agent_hooks_dialects::json::read_python(text.as_bytes())
            .map(|(doc, _)| doc)
            .map_err(|_| e)
    });
    let doc: Value = match read {
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
    let file = from_object::<HooksFile>(&doc);
    let entries = match file.as_ref().and_then(|f| f.hooks.0.as_ref()) {
        Some(Typed::Valid(entries)) => entries,
        found => {
            let found = match found {
                Some(Typed::Wrong(hooks)) => format!("\"hooks\" as {}", json_kind(hooks)),
                _ => json_kind(&doc).to_owned(),
            };
            load.state = FileState::Broken;
            load.errors.push(error(
                DiagKind::HookInvalidFormat,
                1,
                1,
                format!("expected an object with a \"hooks\" list, found {found}"),
            ));
            return load;
        }
    };
    let skill_dir = path
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| ws.skills_dir());
    let lines = entry_lines(&text);
    for (index, entry) in entries.iter().enumerate() {
        let line = lines.get(index).copied().unwrap_or(0);
        let at = |kind, message: String| error(kind, line, if line > 0 { 1 } else { 0 }, message);
        let (Value::Object(map), Some(entry)) = (entry, from_object::<Entry>(entry)) else {
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
        let known = field_names::<Entry>();
        for key in map.keys() {
            if !known.contains(&key.as_str()) {
                load.warnings.push(at(
                    DiagKind::HookConfigError,
                    format!("hook #{}: unknown key \"{key}\" ignored", index + 1),
                ));
            }
        }
        let mut loose = Vec::new();
        let at_entry = EntryAt {
            skill_dir: &skill_dir,
            file: &path,
            display: &display,
            line,
            index,
        };
        match parse_entry(&at_entry, &entry, block, &mut loose) {
            Ok(hook) => load.hooks.push(hook),
            Err((kind, message)) => load.errors.push(at(kind, message)),
        }
        for message in loose {
            load.warnings.push(at(DiagKind::HookConfigError, message));
        }
    }
    load
}

/// Reads one entry into a [`Hook`]; what it coerces as Python would goes to `loose`.
/// Where an entry is: its skill directory, its file (as shown) and its place in it.
struct EntryAt<'a> {
    skill_dir: &'a Path,
    file: &'a Path,
    display: &'a str,
    line: u64,
    index: usize,
}

fn parse_entry(
    at: &EntryAt<'_>,
    entry: &Entry,
    block: BlockVerb,
    loose: &mut Vec<String>,
) -> Result<Hook, (DiagKind, String)> {
    let EntryAt {
        skill_dir,
        file,
        display,
        line,
        index,
    } = *at;
    let n = index + 1;
    let missing = |what: &str| (DiagKind::HookMissingFields, format!("hook #{n}: {what}"));
    let name = text(&entry.name, "name", n, loose);
    if name.is_empty() {
        return Err(missing("missing \"name\""));
    }
    let command = text(&entry.command, "command", n, loose);
    if command.is_empty() {
        return Err(missing(&format!("\"{name}\": missing \"command\"")));
    }
    let events = events(entry, &name, n, loose).map_err(|what| missing(&what))?;
    let prefix = format!("hook #{n} \"{name}\"");
    let timeout = match &entry.timeout_seconds.0 {
        None => DEFAULT_TIMEOUT_SECS,
        Some(value) => timeout(value, &prefix, loose),
    };
    let env = env(&entry.env, &prefix, loose);
    let include_conversation = match &entry.include_conversation.0 {
        None => false,
        Some(Typed::Valid(b)) => *b,
        Some(Typed::Wrong(other)) => {
            let truthy = python_truthy(other);
            loose.push(format!(
                "{prefix}: include_conversation is {}, not true or false; read as {truthy}",
                json_kind(other)
            ));
            truthy
        }
    };
    let mut hook = Hook {
        name: name.into(),
        source: SourceKind::Skill,
        file: file.to_path_buf(),
        file_display: display.into(),
        line,
        events,
        matcher: None,
        transport: TransportSpec::Command(CommandSpec::shell(&command, skill_dir.to_path_buf())),
        dialect: Dialect::Skill {
            include_conversation,
            block,
        },
        timeout: Duration::from_secs_f64(timeout),
        on_error: OnError::Continue,
        env,
        approval_key: None,
        // The source runtime hands a skill hook its own directory as STATE_DIR.
        state_dir: skill_dir.to_path_buf(),
    };
    if let Some(value) = &entry.prefork.0 {
        crate::hook::configure_prefork(&mut hook, value)
            .map_err(|why| (DiagKind::HookConfigError, format!("hook #{n}: {why}")))?;
    }
    Ok(hook)
}

/// `str(entry.get(key, "")).strip()` of entry #`n`: any value is a name or a command once
/// stringified, with a warning when it was not a string.
fn text(field: &Given<Typed<String>>, key: &str, n: usize, loose: &mut Vec<String>) -> String {
    match &field.0 {
        None => String::new(),
        Some(Typed::Valid(s)) => s.trim().to_owned(),
        Some(Typed::Wrong(other)) => {
            let text = python_str(other);
            loose.push(format!(
                "hook #{n}: \"{key}\" is {}, not a string; read as \"{text}\"",
                json_kind(other)
            ));
            text.trim().to_owned()
        }
    }
}

/// The events of entry #`n` (`name`), from `events` or else `event`, each once; the error
/// (without its `hook #n: ` prefix) when there is none or one is unknown.
fn events(
    entry: &Entry,
    name: &str,
    n: usize,
    loose: &mut Vec<String>,
) -> Result<Vec<Event>, String> {
    let names: Vec<String> = match (&entry.events.0, &entry.event.0) {
        (Some(Typed::Valid(list)), _) => list.iter().map(python_text).collect(),
        (Some(Typed::Wrong(Value::String(one))), _) => {
            loose.push(format!(
                "hook #{n} \"{name}\": \"events\" is a string, not a list; read as a list of one"
            ));
            vec![one.clone()]
        }
        (None, Some(one)) => vec![python_text(one)],
        (Some(Typed::Wrong(other)), _) => {
            return Err(format!(
                "\"{name}\": \"events\" must be a list of event names, found {}",
                json_kind(other)
            ));
        }
        (None, None) => return Err(format!("\"{name}\": missing \"events\"")),
    };
    let mut events = Vec::new();
    for event_name in &names {
        // `str(item).strip()`, and empty names are skipped, as the source runtime does.
        let event_name = event_name.trim();
        if event_name.is_empty() {
            continue;
        }
        match canonical(event_name) {
            Some(e) if !events.contains(&e) => events.push(e),
            Some(_) => {}
            None => {
                let names = SKILL_EVENTS.iter().map(|(n, _)| *n);
                let hint = did_you_mean(nearest(event_name, names, |d, _| d <= 4));
                let valid: Vec<&str> = SKILL_EVENTS.iter().map(|(n, _)| *n).collect();
                return Err(format!(
                    "\"{name}\": unknown event \"{event_name}\"{hint}; skill hooks take {}",
                    valid.join(", ")
                ));
            }
        }
    }
    if events.is_empty() {
        return Err(format!("\"{name}\": no events"));
    }
    Ok(events)
}

/// `timeout_seconds` as `float()` reads it; what is not a positive number leaves the default.
/// `prefix` names the entry in warnings.
fn timeout(value: &Value, prefix: &str, loose: &mut Vec<String>) -> f64 {
    match python_float(value) {
        Some(seconds) if seconds > 0.0 => {
            if !value.is_number() {
                loose.push(format!(
                    "{prefix}: timeout_seconds {value} read as {seconds} s, as float() would"
                ));
            }
            if seconds > MAX_TIMEOUT_SECS {
                loose.push(format!(
                    "{prefix}: timeout_seconds {value} is beyond what a timer can wait; {MAX_TIMEOUT_SECS} s used"
                ));
                MAX_TIMEOUT_SECS
            } else {
                seconds
            }
        }
        _ => {
            loose.push(format!(
                "{prefix}: timeout_seconds {value} is not a positive number; the default {DEFAULT_TIMEOUT_SECS} s is used"
            ));
            DEFAULT_TIMEOUT_SECS
        }
    }
}

/// `env`, each value as `str()` makes it, without the variables the runtime sets itself.
/// `prefix` names the entry in warnings.
fn env(
    field: &Given<Typed<Entries<Typed<String>>>>,
    prefix: &str,
    loose: &mut Vec<String>,
) -> Vec<(String, String)> {
    let mut env: Vec<(String, String)> = match &field.0 {
        None => Vec::new(),
        Some(Typed::Valid(Entries(env))) => env
            .iter()
            .map(|(k, v)| {
                let value = match v {
                    Typed::Valid(s) => s.clone(),
                    Typed::Wrong(other) => {
                        let text = python_str(other);
                        loose.push(format!(
                            "{prefix}: env {k} is {}, not a string; set to \"{text}\" as str() would",
                            json_kind(other)
                        ));
                        text
                    }
                };
                (k.clone(), value)
            })
            .collect(),
        Some(Typed::Wrong(other)) => {
            loose.push(format!(
                "{prefix}: env must be an object, found {}; ignored",
                json_kind(other)
            ));
            Vec::new()
        }
    };
    // The runtime's own variables win over `env`, as in the source runtime.
    env.retain(|(key, _)| {
        let reserved = RUNTIME_VARS.contains(&key.as_str());
        if reserved {
            loose.push(format!(
                "{prefix}: env {key} is set by the runtime; the value in env is not used"
            ));
        }
        !reserved
    });
    env
}

/// `str(value)` of a value meant as text.
fn python_text(value: &Typed<String>) -> String {
    match value {
        Typed::Valid(s) => s.clone(),
        Typed::Wrong(other) => python_str(other),
    }
}

/// The variables the runtime sets for a skill hook, which `env` cannot override.
const RUNTIME_VARS: &[&str] = &["STATE_DIR", "HOOK_NAME", "HOOK_EVENT"];

/// The longest timeout a timer can be set to without overflowing (about 31 years): the source
/// runtime has no ceiling, and neither has this one in practice.
const MAX_TIMEOUT_SECS: f64 = 1e9;

/// Python's `float(value)`: numbers, and strings such as `" 5 "`, `"1_000"`, `"1e1"`; `true` is
/// 1 and `false` 0. `None` for what `float()` refuses (and for NaN, which no timer takes).
fn python_float(value: &Value) -> Option<f64> {
    let number = match value {
        Value::Number(n) => n.as_f64()?,
        Value::Bool(b) => f64::from(u8::from(*b)),
        Value::String(s) => {
            let s = s.trim();
            // Underscores only between digits, as Python's grammar allows.
            let bytes = s.as_bytes();
            let underscores_ok = bytes.iter().enumerate().all(|(i, b)| {
                *b != b'_'
                    || (i > 0
                        && i + 1 < bytes.len()
                        && bytes[i - 1].is_ascii_digit()
                        && bytes[i + 1].is_ascii_digit())
            });
            if !underscores_ok {
                return None;
            }
            s.replace('_', "").parse::<f64>().ok()?
        }
        _ => return None,
    };
    (!number.is_nan()).then_some(number)
}

/// Python's truthiness of a JSON value.
fn python_truthy(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
    }
}

/// Python's `str()` of a value `json.loads` produced: `True`, `None`, `1.0`, `[1, 'a']`,
/// `{'k': 1}`.
fn python_str(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => python_repr(other),
    }
}

fn python_repr(value: &Value) -> String {
    match value {
        Value::Null => "None".into(),
        Value::Bool(true) => "True".into(),
        Value::Bool(false) => "False".into(),
        Value::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
            (Some(i), _, _) => i.to_string(),
            (_, Some(u), _) => u.to_string(),
            (_, _, Some(f)) => python_float_repr(f),
            _ => n.to_string(),
        },
        Value::String(s) => {
            // Single quotes unless the text holds one and no double quote, as repr() chooses.
            let quote = if s.contains('\'') && !s.contains('"') {
                '"'
            } else {
                '\''
            };
            let mut out = String::from(quote);
            for c in s.chars() {
                match c {
                    '\\' => out.push_str("\\\\"),
                    '\n' => out.push_str("\\n"),
                    '\r' => out.push_str("\\r"),
                    '\t' => out.push_str("\\t"),
                    c if c == quote => {
                        out.push('\\');
                        out.push(c);
                    }
                    c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                        out.push_str(&format!("\\x{:02x}", c as u32));
                    }
                    c => out.push(c),
                }
            }
            out.push(quote);
            out
        }
        Value::Array(items) => {
            let inner: Vec<String> = items.iter().map(python_repr).collect();
            format!("[{}]", inner.join(", "))
        }
        Value::Object(map) => {
            let inner: Vec<String> = map
                .iter()
                .map(|(k, v)| {
                    format!(
                        "{}: {}",
                        python_repr(&Value::String(k.clone())),
                        python_repr(v)
                    )
                })
                .collect();
            format!("{{{}}}", inner.join(", "))
        }
    }
}

/// Python's `repr(float)`: the shortest digits that read back, positional between 1e-4 and
/// 1e16 (`1.0`, `0.001`), scientific outside (`1e+16`, `1e-05`).
fn python_float_repr(f: f64) -> String {
    if f.is_infinite() {
        return if f > 0.0 { "inf" } else { "-inf" }.into();
    }
    // `{:e}` gives the shortest round-trip digits: "-1.2345e3".
    let sci = format!("{f:e}");
    let (mantissa, exponent) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => ("-", m),
        None => ("", mantissa),
    };
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let point = exponent + 1;
    let body = if (-3..=16).contains(&point) {
        let len = digits.len() as i32;
        if point <= 0 {
            format!("0.{}{digits}", "0".repeat((-point) as usize))
        } else if point >= len {
            format!("{digits}{}.0", "0".repeat((point - len) as usize))
        } else {
            let (int, frac) = digits.split_at(point as usize);
            format!("{int}.{frac}")
        }
    } else {
        let (first, rest) = digits.split_at(1);
        let rest = if rest.is_empty() {
            String::new()
        } else {
            format!(".{rest}")
        };
        let exp_sign = if exponent < 0 { '-' } else { '+' };
        format!("{first}{rest}e{exp_sign}{:02}", exponent.abs())
    };
    format!("{sign}{body}")
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

    #[test]
    fn values_stringify_as_python_str() {
        use serde_json::json;
        for (value, text) in [
            (json!(true), "True"),
            (json!(null), "None"),
            (json!(5), "5"),
            (json!(1.0), "1.0"),
            (json!(0.5), "0.5"),
            (json!(1e16), "1e+16"),
            (json!(123456789012.5), "123456789012.5"),
            (json!(0.0001), "0.0001"),
            (json!(0.00001), "1e-05"),
            (json!(-2.5), "-2.5"),
            (json!([1, "a", null]), "[1, 'a', None]"),
            (json!({"k": "it's"}), "{'k': \"it's\"}"),
            (json!("plain"), "plain"),
        ] {
            assert_eq!(python_str(&value), text, "{value}");
        }
    }

    #[test]
    fn timeouts_read_as_python_float() {
        use serde_json::json;
        assert_eq!(python_float(&json!("5")), Some(5.0));
        assert_eq!(python_float(&json!(" 2.5 ")), Some(2.5));
        assert_eq!(python_float(&json!("1_000")), Some(1000.0));
        assert_eq!(python_float(&json!("1__0")), None);
        assert_eq!(python_float(&json!(true)), Some(1.0));
        assert_eq!(python_float(&json!("abc")), None);
        assert_eq!(python_float(&json!("nan")), None);
        assert_eq!(python_float(&json!(null)), None);
        assert_eq!(python_float(&json!([5])), None);
    }

    #[test]
    fn timeouts_load_as_open_strix_reads_them_with_no_ceiling() {
        let dir = tempfile::tempdir().expect("tempdir");
        let ws = Workspace::new(dir.path());
        let file = dir.path().join("skills/t/hooks.json");
        std::fs::create_dir_all(file.parent().expect("parent")).expect("mkdir");
        let cases = [
            (serde_json::json!("5"), 5.0),
            (serde_json::json!(500), 500.0),
            (serde_json::json!(0), DEFAULT_TIMEOUT_SECS),
            (serde_json::json!(-1), DEFAULT_TIMEOUT_SECS),
            (serde_json::json!("abc"), DEFAULT_TIMEOUT_SECS),
            (serde_json::json!(null), DEFAULT_TIMEOUT_SECS),
            // float(True) is 1.0 in Python, so open-strix waits one second.
            (serde_json::json!(true), 1.0),
            (serde_json::json!("inf"), MAX_TIMEOUT_SECS),
        ];
        let hooks: Vec<serde_json::Value> = cases
            .iter()
            .enumerate()
            .map(|(i, (timeout, _))| {
                serde_json::json!({"name": format!("h{i}"), "command": "true",
                                   "events": ["post_startup"], "timeout_seconds": timeout})
            })
            .collect();
        std::fs::write(&file, serde_json::json!({ "hooks": hooks }).to_string()).expect("write");
        let load = load_file(&ws, file, BlockVerb::Fork);
        assert!(load.errors.is_empty(), "{:?}", load.errors);
        let timeouts: Vec<f64> = load.hooks.iter().map(|h| h.timeout.as_secs_f64()).collect();
        let expected: Vec<f64> = cases.iter().map(|(_, secs)| *secs).collect();
        assert_eq!(timeouts, expected);
        // Every value that is not a plain positive number is a warning (two for "inf": read,
        // then bounded), never a dropped hook.
        assert_eq!(load.warnings.len(), 8, "{:?}", load.warnings);
    }
}
