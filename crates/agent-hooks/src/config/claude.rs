//! The Claude Code source: hooks declared in `.claude/settings.json` and
//! `.claude/settings.local.json` (and `~/.claude/settings.json` when `config/agent.yaml` says
//! `claude_hooks: {user_settings: true}`). Each (event, matcher, command) becomes a [`Hook`]
//! that runs through `sh -c` in the workspace with `CLAUDE_PROJECT_DIR` set, goes through the
//! trust gate like a shell hook, and speaks the Claude Code dialect.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use super::agent::AgentSettings;
use super::claude_plugins::Plugin;
use super::{ConfigError, FileLoad, FileState};
use crate::hook::{Hook, MAX_TIMEOUT_SECS, OnError, SourceKind, filesystem_safe};
use agent_hooks_core::config_error::Location;
use agent_hooks_core::wording::kind_of as json_kind;
use agent_hooks_core::workspace::Workspace;
use agent_hooks_dialects::Dialect;
use agent_hooks_dialects::Matcher;
use agent_hooks_dialects::agent::Agent;
use agent_hooks_dialects::claude::Background;
use agent_hooks_dialects::claude::{
    CLAUDE_UNMAPPED_EVENTS, ClaudeEvent, Condition, ToolAliases, compile_matcher,
};
use agent_hooks_transports::http::Template;
use agent_hooks_transports::judge::{AGENT_TIMEOUT_SECS, JudgeKind, PROMPT_TIMEOUT_SECS};
use agent_hooks_transports::{CommandSpec, HttpSpec, JudgeEndpoint, JudgeSpec, TransportSpec};

/// Claude Code's default hook timeout; agent-hooks caps every hook at 120 s.
pub(crate) const CLAUDE_DEFAULT_TIMEOUT_SECS: f64 = 600.0;

/// Claude Code's default timeout of a `SessionEnd` hook that sets none.
const SESSION_END_TIMEOUT_SECS: f64 = 1.5;

/// Whether a command is an agent-hooks bridge (`agent-hooks claude-hook`, `codex-hook`, ...),
/// which the agent runs; running it from here would dispatch the workspace into itself.
pub(crate) fn is_bridge_command(command: &str) -> bool {
    bridge_agent(command).is_some()
}

/// The agent whose bridge `command` runs (`agent-hooks codex-hook` → Codex), if it is one.
pub(crate) fn bridge_agent(command: &str) -> Option<Agent> {
    let words = shell_words::split(command).unwrap_or_default();
    if !words
        .iter()
        .any(|w| w.rsplit('/').next().is_some_and(|b| b == "agent-hooks"))
    {
        return None;
    }
    Agent::ALL
        .into_iter()
        .find(|agent| words.iter().any(|w| w == agent.hook_command()))
}

/// The settings files this source reads, in order.
pub(crate) fn settings_files(ws: &Workspace, agent: &AgentSettings) -> Vec<PathBuf> {
    let mut files = Vec::new();
    if agent.claude_user_settings
        && let Some(home) = std::env::var_os("HOME")
    {
        files.push(PathBuf::from(home).join(".claude/settings.json"));
    }
    files.push(ws.root().join(".claude/settings.json"));
    files.push(ws.root().join(".claude/settings.local.json"));
    files
}

/// The settings files that exist and parse, with their JSON, in order (one that does not parse
/// is reported by [`load_file`]).
fn settings_docs(files: &[PathBuf]) -> Vec<(PathBuf, Value)> {
    files
        .iter()
        .filter_map(|file| {
            let text = agent_hooks_core::store::read_optional(file).ok()??;
            let doc = serde_json::from_str::<Value>(&text).ok()?;
            Some((file.clone(), doc))
        })
        .collect()
}

/// What the settings files say about all hooks at once, read across them as Claude Code
/// reads them: the last file that sets a switch wins, lists merge.
#[derive(Debug, Default)]
pub(crate) struct HookSettings {
    /// `disableAllHooks`, with the file whose value holds.
    disable_all: Option<(bool, PathBuf)>,
    /// `allowedHttpHookUrls`: when some file sets it, an HTTP hook runs only if its URL
    /// matches one of these patterns (`*` is any text).
    http_urls: Option<Vec<String>>,
    /// `httpHookAllowedEnvVars`: when some file sets it, an outer limit on every HTTP hook's
    /// `allowedEnvVars`.
    http_env: Option<Vec<String>>,
}

