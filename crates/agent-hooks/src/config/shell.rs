//! The shell-hook source: `config/shell_hooks.yaml` (SPEC §5). Each entry becomes one [`Hook`]
//! speaking the decision protocol over the command transport, gated by approval.

use std::collections::BTreeMap;
use std::time::Duration;

use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::Value;
use serde_saphyr::Spanned;

use super::yaml::{LocatedMap, error_at, parse_error, place};
use super::{ConfigError, FileLoad, FileState};
use crate::hook::{Hook, MAX_TIMEOUT_SECS, OnError, SourceKind, filesystem_safe};
use agent_hooks_core::event::Event;
use agent_hooks_core::wording::{did_you_mean, kind_of, nearest};
use agent_hooks_core::workspace::Workspace;
use agent_hooks_dialects::Dialect;
use agent_hooks_dialects::matcher;
use agent_hooks_transports::http::{HttpSpecError, Template};
use agent_hooks_transports::judge::{AGENT_TIMEOUT_SECS, JudgeKind, PROMPT_TIMEOUT_SECS};
use agent_hooks_transports::{CommandSpec, HttpSpec, JudgeEndpoint, JudgeSpec, TransportSpec};

/// Default timeout of a shell hook (SPEC §5).
pub(crate) const DEFAULT_TIMEOUT_SECS: f64 = 20.0;

const KNOWN_KEYS: &[&str] = &[
    "event",
    "matcher",
    "command",
    "timeout",
    "type",
    "name",
    "on_error",
    "env",
    "prefork",
    "url",
    "headers",
    "secret",
    "allowed_env",
    "rules",
    "prompt",
    "model",
];

#[derive(Deserialize)]
struct ShellHooksFile {
    hooks: Option<Vec<Spanned<LocatedMap>>>,
}

pub(crate) fn load(ws: &Workspace, agent: &super::agent::AgentSettings) -> Vec<FileLoad> {
    let judge = &agent.judge;
    let path = ws.shell_hooks_yaml();
    let display = ws.display(&path).into_owned();
    let mut load = FileLoad::new(ws, SourceKind::ShellHooks, path.clone());
    match agent_hooks_core::store::read_optional(&path) {
        Ok(None) => {}
        Ok(Some(text)) => {
            let declared = parse_into(ws, judge, &text, &mut load);
            if declared && load.state == FileState::Loaded {
                remember_last_good(ws, &text);
            } else if !declared && load.state == FileState::Loaded {
                keep_last_good(ws, judge, &mut load, "declares no \"hooks\" list");
            } else {
                keep_last_good(ws, judge, &mut load, "cannot be used");
            }
        }
        Err(err) => {
            load.state = FileState::Broken;
            load.errors.push(ConfigError::whole_file(
                display,
                format!("cannot read: {err}"),
            ));
            keep_last_good(ws, judge, &mut load, "cannot be read");
        }
    }
    vec![load]
}

/// Where the text of the last `shell_hooks.yaml` that loaded is kept, so a file caught
/// mid-write (empty, truncated) never disarms the guards of a process that did not see the
/// good version — every `fire` is such a process. A leading dot keeps it apart from the
/// hooks' own state directories, whose names never start with one.
fn last_good_path(ws: &Workspace) -> std::path::PathBuf {
    ws.state_dir()
        .join(".agent-hooks/last-good/shell_hooks.yaml")
}

/// Records `text` as the last good configuration, unless it already is. Best effort: a
/// workspace whose `state/` cannot be written still loads.
fn remember_last_good(ws: &Workspace, text: &str) {
    let path = last_good_path(ws);
    if agent_hooks_core::store::read_optional(&path)
        .ok()
        .flatten()
        .as_deref()
        != Some(text)
    {
        let _ = agent_hooks_core::store::write_atomic(&path, text.as_bytes());
    }
}

