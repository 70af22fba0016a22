//! The Windsurf source: Cascade's `hooks.json` at system level (`/etc/windsurf/hooks.json`;
//! `/Library/Application Support/Windsurf/hooks.json` on macOS), user level
//! (`~/.codeium/windsurf/hooks.json`) and workspace level (`.windsurf/hooks.json`), merged in
//! that order as Cascade merges them (`{"hooks": {"<event>": [{"command": ...}]}}`). Each command
//! runs through `sh -c` from the workspace root (or its `working_directory`), goes through the
//! trust gate like a shell hook and speaks the Windsurf dialect.

use std::path::PathBuf;
use std::time::Duration;

use serde_json::Value;

use super::agent::AgentSettings;
use super::agent_files::{bridge_agent, declared_event};
use super::document::{parse_json, read};
use super::{ConfigError, FileLoad};
use crate::hook::{Hook, MAX_TIMEOUT_SECS, OnError, filesystem_safe};
use agent_hooks_core::wording::kind_of as json_kind;
use agent_hooks_core::workspace::Workspace;
use agent_hooks_dialects::Dialect;
use agent_hooks_dialects::agent::Agent;
use agent_hooks_dialects::windsurf::WindsurfEvent;
use agent_hooks_transports::{CommandSpec, TransportSpec};

/// The timeout of a Cascade hook: Cascade's hooks have no timeout field and its documentation
/// names none, so a hung hook is stopped after this many seconds.
const DEFAULT_TIMEOUT_SECS: f64 = 30.0;

/// The keys a Cascade handler may have.
const ENTRY_KEYS: &[&str] = &["command", "powershell", "show_output", "working_directory"];

/// The system-level file, where Cascade looks for it on this platform.
fn system_file() -> PathBuf {
    if cfg!(target_os = "macos") {
        PathBuf::from("/Library/Application Support/Windsurf/hooks.json")
    } else {
        PathBuf::from("/etc/windsurf/hooks.json")
    }
}

pub(crate) fn load(ws: &Workspace, _agent: &AgentSettings) -> Vec<FileLoad> {
    let workspace = ws.root().join(Agent::Windsurf.config_file());
    let mut paths = vec![system_file()];
    if let Some(home) = std::env::var_os("HOME").filter(|h| !h.is_empty()) {
        let user = PathBuf::from(home).join(".codeium/windsurf/hooks.json");
        if user != workspace {
            paths.push(user);
        }
    }
    paths.push(workspace.clone());
    paths
        .into_iter()
        .filter_map(|path| {
            let mut load = FileLoad::new(ws, Agent::Windsurf.source(), path.clone());
            match read(&mut load, parse_json) {
                Some(doc) => load_hooks(ws, &mut load, &doc),
                // Only the workspace's file is listed when it is missing: the others are
                // another machine's or user's business.
                None if load.errors.is_empty() && path != workspace => return None,
                None => {}
            }
            Some(load)
        })
        .collect()
}

fn load_hooks(ws: &Workspace, load: &mut FileLoad, doc: &Value) {
    let display = load.display.clone();
    let note = |message: String| ConfigError::whole_file(&display, message);
    let Value::Object(top) = doc else {
        load.state = super::FileState::Broken;
        load.errors.push(note(format!(
            "the file must be a JSON object, found {}",
            json_kind(doc)
        )));
        return;
    };
    for key in top.keys().filter(|k| *k != "hooks") {
        load.warnings.push(note(format!(
            "unknown key \"{key}\" (Windsurf has only \"hooks\" here); ignored"
        )));
    }
    let hooks = match top.get("hooks") {
        None => return,
        Some(Value::Object(hooks)) => hooks,
        Some(other) => {
            load.errors.push(note(format!(
                "\"hooks\" must be an object of event name → list of {{\"command\": ...}}, found {}",
                json_kind(other)
            )));
            return;
        }
    };
    let root = ws.root().to_string_lossy().into_owned();
    for (event_name, entries) in hooks {
        let parsed = (
            WindsurfEvent::parse(event_name),
            Agent::Windsurf.home().unmapped_events(),
        );
        let what = "{\"command\": ...}";
        let Some((windsurf, entries)) =
            declared_event(load, Agent::Windsurf, (event_name, entries), parsed, what)
        else {
            continue;
        };
        for (h, entry) in entries.iter().enumerate() {
            let at = format!("hooks.{event_name}[{h}]");
            let Some((command, show_output, cwd)) = handler(ws, load, &at, event_name, entry)
            else {
                continue;
            };
            load.hooks.push(Hook {
                name: command.as_str().into(),
                source: Agent::Windsurf.source(),
                file: load.path.clone(),
                file_display: display.as_str().into(),
                line: 0,
                events: vec![windsurf.canonical()],
                matcher: None,
                transport: TransportSpec::Command(
                    CommandSpec::shell(&command, cwd)
                        .with_known_var(agent_hooks_core::workspace::WORKSPACE_ENV, &root),
                ),
                dialect: Dialect::Windsurf {
                    event: windsurf,
                    show_output,
                },
                timeout: Duration::from_secs_f64(DEFAULT_TIMEOUT_SECS.min(MAX_TIMEOUT_SECS)),
                on_error: OnError::Continue,
                env: Vec::new(),
                approval_key: Some(command.clone()),
                state_dir: ws
                    .state_dir()
                    .join(filesystem_safe(&format!("windsurf-{command}"))),
            });
        }
    }
}