impl HookSettings {
    fn read(docs: &[(PathBuf, Value)]) -> HookSettings {
        let mut out = HookSettings::default();
        let strings = |v: &Value| -> Vec<String> {
            v.as_array()
                .map(|items| {
                    items
                        .iter()
                        .filter_map(Value::as_str)
                        .map(str::to_owned)
                        .collect()
                })
                .unwrap_or_default()
        };
        for (file, doc) in docs {
            if let Some(off) = doc.get("disableAllHooks").and_then(Value::as_bool) {
                out.disable_all = Some((off, file.clone()));
            }
            if let Some(urls) = doc.get("allowedHttpHookUrls") {
                out.http_urls.get_or_insert_default().extend(strings(urls));
            }
            if let Some(names) = doc.get("httpHookAllowedEnvVars") {
                out.http_env.get_or_insert_default().extend(strings(names));
            }
        }
        out
    }

    /// Whether `allowedHttpHookUrls` lets an HTTP hook POST to `url`. Scheme and host compare
    /// without case, and a host's trailing dot is ignored, as in Claude Code.
    fn allows_url(&self, url: &str) -> bool {
        let Some(patterns) = &self.http_urls else {
            return true;
        };
        let url = normalized_origin(url);
        patterns.iter().any(|pattern| {
            let regex = format!(
                "^{}$",
                normalized_origin(pattern)
                    .split('*')
                    .map(regex::escape)
                    .collect::<Vec<_>>()
                    .join(".*")
            );
            regex::Regex::new(&regex).is_ok_and(|r| r.is_match(&url))
        })
    }
}

/// `url` with its scheme and host lowercased and a trailing dot of the host dropped.
fn normalized_origin(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(end);
    let authority = authority.to_ascii_lowercase();
    let authority = match authority.rsplit_once(':') {
        Some((host, port)) if port.chars().all(|c| c.is_ascii_digit() || c == '*') => {
            format!("{}:{port}", host.trim_end_matches('.'))
        }
        _ => authority.trim_end_matches('.').to_owned(),
    };
    format!("{}://{authority}{tail}", scheme.to_ascii_lowercase())
}

pub(crate) fn load(ws: &Workspace, agent: &AgentSettings) -> Vec<FileLoad> {
    let aliases = agent.tool_aliases.clone();
    let files = settings_files(ws, agent);
    let docs = settings_docs(&files);
    let settings = HookSettings::read(&docs);
    let mut loads: Vec<FileLoad> = Vec::new();
    for path in files {
        // A HOME that is the workspace names the same file twice; read it once.
        if loads.iter().any(|l| l.path == path) {
            continue;
        }
        let load = load_file(
            ws,
            path,
            &aliases,
            &agent.judge,
            &settings,
            None,
            &mut loads,
        );
        loads.push(load);
    }
    // `disableAllHooks`: Claude Code runs none of them, and neither does this host.
    if let Some((true, file)) = &settings.disable_all {
        for load in &mut loads {
            load.hooks.clear();
            if &load.path == file {
                let display = load.display.clone();
                load.warnings.push(ConfigError::whole_file(
                    display,
                    "disableAllHooks is true: no Claude Code hook of the settings or of plugins runs (as in Claude Code)",
                ));
            }
        }
        return loads;
    }
    // Enabled plugins' hooks, each file with its plugin's root. A plugin's copy of a handler
    // stays separate from the settings' (as in Claude Code), so nothing is deduplicated
    // across them.
    let (plugins, problems) = super::claude_plugins::enabled(ws, &docs);
    for plugin in &plugins {
        for file in &plugin.hook_files {
            if loads.iter().any(|l| &l.path == file) {
                continue;
            }
            let load = load_file(
                ws,
                file.clone(),
                &aliases,
                &agent.judge,
                &settings,
                Some(plugin),
                &mut [],
            );
            loads.push(load);
        }
    }
    if !problems.is_empty()
        && let Some(project) = loads
            .iter_mut()
            .find(|l| l.path == ws.root().join(".claude/settings.json"))
    {
        for message in problems {
            project
                .warnings
                .push(ConfigError::whole_file(&project.display, message));
        }
    }
    loads
}

/// Reads one settings file. `earlier` are the files read before it: a command already declared
/// there for the same event is not declared again (Claude Code runs identical commands once).
fn load_file(
    ws: &Workspace,
    path: PathBuf,
    aliases: &Arc<ToolAliases>,
    judge: &JudgeEndpoint,
    settings: &HookSettings,
    plugin: Option<&Plugin>,
    earlier: &mut [FileLoad],
) -> FileLoad {
    let mut load = FileLoad::new(ws, SourceKind::ClaudeCode, path.clone());
    let display = load.display.clone();
    let note = |message: String| ConfigError::whole_file(&display, message);
    let text = match agent_hooks_core::store::read_optional(&path) {
        Ok(None) => return load,
        Ok(Some(text)) => text,
        Err(e) => {
            load.state = FileState::Broken;
            load.errors.push(note(format!("cannot read: {e}")));
            return load;
        }
    };
    let doc: Value = match serde_json::from_str(&text) {
        Ok(doc) => doc,
        Err(e) => {
            load.state = FileState::Broken;
            load.errors.push(ConfigError::located(
                &display,
                Location::from_parser(e.line() as u64, e.column() as u64),
                format!("not valid JSON: {e}"),
            ));
            return load;
        }
    };
    if !doc.is_object() {
        load.state = FileState::Broken;
        load.errors.push(note(format!(
            "the settings must be one JSON object, found {}",
            json_kind(&doc)
        )));
        return load;
    }
    load.state = FileState::Loaded;
    let declared = Declared {
        agent: Agent::ClaudeCode,
        aliases,
        judge,
        settings,
        plugin,
    };
    load_hooks(ws, &mut load, doc.get("hooks"), &declared, earlier);
    load
}

