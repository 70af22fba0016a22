//! The Gemini CLI source: hooks declared in the project's `.gemini/settings.json` under
//! `"hooks"` (event → groups of `{matcher, sequential, hooks: [...]}`), honouring
//! `hooksConfig.enabled` and `hooksConfig.disabled`. Each handler becomes a [`Hook`] that runs
//! through `sh -c` in the workspace with Gemini CLI's variables set, goes through the trust
//! gate like a shell hook, and speaks the Gemini CLI dialect.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value};

use super::agent::AgentSettings;
use super::claude::{bridge_agent, declared_event, warn_unknown_keys};
use super::document::{parse_json, read};
use super::{ConfigError, FileLoad};
use crate::hook::{Hook, MAX_TIMEOUT_SECS, OnError, filesystem_safe};
use agent_hooks_core::wording::kind_of as json_kind;
use agent_hooks_core::workspace::Workspace;
use agent_hooks_dialects::agent::Agent;
use agent_hooks_dialects::gemini::{
    GEMINI_UNMAPPED_EVENTS, GeminiEvent, compile_matcher, tool_aliases,
};
use agent_hooks_dialects::{Dialect, Matcher};
use agent_hooks_transports::{CommandSpec, TransportSpec};

/// Why an unknown key of a Gemini CLI hook definition is ignored.
const NO_SUCH_FIELD: &str = "Gemini CLI has no such field";

/// `.gemini/settings.json`, relative to the workspace.
pub(crate) const SETTINGS: &str = ".gemini/settings.json";

/// Gemini CLI's default hook timeout, in milliseconds.
const DEFAULT_TIMEOUT_MS: f64 = 60_000.0;

const GROUP_KEYS: &[&str] = &["matcher", "sequential", "hooks"];
const HANDLER_KEYS: &[&str] = &["type", "command", "name", "timeout", "description", "env"];

pub(crate) fn load(ws: &Workspace, _agent: &AgentSettings) -> Vec<FileLoad> {
    let mut load = FileLoad::new(ws, Agent::Gemini.source(), ws.root().join(SETTINGS));
    if let Some(doc) = read(&mut load, parse_json) {
        load_settings(ws, &mut load, &doc);
    }
    vec![load]
}

