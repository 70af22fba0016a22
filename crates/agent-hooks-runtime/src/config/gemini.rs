//! The Gemini CLI source: hooks declared in the project's `.gemini/settings.json` under
//! `"hooks"` (event → groups of `{matcher, sequential, hooks: [...]}`), honouring
//! `hooksConfig.enabled` and `hooksConfig.disabled`. Each handler becomes a [`Hook`] that runs
//! through `sh -c` in the workspace with Gemini CLI's variables set, goes through the trust
//! gate like a shell hook, and speaks the Gemini CLI dialect.

use std::sync::Arc;
use std::time::Duration;

use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::{Number, Value};

use super::agent::AgentSettings;
use super::agent_files::{bridge_agent, declared_event, warn_unknown_keys};
use super::document::{parse_json, read};
use super::typed::{Entries, Object, Typed, from_object};
use super::{ConfigError, FileLoad};
use crate::hook::{Hook, MAX_TIMEOUT_SECS, OnError, filesystem_safe};
use agent_hooks_core::wording::kind_of as json_kind;
use agent_hooks_core::workspace::Workspace;
use agent_hooks_dialects::agent::Agent;
use agent_hooks_dialects::gemini::{GeminiEvent, tool_aliases};
use agent_hooks_dialects::{Dialect, Matcher};
use agent_hooks_transports::{CommandSpec, TransportSpec};

/// Why an unknown key of a Gemini CLI hook definition is ignored.
const NO_SUCH_FIELD: &str = "Gemini CLI has no such field";

/// Gemini CLI's default hook timeout, in milliseconds.
const DEFAULT_TIMEOUT_MS: f64 = 60_000.0;

/// The parts of `.gemini/settings.json` about hooks; the rest of the file is Gemini CLI's.
/// A value of the wrong type is kept ([`Typed`]) for the message that names it.
#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct Settings {
    hooks_config: Option<Typed<Object<HooksConfig>>>,
    /// Event name → hook definitions: the event names are data, so the map is walked.
    hooks: Option<Typed<Entries<Value>>>,
}

/// `hooksConfig`: whether hooks run at all, and which are turned off by name or command.
#[derive(Deserialize, Default)]
#[serde(default)]
struct HooksConfig {
    enabled: Option<Typed<bool>>,
    disabled: Option<Typed<Vec<Typed<String>>>>,
}

/// One hook definition: which tools, in order or not, and its handlers.
#[derive(Deserialize, Default)]
#[serde(default)]
struct Group {
    matcher: Option<Typed<String>>,
    sequential: Option<Typed<bool>>,
    hooks: Option<Typed<Vec<Value>>>,
}

/// One handler as written.
#[derive(Deserialize, Default)]
#[serde(default)]
struct Entry {
    #[serde(rename = "type")]
    kind: Option<Typed<String>>,
    command: Option<Typed<String>>,
    name: Option<Typed<String>>,
    /// A number as written, so a refused one is quoted as it was written.
    timeout: Option<Typed<Number>>,
    /// Declared so it is not called unknown; only Gemini CLI shows it.
    description: Option<IgnoredAny>,
    env: Option<Typed<Entries<Typed<String>>>>,
}

/// The value of an optional field, when written with the declared type.
fn valid<T>(field: &Option<Typed<T>>) -> Option<&T> {
    field.as_ref().and_then(|typed| typed.get().ok())
}

pub(crate) fn load(ws: &Workspace, _agent: &AgentSettings) -> Vec<FileLoad> {
    let path = ws.root().join(Agent::Gemini.config_file());
    let mut load = FileLoad::new(ws, Agent::Gemini.source(), path);
    if let Some(doc) = read(&mut load, parse_commented_json) {
        load_settings(ws, &mut load, &doc);
    }
    vec![load]
}

/// Gemini CLI strips `//` and `/* */` comments from its settings before parsing them. They
/// are blanked here (newlines kept), so a parse error still names the line and column as
/// written.
fn parse_commented_json(text: &str) -> Result<Value, super::document::Located> {
    parse_json(&agent_hooks_dialects::gemini::strip_comments(text))
}