/// Warns about each key of `object` (at `at` in the file) that is not in `known`; `why` says
/// why it is ignored.
pub(super) fn warn_unknown_keys(
    load: &mut FileLoad,
    at: &str,
    object: &serde_json::Map<String, Value>,
    known: &[&str],
    why: &str,
) {
    for key in object.keys().filter(|key| !known.contains(&key.as_str())) {
        let warning = ConfigError::whole_file(
            &load.display,
            format!("{at}: unknown key \"{key}\" ({why}); ignored"),
        );
        load.warnings.push(warning);
    }
}

/// The agent's event named `event_name` (`parsed`, read by the caller's dialect) and the list
/// declared under it. An event this host has no twin for, or one the agent does not have, is
/// a warning; a value that is not a list is an error saying what it should list (`what`).
/// Either way the hooks under it are skipped (`None`).
pub(super) fn declared_event<'v, E>(
    load: &mut FileLoad,
    agent: Agent,
    (event_name, value): (&str, &'v Value),
    (parsed, unmapped): (Option<E>, &[&str]),
    what: &str,
) -> Option<(E, &'v [Value])> {
    let Some(event) = parsed else {
        let warning =
            ConfigError::whole_file(&load.display, skipped_event(agent, event_name, unmapped));
        load.warnings.push(warning);
        return None;
    };
    let list = value.as_array();
    if list.is_none() {
        let error = ConfigError::whole_file(
            &load.display,
            format!(
                "hooks.{event_name} must be a list of {what}, found {}",
                json_kind(value)
            ),
        );
        load.errors.push(error);
    }
    Some((event, list?.as_slice()))
}

/// Why the hooks an agent's file declares on `event_name` are skipped: the agent has the event
/// but this host has no twin of it (`unmapped`), or the agent has no such event.
fn skipped_event(agent: Agent, event_name: &str, unmapped: &[&str]) -> String {
    if unmapped.contains(&event_name) {
        format!("{event_name} hooks never fire in this host (it has no such event); skipped")
    } else {
        format!(
            "unknown {} event \"{event_name}\"; its hooks are skipped",
            agent.label()
        )
    }
}

/// What the hooks of one file are declared for: the agent whose event names and conventions
/// they use, and what they share.
pub(crate) struct Declared<'a> {
    pub(crate) agent: Agent,
    pub(crate) aliases: &'a Arc<ToolAliases>,
    pub(crate) judge: &'a JudgeEndpoint,
    pub(crate) settings: &'a HookSettings,
    pub(crate) plugin: Option<&'a Plugin>,
}

