//! The hooks of a file in Claude Code's layout (event name → matcher groups → handlers), read
//! into [`Hook`]s: Claude Code's settings and plugins, and Codex's files, which use the same
//! layout. The event names are data (a map); each group and handler is a typed struct.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;

use super::agent_files::{declared_event, is_bridge_command};
use super::claude_plugins::Plugin;
use super::claude_settings::HookSettings;
use super::typed::{Entries, Given, Object, Typed, from_object};
use super::{ConfigError, FileLoad};
use crate::hook::{Hook, MAX_TIMEOUT_SECS, OnError, filesystem_safe};
use agent_hooks_core::wording::kind_of as json_kind;
use agent_hooks_core::workspace::Workspace;
use agent_hooks_dialects::Dialect;
use agent_hooks_dialects::Matcher;
use agent_hooks_dialects::agent::Agent;
use agent_hooks_dialects::claude::Background;
use agent_hooks_dialects::claude::{ClaudeEvent, Condition, ToolAliases};
use agent_hooks_transports::http::Template;
use agent_hooks_transports::judge::{AGENT_TIMEOUT_SECS, JudgeKind, PROMPT_TIMEOUT_SECS};
use agent_hooks_transports::{CommandSpec, HttpSpec, JudgeEndpoint, JudgeSpec, TransportSpec};

/// Claude Code's default hook timeout; agent-hooks caps every hook at 120 s.
pub(crate) const CLAUDE_DEFAULT_TIMEOUT_SECS: f64 = 600.0;

/// Claude Code's default timeout of a `SessionEnd` hook that sets none.
pub(super) const SESSION_END_TIMEOUT_SECS: f64 = 1.5;

/// What the hooks of one file are declared for: the agent whose event names and conventions
/// they use, and what they share.
pub(crate) struct Declared<'a> {
    pub(crate) agent: Agent,
    pub(crate) aliases: &'a Arc<ToolAliases>,
    pub(crate) judge: &'a JudgeEndpoint,
    pub(crate) settings: &'a HookSettings,
    pub(crate) plugin: Option<&'a Plugin>,
}

/// One matcher group: which tools, and the handlers run for them. A group that is not an
/// object reads as an empty one (and then lacks its `hooks`).
#[derive(Deserialize, Default)]
#[serde(default)]
struct Group {
    matcher: Option<Typed<String>>,
    hooks: Option<Typed<Vec<WrittenHandler>>>,
}

/// A handler as written: a [`Handler`] when it is an object (anything else reads as an empty
/// one, and then lacks its command).
type WrittenHandler = Typed<Object<Handler>>;

/// One handler as Claude Code reads it. Claude Code is lenient about some fields (a `type` or
/// `timeout` of the wrong type falls back to its default), strict about others; [`Typed`]
/// keeps what was written so each field is read as Claude Code does. `null` is as absent.
#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct Handler {
    #[serde(rename = "type")]
    kind: Option<Typed<String>>,
    command: Option<Typed<String>>,
    args: Option<Typed<Vec<Typed<String>>>>,
    url: Option<Typed<String>>,
    headers: Option<Typed<Entries<Typed<String>>>>,
    allowed_env_vars: Option<Typed<Vec<Typed<String>>>>,
    prompt: Option<Typed<String>>,
    model: Option<Typed<String>>,
    continue_on_block: Option<Typed<bool>>,
    #[serde(rename = "if")]
    condition: Option<Typed<String>>,
    shell: Option<Typed<String>>,
    #[serde(rename = "async")]
    background: Option<Typed<bool>>,
    async_rewake: Option<Typed<bool>>,
    timeout: Option<Typed<f64>>,
    /// `"block"`: the hook failing to start, timing out or exiting unexpectedly blocks the
    /// action (command and HTTP hooks); `"continue"` (the default) lets it go on.
    on_failure: Option<Typed<String>>,
    /// Claude Code runs such a hook once per session, in a skill's hooks.
    once: Option<Typed<bool>>,
    /// Read by [`crate::hook::configure_prefork`], which owns its layout.
    prefork: Given<Value>,
}