/// A file that is empty, says nothing of `hooks`, or cannot be read or parsed, keeps the hooks
/// of the last good version in force, with an error saying so: removing every hook takes an
/// explicit `hooks: []`. Without a last good version the file's own reading stands.
fn keep_last_good(ws: &Workspace, judge: &JudgeEndpoint, load: &mut FileLoad, why: &str) {
    let Some(text) = agent_hooks_core::store::read_optional(&last_good_path(ws))
        .ok()
        .flatten()
    else {
        return;
    };
    let mut previous = FileLoad::new(ws, SourceKind::ShellHooks, load.path.clone());
    if !parse_into(ws, judge, &text, &mut previous)
        || previous.state != FileState::Loaded
        || previous.hooks.is_empty()
    {
        return;
    }
    load.hooks = previous.hooks;
    load.state = FileState::BrokenKeptPrevious;
    load.errors.push(ConfigError::whole_file(
        &load.display,
        format!(
            "{why}, so its last good hooks ({}) stay in force (a file caught mid-write must not disarm them); to remove every hook, write \"hooks: []\"",
            load.hooks.len()
        ),
    ));
}

/// Parses the text of a `shell_hooks.yaml` into `load` (hooks, errors, warnings). Returns
/// whether the file declares a `hooks` list at all (`hooks: []` does; an empty file, a file
/// of comments, or `hooks:` with nothing after it do not).
fn parse_into(ws: &Workspace, judge: &JudgeEndpoint, text: &str, load: &mut FileLoad) -> bool {
    let file = load.display.clone();
    if text.trim().is_empty() {
        load.state = FileState::Loaded;
        return false;
    }
    // Top-level keys first, so a misspelt `hook:` is pointed out instead of meaning "no hooks".
    match serde_saphyr::from_str::<Option<BTreeMap<String, Spanned<IgnoredAny>>>>(text) {
        Ok(Some(top)) => {
            for (key, at) in &top {
                if key != "hooks" {
                    load.warnings.push(ConfigError::located(
                        &file,
                        place(at),
                        format!("unknown key \"{key}\" ignored (expected \"hooks\")"),
                    ));
                }
            }
        }
        Ok(None) => {
            load.state = FileState::Loaded;
            return false;
        }
        Err(err) => {
            load.state = FileState::Broken;
            let mut e = parse_error(&file, &err);
            if e.message().contains("expected") && !text.contains("hooks:") {
                e = e.map_message(|m| format!("{m} (expected a mapping with a \"hooks\" list)"));
            }
            load.errors.push(e);
            return false;
        }
    }
    let parsed: ShellHooksFile = match serde_saphyr::from_str(text) {
        Ok(parsed) => parsed,
        Err(err) => {
            load.state = FileState::Broken;
            let e = parse_error(&file, &err)
                .map_message(|m| format!("{m} (\"hooks\" must be a list of mappings)"));
            load.errors.push(e);
            return false;
        }
    };
    load.state = FileState::Loaded;
    let Some(entries) = parsed.hooks else {
        return false;
    };
    for (index, entry) in entries.into_iter().enumerate() {
        match parse_entry(
            ws,
            judge,
            &file,
            index,
            &entry,
            &mut load.warnings,
            &mut load.errors,
        ) {
            Ok(hook) => load.hooks.push(hook),
            Err(err) => load.errors.push(err),
        }
    }
    true
}

