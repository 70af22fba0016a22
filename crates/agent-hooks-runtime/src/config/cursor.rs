//! The Cursor source: hooks declared in the project's `.cursor/hooks.json`
//! (`{"version": 1, "hooks": {"<event>": [{"command": ...}]}}`). Each command runs through
//! `sh -c` with the directory of `hooks.json` as its working directory, so its relative paths
//! (`./hooks/guard.sh`) are relative to that file; it goes through the trust gate like a shell
//! hook and speaks the Cursor dialect.

use std::time::Duration;

use serde::Deserialize;
use serde_json::{Number, Value};

use super::agent::AgentSettings;
use super::agent_files::{bridge_agent, declared_event, warn_unknown_keys};
use super::document::{parse_json, read};
use super::typed::{Entries, Given, Typed, from_object, unknown_keys};
use super::{ConfigError, FileLoad};
use crate::hook::{Hook, MAX_TIMEOUT_SECS, OnError, filesystem_safe};
use agent_hooks_core::wording::kind_of as json_kind;
use agent_hooks_core::workspace::Workspace;
use agent_hooks_dialects::agent::Agent;
use agent_hooks_dialects::cursor::{CursorEvent, DEFAULT_LOOP_LIMIT, compile_matcher};
use agent_hooks_dialects::{Dialect, Matcher};
use agent_hooks_transports::{CommandSpec, TransportSpec};

/// The timeout of a hook that names none (Cursor's hooks have no documented default; this is
/// the shell hooks' one).
const DEFAULT_TIMEOUT_SECS: f64 = 20.0;

/// `.cursor/hooks.json` as written. A value of the wrong type is kept ([`Typed`]) for the
/// message that names it.
#[derive(Deserialize, Default)]
#[serde(default)]
struct HooksFile {
    /// A number as written, so another version is quoted as it was written; `null` included.
    version: Given<Typed<Number>>,
    /// Event name → handlers: the event names are data, so the map is walked.
    hooks: Option<Typed<Entries<Value>>>,
}

/// One handler as written.
#[derive(Deserialize, Default)]
#[serde(default)]
struct Entry {
    command: Option<Typed<String>>,
    /// A number as written, so a refused one is quoted as it was written.
    timeout: Option<Typed<Number>>,
    matcher: Option<Typed<String>>,
    #[serde(rename = "type")]
    kind: Option<Typed<String>>,
    /// `true`: a hook that fails (crash, timeout, unreadable answer) blocks the action.
    #[serde(rename = "failClosed")]
    fail_closed: Option<Typed<bool>>,
    /// A stop hook's cap on follow-ups in one turn; `null` is no cap.
    loop_limit: Given<Typed<Number>>,
}

pub(crate) fn load(ws: &Workspace, _agent: &AgentSettings) -> Vec<FileLoad> {
    let path = ws.root().join(Agent::Cursor.config_file());
    let mut load = FileLoad::new(ws, Agent::Cursor.source(), path);
    if let Some(doc) = read(&mut load, parse_json) {
        load_hooks(ws, &mut load, &doc);
    }
    vec![load]
}