/// The value of an optional field, when written with the declared type.
fn valid<T>(field: &Option<Typed<T>>) -> Option<&T> {
    field.as_ref().and_then(|typed| typed.get().ok())
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
    // The keys are event names, which are data: the map is walked, not declared.
    let hooks = match hooks {
        None | Some(Value::Null) => return,
        Some(Value::Object(hooks)) => hooks,
        Some(other) => {
            let error = ConfigError::whole_file(
                &load.display,
                format!(
                    "\"hooks\" must be an object of event name → matcher groups, found {}",
                    json_kind(other)
                ),
            );
            load.errors.push(error);
            return;
        }
    };
    for (event_name, groups) in hooks {
        let agent = declared.agent;
        let parsed = (
            agent.claude_family().parse(event_name),
            agent.home().unmapped_events(),
        );
        let Some((claude, groups)) = declared_event(
            load,
            declared.agent,
            (event_name, groups),
            parsed,
            "matcher groups",
        ) else {
            continue;
        };
        for (g, group) in groups.iter().enumerate() {
            let group = from_object::<Group>(group).unwrap_or_default();
            let at = format!("hooks.{event_name}[{g}]");
            let Some((matcher, handlers)) = read_group(load, &at, (agent, event_name), &group)
            else {
                continue;
            };
            for (h, handler) in handlers.iter().enumerate() {
                let handler = match handler {
                    Typed::Valid(Object(handler)) => handler,
                    Typed::Wrong(_) => &Handler::default(),
                };
                let reader = HandlerReader {
                    ws,
                    declared,
                    event_name,
                    claude,
                    matcher: matcher.as_ref(),
                    at: format!("{at}.hooks[{h}]"),
                };
                reader.read(load, handler, earlier);
            }
        }
    }
}

/// A group's matcher and handlers; `None` (with an error) when the group is skipped.
fn read_group<'g>(
    load: &mut FileLoad,
    at: &str,
    (agent, event_name): (Agent, &str),
    group: &'g Group,
) -> Option<(Option<Matcher>, &'g [WrittenHandler])> {
    let pattern = match group.matcher.as_ref().map(Typed::get) {
        None => "",
        Some(Ok(pattern)) => pattern.as_str(),
        // Read as "match everything", a mistyped matcher would widen the hook.
        Some(Err(found)) => {
            let message =
                format!("{at}.matcher must be a string, found {found}; the group is skipped");
            load.errors
                .push(ConfigError::whole_file(&load.display, message));
            return None;
        }
    };
    let matcher = match agent.home().matcher(event_name, pattern) {
        Ok(matcher) => matcher,
        Err(e) => {
            let message = format!(
                "{at}.matcher \"{pattern}\" is not a valid regex: {}",
                e.to_string()
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" ")
            );
            load.errors
                .push(ConfigError::whole_file(&load.display, message));
            return None;
        }
    };
    let Some(handlers) = valid(&group.hooks) else {
        let message =
            format!("{at} needs a \"hooks\" list of {{\"type\": \"command\", \"command\": ...}}");
        load.errors
            .push(ConfigError::whole_file(&load.display, message));
        return None;
    };
    Some((matcher, handlers))
}

/// Reads one handler of a group: where it is (`at`, as `hooks.Event[g].hooks[h]`), and what
/// its group and file say.
struct HandlerReader<'a> {
    ws: &'a Workspace,
    declared: &'a Declared<'a>,
    event_name: &'a str,
    claude: ClaudeEvent,
    matcher: Option<&'a Matcher>,
    at: String,
}

/// Why a handler yields no hook: a problem (an error) or a choice (a warning), or nothing to
/// say (a bridge entry).
enum Skip {
    Error(String),
    Warning(String),
    Silent,
}