/// Reads the `hooks` object of a file in Claude Code's layout (event name → matcher groups →
/// handlers) into `load`, with the event names of `declared.agent`. Codex's files use the same
/// layout.
pub(crate) fn load_hooks(
    ws: &Workspace,
    load: &mut FileLoad,
    hooks: Option<&Value>,
    declared: &Declared<'_>,
    earlier: &mut [FileLoad],
) {
    let Declared {
        agent,
        aliases,
        judge,
        settings,
        plugin,
    } = *declared;
    let path = load.path.clone();
    let display = load.display.clone();
    let note = |message: String| ConfigError::whole_file(&display, message);
    let hooks = match hooks {
        None | Some(Value::Null) => return,
        Some(Value::Object(hooks)) => hooks,
        Some(other) => {
            load.errors.push(note(format!(
                "\"hooks\" must be an object of event name → matcher groups, found {}",
                json_kind(other)
            )));
            return;
        }
    };
    for (event_name, groups) in hooks {
        let parsed = match agent {
            Agent::Codex => (
                agent_hooks_dialects::codex::parse(event_name),
                agent_hooks_dialects::codex::CODEX_UNMAPPED_EVENTS,
            ),
            _ => (ClaudeEvent::parse(event_name), CLAUDE_UNMAPPED_EVENTS),
        };
        let Some((claude, groups)) =
            declared_event(load, agent, (event_name, groups), parsed, "matcher groups")
        else {
            continue;
        };
        for (g, group) in groups.iter().enumerate() {
            let pattern = match group.get("matcher") {
                None | Some(Value::Null) => "",
                Some(Value::String(p)) => p.as_str(),
                // Read as "match everything", a mistyped matcher would widen the hook.
                Some(other) => {
                    load.errors.push(note(format!(
                        "hooks.{event_name}[{g}].matcher must be a string, found {}; the group is skipped",
                        json_kind(other)
                    )));
                    continue;
                }
            };
            let matcher =
                match compile_matcher(pattern) {
                    Ok(None) => None,
                    Ok(Some(regex)) => Some(Matcher {
                        pattern: pattern.to_owned(),
                        regex,
                    }),
                    Err(e) => {
                        load.errors.push(note(format!(
                        "hooks.{event_name}[{g}].matcher \"{pattern}\" is not a valid regex: {}",
                        e.to_string().split_whitespace().collect::<Vec<_>>().join(" ")
                    )));
                        continue;
                    }
                };
            let Some(entries) = group.get("hooks").and_then(Value::as_array) else {
                load.errors.push(note(format!(
                    "hooks.{event_name}[{g}] needs a \"hooks\" list of {{\"type\": \"command\", \"command\": ...}}"
                )));
                continue;
            };
            for (h, entry) in entries.iter().enumerate() {
                let at = format!("hooks.{event_name}[{g}].hooks[{h}]");
                let kind = entry
                    .get("type")
                    .and_then(Value::as_str)
                    .unwrap_or("command");
                if kind == "http"
                    && let Some(url) = entry.get("url").and_then(Value::as_str)
                    && agent_hooks_dialects::agent::Agent::of_bridge_url(url).is_some()
                {
                    load.warnings.push(note(format!(
                        "{at}: the agent-hooks bridge ({url}) is for Claude Code itself; not run as a hook here"
                    )));
                    continue;
                }
                // A handler that is not a command brings its own transport.
                let (command, handler) = match kind {
                    "command" => match entry.get("command").and_then(Value::as_str) {
                        Some(command) => (command.to_owned(), None),
                        None => {
                            load.errors.push(note(format!("{at}: missing \"command\"")));
                            continue;
                        }
                    },
                    "prompt" | "agent" => {
                        match judge_handler(entry, kind, claude, judge, ws.root()) {
                            Ok(spec) => (spec.prompt.clone(), Some(TransportSpec::Judge(spec))),
                            Err(why) => {
                                load.errors
                                    .push(note(format!("{at}: {why}; the hook is skipped")));
                                continue;
                            }
                        }
                    }
                    "http" => match http_handler(entry, claude, settings.http_env.as_deref()) {
                        Ok((spec, _)) if !settings.allows_url(&spec.url) => {
                            load.warnings.push(note(format!(
                                "{at}: {} matches no pattern of allowedHttpHookUrls; skipped (as in Claude Code)",
                                spec.url
                            )));
                            continue;
                        }
                        Ok((spec, dropped)) => {
                            for (header, name) in dropped {
                                load.warnings.push(note(format!(
                                    "{at}.headers.{header}: ${name} is not in allowedEnvVars (or is outside httpHookAllowedEnvVars), so it is sent empty (as Claude Code does)"
                                )));
                            }
                            (spec.url.clone(), Some(TransportSpec::Http(spec)))
                        }
                        Err(why) => {
                            load.errors
                                .push(note(format!("{at}: {why}; the hook is skipped")));
                            continue;
                        }
                    },
                    _ => {
                        load.warnings.push(note(format!(
                            "{at}: type \"{kind}\" is not supported here (only \"command\", \"http\", \"prompt\" and \"agent\"); skipped"
                        )));
                        continue;
                    }
                };
                // A plugin's commands name its files through ${CLAUDE_PLUGIN_ROOT}.
                let command = match plugin {
                    Some(plugin) => plugin.expand(&command),
                    None => command,
                };
                // Exec form: `command` and `args` as the argument vector, no shell; the path
                // placeholders are written out in each word, and the words as they run are
                // what `list` shows and what is approved.
                let exec = match entry.get("args") {
                    None | Some(Value::Null) => None,
                    Some(_) if handler.is_some() => None,
                    Some(Value::Array(items)) => {
                        let Some(args) = items
                            .iter()
                            .map(|v| v.as_str().map(str::to_owned))
                            .collect::<Option<Vec<String>>>()
                        else {
                            load.errors.push(note(format!(
                                "{at}.args must be a list of strings; the hook is skipped"
                            )));
                            continue;
                        };
                        let root = ws.root().to_string_lossy();
                        let words: Vec<String> = std::iter::once(command.clone())
                            .chain(args)
                            .map(|w| {
                                let w = w.replace("${CLAUDE_PROJECT_DIR}", &root);
                                plugin.map_or(w.clone(), |p| p.expand(&w))
                            })
                            .collect();
                        Some(words)
                    }
                    Some(other) => {
                        load.errors.push(note(format!(
                            "{at}.args must be a list of strings, found {}; the hook is skipped",
                            json_kind(other)
                        )));
                        continue;
                    }
                };
                let command = match &exec {
                    Some(words) => shell_words::join(words),
                    None => command,
                };
                let command = command.as_str();
                // The bridge (claude-install) is for Claude Code itself: not a hook here, and
                // not a problem either.
                if is_bridge_command(command) {
                    if !load.bridge.contains(event_name) {
                        load.bridge.push(event_name.clone());
                    }
                    continue;
                }
                // Claude Code runs identical commands once; so does this source. Widen the
                // first declaration's matcher so the duplicate's tools still reach it.
                let first = load
                    .hooks
                    .iter_mut()
                    .chain(earlier.iter_mut().flat_map(|l| l.hooks.iter_mut()))
                    .find(|h| declares(h, agent, claude, command));
                if let Some(first) = first {
                    widen_matcher(first, matcher.as_ref());
                    load.warnings.push(note(format!(
                        "{at}: \"{command}\" is already declared for {event_name}; it runs once"
                    )));
                    continue;
                }
                let condition = match entry.get("if") {
                    None | Some(Value::Null) => None,
                    Some(Value::String(rule)) => match Condition::parse(rule) {
                        Ok(condition) => Some(Arc::new(condition)),
                        Err(why) => {
                            // Read as "always", a mistyped rule would widen the hook.
                            load.errors
                                .push(note(format!("{at}.if: {why}; the hook is skipped")));
                            continue;
                        }
                    },
                    Some(other) => {
                        load.errors.push(note(format!(
                            "{at}.if must be a permission rule string, found {}; the hook is skipped",
                            json_kind(other)
                        )));
                        continue;
                    }
                };
                let bash = match entry.get("shell") {
                    None | Some(Value::Null) => false,
                    Some(Value::String(shell)) if shell == "bash" => true,
                    Some(Value::String(shell)) if shell == "powershell" => {
                        load.errors.push(note(format!(
                            "{at}.shell \"powershell\" runs only on Windows (as in Claude Code); the hook is skipped"
                        )));
                        continue;
                    }
                    Some(other) => {
                        load.errors.push(note(format!(
                            "{at}.shell must be \"bash\" or \"powershell\", found {other}; the hook is skipped"
                        )));
                        continue;
                    }
                };
                let flag = |key: &str| entry.get(key).and_then(Value::as_bool) == Some(true);
                let background = match (flag("asyncRewake"), flag("async")) {
                    _ if handler.is_some() => {
                        if flag("async") || flag("asyncRewake") {
                            load.warnings.push(note(format!(
                                "{at}: async is only for command hooks (as in Claude Code); this {kind} hook runs in the foreground"
                            )));
                        }
                        None
                    }
                    (true, _) => Some(Background::AsyncRewake),
                    (false, true) => Some(Background::Async),
                    (false, false) => None,
                };
                let root = ws.root().to_string_lossy().into_owned();
                let own_transport = handler.is_some();
                let timeout = match entry.get("timeout").and_then(Value::as_f64) {
                    Some(t) if t > 0.0 => t,
                    _ => match &handler {
                        Some(TransportSpec::Judge(spec)) if spec.is_agent() => AGENT_TIMEOUT_SECS,
                        Some(TransportSpec::Judge(_)) => PROMPT_TIMEOUT_SECS,
                        // Claude Code lowers its default to 30 s on UserPromptSubmit, and
                        // gives SessionEnd hooks 1.5 s unless they set their own.
                        _ if claude == ClaudeEvent::UserPromptSubmit => PROMPT_TIMEOUT_SECS,
                        _ if claude == ClaudeEvent::SessionEnd => SESSION_END_TIMEOUT_SECS,
                        _ => CLAUDE_DEFAULT_TIMEOUT_SECS,
                    },
                }
                .min(MAX_TIMEOUT_SECS);
                let mut hook = Hook {
                    name: command.into(),
                    source: agent.source(),
                    file: path.clone(),
                    file_display: display.as_str().into(),
                    line: 0,
                    events: vec![claude.canonical()],
                    matcher: matcher.clone(),
                    transport: match handler {
                        Some(transport) => transport,
                        None if exec.is_some() => TransportSpec::Command(CommandSpec::words(
                            command,
                            exec.unwrap_or_default(),
                            ws.root().to_path_buf(),
                        )),
                        None => TransportSpec::Command({
                            let mut spec = CommandSpec::shell(command, ws.root().to_path_buf())
                                .with_known_var(agent_hooks_core::workspace::WORKSPACE_ENV, &root);
                            for (name, value) in agent_env(agent, ws, claude, &root) {
                                spec = spec.with_known_var(&name, &value);
                            }
                            for (name, value) in plugin.map(Plugin::env).unwrap_or_default() {
                                spec = spec.with_known_var(&name, &value);
                            }
                            if bash { spec.in_bash() } else { spec }
                        }),
                    },
                    dialect: Dialect::Claude {
                        agent,
                        event: claude,
                        aliases: aliases.clone(),
                        condition: condition.clone(),
                        background,
                    },
                    timeout: Duration::from_secs_f64(timeout),
                    on_error: OnError::Continue,
                    env: if own_transport {
                        Vec::new()
                    } else {
                        let mut env = agent_env(agent, ws, claude, &root);
                        env.extend(plugin.map(Plugin::env).unwrap_or_default());
                        env
                    },
                    approval_key: Some(command.to_owned()),
                    state_dir: ws.state_dir().join(filesystem_safe(command)),
                };
                if let Some(value) = entry.get("prefork")
                    && let Err(why) = crate::hook::configure_prefork(&mut hook, value)
                {
                    load.errors
                        .push(note(format!("{at}.{why}; the hook is skipped")));
                    continue;
                }
                load.hooks.push(hook);
            }
        }
    }
}

