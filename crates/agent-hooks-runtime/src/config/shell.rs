//! The shell-hook source: `config/shell_hooks.yaml` (`docs/configuration.md`). Each entry becomes
//! one [`Hook`] speaking the decision protocol over the command transport, gated by approval.

use std::collections::BTreeMap;
use std::time::Duration;

use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_saphyr::Spanned;

use super::shell_entry::Entry;
use super::shell_entry::string;
use super::typed::{Entries, Scalar, Typed, field_names};
use super::yaml::{error_at, error_here, parse_error, place};
use super::{ConfigError, FileLoad, FileState};
use crate::hook::{Hook, MAX_TIMEOUT_SECS, OnError, SourceKind, filesystem_safe};
use agent_hooks_core::event::Event;
use agent_hooks_core::wording::{did_you_mean, nearest};
use agent_hooks_core::workspace::Workspace;
use agent_hooks_dialects::Dialect;
use agent_hooks_dialects::matcher;
use agent_hooks_transports::http::{HttpSpecError, Template};
use agent_hooks_transports::judge::{AGENT_TIMEOUT_SECS, JudgeKind, PROMPT_TIMEOUT_SECS};
use agent_hooks_transports::{CommandSpec, HttpSpec, JudgeEndpoint, JudgeSpec, TransportSpec};

/// Default timeout of a shell hook (`docs/configuration.md`).
pub(crate) const DEFAULT_TIMEOUT_SECS: f64 = 20.0;

#[derive(Deserialize)]
struct ShellHooksFile {
    hooks: Option<Vec<Spanned<Entry>>>,
}

/// The same file read for its entries' keys only, to point at the unknown ones.
#[derive(Deserialize)]
struct ShellHooksKeys {
    hooks: Option<Vec<BTreeMap<String, Spanned<IgnoredAny>>>>,
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
/// good version — every `fire` is such a process. It is the runtime's own bookkeeping, so it
/// lives in the runtime's directory for the workspace, where an agent that can write only the
/// workspace cannot plant one.
fn last_good_path(ws: &Workspace) -> std::path::PathBuf {
    ws.runtime_dir().join("last-good/shell_hooks.yaml")
}

/// Records `text` as the last good configuration, unless it already is. Best effort: a
/// runtime directory that cannot be written still loads.
fn remember_last_good(ws: &Workspace, text: &str) {
    let path = last_good_path(ws);
    let _ = ws.create_runtime_dir();
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
    // The typed reading above succeeded, so this one (of the same mappings) does too.
    let keys = serde_saphyr::from_str::<ShellHooksKeys>(text)
        .ok()
        .and_then(|k| k.hooks)
        .unwrap_or_default();
    for (index, entry) in entries.into_iter().enumerate() {
        if let Some(keys) = keys.get(index) {
            warn_unknown_keys(&file, index, keys, &mut load.warnings);
        }
        let read = EntryReader {
            ws,
            judge,
            file: &file,
            index,
            entry: &entry,
        };
        match read.hook(&mut load.warnings, &mut load.errors) {
            Ok(hook) => load.hooks.push(hook),
            Err(err) => load.errors.push(err),
        }
    }
    true
}

/// Warns about each key of entry #`index` that [`Entry`] does not declare.
fn warn_unknown_keys(
    file: &str,
    index: usize,
    keys: &BTreeMap<String, Spanned<IgnoredAny>>,
    warnings: &mut Vec<ConfigError>,
) {
    let known = field_names::<Entry>();
    for (key, at) in keys {
        if !known.contains(&key.as_str()) {
            let hint = did_you_mean(nearest(key, known.iter().copied(), |d, _| d <= 2));
            warnings.push(error_at(
                file,
                at,
                format!("hook #{}: unknown key \"{key}\" ignored{hint}", index + 1),
            ));
        }
    }
}

/// Reads one entry of `hooks:` into a [`Hook`].
struct EntryReader<'a> {
    ws: &'a Workspace,
    judge: &'a JudgeEndpoint,
    file: &'a str,
    index: usize,
    entry: &'a Spanned<Entry>,
}