impl HandlerReader<'_> {
    /// Adds the hook of `handler` to `load`, or the reason it is skipped.
    fn read(&self, load: &mut FileLoad, handler: &Handler, earlier: &mut [FileLoad]) {
        match self.hook(load, handler, earlier) {
            Ok(hook) => load.hooks.push(hook),
            Err(Skip::Silent) => {}
            Err(Skip::Error(message)) => {
                let error = ConfigError::whole_file(&load.display, message);
                load.errors.push(error);
            }
            Err(Skip::Warning(message)) => {
                let warning = ConfigError::whole_file(&load.display, message);
                load.warnings.push(warning);
            }
        }
    }

    /// The hook `handler` declares. A duplicate widens the first declaration (in `load` or
    /// `earlier`) and is skipped; so is a bridge entry, recorded in `load.bridge`.
    fn hook(
        &self,
        load: &mut FileLoad,
        handler: &Handler,
        earlier: &mut [FileLoad],
    ) -> Result<Hook, Skip> {
        let at = &self.at;
        let kind = valid(&handler.kind).map_or("command", String::as_str);
        let (command, transport) = self.transport(load, kind, handler)?;
        // A plugin's commands name its files through ${CLAUDE_PLUGIN_ROOT}.
        let command = match self.declared.plugin {
            Some(plugin) => plugin.expand(&command),
            None => command,
        };
        let exec = match transport {
            Some(_) => None,
            None => self.exec(&command, handler)?,
        };
        let command = match &exec {
            Some(words) => shell_words::join(words),
            None => command,
        };
        // The bridge (claude-install) is for Claude Code itself: not a hook here, and not a
        // problem either.
        if is_bridge_command(&command) {
            if !load.bridge.iter().any(|e| e == self.event_name) {
                load.bridge.push(self.event_name.to_owned());
            }
            return Err(Skip::Silent);
        }
        // Claude Code runs identical commands once; so does this source. Widen the first
        // declaration's matcher so the duplicate's tools still reach it.
        let (agent, claude) = (self.declared.agent, self.claude);
        let first = load
            .hooks
            .iter_mut()
            .chain(earlier.iter_mut().flat_map(|l| l.hooks.iter_mut()))
            .find(|h| declares(h, agent, claude, &command));
        if let Some(first) = first {
            widen_matcher(first, self.matcher);
            return Err(Skip::Warning(format!(
                "{at}: \"{command}\" is already declared for {}; it runs once",
                self.event_name
            )));
        }
        let condition = self.condition(handler)?;
        let bash = self.bash(handler)?;
        let background = self.background(load, kind, handler, transport.is_some());
        let timeout = self.timeout(handler, transport.as_ref());
        let dialect = Dialect::Claude {
            agent,
            event: claude,
            aliases: self.declared.aliases.clone(),
            condition,
            background,
        };
        let on_failure = self.on_failure(load, handler);
        let mut hook = self.build(&load.path, &load.display, &command, exec, transport, bash);
        hook.timeout = Duration::from_secs_f64(timeout);
        hook.on_error = on_failure;
        hook.dialect = dialect;
        if let Some(value) = &handler.prefork.0
            && let Err(why) = crate::hook::configure_prefork(&mut hook, value)
        {
            return Err(Skip::Error(format!("{at}.{why}; the hook is skipped")));
        }
        Ok(hook)
    }

    /// The handler's command (or what stands for it in `list` and approvals), and the
    /// transport of a handler that is not a command and so brings its own.
    fn transport(
        &self,
        load: &mut FileLoad,
        kind: &str,
        handler: &Handler,
    ) -> Result<(String, Option<TransportSpec>), Skip> {
        let at = &self.at;
        let (ws, declared) = (self.ws, self.declared);
        match kind {
            "http"
                if valid(&handler.url).is_some_and(|url| Agent::of_bridge_url(url).is_some()) =>
            {
                Err(Skip::Warning(format!(
                    "{at}: the agent-hooks bridge ({}) is for Claude Code itself; not run as a hook here",
                    valid(&handler.url).map_or("", String::as_str)
                )))
            }
            "command" => match valid(&handler.command) {
                Some(command) => Ok((command.clone(), None)),
                None => Err(Skip::Error(format!("{at}: missing \"command\""))),
            },
            "prompt" | "agent" => {
                match judge_handler(handler, kind, self.claude, declared.judge, ws.root()) {
                    Ok(spec) => Ok((spec.prompt.clone(), Some(TransportSpec::Judge(spec)))),
                    Err(why) => Err(Skip::Error(format!("{at}: {why}; the hook is skipped"))),
                }
            }
            "http" => {
                let settings = declared.settings;
                match http_handler(handler, self.claude, settings.http_env.as_deref()) {
                    Ok((spec, _)) if !settings.allows_url(&spec.url) => {
                        Err(Skip::Warning(format!(
                            "{at}: {} matches no pattern of allowedHttpHookUrls; skipped (as in Claude Code)",
                            spec.url
                        )))
                    }
                    Ok((spec, dropped)) => {
                        for (header, name) in dropped {
                            let warning = ConfigError::whole_file(
                                &load.display,
                                format!(
                                    "{at}.headers.{header}: ${name} is not in allowedEnvVars (or is outside httpHookAllowedEnvVars), so it is sent empty (as Claude Code does)"
                                ),
                            );
                            load.warnings.push(warning);
                        }
                        Ok((spec.url.clone(), Some(TransportSpec::Http(spec))))
                    }
                    Err(why) => Err(Skip::Error(format!("{at}: {why}; the hook is skipped"))),
                }
            }
            "mcp_tool" => Err(Skip::Warning(format!(
                "{at}: type \"mcp_tool\" calls a tool of an MCP server connected to the agent's session, which this host does not have; skipped"
            ))),
            _ => Err(Skip::Warning(format!(
                "{at}: type \"{kind}\" is not supported here (only \"command\", \"http\", \"prompt\" and \"agent\"); skipped"
            ))),
        }
    }

    /// Exec form: `command` and `args` as the argument vector, no shell; the path placeholders
    /// are written out in each word, and the words as they run are what `list` shows and what
    /// is approved. `None` without `args`.
    fn exec(&self, command: &str, handler: &Handler) -> Result<Option<Vec<String>>, Skip> {
        let at = &self.at;
        let items = match handler.args.as_ref().map(Typed::get) {
            None => return Ok(None),
            Some(Ok(items)) => items,
            Some(Err(found)) => {
                return Err(Skip::Error(format!(
                    "{at}.args must be a list of strings, found {found}; the hook is skipped"
                )));
            }
        };
        let Some(args) = items
            .iter()
            .map(|word| word.get().ok().cloned())
            .collect::<Option<Vec<String>>>()
        else {
            return Err(Skip::Error(format!(
                "{at}.args must be a list of strings; the hook is skipped"
            )));
        };
        let root = self.ws.root().to_string_lossy();
        let plugin = self.declared.plugin;
        let words = std::iter::once(command.to_owned())
            .chain(args)
            .map(|w| {
                let w = w.replace("${CLAUDE_PROJECT_DIR}", &root);
                plugin.map_or(w.clone(), |p| p.expand(&w))
            })
            .collect();
        Ok(Some(words))
    }

    /// `onFailure`, and `once`, which this host does not keep: both said where they matter.
    /// A value that is neither `block` nor `continue` is read as `block`, the safe reading of
    /// a guard's switch.
    fn on_failure(&self, load: &mut FileLoad, handler: &Handler) -> OnError {
        let at = &self.at;
        let mut warn = |message: String| {
            load.warnings
                .push(ConfigError::whole_file(&load.display, message));
        };
        if valid(&handler.once) == Some(&true) {
            warn(format!(
                "{at}.once: Claude Code runs such a hook once per session (in a skill's hooks); here it runs at every {}",
                self.event_name
            ));
        }
        match handler.on_failure.as_ref().map(Typed::get) {
            None => OnError::Continue,
            Some(Ok(value)) if value == "continue" => OnError::Continue,
            Some(Ok(value)) if value == "block" => OnError::Block,
            Some(Ok(value)) => {
                warn(format!(
                    "{at}.onFailure is \"{value}\", not \"block\" or \"continue\"; read as \"block\""
                ));
                OnError::Block
            }
            Some(Err(found)) => {
                warn(format!(
                    "{at}.onFailure must be \"block\" or \"continue\", found {found}; read as \"block\""
                ));
                OnError::Block
            }
        }
    }

    /// `if`: the permission rule the hook runs under. Read as "always", a mistyped rule would
    /// widen the hook, so a bad one skips it.
    fn condition(&self, handler: &Handler) -> Result<Option<Arc<Condition>>, Skip> {
        let at = &self.at;
        match handler.condition.as_ref().map(Typed::get) {
            None => Ok(None),
            Some(Ok(rule)) => match Condition::parse(rule) {
                Ok(condition) => Ok(Some(Arc::new(condition))),
                Err(why) => Err(Skip::Error(format!("{at}.if: {why}; the hook is skipped"))),
            },
            Some(Err(found)) => Err(Skip::Error(format!(
                "{at}.if must be a permission rule string, found {found}; the hook is skipped"
            ))),
        }
    }

    /// `shell`: whether the command runs in bash (`powershell` runs only on Windows).
    fn bash(&self, handler: &Handler) -> Result<bool, Skip> {
        let at = &self.at;
        match handler.shell.as_ref() {
            None => Ok(false),
            Some(Typed::Valid(shell)) if shell == "bash" => Ok(true),
            Some(Typed::Valid(shell)) if shell == "powershell" => Err(Skip::Error(format!(
                "{at}.shell \"powershell\" runs only on Windows (as in Claude Code); the hook is skipped"
            ))),
            // The value as written, in JSON: a string quoted.
            Some(Typed::Valid(other)) => Err(Skip::Error(format!(
                "{at}.shell must be \"bash\" or \"powershell\", found {}; the hook is skipped",
                Value::String(other.clone())
            ))),
            Some(Typed::Wrong(other)) => Err(Skip::Error(format!(
                "{at}.shell must be \"bash\" or \"powershell\", found {other}; the hook is skipped"
            ))),
        }
    }

    /// `async` / `asyncRewake`: a command hook that runs in the background. A handler with
    /// its own transport (`own_transport`) runs in the foreground, with a warning.
    fn background(
        &self,
        load: &mut FileLoad,
        kind: &str,
        handler: &Handler,
        own_transport: bool,
    ) -> Option<Background> {
        let flag = |field: &Option<Typed<bool>>| valid(field) == Some(&true);
        let (rewake, background) = (flag(&handler.async_rewake), flag(&handler.background));
        if own_transport {
            if rewake || background {
                let warning = ConfigError::whole_file(
                    &load.display,
                    format!(
                        "{}: async is only for command hooks (as in Claude Code); this {kind} hook runs in the foreground",
                        self.at
                    ),
                );
                load.warnings.push(warning);
            }
            return None;
        }
        match (rewake, background) {
            (true, _) => Some(Background::AsyncRewake),
            (false, true) => Some(Background::Async),
            (false, false) => None,
        }
    }

    /// `timeout`, in seconds: Claude Code's default for the handler when unset, capped at the
    /// ceiling.
    fn timeout(&self, handler: &Handler, transport: Option<&TransportSpec>) -> f64 {
        match valid(&handler.timeout) {
            Some(t) if *t > 0.0 => *t,
            _ => match transport {
                Some(TransportSpec::Judge(spec)) if spec.is_agent() => AGENT_TIMEOUT_SECS,
                Some(TransportSpec::Judge(_)) => PROMPT_TIMEOUT_SECS,
                // Claude Code lowers its default to 30 s on UserPromptSubmit, and gives
                // SessionEnd hooks 1.5 s unless they set their own.
                _ if self.claude == ClaudeEvent::UserPromptSubmit => PROMPT_TIMEOUT_SECS,
                _ if self.claude == ClaudeEvent::SessionEnd => SESSION_END_TIMEOUT_SECS,
                _ => CLAUDE_DEFAULT_TIMEOUT_SECS,
            },
        }
        .min(MAX_TIMEOUT_SECS)
    }

    /// The hook of `command` from the file `path` (shown as `display`): its own `transport`,
    /// or the command in exec form (`exec`) or through the shell (`bash` or `sh`), with the
    /// agent's and the plugin's variables. The caller sets the dialect's condition and
    /// background, and the timeout.
    fn build(
        &self,
        path: &Path,
        display: &str,
        command: &str,
        exec: Option<Vec<String>>,
        transport: Option<TransportSpec>,
        bash: bool,
    ) -> Hook {
        let (ws, agent, claude, plugin) = (
            self.ws,
            self.declared.agent,
            self.claude,
            self.declared.plugin,
        );
        let root = ws.root().to_string_lossy().into_owned();
        let own_transport = transport.is_some();
        let transport = match (transport, exec) {
            (Some(transport), _) => transport,
            (None, Some(words)) => {
                TransportSpec::Command(CommandSpec::words(command, words, ws.root().to_path_buf()))
            }
            (None, None) => TransportSpec::Command({
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
        };
        Hook {
            name: command.into(),
            source: agent.source(),
            file: path.to_path_buf(),
            file_display: display.into(),
            line: 0,
            events: vec![claude.canonical()],
            matcher: self.matcher.cloned(),
            transport,
            dialect: Dialect::Claude {
                agent,
                event: claude,
                aliases: self.declared.aliases.clone(),
                condition: None,
                background: None,
            },
            timeout: Duration::from_secs_f64(CLAUDE_DEFAULT_TIMEOUT_SECS.min(MAX_TIMEOUT_SECS)),
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
    handler: &Handler,
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
    let prompt = match handler.prompt.as_ref().map(Typed::get) {
        None => return Err("missing \"prompt\" (what the model judges)".to_owned()),
        Some(Ok(prompt)) if !prompt.trim().is_empty() => prompt.clone(),
        // A blank prompt is refused by its kind too.
        Some(found) => {
            let found = found.err().unwrap_or("a string");
            return Err(format!("\"prompt\" must be a string, found {found}"));
        }
    };
    let model = match handler.model.as_ref().map(Typed::get) {
        None => None,
        Some(Ok(model)) => Some(model.clone()),
        Some(Err(found)) => return Err(format!("\"model\" must be a string, found {found}")),
    };
    let continue_on_block = match handler.continue_on_block.as_ref().map(Typed::get) {
        _ if agent => true,
        None => false,
        Some(Ok(b)) => *b,
        Some(Err(found)) => {
            return Err(format!(
                "\"continueOnBlock\" must be true or false, found {found}"
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
    handler: &Handler,
    claude: ClaudeEvent,
    outer: Option<&[String]>,
) -> Result<(HttpSpec, Vec<(String, String)>), String> {
    if claude == ClaudeEvent::SessionStart {
        return Err("http hooks do not run on SessionStart in Claude Code".to_owned());
    }
    let url = match handler.url.as_ref().map(Typed::get) {
        None => return Err("missing \"url\" (where to POST the hook input)".to_owned()),
        Some(Ok(url)) if !url.trim().is_empty() => url.clone(),
        // A blank URL is refused by its kind too.
        Some(found) => {
            let found = found.err().unwrap_or("a string");
            return Err(format!("\"url\" must be a string, found {found}"));
        }
    };
    let allowed: Vec<String> = match handler.allowed_env_vars.as_ref().map(Typed::get) {
        None => Vec::new(),
        Some(Ok(names)) => names
            .iter()
            .map(|name| name.get().ok().cloned())
            .collect::<Option<_>>()
            .ok_or("\"allowedEnvVars\" must be a list of variable names")?,
        Some(Err(found)) => {
            return Err(format!(
                "\"allowedEnvVars\" must be a list of variable names, found {found}"
            ));
        }
    };
    let allowed: Vec<String> = match outer {
        Some(outer) => allowed.into_iter().filter(|n| outer.contains(n)).collect(),
        None => allowed,
    };
    let mut headers = Vec::new();
    let mut dropped = Vec::new();
    match handler.headers.as_ref().map(Typed::get) {
        None => {}
        Some(Ok(Entries(entries))) => {
            for (name, value) in entries {
                let value = value
                    .get()
                    .map_err(|found| format!("headers.{name} must be a string, found {found}"))?;
                let (template, unlisted) = Template::parse_claude(value, &allowed);
                dropped.extend(unlisted.into_iter().map(|var| (name.clone(), var)));
                headers.push((name.clone(), template));
            }
        }
        Some(Err(found)) => {
            return Err(format!(
                "\"headers\" must be an object of name: value, found {found}"
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
            match regex::Regex::new(&format!("(?:{})|(?:{})", a.regex_str(), b.regex_str())) {
                Ok(regex) => Some(Matcher::new(pattern, regex)),
                // Both compiled alone, so this cannot fail; matching everything errs on the
                // side of running the hook.
                Err(_) => None,
            }
        }
    };
}