fn load_hooks(ws: &Workspace, load: &mut FileLoad, doc: &Value) {
    let display = load.display.clone();
    let note = |message: String| ConfigError::whole_file(&display, message);
    let file = from_object::<HooksFile>(doc).unwrap_or_default();
    match &file.version.0 {
        Some(Typed::Valid(n)) if n.as_u64() == Some(1) => {}
        None => load
            .warnings
            .push(note("no \"version\": Cursor expects \"version\": 1".into())),
        Some(Typed::Valid(n)) => load.warnings.push(note(format!(
            "\"version\" is {n}; this host reads version 1"
        ))),
        Some(Typed::Wrong(other)) => load.warnings.push(note(format!(
            "\"version\" is {other}; this host reads version 1"
        ))),
    }
    for key in unknown_keys::<HooksFile>(doc) {
        load.warnings.push(note(format!(
            "unknown key \"{key}\" (Cursor has only \"version\" and \"hooks\" here); ignored"
        )));
    }
    let hooks = match &file.hooks {
        None => return,
        Some(Typed::Valid(Entries(hooks))) => hooks,
        Some(Typed::Wrong(other)) => {
            load.errors.push(note(format!(
                "\"hooks\" must be an object of event name → list of {{\"command\": ...}}, found {}",
                json_kind(other)
            )));
            return;
        }
    };
    // Commands are relative to the file that declares them.
    let dir = load
        .path
        .parent()
        .map_or_else(|| ws.root().to_path_buf(), std::path::Path::to_path_buf);
    let root = ws.root().to_string_lossy().into_owned();
    for (event_name, entries) in hooks {
        let parsed = (
            CursorEvent::parse(event_name),
            Agent::Cursor.home().unmapped_events(),
        );
        let what = "{\"command\": ...}";
        let Some((cursor, entries)) =
            declared_event(load, Agent::Cursor, (event_name, entries), parsed, what)
        else {
            continue;
        };
        for (h, entry) in entries.iter().enumerate() {
            let at = format!("hooks.{event_name}[{h}]");
            let Some(handler) = handler(load, &at, event_name, entry) else {
                continue;
            };
            let (command, matcher, timeout) = (handler.command, handler.matcher, handler.timeout);
            let loop_limit = (cursor == CursorEvent::Stop)
                .then_some(handler.loop_limit)
                .flatten();
            load.hooks.push(Hook {
                name: command.as_str().into(),
                source: Agent::Cursor.source(),
                file: load.path.clone(),
                file_display: display.as_str().into(),
                line: 0,
                events: vec![cursor.canonical()],
                matcher,
                transport: TransportSpec::Command(
                    CommandSpec::shell(&command, dir.clone())
                        .with_known_var(agent_hooks_core::workspace::WORKSPACE_ENV, &root),
                ),
                dialect: Dialect::Cursor {
                    event: cursor,
                    loop_limit,
                },
                timeout: Duration::from_secs_f64(timeout.min(MAX_TIMEOUT_SECS)),
                on_error: if handler.fail_closed {
                    OnError::Block
                } else {
                    OnError::Continue
                },
                env: vec![("CURSOR_PROJECT_DIR".to_owned(), root.clone())],
                approval_key: Some(command.clone()),
                state_dir: ws
                    .state_dir()
                    .join(filesystem_safe(&format!("cursor-{command}"))),
            });
        }
    }
}

/// One handler as declared.
struct Handler {
    command: String,
    matcher: Option<Matcher>,
    /// In seconds.
    timeout: f64,
    /// `failClosed`.
    fail_closed: bool,
    /// `loop_limit` (Cursor's default when not written; `None` for `null`).
    loop_limit: Option<u64>,
}