fn load_settings(ws: &Workspace, load: &mut FileLoad, doc: &Value) {
    let display = load.display.clone();
    let note = |message: String| ConfigError::whole_file(&display, message);
    let config = doc.get("hooksConfig");
    let disabled: Vec<&str> = config
        .and_then(|c| c.get("disabled"))
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let hooks = match doc.get("hooks") {
        None | Some(Value::Null) => return,
        Some(Value::Object(hooks)) => hooks,
        Some(other) => {
            load.errors.push(note(format!(
                "\"hooks\" must be an object of event name → hook definitions, found {}",
                json_kind(other)
            )));
            return;
        }
    };
    if config.and_then(|c| c.get("enabled")) == Some(&Value::Bool(false)) {
        load.warnings.push(note(
            "hooksConfig.enabled is false: Gemini CLI runs none of these hooks, and neither does this host".into(),
        ));
        return;
    }
    let aliases = Arc::new(tool_aliases());
    let root = ws.root().to_string_lossy().into_owned();
    for (event_name, groups) in hooks {
        let parsed = (GeminiEvent::parse(event_name), GEMINI_UNMAPPED_EVENTS);
        let Some((gemini, groups)) = declared_event(
            load,
            Agent::Gemini,
            (event_name, groups),
            parsed,
            "hook definitions",
        ) else {
            continue;
        };
        for (g, group) in groups.iter().enumerate() {
            let at_group = format!("hooks.{event_name}[{g}]");
            let Some(group) = group.as_object() else {
                load.errors
                    .push(note(format!("{at_group} must be an object")));
                continue;
            };
            warn_unknown_keys(load, &at_group, group, GROUP_KEYS, NO_SUCH_FIELD);
            let pattern = match group.get("matcher") {
                None | Some(Value::Null) => "",
                Some(Value::String(p)) => p.as_str(),
                Some(other) => {
                    load.errors.push(note(format!(
                        "{at_group}.matcher must be a string, found {}; the group is skipped",
                        json_kind(other)
                    )));
                    continue;
                }
            };
            let matcher = match compile_matcher(gemini, pattern) {
                Ok(regex) => regex.map(|regex| Matcher {
                    pattern: pattern.to_owned(),
                    regex,
                }),
                Err(e) => {
                    load.errors.push(note(format!(
                        "{at_group}.matcher \"{pattern}\" is not a valid regex: {}",
                        e.to_string()
                            .split_whitespace()
                            .collect::<Vec<_>>()
                            .join(" ")
                    )));
                    continue;
                }
            };
            let sequential = match group.get("sequential") {
                None | Some(Value::Null) => false,
                Some(Value::Bool(b)) => *b,
                Some(other) => {
                    load.errors.push(note(format!(
                        "{at_group}.sequential must be true or false, found {}; the group is skipped",
                        json_kind(other)
                    )));
                    continue;
                }
            };
            let Some(entries) = group.get("hooks").and_then(Value::as_array) else {
                load.errors.push(note(format!(
                    "{at_group} needs a \"hooks\" list of {{\"type\": \"command\", \"command\": ...}}"
                )));
                continue;
            };
            for (h, entry) in entries.iter().enumerate() {
                let at = format!("{at_group}.hooks[{h}]");
                match handler(load, &at, entry, &disabled) {
                    Ok(Some(handler)) => {
                        if bridge_agent(&handler.command).is_some() {
                            if !load.bridge.contains(event_name) {
                                load.bridge.push(event_name.clone());
                            }
                            continue;
                        }
                        load.hooks.push(Hook {
                            name: handler
                                .name
                                .unwrap_or_else(|| handler.command.clone())
                                .into(),
                            source: Agent::Gemini.source(),
                            file: load.path.clone(),
                            file_display: display.as_str().into(),
                            line: 0,
                            events: vec![gemini.canonical()],
                            matcher: matcher.clone(),
                            transport: TransportSpec::Command({
                                let mut spec =
                                    CommandSpec::shell(&handler.command, ws.root().to_path_buf())
                                        .with_known_var(
                                            agent_hooks_core::workspace::WORKSPACE_ENV,
                                            &root,
                                        );
                                for (name, value) in gemini_env(&root) {
                                    spec = spec.with_known_var(&name, &value);
                                }
                                spec
                            }),
                            dialect: Dialect::Gemini {
                                event: gemini,
                                sequential,
                                aliases: aliases.clone(),
                            },
                            timeout: handler.timeout,
                            on_error: OnError::Continue,
                            env: gemini_env(&root).into_iter().chain(handler.env).collect(),
                            approval_key: Some(handler.command.clone()),
                            state_dir: ws.state_dir().join(filesystem_safe(&handler.command)),
                        });
                    }
                    Ok(None) => {}
                    Err(error) => load.errors.push(error),
                }
            }
        }
    }
}

/// The variables Gemini CLI sets for a hook (the session's id is per event, so not here).
fn gemini_env(root: &str) -> Vec<(String, String)> {
    ["GEMINI_PROJECT_DIR", "GEMINI_CWD", "CLAUDE_PROJECT_DIR"]
        .into_iter()
        .map(|name| (name.to_owned(), root.to_owned()))
        .collect()
}

/// One handler as declared.
struct Handler {
    command: String,
    name: Option<String>,
    timeout: Duration,
    env: Vec<(String, String)>,
}

