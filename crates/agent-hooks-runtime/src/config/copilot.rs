//! The GitHub Copilot source: hooks declared in the repository's `.github/hooks/*.json` and
//! the user's `~/.copilot/hooks/*.json` (`$COPILOT_HOME/hooks/`), in that order, each file
//! alphabetically (`{"version": 1, "hooks": {"<event>": [{"type": "command", "bash": ...}]}}`).
//! A `bash` (or `command`) line runs through `bash -c` from the repository root (or its `cwd`),
//! an `exec` with its `args` without a shell; each goes through the trust gate and speaks the
//! Copilot dialect.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Map, Value};

use super::agent::AgentSettings;
use super::agent_files::{bridge_agent, declared_event};
use super::document::{parse_json, read};
use super::{ConfigError, FileLoad};
use crate::hook::{Hook, MAX_TIMEOUT_SECS, OnError, filesystem_safe};
use agent_hooks_core::wording::kind_of as json_kind;
use agent_hooks_core::workspace::Workspace;
use agent_hooks_dialects::Dialect;
use agent_hooks_dialects::agent::Agent;
use agent_hooks_dialects::copilot::{CopilotEvent, compile_matcher};
use agent_hooks_transports::http::Template;
use agent_hooks_transports::{CommandSpec, HttpSpec, TransportSpec};

/// Copilot's default timeout of a hook, in seconds.
const DEFAULT_TIMEOUT_SECS: f64 = 30.0;

/// The keys a Copilot handler may have.
const ENTRY_KEYS: &[&str] = &[
    "type",
    "bash",
    "powershell",
    "command",
    "exec",
    "args",
    "cwd",
    "env",
    "timeoutSec",
    "timeout",
    "matcher",
    "comment",
    "prompt",
    "url",
    "headers",
    "allowedEnvVars",
];

/// The directory of the user's Copilot hooks: `$COPILOT_HOME/hooks`, else `~/.copilot/hooks`.
fn user_dir() -> Option<PathBuf> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    if let Some(home) = var("COPILOT_HOME") {
        return Some(PathBuf::from(home).join("hooks"));
    }
    var("HOME").map(|home| PathBuf::from(home).join(".copilot").join("hooks"))
}

/// The `*.json` files of `dir`, alphabetically (none when it does not exist).
fn json_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json") && p.is_file())
        .collect();
    files.sort();
    files
}

pub(crate) fn load(ws: &Workspace, _agent: &AgentSettings) -> Vec<FileLoad> {
    let repo = ws.root().join(".github").join("hooks");
    let mut paths = json_files(&repo);
    if let Some(user) = user_dir()
        && user != repo
    {
        paths.extend(json_files(&user));
    }
    let mut loads = Vec::new();
    for path in paths {
        let mut load = FileLoad::new(ws, Agent::Copilot.source(), path);
        if let Some(doc) = read(&mut load, parse_json) {
            load_hooks(ws, &mut load, &doc);
        }
        loads.push(load);
    }
    if loads.is_empty() {
        // The file `copilot-install` writes, listed as missing so `list` names where it goes.
        loads.push(FileLoad::new(
            ws,
            Agent::Copilot.source(),
            ws.root().join(Agent::Copilot.config_file()),
        ));
    }
    loads
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
    // Copilot rejects a whole file with a bad version, so none of its hooks run there.
    match top.get("version") {
        Some(v) if v.as_u64() == Some(1) => {}
        other => {
            load.state = super::FileState::Broken;
            let found = other.map_or_else(|| "none".to_owned(), Value::to_string);
            load.errors.push(note(format!(
                "\"version\" must be 1 (found {found}); Copilot rejects the whole file, so none of its hooks run"
            )));
            return;
        }
    }
    for key in top.keys() {
        if !["version", "hooks", "disableAllHooks"].contains(&key.as_str()) {
            load.warnings.push(note(format!(
                "unknown key \"{key}\" (Copilot reads \"version\", \"hooks\" and \"disableAllHooks\" here); ignored"
            )));
        }
    }
    let hooks = match top.get("hooks") {
        None => return,
        Some(Value::Object(hooks)) => hooks,
        Some(other) => {
            load.state = super::FileState::Broken;
            load.errors.push(note(format!(
                "\"hooks\" must be an object of event name → list of handlers, found {}",
                json_kind(other)
            )));
            return;
        }
    };
    if top.get("disableAllHooks") == Some(&Value::Bool(true)) {
        load.warnings.push(note(
            "\"disableAllHooks\": true: none of this file's hooks run (as in Copilot)".into(),
        ));
        return;
    }
    for (event_name, entries) in hooks {
        let parsed = (
            CopilotEvent::parse(event_name),
            Agent::Copilot.home().unmapped_events(),
        );
        let what = "{\"type\": \"command\", \"bash\": ...}";
        let Some((copilot, entries)) =
            declared_event(load, Agent::Copilot, (event_name, entries), parsed, what)
        else {
            continue;
        };
        for (h, entry) in entries.iter().enumerate() {
            let at = format!("hooks.{event_name}[{h}]");
            let Some(handler) = handler(ws, load, &at, event_name, copilot, entry) else {
                continue;
            };
            let line = handler.key;
            load.hooks.push(Hook {
                name: line.as_str().into(),
                source: Agent::Copilot.source(),
                file: load.path.clone(),
                file_display: display.as_str().into(),
                line: 0,
                events: vec![copilot.canonical()],
                matcher: handler.matcher,
                transport: handler.transport,
                dialect: Dialect::Copilot { event: copilot },
                timeout: Duration::from_secs_f64(handler.timeout.min(MAX_TIMEOUT_SECS)),
                on_error: OnError::Continue,
                env: handler.env,
                approval_key: Some(line.clone()),
                state_dir: ws
                    .state_dir()
                    .join(filesystem_safe(&format!("copilot-{line}"))),
            });
        }
    }
}