/// Reads the handler at `at` (under `event_name`); `None` when it is skipped, with the error
/// or warning that says why (a bridge entry is recorded in `load.bridge` instead).
fn handler(load: &mut FileLoad, at: &str, event_name: &str, entry: &Value) -> Option<Handler> {
    let display = load.display.clone();
    let note = |message: String| ConfigError::whole_file(&display, message);
    let Some(written) = from_object::<Entry>(entry) else {
        load.errors
            .push(note(format!("{at} must be an object with a \"command\"")));
        return None;
    };
    warn_unknown_keys::<Entry>(load, at, entry, "not a Cursor hook field here");
    let kind = written
        .kind
        .as_ref()
        .and_then(|k| k.get().ok())
        .map_or("command", String::as_str);
    if kind != "command" {
        load.warnings.push(note(format!(
            "{at}: type \"{kind}\" is not supported here (only \"command\"); skipped"
        )));
        return None;
    }
    let Some(Typed::Valid(command)) = written.command else {
        load.errors.push(note(format!(
            "{at}: missing \"command\"; the hook is skipped"
        )));
        return None;
    };
    if bridge_agent(&command).is_some() {
        if !load.bridge.iter().any(|e| e == event_name) {
            load.bridge.push(event_name.to_owned());
        }
        return None;
    }
    let refused = |written: &dyn std::fmt::Display| {
        note(format!(
            "{at}.timeout must be a positive number of seconds, found {written}; the hook is skipped"
        ))
    };
    let timeout = match &written.timeout {
        None => DEFAULT_TIMEOUT_SECS,
        Some(Typed::Valid(n)) => match n.as_f64() {
            Some(t) if t > 0.0 => t,
            _ => {
                load.errors.push(refused(n));
                return None;
            }
        },
        Some(Typed::Wrong(other)) => {
            load.errors.push(refused(other));
            return None;
        }
    };
    let matcher = match written.matcher.as_ref().map(Typed::get) {
        None => None,
        Some(Ok(pattern)) => match compile_matcher(pattern) {
            Ok(matcher) => matcher,
            Err(e) => {
                load.errors.push(note(format!(
                    "{at}.matcher \"{pattern}\" is not a valid regex: {}; the hook is skipped",
                    e.to_string()
                        .split_whitespace()
                        .collect::<Vec<_>>()
                        .join(" ")
                )));
                return None;
            }
        },
        Some(Err(found)) => {
            load.errors.push(note(format!(
                "{at}.matcher must be a string, found {found}; the hook is skipped"
            )));
            return None;
        }
    };
    let fail_closed = match written.fail_closed.as_ref().map(Typed::get) {
        None => false,
        Some(Ok(b)) => *b,
        // The safe reading of a switch written wrong is the one that fails closed.
        Some(Err(found)) => {
            load.errors.push(note(format!(
                "{at}.failClosed must be true or false, found {found}; read as true"
            )));
            true
        }
    };
    let loop_limit = match &written.loop_limit.0 {
        None => Some(DEFAULT_LOOP_LIMIT),
        Some(Typed::Valid(n)) => match n.as_u64() {
            Some(limit) => Some(limit),
            None => {
                load.errors.push(note(format!(
                    "{at}.loop_limit must be a whole number or null, found {n}; Cursor's default {DEFAULT_LOOP_LIMIT} holds"
                )));
                Some(DEFAULT_LOOP_LIMIT)
            }
        },
        Some(Typed::Wrong(Value::Null)) => None,
        Some(Typed::Wrong(other)) => {
            load.errors.push(note(format!(
                "{at}.loop_limit must be a whole number or null, found {}; Cursor's default {DEFAULT_LOOP_LIMIT} holds",
                json_kind(other)
            )));
            Some(DEFAULT_LOOP_LIMIT)
        }
    };
    Some(Handler {
        command,
        matcher,
        timeout,
        fail_closed,
        loop_limit,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn loaded(text: &str) -> FileLoad {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(".cursor")).unwrap();
        std::fs::write(dir.path().join(Agent::Cursor.config_file()), text).unwrap();
        load(&Workspace::new(dir.path()), &AgentSettings::default()).remove(0)
    }

    #[test]
    fn commands_run_from_the_directory_of_hooks_json() {
        let file = loaded(
            r#"{"version": 1, "hooks": {"beforeShellExecution": [{"command": "./hooks/guard.sh", "timeout": 5}]}}"#,
        );
        assert!(
            file.errors.is_empty() && file.warnings.is_empty(),
            "{:?}",
            file.warnings
        );
        let TransportSpec::Command(spec) = &file.hooks[0].transport else {
            unreachable!("a command hook")
        };
        assert!(spec.cwd.ends_with(".cursor"), "{:?}", spec.cwd);
        assert_eq!(file.hooks[0].timeout.as_secs(), 5);
    }

    #[test]
    fn unmapped_events_and_unknown_fields_are_warned_about() {
        let file = loaded(
            r#"{"version": 1, "hooks": {"afterAgentThought": [{"command": "a"}],
                                         "stop": [{"command": "b", "loop_limit": 3}]}}"#,
        );
        let warnings: Vec<&str> = file.warnings.iter().map(|w| w.message()).collect();
        assert_eq!(file.hooks.len(), 1);
        assert!(
            warnings
                .iter()
                .any(|w| w.contains("afterAgentThought hooks never fire"))
        );
        assert!(
            !warnings.iter().any(|w| w.contains("loop_limit")),
            "{warnings:?}"
        );
    }
}