fn parse_entry(
    ws: &Workspace,
    judge: &JudgeEndpoint,
    file: &str,
    index: usize,
    entry: &Spanned<LocatedMap>,
    warnings: &mut Vec<ConfigError>,
    errors: &mut Vec<ConfigError>,
) -> Result<Hook, ConfigError> {
    let map = &entry.value;
    let line = entry.referenced.line();
    let whole = |message: String| ConfigError::located(file, place(entry), message);
    for (key, at) in map {
        if !KNOWN_KEYS.contains(&key.as_str()) {
            let hint = did_you_mean(nearest(key, KNOWN_KEYS.iter().copied(), |d, _| d <= 2));
            warnings.push(error_at(
                file,
                at,
                format!("hook #{}: unknown key \"{key}\" ignored{hint}", index + 1),
            ));
        }
    }

    let event_at = map
        .get("event")
        .ok_or_else(|| whole(format!("hook #{}: missing \"event\"", index + 1)))?;
    let event_name = string(file, "event", event_at)?;
    let event: Event = agent_hooks_dialects::parse_event(&event_name).map_err(
        |e: agent_hooks_core::event::UnknownEvent| error_at(file, event_at, e.to_string()),
    )?;

    let kind = match map.get("type") {
        None => "command".to_owned(),
        Some(at) => string(file, "type", at)?,
    };
    let (transport, key) = match kind.as_str() {
        "command" => {
            for http_only in ["url", "headers", "secret", "allowed_env"] {
                if let Some(at) = map.get(http_only) {
                    warnings.push(error_at(
                        file,
                        at,
                        format!(
                            "hook #{}: \"{http_only}\" is only for type: http; ignored",
                            index + 1
                        ),
                    ));
                }
            }
            let command_at = map.get("command").ok_or_else(|| {
                whole(format!(
                    "hook #{} ({event}): missing \"command\" (the program to run, e.g. \"/abs/path/hooks/guard.py\")",
                    index + 1
                ))
            })?;
            let command = string(file, "command", command_at)?;
            let spec = CommandSpec::argv(ws, &command)
                .map_err(|msg| error_at(file, command_at, format!("command: {msg}")))?;
            (TransportSpec::Command(spec), command)
        }
        "http" => {
            let spec = http_spec(file, map, || {
                whole(format!(
                    "hook #{} ({event}): missing \"url\" (where to POST, e.g. \"https://guard.example.com/hook\")",
                    index + 1
                ))
            })?;
            if let Some(at) = map.get("env") {
                warnings.push(error_at(
                    file,
                    at,
                    format!("hook #{}: \"env\" is only for command hooks; ignored (an http hook sends `headers`)", index + 1),
                ));
            }
            let url = spec.url.clone();
            (TransportSpec::Http(spec), url)
        }
        "builtin" => {
            let (spec, problem) = super::builtin::entry(ws, file, index, map, warnings, || {
                whole(format!(
                    "hook #{} ({event}): missing \"name\" (the ready-made hook, e.g. \"security_guard\")",
                    index + 1
                ))
            })?;
            errors.extend(problem);
            let key = spec.approval_key();
            (TransportSpec::Builtin(spec), key)
        }
        "prompt" | "agent" => {
            let prompt_at = map.get("prompt").ok_or_else(|| {
                whole(format!(
                    "hook #{} ({event}): missing \"prompt\" (what the model judges; $ARGUMENTS stands for the payload)",
                    index + 1
                ))
            })?;
            let prompt = string(file, "prompt", prompt_at)?;
            let model = match map.get("model") {
                None => None,
                Some(at) => Some(string(file, "model", at)?),
            };
            let spec = JudgeSpec {
                kind: if kind == "agent" {
                    JudgeKind::Agent {
                        root: ws.root().to_path_buf(),
                    }
                } else {
                    JudgeKind::Prompt
                },
                prompt: prompt.clone(),
                model,
                continue_on_block: false,
                endpoint: judge.clone(),
            };
            (TransportSpec::Judge(spec), prompt)
        }
        other => {
            let at = map.get("type").unwrap_or(event_at);
            return Err(error_at(
                file,
                at,
                format!(
                    "unknown type \"{other}\" (expected \"command\", \"http\", \"builtin\", \"prompt\" or \"agent\")"
                ),
            ));
        }
    };
    for prompt_only in ["prompt", "model"] {
        if kind != "prompt"
            && kind != "agent"
            && let Some(at) = map.get(prompt_only)
        {
            warnings.push(error_at(
                file,
                at,
                format!(
                    "hook #{}: \"{prompt_only}\" is only for type: prompt and type: agent; ignored",
                    index + 1
                ),
            ));
        }
    }
    if kind != "builtin"
        && let Some(at) = map.get("rules")
    {
        warnings.push(error_at(
            file,
            at,
            format!(
                "hook #{}: \"rules\" is only for type: builtin; ignored",
                index + 1
            ),
        ));
    }

    let matcher = match map.get("matcher") {
        None => None,
        Some(at) => {
            let pattern = string(file, "matcher", at)?;
            if pattern.is_empty() {
                None
            } else {
                Some(matcher::multi_line(pattern).map_err(|e| {
                    error_at(
                        file,
                        at,
                        format!("matcher is not a valid regex: {}", one_line(&e.to_string())),
                    )
                })?)
            }
        }
    };

    let timeout = match map.get("timeout") {
        None if kind == "prompt" => PROMPT_TIMEOUT_SECS,
        None if kind == "agent" => AGENT_TIMEOUT_SECS,
        None => DEFAULT_TIMEOUT_SECS,
        Some(at) => {
            let secs = at.value.as_f64().filter(|s| *s > 0.0).ok_or_else(|| {
                error_at(
                    file,
                    at,
                    format!(
                        "timeout: expected a positive number of seconds, found {}",
                        kind_of(&at.value)
                    ),
                )
            })?;
            if secs > MAX_TIMEOUT_SECS {
                warnings.push(error_at(
                    file,
                    at,
                    format!("timeout {secs} s is above the {MAX_TIMEOUT_SECS} s ceiling; using {MAX_TIMEOUT_SECS} s"),
                ));
                MAX_TIMEOUT_SECS
            } else {
                secs
            }
        }
    };

    let on_error = match map.get("on_error") {
        None => OnError::Continue,
        Some(at) => match string(file, "on_error", at)?.as_str() {
            "continue" => OnError::Continue,
            "block" => OnError::Block,
            other => {
                return Err(error_at(
                    file,
                    at,
                    format!("on_error: expected \"continue\" or \"block\", found \"{other}\""),
                ));
            }
        },
    };

    let env = match map.get("env") {
        None => Vec::new(),
        Some(at) => env_map(file, at)?,
    };

    let name = match map.get("name") {
        None => key.clone(),
        Some(at) => string(file, "name", at)?,
    };

    let mut hook = Hook {
        state_dir: ws.state_dir().join(filesystem_safe(&name)),
        name: name.into(),
        source: SourceKind::ShellHooks,
        file: ws.shell_hooks_yaml(),
        file_display: file.into(),
        line,
        events: vec![event],
        matcher,
        transport,
        dialect: Dialect::Shell,
        timeout: Duration::from_secs_f64(timeout),
        on_error,
        env,
        approval_key: Some(key),
    };
    if let Some(at) = map.get("prefork") {
        crate::hook::configure_prefork(&mut hook, &at.value)
            .map_err(|why| error_at(file, at, why))?;
    }
    Ok(hook)
}