/// One handler as declared.
struct Handler {
    transport: TransportSpec,
    /// What approvals key on: the command line, or the URL.
    key: String,
    matcher: Option<agent_hooks_dialects::Matcher>,
    /// In seconds.
    timeout: f64,
    env: Vec<(String, String)>,
}

/// Reads the handler at `at` (under `event_name`); `None` when it is skipped, with the error
/// or warning that says why (a bridge entry is recorded in `load.bridge` instead). A malformed
/// handler loses only itself, as in Copilot.
fn handler(
    ws: &Workspace,
    load: &mut FileLoad,
    at: &str,
    event_name: &str,
    copilot: CopilotEvent,
    entry: &Value,
) -> Option<Handler> {
    let display = load.display.clone();
    let note = |message: String| ConfigError::whole_file(&display, message);
    let Value::Object(entry) = entry else {
        load.errors.push(note(format!(
            "{at} must be an object with a \"bash\" command, found {}",
            json_kind(entry)
        )));
        return None;
    };
    for key in entry.keys() {
        if !ENTRY_KEYS.contains(&key.as_str()) {
            load.warnings.push(note(format!(
                "{at}: unknown key \"{key}\" (not a Copilot hook field); ignored"
            )));
        }
    }
    let string = |key: &str| entry.get(key).and_then(Value::as_str).map(str::to_owned);
    let kind = string("type").unwrap_or_else(|| "command".to_owned());
    let (transport, key) = match kind.as_str() {
        "command" => {
            let spec = command_spec(ws, load, at, event_name, entry)?;
            let key = spec.line.clone();
            let root = ws.root().to_string_lossy();
            let spec = spec.with_known_var(agent_hooks_core::workspace::WORKSPACE_ENV, &root);
            (TransportSpec::Command(spec), key)
        }
        "http" => match http_spec(copilot, entry) {
            Ok((spec, dropped)) => {
                for (header, name) in dropped {
                    load.warnings.push(note(format!(
                        "{at}.headers.{header}: ${name} is not in allowedEnvVars, so it is sent empty"
                    )));
                }
                let url = spec.url.clone();
                (TransportSpec::Http(spec), url)
            }
            Err(why) => {
                load.errors
                    .push(note(format!("{at}: {why}; the hook is skipped")));
                return None;
            }
        },
        "prompt" => {
            load.warnings.push(note(format!(
                "{at}: a \"prompt\" hook submits text as if the user typed it; there is no user here to type for, so it is skipped"
            )));
            return None;
        }
        other => {
            load.warnings.push(note(format!(
                "{at}: type \"{other}\" is not a Copilot hook type (\"command\", \"http\", \"prompt\"); skipped"
            )));
            return None;
        }
    };
    // `timeoutSec` wins over its alias `timeout`, as in Copilot.
    let timeout = match entry.get("timeoutSec").or_else(|| entry.get("timeout")) {
        None => DEFAULT_TIMEOUT_SECS,
        Some(value) => match value.as_f64() {
            Some(t) if t > 0.0 => t,
            _ => {
                load.errors.push(note(format!(
                    "{at}.timeoutSec must be a positive number of seconds, found {value}; the hook is skipped"
                )));
                return None;
            }
        },
    };
    let matcher = match entry.get("matcher") {
        None => None,
        Some(Value::String(pattern)) => {
            if !copilot.has_tool_matcher() {
                load.warnings.push(note(format!(
                    "{at}.matcher: Copilot does not read a matcher on {event_name}; ignored"
                )));
                None
            } else {
                match compile_matcher(pattern) {
                    Ok(matcher) => matcher,
                    Err(e) => {
                        load.errors.push(note(format!(
                            "{at}.matcher \"{pattern}\" is not a valid regex: {}; the hook is skipped (as in Copilot)",
                            e.to_string().split_whitespace().collect::<Vec<_>>().join(" ")
                        )));
                        return None;
                    }
                }
            }
        }
        Some(other) => {
            load.errors.push(note(format!(
                "{at}.matcher must be a string, found {}; the hook is skipped",
                json_kind(other)
            )));
            return None;
        }
    };
    let env = match entry.get("env") {
        None => Vec::new(),
        Some(Value::Object(vars)) => {
            let mut env = Vec::new();
            for (name, value) in vars {
                match value {
                    Value::String(v) => env.push((name.clone(), v.clone())),
                    other => load.warnings.push(note(format!(
                        "{at}.env.{name} must be a string, found {}; not set",
                        json_kind(other)
                    ))),
                }
            }
            env
        }
        Some(other) => {
            load.errors.push(note(format!(
                "{at}.env must be an object of strings, found {}; the hook is skipped",
                json_kind(other)
            )));
            return None;
        }
    };
    Some(Handler {
        transport,
        key,
        matcher,
        timeout,
        env,
    })
}

