//! The Cursor source: hooks declared in the project's `.cursor/hooks.json`
//! (`{"version": 1, "hooks": {"<event>": [{"command": ...}]}}`). Each command runs through
//! `sh -c` with the directory of `hooks.json` as its working directory, so its relative paths
//! (`./hooks/guard.sh`) are relative to that file; it goes through the trust gate like a shell
//! hook and speaks the Cursor dialect.

use std::time::Duration;

use serde_json::Value;

use super::agent::AgentSettings;
use super::claude::{bridge_agent, declared_event, warn_unknown_keys};
use super::document::{parse_json, read};
use super::{ConfigError, FileLoad};
use crate::hook::{Hook, MAX_TIMEOUT_SECS, OnError, filesystem_safe};
use agent_hooks_core::wording::kind_of as json_kind;
use agent_hooks_core::workspace::Workspace;
use agent_hooks_dialects::agent::Agent;
use agent_hooks_dialects::cursor::{CURSOR_UNMAPPED_EVENTS, CursorEvent};
use agent_hooks_dialects::{Dialect, Matcher};
use agent_hooks_transports::{CommandSpec, TransportSpec};

/// `.cursor/hooks.json`, relative to the workspace.
pub(crate) const HOOKS_JSON: &str = ".cursor/hooks.json";

/// The timeout of a hook that names none (Cursor's hooks have no documented default; this is
/// the shell hooks' one).
const DEFAULT_TIMEOUT_SECS: f64 = 20.0;

const HANDLER_KEYS: &[&str] = &["command", "timeout", "matcher", "type"];

pub(crate) fn load(ws: &Workspace, _agent: &AgentSettings) -> Vec<FileLoad> {
    let mut load = FileLoad::new(ws, Agent::Cursor.source(), ws.root().join(HOOKS_JSON));
    if let Some(doc) = read(&mut load, parse_json) {
        load_hooks(ws, &mut load, &doc);
    }
    vec![load]
}

fn load_hooks(ws: &Workspace, load: &mut FileLoad, doc: &Value) {
    let display = load.display.clone();
    let note = |message: String| ConfigError::whole_file(&display, message);
    match doc.get("version") {
        Some(Value::Number(n)) if n.as_u64() == Some(1) => {}
        None => load
            .warnings
            .push(note("no \"version\": Cursor expects \"version\": 1".into())),
        Some(other) => load.warnings.push(note(format!(
            "\"version\" is {other}; this host reads version 1"
        ))),
    }
    if let Value::Object(root) = doc {
        for key in root.keys().filter(|k| *k != "version" && *k != "hooks") {
            load.warnings.push(note(format!(
                "unknown key \"{key}\" (Cursor has only \"version\" and \"hooks\" here); ignored"
            )));
        }
    }
    let hooks = match doc.get("hooks") {
        None | Some(Value::Null) => return,
        Some(Value::Object(hooks)) => hooks,
        Some(other) => {
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
        let parsed = (CursorEvent::parse(event_name), CURSOR_UNMAPPED_EVENTS);
        let what = "{\"command\": ...}";
        let Some((cursor, entries)) =
            declared_event(load, Agent::Cursor, (event_name, entries), parsed, what)
        else {
            continue;
        };
        for (h, entry) in entries.iter().enumerate() {
            let at = format!("hooks.{event_name}[{h}]");
            let Some(entry) = entry.as_object() else {
                load.errors
                    .push(note(format!("{at} must be an object with a \"command\"")));
                continue;
            };
            warn_unknown_keys(
                load,
                &at,
                entry,
                HANDLER_KEYS,
                "not a Cursor hook field here",
            );
            let kind = entry
                .get("type")
                .and_then(Value::as_str)
                .unwrap_or("command");
            if kind != "command" {
                load.warnings.push(note(format!(
                    "{at}: type \"{kind}\" is not supported here (only \"command\"); skipped"
                )));
                continue;
            }
            let Some(command) = entry.get("command").and_then(Value::as_str) else {
                load.errors.push(note(format!(
                    "{at}: missing \"command\"; the hook is skipped"
                )));
                continue;
            };
            if bridge_agent(command).is_some() {
                if !load.bridge.contains(event_name) {
                    load.bridge.push(event_name.clone());
                }
                continue;
            }
            let timeout = match entry.get("timeout") {
                None | Some(Value::Null) => DEFAULT_TIMEOUT_SECS,
                Some(Value::Number(n)) if n.as_f64().is_some_and(|t| t > 0.0) => {
                    n.as_f64().unwrap_or(DEFAULT_TIMEOUT_SECS)
                }
                Some(other) => {
                    load.errors.push(note(format!(
                        "{at}.timeout must be a positive number of seconds, found {other}; the hook is skipped"
                    )));
                    continue;
                }
            };
            let matcher =
                match entry.get("matcher") {
                    None | Some(Value::Null) => None,
                    Some(Value::String(p)) if p.trim().is_empty() || p == "*" => None,
                    Some(Value::String(p)) => match regex::Regex::new(p) {
                        Ok(regex) => Some(Matcher {
                            pattern: p.clone(),
                            regex,
                        }),
                        Err(e) => {
                            load.errors.push(note(format!(
                            "{at}.matcher \"{p}\" is not a valid regex: {}; the hook is skipped",
                            e.to_string().split_whitespace().collect::<Vec<_>>().join(" ")
                        )));
                            continue;
                        }
                    },
                    Some(other) => {
                        load.errors.push(note(format!(
                            "{at}.matcher must be a string, found {}; the hook is skipped",
                            json_kind(other)
                        )));
                        continue;
                    }
                };
            load.hooks.push(Hook {
                name: command.into(),
                source: Agent::Cursor.source(),
                file: load.path.clone(),
                file_display: display.as_str().into(),
                line: 0,
                events: vec![cursor.canonical()],
                matcher,
                transport: TransportSpec::Command(
                    CommandSpec::shell(command, dir.clone())
                        .with_known_var(agent_hooks_core::workspace::WORKSPACE_ENV, &root),
                ),
                dialect: Dialect::Cursor { event: cursor },
                timeout: Duration::from_secs_f64(timeout.min(MAX_TIMEOUT_SECS)),
                on_error: OnError::Continue,
                env: vec![("CURSOR_PROJECT_DIR".to_owned(), root.clone())],
                approval_key: Some(command.to_owned()),
                state_dir: ws
                    .state_dir()
                    .join(filesystem_safe(&format!("cursor-{command}"))),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn loaded(text: &str) -> FileLoad {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(".cursor")).unwrap();
        std::fs::write(dir.path().join(HOOKS_JSON), text).unwrap();
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
            warnings
                .iter()
                .any(|w| w.contains("unknown key \"loop_limit\""))
        );
    }
}