impl EntryReader<'_> {
    /// The hook, or the error that drops the entry. Warnings, and a rules problem of a
    /// built-in hook that still loads, go to `warnings` and `errors`.
    fn hook(
        &self,
        warnings: &mut Vec<ConfigError>,
        errors: &mut Vec<ConfigError>,
    ) -> Result<Hook, ConfigError> {
        let (file, ws, entry) = (self.file, self.ws, &self.entry.value);
        let event_at =
            entry.event.0.as_ref().ok_or_else(|| {
                self.whole(format!("hook #{}: missing \"event\"", self.index + 1))
            })?;
        let event_name = string(file, "event", event_at)?;
        let event: Event = agent_hooks_dialects::parse_event(event_name).map_err(
            |e: agent_hooks_core::event::UnknownEvent| error_at(file, event_at, e.to_string()),
        )?;
        let kind = match &entry.kind.0 {
            None => "command",
            Some(at) => string(file, "type", at)?,
        };
        let (transport, key) = self.transport(event, kind, event_at, warnings, errors)?;
        self.warn_misplaced(kind, warnings);
        let matcher = match &entry.matcher.0 {
            None => None,
            Some(at) => matcher(file, at)?,
        };
        let timeout = self.timeout(kind, warnings)?;
        let on_error = match &entry.on_error.0 {
            None => OnError::Continue,
            Some(at) => match string(file, "on_error", at)? {
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
        let env = match &entry.env.0 {
            None => Vec::new(),
            Some(at) => scalars(file, "env", "a mapping of NAME: value", at)?,
        };
        let name = match &entry.name.0 {
            None => key.clone(),
            Some(at) => string(file, "name", at)?.to_owned(),
        };
        let mut hook = Hook {
            state_dir: ws.state_dir().join(filesystem_safe(&name)),
            name: name.into(),
            source: SourceKind::ShellHooks,
            file: ws.shell_hooks_yaml(),
            file_display: file.into(),
            line: self.entry.referenced.line(),
            events: vec![event],
            matcher,
            transport,
            dialect: Dialect::Shell,
            timeout: Duration::from_secs_f64(timeout),
            on_error,
            env,
            approval_key: Some(key),
        };
        if let Some(at) = &entry.prefork.0 {
            if kind == "ahp" {
                return Err(error_at(
                    file,
                    at,
                    "prefork: a type: ahp hook is an Agent Hooks Protocol backend; it cannot be pre-forked",
                ));
            }
            crate::hook::configure_prefork(&mut hook, &at.value)
                .map_err(|why| error_at(file, at, why))?;
        }
        Ok(hook)
    }

    /// An error about the entry as a whole (a key it lacks).
    fn whole(&self, message: String) -> ConfigError {
        error_at(self.file, self.entry, message)
    }

    /// The transport of a `type: kind` entry, and the text it is approved by.
    fn transport(
        &self,
        event: Event,
        kind: &str,
        event_at: &Spanned<Typed<String>>,
        warnings: &mut Vec<ConfigError>,
        errors: &mut Vec<ConfigError>,
    ) -> Result<(TransportSpec, String), ConfigError> {
        let (file, ws, entry, n) = (self.file, self.ws, &self.entry.value, self.index + 1);
        match kind {
            "command" | "ahp" => {
                let http_only = [
                    ("url", entry.url.written()),
                    ("headers", entry.headers.written()),
                    ("secret", entry.secret.written()),
                    ("allowed_env", entry.allowed_env.written()),
                ];
                for (key, at) in http_only {
                    if let Some(at) = at {
                        warnings.push(error_here(
                            file,
                            at,
                            format!("hook #{n}: \"{key}\" is only for type: http; ignored"),
                        ));
                    }
                }
                let command_at = entry.command.0.as_ref().ok_or_else(|| {
                    self.whole(format!(
                        "hook #{n} ({event}): missing \"command\" (the program to run, e.g. \"/abs/path/hooks/guard.py\")"
                    ))
                })?;
                let command = string(file, "command", command_at)?;
                let mut spec = CommandSpec::argv(ws, command)
                    .map_err(|msg| error_at(file, command_at, format!("command: {msg}")))?;
                if kind == "ahp" {
                    // An Agent Hooks Protocol backend, asked about the events it has a twin for.
                    let ahp = agent_hooks_transports::ahp::EVENTS;
                    if !ahp.iter().any(|(ours, _)| *ours == event.name()) {
                        let at = entry.kind.written().unwrap_or(&event_at.referenced);
                        return Err(error_here(
                            file,
                            at,
                            format!(
                                "hook #{n}: a type: ahp hook runs at pre_tool_call (AHP's tool.before), not {event}"
                            ),
                        ));
                    }
                    spec.ahp = true;
                }
                Ok((TransportSpec::Command(spec), command.to_owned()))
            }
            "http" => {
                let spec = http_spec(file, entry, || {
                    self.whole(format!(
                        "hook #{n} ({event}): missing \"url\" (where to POST, e.g. \"https://guard.example.com/hook\")"
                    ))
                })?;
                if let Some(at) = entry.env.written() {
                    warnings.push(error_here(
                        file,
                        at,
                        format!("hook #{n}: \"env\" is only for command hooks; ignored (an http hook sends `headers`)"),
                    ));
                }
                let url = spec.url.clone();
                Ok((TransportSpec::Http(spec), url))
            }
            "builtin" => {
                let (spec, problem) = super::builtin::entry(
                    ws,
                    file,
                    self.index,
                    entry,
                    warnings,
                    || {
                        self.whole(format!(
                            "hook #{n} ({event}): missing \"name\" (the ready-made hook, e.g. \"security_guard\")"
                        ))
                    },
                )?;
                errors.extend(problem);
                let key = spec.approval_key();
                Ok((TransportSpec::Builtin(spec), key))
            }
            "prompt" | "agent" => self.judge(event, kind),
            other => {
                let at = entry.kind.written().unwrap_or(&event_at.referenced);
                Err(error_here(
                    file,
                    at,
                    format!(
                        "unknown type \"{other}\" (expected \"command\", \"http\", \"builtin\", \"ahp\", \"prompt\" or \"agent\")"
                    ),
                ))
            }
        }
    }

    /// A `type: prompt` or `type: agent` (`kind`) entry: its `prompt` and `model`.
    fn judge(&self, event: Event, kind: &str) -> Result<(TransportSpec, String), ConfigError> {
        let (file, ws, entry, n) = (self.file, self.ws, &self.entry.value, self.index + 1);
        let prompt_at = entry.prompt.0.as_ref().ok_or_else(|| {
            self.whole(format!(
                "hook #{n} ({event}): missing \"prompt\" (what the model judges; $ARGUMENTS stands for the payload)"
            ))
        })?;
        let prompt = string(file, "prompt", prompt_at)?.to_owned();
        let model = match &entry.model.0 {
            None => None,
            Some(at) => Some(string(file, "model", at)?.to_owned()),
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
            endpoint: self.judge.clone(),
        };
        Ok((TransportSpec::Judge(spec), prompt))
    }

    /// Warns about keys of another type's entries (`prompt` on a command hook ...).
    fn warn_misplaced(&self, kind: &str, warnings: &mut Vec<ConfigError>) {
        let (file, entry, n) = (self.file, &self.entry.value, self.index + 1);
        if kind != "prompt" && kind != "agent" {
            for (key, at) in [
                ("prompt", entry.prompt.written()),
                ("model", entry.model.written()),
            ] {
                if let Some(at) = at {
                    warnings.push(error_here(
                        file,
                        at,
                        format!(
                            "hook #{n}: \"{key}\" is only for type: prompt and type: agent; ignored"
                        ),
                    ));
                }
            }
        }
        if kind != "builtin"
            && let Some(at) = entry.rules.written()
        {
            warnings.push(error_here(
                file,
                at,
                format!("hook #{n}: \"rules\" is only for type: builtin; ignored"),
            ));
        }
    }

    /// `timeout`, in seconds: the type's default when left out, clamped to the ceiling.
    fn timeout(&self, kind: &str, warnings: &mut Vec<ConfigError>) -> Result<f64, ConfigError> {
        let Some(at) = &self.entry.value.timeout.0 else {
            return Ok(match kind {
                "prompt" => PROMPT_TIMEOUT_SECS,
                "agent" => AGENT_TIMEOUT_SECS,
                _ => DEFAULT_TIMEOUT_SECS,
            });
        };
        let secs = match at.value.get() {
            Ok(secs) if *secs > 0.0 => *secs,
            found => {
                return Err(error_at(
                    self.file,
                    at,
                    format!(
                        "timeout: expected a positive number of seconds, found {}",
                        found.err().unwrap_or("a number")
                    ),
                ));
            }
        };
        if secs > MAX_TIMEOUT_SECS {
            warnings.push(error_at(
                self.file,
                at,
                format!("timeout {secs} s is above the {MAX_TIMEOUT_SECS} s ceiling; using {MAX_TIMEOUT_SECS} s"),
            ));
            return Ok(MAX_TIMEOUT_SECS);
        }
        Ok(secs)
    }
}

/// `matcher`: a regex over the tool name and the input's strings; empty is no matcher.
fn matcher(
    file: &str,
    at: &Spanned<Typed<String>>,
) -> Result<Option<agent_hooks_dialects::Matcher>, ConfigError> {
    let pattern = string(file, "matcher", at)?;
    if pattern.is_empty() {
        return Ok(None);
    }
    matcher::multi_line(pattern.to_owned())
        .map(Some)
        .map_err(|e| {
            error_at(
                file,
                at,
                format!("matcher is not a valid regex: {}", one_line(&e.to_string())),
            )
        })
}

/// `type: http`: the URL (through the SSRF guard), `headers` whose `${NAME}`s must be in
/// `allowed_env`, and `secret` (`docs/configuration.md`).
fn http_spec(
    file: &str,
    entry: &Entry,
    missing_url: impl FnOnce() -> ConfigError,
) -> Result<HttpSpec, ConfigError> {
    if let Some(at) = entry.command.written() {
        return Err(error_here(
            file,
            at,
            "an http hook takes \"url\", not \"command\" (drop `type: http` to run a command)",
        ));
    }
    let url_at = entry.url.0.as_ref().ok_or_else(missing_url)?;
    let url = string(file, "url", url_at)?;
    let allowed_env: Vec<String> = match &entry.allowed_env.0 {
        None => Vec::new(),
        Some(at) => at.value.get().cloned().map_err(|found| {
            error_at(
                file,
                at,
                format!("allowed_env: expected a list of variable names, found {found}"),
            )
        })?,
    };
    let mut headers = Vec::new();
    if let Some(at) = &entry.headers.0 {
        for (name, value) in scalars(file, "headers", "a mapping of Name: value", at)? {
            let what = format!("headers.{name}");
            let template = Template::parse(&value, &allowed_env)
                .map_err(|e| error_at(file, at, format!("{what}: {e}")))?;
            headers.push((name, template));
        }
    }
    let secret = match &entry.secret.0 {
        None => None,
        Some(at) => Some(
            Template::parse(string(file, "secret", at)?, &allowed_env)
                .map_err(|e| error_at(file, at, format!("secret: {e}")))?,
        ),
    };
    let mut spec = HttpSpec::new(url, headers, secret).map_err(|e| {
        let at = match &e {
            HttpSpecError::Url(_) => &url_at.referenced,
            HttpSpecError::Header(_) => entry.headers.written().unwrap_or(&url_at.referenced),
        };
        error_here(file, at, e.to_string())
    })?;
    spec.allowed_env = allowed_env;
    Ok(spec)
}

/// A mapping of names to scalars (`env`, `headers`; numbers and booleans are written as
/// text), in the order written; `expected` says what `key` should be.
fn scalars(
    file: &str,
    key: &str,
    expected: &str,
    at: &Spanned<Typed<Entries<Typed<Scalar>>>>,
) -> Result<Vec<(String, String)>, ConfigError> {
    let entries = at.value.get().map_err(|found| {
        error_at(
            file,
            at,
            format!("{key}: expected {expected}, found {found}"),
        )
    })?;
    entries
        .0
        .iter()
        .map(|(name, value)| match value.get() {
            Ok(Scalar(text)) => Ok((name.clone(), text.clone())),
            Err(found) => Err(error_at(
                file,
                at,
                format!("{key}.{name}: expected a string, found {found}"),
            )),
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