/// The command a `"type": "command"` handler runs: `exec` with its `args` without a shell,
/// else `bash` (or `command`) through `bash -c`; `None` when it cannot run here or is the
/// bridge (recorded in `load.bridge`).
fn command_spec(
    ws: &Workspace,
    load: &mut FileLoad,
    at: &str,
    event_name: &str,
    entry: &Map<String, Value>,
) -> Option<CommandSpec> {
    let display = load.display.clone();
    let note = |message: String| ConfigError::whole_file(&display, message);
    let cwd = match entry.get("cwd") {
        None => ws.root().to_path_buf(),
        Some(Value::String(dir)) => ws.root().join(dir),
        Some(other) => {
            load.errors.push(note(format!(
                "{at}.cwd must be a string, found {}; the hook is skipped",
                json_kind(other)
            )));
            return None;
        }
    };
    let spec = if let Some(exec) = entry.get("exec") {
        let Value::String(exec) = exec else {
            load.errors.push(note(format!(
                "{at}.exec must be a string, found {}; the hook is skipped",
                json_kind(exec)
            )));
            return None;
        };
        let args = match entry.get("args") {
            None => Vec::new(),
            Some(Value::Array(args)) if args.iter().all(Value::is_string) => args
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect(),
            Some(other) => {
                load.errors.push(note(format!(
                    "{at}.args must be a list of strings, found {other}; the hook is skipped"
                )));
                return None;
            }
        };
        let mut words = vec![exec.clone()];
        words.extend(args);
        let line = shell_words::join(&words);
        CommandSpec::words(&line, words, cwd)
    } else {
        let line = match (entry.get("bash"), entry.get("command")) {
            (Some(Value::String(line)), _) | (None, Some(Value::String(line))) => line.clone(),
            (Some(other), _) | (None, Some(other)) => {
                load.errors.push(note(format!(
                    "{at}: the command must be a string, found {}; the hook is skipped",
                    json_kind(other)
                )));
                return None;
            }
            (None, None) if entry.contains_key("powershell") => {
                load.warnings.push(note(format!(
                    "{at}: only a \"powershell\" command, which Copilot runs on Windows only; skipped here"
                )));
                return None;
            }
            (None, None) => {
                load.errors.push(note(format!(
                    "{at}: missing \"bash\" (or \"command\", or \"exec\"); the hook is skipped"
                )));
                return None;
            }
        };
        if bridge_agent(&line).is_some() {
            if !load.bridge.iter().any(|e| e == event_name) {
                load.bridge.push(event_name.to_owned());
            }
            return None;
        }
        CommandSpec::shell(&line, cwd).in_bash()
    };
    Some(spec)
}