/// Keys of `hooks` that configure the hooks rather than name an event: the older place of
/// what `hooksConfig` holds.
const HOOKS_SETTINGS: [&str; 3] = ["enabled", "disabled", "notifications"];

fn load_settings(ws: &Workspace, load: &mut FileLoad, doc: &Value) {
    let display = load.display.clone();
    let note = |message: String| ConfigError::whole_file(&display, message);
    let settings = from_object::<Settings>(doc).unwrap_or_default();
    let config = match &settings.hooks_config {
        Some(Typed::Valid(Object(config))) => Some(config),
        _ => None,
    };
    let mut disabled: Vec<&str> = config
        .and_then(|c| valid(&c.disabled))
        .map(|names| {
            names
                .iter()
                .filter_map(|n| n.get().ok())
                .map(String::as_str)
                .collect()
        })
        .unwrap_or_default();
    let hooks = match &settings.hooks {
        None => return,
        Some(Typed::Valid(Entries(hooks))) => hooks,
        Some(Typed::Wrong(other)) => {
            load.errors.push(note(format!(
                "\"hooks\" must be an object of event name → hook definitions, found {}",
                json_kind(other)
            )));
            return;
        }
    };
    // `hooks.enabled` / `hooks.disabled`, as Gemini CLI also reads them: a hook turned off
    // either way stays off.
    let inner = |key: &str| hooks.iter().find(|(k, _)| k == key).map(|(_, v)| v);
    match inner("disabled") {
        None => {}
        Some(Value::Array(names)) if names.iter().all(Value::is_string) => {
            disabled.extend(names.iter().filter_map(Value::as_str));
        }
        Some(other) => load.errors.push(note(format!(
            "hooks.disabled must be a list of hook names or commands, found {}; no hook is turned off by it",
            json_kind(other)
        ))),
    }
    let inner_enabled = match inner("enabled") {
        None => None,
        Some(Value::Bool(enabled)) => Some(*enabled),
        Some(other) => {
            load.errors.push(note(format!(
                "hooks.enabled must be true or false, found {}; read as false, the safe reading",
                json_kind(other)
            )));
            Some(false)
        }
    };
    if config.and_then(|c| valid(&c.enabled)) == Some(&false) || inner_enabled == Some(false) {
        load.warnings.push(note(
            "hooks are turned off (hooksConfig.enabled or hooks.enabled is false): Gemini CLI runs none of these hooks, and neither does this host".into(),
        ));
        return;
    }
    let aliases = Arc::new(tool_aliases());
    let root = ws.root().to_string_lossy().into_owned();
    for (event_name, groups) in hooks {
        if HOOKS_SETTINGS.contains(&event_name.as_str()) {
            continue;
        }
        let parsed = (
            GeminiEvent::parse(event_name),
            Agent::Gemini.home().unmapped_events(),
        );
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
            let Some((matcher, sequential, entries)) =
                read_group(load, &at_group, event_name, group)
            else {
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
                            transport: transport(ws, &root, &handler.command),
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

/// A hook definition's matcher, whether its handlers run in order, and its handlers; `None`
/// (with an error) when the definition is skipped.
fn read_group(
    load: &mut FileLoad,
    at_group: &str,
    event_name: &str,
    group: &Value,
) -> Option<(Option<Matcher>, bool, Vec<Value>)> {
    let display = load.display.clone();
    let note = |message: String| ConfigError::whole_file(&display, message);
    let Some(written) = from_object::<Group>(group) else {
        load.errors
            .push(note(format!("{at_group} must be an object")));
        return None;
    };
    warn_unknown_keys::<Group>(load, at_group, group, NO_SUCH_FIELD);
    let pattern = match written.matcher.as_ref().map(Typed::get) {
        None => "",
        Some(Ok(pattern)) => pattern.as_str(),
        Some(Err(found)) => {
            let error = note(format!(
                "{at_group}.matcher must be a string, found {found}; the group is skipped"
            ));
            load.errors.push(error);
            return None;
        }
    };
    let matcher = match Agent::Gemini.home().matcher(event_name, pattern) {
        Ok(matcher) => matcher,
        Err(e) => {
            let error = note(format!(
                "{at_group}.matcher \"{pattern}\" is not a valid regex: {}",
                e.to_string()
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" ")
            ));
            load.errors.push(error);
            return None;
        }
    };
    let sequential = match written.sequential.as_ref().map(Typed::get) {
        None => false,
        Some(Ok(sequential)) => *sequential,
        Some(Err(found)) => {
            let error = note(format!(
                "{at_group}.sequential must be true or false, found {found}; the group is skipped"
            ));
            load.errors.push(error);
            return None;
        }
    };
    let Some(Typed::Valid(entries)) = written.hooks else {
        let error = note(format!(
            "{at_group} needs a \"hooks\" list of {{\"type\": \"command\", \"command\": ...}}"
        ));
        load.errors.push(error);
        return None;
    };
    Some((matcher, sequential, entries))
}

/// How a Gemini CLI hook runs `command`: through `sh -c` in the workspace (`root`), with
/// Gemini CLI's variables known.
fn transport(ws: &Workspace, root: &str, command: &str) -> TransportSpec {
    let mut spec = CommandSpec::shell(command, ws.root().to_path_buf())
        .with_known_var(agent_hooks_core::workspace::WORKSPACE_ENV, root);
    for (name, value) in gemini_env(root) {
        spec = spec.with_known_var(&name, &value);
    }
    TransportSpec::Command(spec)
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
    let Some(written) = from_object::<Entry>(entry) else {
        return Err(note(format!("{at} must be an object")));
    };
    warn_unknown_keys::<Entry>(load, at, entry, NO_SUCH_FIELD);
    let kind = valid(&written.kind).map_or("command", String::as_str);
    if kind != "command" {
        load.warnings.push(note(format!(
            "{at}: type \"{kind}\" is not supported (Gemini CLI runs only \"command\"); skipped"
        )));
        return Ok(None);
    }
    let Some(command) = valid(&written.command) else {
        return Err(note(format!("{at}: missing \"command\"")));
    };
    let name = match written.name.as_ref().map(Typed::get) {
        None => None,
        Some(Ok(name)) => Some(name.clone()),
        Some(Err(found)) => {
            return Err(note(format!(
                "{at}.name must be a string, found {found}; the hook is skipped"
            )));
        }
    };
    if disabled
        .iter()
        .any(|d| *d == command.as_str() || name.as_deref() == Some(*d))
    {
        load.warnings.push(note(format!(
            "{at}: \"{}\" is in hooksConfig.disabled; skipped",
            name.as_deref().unwrap_or(command)
        )));
        return Ok(None);
    }
    let refused = |written: &dyn std::fmt::Display| {
        note(format!(
            "{at}.timeout must be a positive number of milliseconds, found {written}; the hook is skipped"
        ))
    };
    let timeout_ms = match &written.timeout {
        None => DEFAULT_TIMEOUT_MS,
        Some(Typed::Valid(n)) => match n.as_f64() {
            Some(t) if t > 0.0 => t,
            _ => return Err(refused(n)),
        },
        Some(Typed::Wrong(other)) => return Err(refused(other)),
    };
    let env = match &written.env {
        None => Vec::new(),
        Some(Typed::Valid(Entries(map))) => string_map(map).ok_or_else(|| {
            note(format!(
                "{at}.env must map names to strings; the hook is skipped"
            ))
        })?,
        Some(Typed::Wrong(other)) => {
            return Err(note(format!(
                "{at}.env must be an object, found {}; the hook is skipped",
                json_kind(other)
            )));
        }
    };
    Ok(Some(Handler {
        command: command.clone(),
        name,
        timeout: Duration::from_secs_f64((timeout_ms / 1000.0).min(MAX_TIMEOUT_SECS)),
        env,
    }))
}

/// The variables of `env`, when every value is a string.
fn string_map(map: &[(String, Typed<String>)]) -> Option<Vec<(String, String)>> {
    map.iter()
        .map(|(k, v)| v.get().ok().map(|v| (k.clone(), v.clone())))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn loaded(settings: &str) -> FileLoad {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(".gemini")).unwrap();
        std::fs::write(dir.path().join(Agent::Gemini.config_file()), settings).unwrap();
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