/// `type: http`: the URL (through the SSRF guard), `headers` whose `${NAME}`s must be in
/// `allowed_env`, and `secret` (SPEC §5a).
fn http_spec(
    file: &str,
    map: &LocatedMap,
    missing_url: impl FnOnce() -> ConfigError,
) -> Result<HttpSpec, ConfigError> {
    if let Some(at) = map.get("command") {
        return Err(error_at(
            file,
            at,
            "an http hook takes \"url\", not \"command\" (drop `type: http` to run a command)",
        ));
    }
    let url_at = map.get("url").ok_or_else(missing_url)?;
    let url = string(file, "url", url_at)?;
    let allowed_env: Vec<String> = match map.get("allowed_env") {
        None => Vec::new(),
        Some(at) => {
            let names = match &at.value {
                Value::Array(items) => items
                    .iter()
                    .map(|v| v.as_str().map(str::to_owned))
                    .collect::<Option<Vec<_>>>(),
                _ => None,
            };
            names.ok_or_else(|| {
                error_at(
                    file,
                    at,
                    format!(
                        "allowed_env: expected a list of variable names, found {}",
                        kind_of(&at.value)
                    ),
                )
            })?
        }
    };
    let template = |at: &Spanned<Value>, what: &str, raw: &str| {
        Template::parse(raw, &allowed_env).map_err(|e| error_at(file, at, format!("{what}: {e}")))
    };
    let mut headers = Vec::new();
    if let Some(at) = map.get("headers") {
        let Value::Object(entries) = &at.value else {
            return Err(error_at(
                file,
                at,
                format!(
                    "headers: expected a mapping of Name: value, found {}",
                    kind_of(&at.value)
                ),
            ));
        };
        for (name, value) in entries {
            let value = match value {
                Value::String(s) => s.clone(),
                Value::Number(n) => n.to_string(),
                Value::Bool(b) => b.to_string(),
                other => {
                    return Err(error_at(
                        file,
                        at,
                        format!(
                            "headers.{name}: expected a string, found {}",
                            kind_of(other)
                        ),
                    ));
                }
            };
            headers.push((
                name.clone(),
                template(at, &format!("headers.{name}"), &value)?,
            ));
        }
    }
    let secret = match map.get("secret") {
        None => None,
        Some(at) => Some(template(at, "secret", &string(file, "secret", at)?)?),
    };
    let mut spec = HttpSpec::new(&url, headers, secret).map_err(|e| {
        let at = match &e {
            HttpSpecError::Url(_) => url_at,
            HttpSpecError::Header(_) => map.get("headers").unwrap_or(url_at),
        };
        error_at(file, at, e.to_string())
    })?;
    spec.allowed_env = allowed_env;
    Ok(spec)
}