/// Reads the handler at `at`: its command, `show_output` and working directory; `None` when
/// it is skipped, with the error or warning that says why (a bridge entry is recorded in
/// `load.bridge` instead).
fn handler(
    ws: &Workspace,
    load: &mut FileLoad,
    at: &str,
    event_name: &str,
    entry: &Value,
) -> Option<(String, bool, PathBuf)> {
    let display = load.display.clone();
    let note = |message: String| ConfigError::whole_file(&display, message);
    let Value::Object(entry) = entry else {
        load.errors.push(note(format!(
            "{at} must be an object with a \"command\", found {}",
            json_kind(entry)
        )));
        return None;
    };
    for key in entry.keys() {
        if !ENTRY_KEYS.contains(&key.as_str()) {
            load.warnings.push(note(format!(
                "{at}: unknown key \"{key}\" (not a Windsurf hook field); ignored"
            )));
        }
    }
    let command = match entry.get("command") {
        Some(Value::String(command)) => command.clone(),
        Some(other) => {
            load.errors.push(note(format!(
                "{at}.command must be a string, found {}; the hook is skipped",
                json_kind(other)
            )));
            return None;
        }
        None if entry.contains_key("powershell") => {
            load.warnings.push(note(format!(
                "{at}: only a \"powershell\" command, which Windsurf runs on Windows only; skipped here"
            )));
            return None;
        }
        None => {
            load.errors.push(note(format!(
                "{at}: missing \"command\"; the hook is skipped"
            )));
            return None;
        }
    };
    if bridge_agent(&command).is_some() {
        if !load.bridge.iter().any(|e| e == event_name) {
            load.bridge.push(event_name.to_owned());
        }
        return None;
    }
    let show_output = match entry.get("show_output") {
        None => false,
        Some(Value::Bool(show)) => *show,
        Some(other) => {
            load.warnings.push(note(format!(
                "{at}.show_output must be true or false, found {}; read as false",
                json_kind(other)
            )));
            false
        }
    };
    let cwd = match entry.get("working_directory") {
        None => ws.root().to_path_buf(),
        Some(Value::String(dir)) => ws.root().join(dir),
        Some(other) => {
            load.errors.push(note(format!(
                "{at}.working_directory must be a string, found {}; the hook is skipped",
                json_kind(other)
            )));
            return None;
        }
    };
    Some((command, show_output, cwd))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_workspace_file_loads_with_its_show_output_and_directory() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(".windsurf")).unwrap();
        std::fs::write(
            dir.path().join(".windsurf/hooks.json"),
            r#"{"hooks": {"pre_run_command": [{"command": "python3 guard.py", "show_output": true, "working_directory": "tools"}],
                          "post_setup_worktree": [{"command": "x"}]}}"#,
        )
        .unwrap();
        let loads = load(&Workspace::new(dir.path()), &AgentSettings::default());
        let file = loads
            .iter()
            .find(|l| l.path.ends_with(".windsurf/hooks.json"))
            .unwrap();
        assert_eq!(file.hooks.len(), 1);
        assert!(matches!(
            file.hooks[0].dialect,
            Dialect::Windsurf {
                show_output: true,
                ..
            }
        ));
        let TransportSpec::Command(spec) = &file.hooks[0].transport else {
            unreachable!("a command hook")
        };
        assert!(spec.cwd.ends_with("tools"));
        assert!(
            file.warnings
                .iter()
                .any(|w| w.message().contains("post_setup_worktree hooks never fire"))
        );
    }
}