/// The variables `agent` sets for a hook: Claude Code's (below); Codex sets none of its own.
fn agent_env(
    agent: Agent,
    ws: &Workspace,
    claude: ClaudeEvent,
    root: &str,
) -> Vec<(String, String)> {
    match agent {
        Agent::ClaudeCode => claude_env(ws, claude, root),
        _ => Vec::new(),
    }
}

/// The variables Claude Code sets for a hook: `CLAUDE_PROJECT_DIR`, and on `SessionStart`
/// `CLAUDE_ENV_FILE`, a file where the hook appends `export` lines for the host's later shell
/// commands (`state/claude-env.sh`; a host that runs shell commands may source it).
fn claude_env(ws: &Workspace, claude: ClaudeEvent, root: &str) -> Vec<(String, String)> {
    let mut env = vec![("CLAUDE_PROJECT_DIR".to_owned(), root.to_owned())];
    if claude == ClaudeEvent::SessionStart {
        let file = ws.state_dir().join("claude-env.sh");
        env.push((
            "CLAUDE_ENV_FILE".to_owned(),
            file.to_string_lossy().into_owned(),
        ));
    }
    env
}

/// A `type: "prompt"` or `type: "agent"` handler (`kind`): its `prompt`, `model` and, for a
/// prompt hook, `continueOnBlock`, on an event Claude Code runs such hooks on. An agent hook
/// reads the workspace (`root`) and, having no `continueOnBlock`, is handled on `ok: false` as
/// a prompt hook with `continueOnBlock: true` (Claude Code's reference).
fn judge_handler(
    entry: &Value,
    kind: &str,
    claude: ClaudeEvent,
    judge: &JudgeEndpoint,
    root: &Path,
) -> Result<JudgeSpec, String> {
    if matches!(
        claude,
        ClaudeEvent::SessionStart | ClaudeEvent::SessionEnd | ClaudeEvent::Notification
    ) {
        return Err(format!(
            "{kind} hooks do not run on {} in Claude Code",
            claude.name()
        ));
    }
    let agent = kind == "agent";
    let prompt = match entry.get("prompt") {
        Some(Value::String(prompt)) if !prompt.trim().is_empty() => prompt.clone(),
        Some(other) if !other.is_null() => {
            return Err(format!(
                "\"prompt\" must be a string, found {}",
                json_kind(other)
            ));
        }
        _ => return Err("missing \"prompt\" (what the model judges)".to_owned()),
    };
    let model = match entry.get("model") {
        None | Some(Value::Null) => None,
        Some(Value::String(model)) => Some(model.clone()),
        Some(other) => {
            return Err(format!(
                "\"model\" must be a string, found {}",
                json_kind(other)
            ));
        }
    };
    let continue_on_block = match entry.get("continueOnBlock") {
        _ if agent => true,
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(other) => {
            return Err(format!(
                "\"continueOnBlock\" must be true or false, found {}",
                json_kind(other)
            ));
        }
    };
    Ok(JudgeSpec {
        kind: if agent {
            JudgeKind::Agent {
                root: root.to_path_buf(),
            }
        } else {
            JudgeKind::Prompt
        },
        prompt,
        model,
        continue_on_block,
        endpoint: judge.clone(),
    })
}