fn string(file: &str, key: &str, at: &Spanned<Value>) -> Result<String, ConfigError> {
    match &at.value {
        Value::String(s) => Ok(s.clone()),
        other => Err(error_at(
            file,
            at,
            format!("{key}: expected a string, found {}", kind_of(other)),
        )),
    }
}

/// `env:` — a mapping of names to scalar values (numbers and booleans are written as text).
pub(crate) fn env_map(
    file: &str,
    at: &Spanned<Value>,
) -> Result<Vec<(String, String)>, ConfigError> {
    let Value::Object(map) = &at.value else {
        return Err(error_at(
            file,
            at,
            format!(
                "env: expected a mapping of NAME: value, found {}",
                kind_of(&at.value)
            ),
        ));
    };
    map.iter()
        .map(|(k, v)| {
            let value = match v {
                Value::String(s) => s.clone(),
                Value::Number(n) => n.to_string(),
                Value::Bool(b) => b.to_string(),
                other => {
                    return Err(error_at(
                        file,
                        at,
                        format!("env.{k}: expected a string, found {}", kind_of(other)),
                    ));
                }
            };
            Ok((k.clone(), value))
        })
        .collect()
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> FileLoad {
        let ws = Workspace::new("/ws");
        let mut load = FileLoad::new(&ws, SourceKind::ShellHooks, ws.shell_hooks_yaml());
        parse_into(&ws, &JudgeEndpoint::default(), text, &mut load);
        load
    }

    #[test]
    fn parses_a_full_entry() {
        let load = parse(
            "hooks:\n  - event: pre_tool_call\n    matcher: \"rm -rf\"\n    command: /abs/guard.py --strict\n    timeout: 5\n    name: guard\n    on_error: block\n    env: {LEVEL: 3}\n",
        );
        assert!(load.errors.is_empty(), "{:?}", load.errors);
        let hook = &load.hooks[0];
        assert_eq!(&*hook.name, "guard");
        assert_eq!(hook.events, vec![Event::PreToolCall]);
        assert_eq!(hook.timeout, Duration::from_secs(5));
        assert_eq!(hook.on_error, OnError::Block);
        assert_eq!(hook.env, vec![("LEVEL".to_owned(), "3".to_owned())]);
        assert_eq!(hook.approval_key.as_deref(), Some("/abs/guard.py --strict"));
        assert_eq!(hook.line, 2);
    }

    #[test]
    fn matcher_anchors_match_each_value() {
        let load =
            parse("hooks:\n  - event: pre_tool_call\n    matcher: \"^rm -rf\"\n    command: /x\n");
        let matcher = load.hooks[0].matcher.as_ref().expect("a matcher");
        // The match text is tool_name, then the input's strings, one per line.
        assert!(matcher.is_match("bash\nrm -rf /"));
        assert!(!matcher.is_match("bash\necho rm -rf /"));
    }

    #[test]
    fn misspelt_event_is_located_and_suggested() {
        let load = parse(
            "hooks:\n  - event: pre_tool\n    command: /x\n  - event: on_stop\n    command: /y\n",
        );
        assert_eq!(load.hooks.len(), 1, "the good entry still loads");
        assert_eq!(
            load.errors[0].to_string(),
            "config/shell_hooks.yaml:2:12: unknown event \"pre_tool\" (did you mean \"pre_tool_call\"?)"
        );
    }

    #[test]
    fn broken_yaml_is_one_located_error() {
        let load = parse("hooks:\n  - event: on_stop\n   command: [\n");
        assert_eq!(load.state, FileState::Broken);
        assert_eq!(load.errors[0].location().map(|l| l.line()), Some(3));
        assert!(
            load.errors[0]
                .to_string()
                .starts_with("config/shell_hooks.yaml:3:")
        );
    }

    #[test]
    fn unknown_keys_warn_and_timeouts_clamp() {
        let load = parse(
            "hooks:\n  - event: on_stop\n    command: /x\n    comand: /y\n    timeout: 500\n",
        );
        assert_eq!(load.hooks[0].timeout, Duration::from_secs(120));
        let text: Vec<String> = load.warnings.iter().map(|w| w.to_string()).collect();
        assert!(
            text.iter()
                .any(|w| w.contains("unknown key \"comand\"")
                    && w.contains("did you mean \"command\"")),
            "{text:?}"
        );
        assert!(text.iter().any(|w| w.contains("120")), "{text:?}");
    }

    #[test]
    fn parses_an_http_entry() {
        let load = parse(
            "hooks:\n  - event: pre_tool_call\n    type: http\n    url: https://guard.example.com/hook\n    headers: {Authorization: \"Bearer ${GUARD_TOKEN}\", X-Team: infra}\n    allowed_env: [GUARD_TOKEN]\n    secret: \"${GUARD_TOKEN}\"\n    timeout: 3\n    on_error: block\n",
        );
        assert!(load.errors.is_empty(), "{:?}", load.errors);
        let hook = &load.hooks[0];
        let TransportSpec::Http(spec) = &hook.transport else {
            panic!("expected an http transport, got {:?}", hook.transport);
        };
        assert_eq!(spec.headers.len(), 2);
        assert!(spec.secret.is_some());
        assert_eq!(
            hook.transport.describe(),
            "POST https://guard.example.com/hook"
        );
        assert_eq!(
            hook.approval_key.as_deref(),
            Some("https://guard.example.com/hook")
        );
        assert_eq!(&*hook.name, "https://guard.example.com/hook");
        assert_eq!(hook.timeout, Duration::from_secs(3));
        assert_eq!(hook.on_error, OnError::Block);
    }

    #[test]
    fn http_header_may_not_read_an_unlisted_variable() {
        let load = parse(
            "hooks:\n  - event: on_stop\n    type: http\n    url: https://h.example/\n    headers:\n      Authorization: \"Bearer ${AWS_SECRET_ACCESS_KEY}\"\n",
        );
        assert!(load.hooks.is_empty());
        let text = load.errors[0].to_string();
        assert!(text.starts_with("config/shell_hooks.yaml:6:"), "{text}");
        assert!(
            text.contains("AWS_SECRET_ACCESS_KEY") && text.contains("allowed_env"),
            "{text}"
        );
    }

    #[test]
    fn http_url_is_guarded_at_load() {
        if agent_hooks_transports::allow_local_enabled() {
            return;
        }
        let load = parse(
            "hooks:\n  - event: on_stop\n    type: http\n    url: http://169.254.169.254/latest\n  - event: on_stop\n    type: http\n    url: file:///etc/passwd\n  - event: on_stop\n    type: http\n    command: /x\n",
        );
        assert!(load.hooks.is_empty());
        let text: Vec<String> = load.errors.iter().map(|e| e.to_string()).collect();
        assert!(
            text[0].starts_with(
                "config/shell_hooks.yaml:4:10: url refused: 169.254.169.254 is link-local"
            ),
            "{text:?}"
        );
        assert!(text[1].contains("scheme \"file\""), "{text:?}");
        assert!(
            text[2].contains("takes \"url\", not \"command\""),
            "{text:?}"
        );
    }

    #[test]
    fn unsupported_type_and_bad_matcher_are_entry_errors() {
        let load = parse(
            "hooks:\n  - event: on_stop\n    type: grpc\n    command: /x\n  - event: on_stop\n    command: /x\n    matcher: \"(\"\n",
        );
        assert_eq!(load.hooks.len(), 0);
        assert!(load.errors[0].message().contains("unknown type \"grpc\""));
        assert!(
            load.errors[1]
                .message()
                .contains("matcher is not a valid regex")
        );
    }
}