/// A `"type": "http"` handler as Copilot reads it: `url`, `headers` whose `$VAR` / `${VAR}`
/// name only variables of `allowedEnvVars` (others are sent empty, with a warning). Copilot
/// allows `https://` only — `http://` to this machine when `COPILOT_HOOK_ALLOW_LOCALHOST=1`,
/// and never on `preToolUse` or with `allowedEnvVars` — and so does this reader; the URL then
/// passes the HTTP hooks' SSRF guard like any other.
fn http_spec(
    copilot: CopilotEvent,
    entry: &Map<String, Value>,
) -> Result<(HttpSpec, Vec<(String, String)>), String> {
    let url = match entry.get("url") {
        Some(Value::String(url)) if !url.trim().is_empty() => url.clone(),
        None => return Err("missing \"url\" (where to POST the hook input)".to_owned()),
        Some(other) => {
            return Err(format!(
                "\"url\" must be a string, found {}",
                json_kind(other)
            ));
        }
    };
    let allowed: Vec<String> = match entry.get("allowedEnvVars") {
        None => Vec::new(),
        Some(Value::Array(names)) if names.iter().all(Value::is_string) => names
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        Some(other) => {
            return Err(format!(
                "\"allowedEnvVars\" must be a list of variable names, found {other}"
            ));
        }
    };
    if !url.starts_with("https://") {
        let host = url
            .strip_prefix("http://")
            .map(|rest| rest.split(['/', '?', '#']).next().unwrap_or(""))
            .map(|authority| authority.rsplit_once('@').map_or(authority, |(_, h)| h));
        let local = host.is_some_and(|h| {
            h == "localhost"
                || h.starts_with("localhost:")
                || h.starts_with("127.")
                || h.starts_with("[::1]")
        });
        let allowed_local = std::env::var("COPILOT_HOOK_ALLOW_LOCALHOST").is_ok_and(|v| v == "1");
        if copilot == CopilotEvent::PreToolUse || !allowed.is_empty() || !local || !allowed_local {
            return Err(format!(
                "\"{url}\" is not https://, which Copilot requires here (http:// only to this machine, with COPILOT_HOOK_ALLOW_LOCALHOST=1, and never on preToolUse or with allowedEnvVars)"
            ));
        }
    }
    let mut headers = Vec::new();
    let mut dropped = Vec::new();
    match entry.get("headers") {
        None => {}
        Some(Value::Object(entries)) => {
            for (name, value) in entries {
                let Value::String(value) = value else {
                    return Err(format!(
                        "headers.{name} must be a string, found {}",
                        json_kind(value)
                    ));
                };
                let (template, unlisted) = Template::parse_claude(value, &allowed);
                dropped.extend(unlisted.into_iter().map(|var| (name.clone(), var)));
                headers.push((name.clone(), template));
            }
        }
        Some(other) => {
            return Err(format!(
                "\"headers\" must be an object of name: value, found {}",
                json_kind(other)
            ));
        }
    }
    let mut spec = HttpSpec::new(&url, headers, None).map_err(|e| e.to_string())?;
    spec.allowed_env = allowed;
    Ok((spec, dropped))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn loaded(name: &str, text: &str) -> Vec<FileLoad> {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(".github/hooks")).unwrap();
        std::fs::write(dir.path().join(".github/hooks").join(name), text).unwrap();
        load(&Workspace::new(dir.path()), &AgentSettings::default())
    }

    #[test]
    fn bash_commands_run_from_the_repository_root_with_their_timeout() {
        let files = loaded(
            "policy.json",
            r#"{"version": 1, "hooks": {"preToolUse": [{"type": "command", "bash": "./scripts/guard.sh", "powershell": "./scripts/guard.ps1", "timeoutSec": 5, "matcher": "bash", "comment": "guard"}]}}"#,
        );
        let file = &files[0];
        assert!(
            file.errors.is_empty() && file.warnings.is_empty(),
            "{:?} {:?}",
            file.errors,
            file.warnings
        );
        assert_eq!(file.hooks.len(), 1);
        assert_eq!(file.hooks[0].timeout.as_secs(), 5);
        assert!(file.hooks[0].matcher.is_some());
    }

    #[test]
    fn a_bad_version_rejects_the_file_and_unmapped_events_are_warned_about() {
        let bad = loaded("a.json", r#"{"version": 2, "hooks": {}}"#);
        assert_eq!(bad[0].state, super::super::FileState::Broken);
        let files = loaded(
            "b.json",
            r#"{"version": 1, "hooks": {"errorOccurred": [{"bash": "a"}], "PreToolUse": [{"command": "b"}], "agentStop": [{"bash": "c"}]}}"#,
        );
        let warnings: Vec<&str> = files[0].warnings.iter().map(|w| w.message()).collect();
        assert_eq!(files[0].hooks.len(), 1);
        assert!(
            warnings
                .iter()
                .any(|w| w.contains("errorOccurred hooks never fire"))
        );
        assert!(
            warnings
                .iter()
                .any(|w| w.contains("PreToolUse hooks never fire"))
        );
    }
}