/// A `type: "http"` handler: `url`, and `headers` whose `$VAR`/`${VAR}` name only variables
/// of `allowedEnvVars` — within `outer` (`httpHookAllowedEnvVars`) when the settings set it;
/// others are sent empty, as in Claude Code, and come back as (header, variable) pairs for a
/// warning. The URL passes the HTTP hooks' SSRF guard like any other.
fn http_handler(
    entry: &Value,
    claude: ClaudeEvent,
    outer: Option<&[String]>,
) -> Result<(HttpSpec, Vec<(String, String)>), String> {
    if claude == ClaudeEvent::SessionStart {
        return Err("http hooks do not run on SessionStart in Claude Code".to_owned());
    }
    let url = match entry.get("url") {
        Some(Value::String(url)) if !url.trim().is_empty() => url.clone(),
        Some(other) if !other.is_null() => {
            return Err(format!(
                "\"url\" must be a string, found {}",
                json_kind(other)
            ));
        }
        _ => return Err("missing \"url\" (where to POST the hook input)".to_owned()),
    };
    let allowed: Vec<String> = match entry.get("allowedEnvVars") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(names)) => names
            .iter()
            .map(|n| n.as_str().map(str::to_owned))
            .collect::<Option<_>>()
            .ok_or("\"allowedEnvVars\" must be a list of variable names")?,
        Some(other) => {
            return Err(format!(
                "\"allowedEnvVars\" must be a list of variable names, found {}",
                json_kind(other)
            ));
        }
    };
    let allowed: Vec<String> = match outer {
        Some(outer) => allowed.into_iter().filter(|n| outer.contains(n)).collect(),
        None => allowed,
    };
    let mut headers = Vec::new();
    let mut dropped = Vec::new();
    match entry.get("headers") {
        None | Some(Value::Null) => {}
        Some(Value::Object(map)) => {
            for (name, value) in map {
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

/// Whether `hook` is this source's hook for (`claude`, `command`).
fn declares(hook: &Hook, agent: Agent, claude: ClaudeEvent, command: &str) -> bool {
    hook.approval_key.as_deref() == Some(command)
        && matches!(&hook.dialect, Dialect::Claude { agent: a, event, .. } if *event == claude && *a == agent)
}

/// Lets `hook` also match what `extra` matches (no matcher on either side: everything).
fn widen_matcher(hook: &mut Hook, extra: Option<&Matcher>) {
    hook.matcher = match (hook.matcher.take(), extra) {
        (None, _) | (_, None) => None,
        (Some(a), Some(b)) => {
            let pattern = format!("{}|{}", a.pattern, b.pattern);
            match regex::Regex::new(&format!(
                "(?:{})|(?:{})",
                a.regex.as_str(),
                b.regex.as_str()
            )) {
                Ok(regex) => Some(Matcher { pattern, regex }),
                // Both compiled alone, so this cannot fail; matching everything errs on the
                // side of running the hook.
                Err(_) => None,
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bridge_commands_are_recognised() {
        assert!(is_bridge_command(
            "/usr/local/bin/agent-hooks claude-hook --workspace \"$CLAUDE_PROJECT_DIR\""
        ));
        assert!(is_bridge_command("agent-hooks claude-hook"));
        assert!(!is_bridge_command("python3 guard.py"));
    }

    fn loaded(settings: &str) -> Vec<FileLoad> {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(".claude")).unwrap();
        std::fs::write(dir.path().join(".claude/settings.json"), settings).unwrap();
        load(&Workspace::new(dir.path()), &AgentSettings::default())
    }

    fn loaded_with_local(settings: &str, local: &str) -> Vec<FileLoad> {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(".claude")).unwrap();
        std::fs::write(dir.path().join(".claude/settings.json"), settings).unwrap();
        std::fs::write(dir.path().join(".claude/settings.local.json"), local).unwrap();
        load(&Workspace::new(dir.path()), &AgentSettings::default())
    }

    const TWO_HOOKS: &str = r#"{"hooks": {"Stop": [{"hooks": [
        {"type": "command", "command": "a"},
        {"type": "http", "url": "https://Hooks.Example.com./stop",
         "headers": {"Authorization": "Bearer $TOKEN", "X-Key": "$KEY"},
         "allowedEnvVars": ["TOKEN", "KEY"]}]}]}}"#;

    #[test]
    fn disable_all_hooks_turns_every_claude_code_hook_off_the_last_file_deciding() {
        let off = loaded_with_local(TWO_HOOKS, r#"{"disableAllHooks": true}"#);
        assert!(off.iter().all(|f| f.hooks.is_empty()));
        assert!(
            off[1].warnings[0]
                .message()
                .contains("disableAllHooks is true")
        );
        let project = TWO_HOOKS.replacen('{', r#"{"disableAllHooks": true, "#, 1);
        let back_on = loaded_with_local(&project, r#"{"disableAllHooks": false}"#);
        assert_eq!(back_on[0].hooks.len(), 2, "{:?}", back_on[0].errors);
    }

    #[test]
    fn allowed_http_hook_urls_and_env_vars_limit_http_hooks_across_files() {
        let allowed = loaded_with_local(
            TWO_HOOKS,
            r#"{"allowedHttpHookUrls": ["https://hooks.example.com/*"],
                "httpHookAllowedEnvVars": ["TOKEN"]}"#,
        );
        let http = allowed[0]
            .hooks
            .iter()
            .find_map(|h| match &h.transport {
                TransportSpec::Http(spec) => Some(spec),
                _ => None,
            })
            .expect("the http hook is allowed");
        assert_eq!(http.allowed_env, vec!["TOKEN".to_owned()]);
        assert!(
            allowed[0]
                .warnings
                .iter()
                .any(|w| w.message().contains("$KEY is not in allowedEnvVars")),
            "{:?}",
            allowed[0].warnings
        );
        let refused = loaded_with_local(
            TWO_HOOKS,
            r#"{"allowedHttpHookUrls": ["https://other.example.com/*"]}"#,
        );
        assert_eq!(refused[0].hooks.len(), 1, "only the command hook");
        assert!(
            refused[0].warnings[0]
                .message()
                .contains("matches no pattern of allowedHttpHookUrls")
        );
        let none = loaded_with_local(TWO_HOOKS, r#"{"allowedHttpHookUrls": []}"#);
        assert_eq!(
            none[0].hooks.len(),
            1,
            "an empty list blocks every HTTP hook"
        );
    }

    #[test]
    fn a_matcher_that_is_not_a_string_skips_its_group_with_an_error() {
        let files = loaded(
            r#"{"hooks": {"PreToolUse": [
                {"matcher": {"tool": "Bash"}, "hooks": [{"type": "command", "command": "a"}]},
                {"matcher": "Bash", "hooks": [{"type": "command", "command": "b"}]}
            ]}}"#,
        );
        let names: Vec<&str> = files[0].hooks.iter().map(|h| &*h.name).collect();
        assert_eq!(names, vec!["b"]);
        assert_eq!(files[0].errors.len(), 1);
        assert!(files[0].errors[0].message().contains("must be a string"));
    }

    #[test]
    fn settings_that_are_not_an_object_are_a_broken_file() {
        let files = loaded("[1, 2]");
        assert_eq!(files[0].state, FileState::Broken);
        assert!(
            files[0].errors[0].message().contains("found a list"),
            "{:?}",
            files[0].errors
        );
    }

    #[test]
    fn timeouts_default_to_claude_codes_600_s_capped_at_120() {
        let files = loaded(
            r#"{"hooks": {"Stop": [{"hooks": [
                {"type": "command", "command": "a"},
                {"type": "command", "command": "b", "timeout": 5},
                {"type": "command", "command": "c", "timeout": 900}
            ]}]}}"#,
        );
        let secs: Vec<u64> = files[0].hooks.iter().map(|h| h.timeout.as_secs()).collect();
        assert_eq!(secs, vec![120, 5, 120]);
    }

    #[test]
    fn user_prompt_submit_and_session_end_hooks_have_claude_codes_shorter_defaults() {
        let files = loaded(
            r#"{"hooks": {"UserPromptSubmit": [{"hooks": [
                {"type": "command", "command": "a"},
                {"type": "command", "command": "b", "timeout": 90}
            ]}], "SessionEnd": [{"hooks": [
                {"type": "command", "command": "c"},
                {"type": "command", "command": "d", "timeout": 10}
            ]}]}}"#,
        );
        let ms: Vec<u128> = files[0]
            .hooks
            .iter()
            .map(|h| h.timeout.as_millis())
            .collect();
        assert_eq!(ms, vec![30_000, 90_000, 1_500, 10_000]);
    }

    #[test]
    fn unmapped_events_and_other_types_are_warnings_not_hooks() {
        let files = loaded(
            r#"{"hooks": {
                "PreCompact": [{"hooks": [{"type": "command", "command": "a"}]}],
                "PreToolUse": [{"matcher": "Bash", "hooks": [
                    {"type": "mcp_tool", "server": "s", "tool": "t"}
                ]}]
            }}"#,
        );
        assert!(files[0].hooks.is_empty());
        assert!(files[0].errors.is_empty());
        let warnings: Vec<String> = files[0]
            .warnings
            .iter()
            .map(|w| w.message().to_owned())
            .collect();
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert!(warnings[0].contains("PreCompact hooks never fire in this host"));
        assert!(warnings[1].contains("type \"mcp_tool\""));
    }
}