/// Reads a handler: `Ok(None)` when it is skipped with a warning (another type, disabled).
fn handler(
    load: &mut FileLoad,
    at: &str,
    entry: &Value,
    disabled: &[&str],
) -> Result<Option<Handler>, ConfigError> {
    let display = load.display.clone();
    let note = |message: String| ConfigError::whole_file(&display, message);
    let Some(entry) = entry.as_object() else {
        return Err(note(format!("{at} must be an object")));
    };
    warn_unknown_keys(load, at, entry, HANDLER_KEYS, NO_SUCH_FIELD);
    let kind = entry
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("command");
    if kind != "command" {
        load.warnings.push(note(format!(
            "{at}: type \"{kind}\" is not supported (Gemini CLI runs only \"command\"); skipped"
        )));
        return Ok(None);
    }
    let Some(command) = entry.get("command").and_then(Value::as_str) else {
        return Err(note(format!("{at}: missing \"command\"")));
    };
    let name = match entry.get("name") {
        None | Some(Value::Null) => None,
        Some(Value::String(name)) => Some(name.clone()),
        Some(other) => {
            return Err(note(format!(
                "{at}.name must be a string, found {}; the hook is skipped",
                json_kind(other)
            )));
        }
    };
    if disabled
        .iter()
        .any(|d| *d == command || name.as_deref() == Some(*d))
    {
        load.warnings.push(note(format!(
            "{at}: \"{}\" is in hooksConfig.disabled; skipped",
            name.as_deref().unwrap_or(command)
        )));
        return Ok(None);
    }
    let timeout_ms = match entry.get("timeout") {
        None | Some(Value::Null) => DEFAULT_TIMEOUT_MS,
        Some(Value::Number(n)) if n.as_f64().is_some_and(|t| t > 0.0) => {
            n.as_f64().unwrap_or(DEFAULT_TIMEOUT_MS)
        }
        Some(other) => {
            return Err(note(format!(
                "{at}.timeout must be a positive number of milliseconds, found {other}; the hook is skipped"
            )));
        }
    };
    let env = match entry.get("env") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Object(map)) => string_map(map).ok_or_else(|| {
            note(format!(
                "{at}.env must map names to strings; the hook is skipped"
            ))
        })?,
        Some(other) => {
            return Err(note(format!(
                "{at}.env must be an object, found {}; the hook is skipped",
                json_kind(other)
            )));
        }
    };
    Ok(Some(Handler {
        command: command.to_owned(),
        name,
        timeout: Duration::from_secs_f64((timeout_ms / 1000.0).min(MAX_TIMEOUT_SECS)),
        env,
    }))
}

fn string_map(map: &Map<String, Value>) -> Option<Vec<(String, String)>> {
    map.iter()
        .map(|(k, v)| v.as_str().map(|v| (k.clone(), v.to_owned())))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn loaded(settings: &str) -> FileLoad {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(".gemini")).unwrap();
        std::fs::write(dir.path().join(SETTINGS), settings).unwrap();
        load(&Workspace::new(dir.path()), &AgentSettings::default()).remove(0)
    }

    #[test]
    fn timeouts_are_milliseconds_and_sequential_is_kept() {
        let file = loaded(
            r#"{"hooks": {"BeforeTool": [{"matcher": "run_shell_command", "sequential": true,
                "hooks": [{"type": "command", "command": "a", "timeout": 5000, "name": "guard"},
                          {"type": "command", "command": "b"}]}]}}"#,
        );
        assert!(
            file.errors.is_empty() && file.warnings.is_empty(),
            "{:?}",
            file.warnings
        );
        assert_eq!(&*file.hooks[0].name, "guard");
        assert_eq!(file.hooks[0].timeout.as_millis(), 5000);
        assert_eq!(file.hooks[1].timeout.as_secs(), 60);
        assert!(matches!(
            file.hooks[0].dialect,
            Dialect::Gemini {
                sequential: true,
                ..
            }
        ));
    }

    #[test]
    fn unmapped_events_unknown_fields_and_disabled_hooks_are_warned_about() {
        let file = loaded(
            r#"{"hooksConfig": {"disabled": ["old-guard"]},
                "hooks": {"BeforeModel": [{"hooks": [{"type": "command", "command": "a"}]}],
                          "BeforeTool": [{"hooks": [
                              {"type": "command", "command": "b", "name": "old-guard"},
                              {"type": "command", "command": "c", "retries": 3}]}]}}"#,
        );
        let warnings: Vec<&str> = file.warnings.iter().map(|w| w.message()).collect();
        assert_eq!(file.hooks.len(), 1, "{warnings:?}");
        assert!(
            warnings
                .iter()
                .any(|w| w.contains("BeforeModel hooks never fire"))
        );
        assert!(warnings.iter().any(|w| w.contains("hooksConfig.disabled")));
        assert!(
            warnings
                .iter()
                .any(|w| w.contains("unknown key \"retries\""))
        );
    }
}
