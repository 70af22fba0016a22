//! `config/agent.yaml`: the host's settings file. agent-hooks reads the `shell_hooks` section
//! (the master switch) and writes only `shell_hooks.enabled`, editing the text in place so every
//! other key, comment and blank line the user wrote survives.

use std::sync::Arc;

use serde::Deserialize;
use serde_json::Value;

use agent_hooks_core::diag::LogDestination;

use super::ConfigError;
use super::typed::{Object, Typed, from_object};
use super::yaml::parse_error;
use agent_hooks_core::event::Event;
use agent_hooks_core::outcome::OnFailure;
use agent_hooks_core::store::{self, FileLock};
use agent_hooks_core::workspace::Workspace;
use agent_hooks_dialects::claude::{RewritePermission, ToolAliases};
use agent_hooks_transports::{JudgeEndpoint, Provider};

/// Largest request body the sidecar accepts unless `sidecar.max_body` says otherwise.
pub(crate) const MAX_BODY: usize = 64 * 1024 * 1024;

/// The parts of `config/agent.yaml` agent-hooks reads.
#[derive(Debug, Clone)]
pub(crate) struct AgentSettings {
    /// `shell_hooks.enabled`: the master switch. Off unless the file says `true`.
    pub shell_hooks_enabled: bool,
    /// `shell_hooks.self_approve`: whether the sidecar's self-approve route answers (default on).
    /// With approvals outside the workspace this can only turn it off: the trust settings
    /// beside the approvals decide (`trust::TrustSettings`, read into the snapshot).
    pub self_approve: bool,
    /// `shell_hooks.host_events`: the events the host says it sends, so hooks on any other
    /// event can be called out as never firing; `None`: every event.
    pub host_events: Option<Vec<Event>>,
    /// `claude_hooks.user_settings`: also read `~/.claude/settings.json`.
    pub claude_user_settings: bool,
    /// `claude_hooks.tool_aliases` over the defaults: how Claude Code matchers name this
    /// host's tools.
    pub tool_aliases: Arc<ToolAliases>,
    /// The file exists but could not be read or parsed: every setting above is its default.
    pub unreadable: bool,
    /// `shell_hooks.redo_cap`: how many redos stop hooks may force in one turn;
    /// default [`REDO_CAP`](agent_hooks_core::event::REDO_CAP), `0` (stored as `None`) for no cap.
    pub redo_cap: Option<u64>,
    /// `claude_hooks.rewrite_permission`: how the Claude Code bridge sends a rewritten input.
    pub rewrite_permission: RewritePermission,
    /// `llm_judge`: the model server that judges prompt hooks (`type: prompt`).
    pub judge: JudgeEndpoint,
    /// `sidecar.host_lifecycle`: the host fires `pre_startup`, `post_startup`, `pre_shutdown`
    /// and `post_shutdown` itself, so `serve` does not (default off: `serve` fires them).
    pub host_lifecycle: bool,
    /// `skill_hooks.block`: `fork` (the default: `_block` stops a tool call) or `upstream`
    /// (open-strix without the verb: `_block` is carried along and the tool runs).
    pub skill_block: agent_hooks_dialects::skill::BlockVerb,
    /// `sidecar.max_body`: the largest request body the sidecar reads, in bytes (default
    /// [`MAX_BODY`]); a larger one is refused (413) and no hook runs.
    pub max_body: usize,
    /// `logs.events`: where the event log goes (default `logs/events.jsonl`; a path, relative
    /// to the workspace or absolute; or `false` for nowhere). Read when a process opens the
    /// workspace.
    pub events_log: LogDestination,
    /// `logs.decisions`: where the decision log goes (default `decisions.jsonl` in the
    /// runtime's own directory for the workspace; a path, relative to the workspace or absolute;
    /// or `false` for nowhere).
    pub decisions_log: LogDestination,
    /// Why the file could not be read or parsed; the defaults apply then.
    pub error: Option<ConfigError>,
    /// `on_failure`: what a lapse of the policy comes to (default fail open).
    pub on_failure: OnFailure,
    /// `ask`: asks go to the console (`via: console`); `None`: to the agent's own prompt.
    pub ask: Option<super::ask::AskRoute>,
}

impl Default for AgentSettings {
    fn default() -> Self {
        AgentSettings {
            shell_hooks_enabled: false,
            self_approve: false,
            host_events: None,
            claude_user_settings: false,
            tool_aliases: Arc::default(),
            unreadable: false,
            redo_cap: Some(agent_hooks_core::event::REDO_CAP),
            rewrite_permission: RewritePermission::default(),
            judge: JudgeEndpoint::default(),
            host_lifecycle: false,
            skill_block: agent_hooks_dialects::skill::BlockVerb::Fork,
            max_body: MAX_BODY,
            events_log: LogDestination::Default,
            decisions_log: LogDestination::Default,
            error: None,
            on_failure: OnFailure::Continue,
            ask: None,
        }
    }
}

/// The parts of `config/agent.yaml` agent-hooks reads; every other key is the host's and is
/// left alone. A value of the wrong type is kept ([`Typed`]) for the message that names it; a
/// section that is not a mapping reads as absent ([`shape_problem`] speaks for `shell_hooks`).
#[derive(Deserialize, Default)]
#[serde(default)]
struct AgentFile {
    shell_hooks: Option<Typed<Object<ShellHooks>>>,
    claude_hooks: Option<Typed<Object<ClaudeHooks>>>,
    logs: Option<Typed<Object<Logs>>>,
    sidecar: Option<Typed<Object<Sidecar>>>,
    skill_hooks: Option<Typed<Object<SkillHooks>>>,
    llm_judge: Option<Typed<Object<Judge>>>,
    on_failure: Option<Typed<String>>,
    ask: Option<Value>,
}

/// `shell_hooks`: the master switch and how shell hooks run.
#[derive(Deserialize, Default)]
#[serde(default)]
struct ShellHooks {
    enabled: Option<Typed<bool>>,
    self_approve: Option<Typed<bool>>,
    host_events: Option<Typed<Vec<Typed<String>>>>,
    redo_cap: Option<Typed<u64>>,
}

/// `claude_hooks`: how Claude Code's hooks are read and bridged.
#[derive(Deserialize, Default)]
#[serde(default)]
struct ClaudeHooks {
    user_settings: Option<Typed<bool>>,
    /// Host tool name → Claude Code's name for it: the names are data, so the map is walked
    /// by [`ToolAliases::with_overrides`].
    tool_aliases: Option<Value>,
}

/// `logs`: where the logs go.
#[derive(Deserialize, Default)]
#[serde(default)]
struct Logs {
    events: Option<Typed<EventsLog>>,
    decisions: Option<Typed<EventsLog>>,
}

/// `logs.events` as written: on or off, or a path.
#[derive(Deserialize)]
#[serde(untagged)]
enum EventsLog {
    Switch(bool),
    Path(String),
}

/// `sidecar`: the HTTP sidecar's limits and who fires the lifecycle events.
#[derive(Deserialize, Default)]
#[serde(default)]
struct Sidecar {
    max_body: Option<Typed<u64>>,
    host_lifecycle: Option<Typed<bool>>,
}

/// `skill_hooks`: which open-strix the skill hooks follow.
#[derive(Deserialize, Default)]
#[serde(default)]
struct SkillHooks {
    block: Option<Typed<String>>,
}

/// `llm_judge`: the model server that judges prompt hooks.
#[derive(Deserialize, Default)]
#[serde(default)]
struct Judge {
    provider: Option<Typed<String>>,
    model: Option<Typed<String>>,
    base_url: Option<Typed<String>>,
    api_key_env: Option<Typed<String>>,
}

/// The value of an optional field, when written with the declared type.
fn valid<T>(field: &Option<Typed<T>>) -> Option<&T> {
    field.as_ref().and_then(|typed| typed.get().ok())
}

/// A section of the file, when written as a mapping.
fn section<T>(field: &Option<Typed<Object<T>>>) -> Option<&T> {
    valid(field).map(|Object(section)| section)
}

impl AgentSettings {
    /// Reads `config/agent.yaml`. Never fails: a missing file gives the defaults, and a broken
    /// one gives the defaults plus `error`.
    pub(crate) fn load(ws: &Workspace) -> AgentSettings {
        let path = ws.agent_yaml();
        let display = ws.display(&path).into_owned();
        let mut settings = AgentSettings {
            self_approve: true,
            redo_cap: Some(agent_hooks_core::event::REDO_CAP),
            ..AgentSettings::default()
        };
        let text = match store::read_optional(&path) {
            Ok(Some(text)) => text,
            Ok(None) => return settings,
            Err(err) => {
                settings.unreadable = true;
                settings.error = Some(setting_error(&display, format!("cannot read: {err}")));
                return settings;
            }
        };
        let doc = match parse(&text) {
            Ok(doc) => doc,
            Err(err) => {
                settings.unreadable = true;
                settings.error = Some(parse_error(&display, &err));
                return settings;
            }
        };
        // Each setting of the wrong kind is a problem; the last one written is the one told.
        let mut problems = Vec::new();
        if let Some(why) = shape_problem(&doc) {
            problems.push(format!("{why}; the master switch stays off"));
        }
        problems.extend(misspelt_settings(&doc));
        let file = from_object::<AgentFile>(&doc).unwrap_or_default();
        if let Some(shell) = section(&file.shell_hooks) {
            settings.read_shell_hooks(shell, &mut problems);
        }
        let claude = section(&file.claude_hooks);
        settings.claude_user_settings = claude.and_then(|c| valid(&c.user_settings)) == Some(&true);
        settings.tool_aliases = Arc::new(ToolAliases::with_overrides(
            claude.and_then(|c| c.tool_aliases.as_ref()),
        ));
        settings.rewrite_permission = RewritePermission::from_settings(&doc);
        match log_destination(section(&file.logs).and_then(|l| l.events.as_ref())) {
            Ok(destination) => settings.events_log = destination,
            Err(why) => problems.push(format!(
                "logs.events: {why}; the log stays at logs/events.jsonl"
            )),
        }
        match log_destination(section(&file.logs).and_then(|l| l.decisions.as_ref())) {
            Ok(destination) => settings.decisions_log = destination,
            Err(why) => problems.push(format!(
                "logs.decisions: {why}; the decision log stays in the runtime's own directory"
            )),
        }
        if let Some(sidecar) = section(&file.sidecar) {
            settings.read_sidecar(sidecar, &mut problems);
        }
        match section(&file.skill_hooks).and_then(|s| s.block.as_ref()) {
            None => {}
            Some(Typed::Valid(verb)) if verb == "fork" => {}
            Some(Typed::Valid(verb)) if verb == "upstream" => {
                settings.skill_block = agent_hooks_dialects::skill::BlockVerb::Upstream;
            }
            Some(other) => problems.push(format!(
                "skill_hooks.block: expected fork or upstream, found {}; the fork's _block applies",
                match other {
                    Typed::Valid(text) => format!("\"{text}\""),
                    Typed::Wrong(value) => value.to_string(),
                }
            )),
        }
        match judge_endpoint(&file.llm_judge) {
            Ok(judge) => settings.judge = judge,
            Err(why) => problems.push(format!(
                "llm_judge: {why}; prompt hooks use the defaults (anthropic, {})",
                agent_hooks_transports::judge::DEFAULT_ANTHROPIC_MODEL
            )),
        }
        match on_failure(&file.on_failure) {
            Ok(mode) => settings.on_failure = mode,
            Err(why) => {
                settings.on_failure = OnFailure::Block;
                problems.push(why);
            }
        }
        match super::ask::read(file.ask.as_ref()) {
            Ok(route) => settings.ask = route,
            Err(why) => problems.push(why),
        }
        if let Some(last) = problems.pop() {
            settings.error = Some(setting_error(&display, last));
        }
        settings
    }

    /// `shell_hooks`: the master switch, self-approval, the host's events and the redo cap.
    fn read_shell_hooks(&mut self, shell: &ShellHooks, problems: &mut Vec<String>) {
        match &shell.enabled {
            None => {}
            Some(Typed::Valid(enabled)) => self.shell_hooks_enabled = *enabled,
            Some(Typed::Wrong(other)) => problems.push(format!(
                "shell_hooks.enabled: expected true or false, found {other}; the master switch stays off"
            )),
        }
        if let Some(self_approve) = valid(&shell.self_approve) {
            self.self_approve = *self_approve;
        }
        self.host_events = valid(&shell.host_events).map(|names| {
            names
                .iter()
                .filter_map(|name| name.get().ok())
                .filter_map(|name| name.parse().ok())
                .collect()
        });
        match &shell.redo_cap {
            None => {}
            Some(Typed::Valid(0)) => self.redo_cap = None,
            Some(Typed::Valid(cap)) => self.redo_cap = Some(*cap),
            Some(Typed::Wrong(value)) => problems.push(format!(
                "shell_hooks.redo_cap: expected a whole number (0 for no cap), found {value}; the default of {} applies",
                agent_hooks_core::event::REDO_CAP
            )),
        }
    }

    /// `sidecar`: the largest request body and whether the host fires the lifecycle events.
    fn read_sidecar(&mut self, sidecar: &Sidecar, problems: &mut Vec<String>) {
        match &sidecar.max_body {
            None => {}
            Some(Typed::Valid(bytes)) => match usize::try_from(*bytes) {
                Ok(bytes) if bytes > 0 => self.max_body = bytes,
                _ => problems.push(max_body_problem(bytes)),
            },
            Some(Typed::Wrong(value)) => problems.push(max_body_problem(value)),
        }
        match &sidecar.host_lifecycle {
            None => {}
            Some(Typed::Valid(fired_by_host)) => self.host_lifecycle = *fired_by_host,
            Some(Typed::Wrong(other)) => problems.push(format!(
                "sidecar.host_lifecycle: expected true or false, found {other}; serve fires the lifecycle events"
            )),
        }
    }
}

/// `on_failure`: `continue` (the default) or `block`. Anything else is refused, and the
/// workspace fails closed, since a user who wrote the key meant to change the default.
fn on_failure(field: &Option<Typed<String>>) -> Result<OnFailure, String> {
    let found = match field {
        None => return Ok(OnFailure::Continue),
        Some(Typed::Valid(value)) => match value.trim() {
            "continue" => return Ok(OnFailure::Continue),
            "block" => return Ok(OnFailure::Block),
            _ => Value::String(value.clone()),
        },
        Some(Typed::Wrong(other)) => other.clone(),
    };
    Err(format!(
        "on_failure: expected \"continue\" or \"block\", found {found}; the workspace fails closed until it is fixed"
    ))
}

/// `sidecar.max_body` written as `value`, which is no number of bytes above 0.
fn max_body_problem(value: &dyn std::fmt::Display) -> String {
    format!(
        "sidecar.max_body: expected a number of bytes above 0, found {value}; the default of {MAX_BODY} applies"
    )
}

fn log_destination(value: Option<&Typed<EventsLog>>) -> Result<LogDestination, String> {
    let found = match value {
        None | Some(Typed::Valid(EventsLog::Switch(true))) => return Ok(LogDestination::Default),
        Some(Typed::Valid(EventsLog::Switch(false))) => return Ok(LogDestination::Off),
        Some(Typed::Valid(EventsLog::Path(path))) if !path.trim().is_empty() => {
            return Ok(LogDestination::File(path.trim().into()));
        }
        Some(Typed::Valid(EventsLog::Path(blank))) => Value::String(blank.clone()),
        Some(Typed::Wrong(other)) => other.clone(),
    };
    Err(format!("expected a file path or false, found {found}"))
}

/// A setting of `config/agent.yaml` with a value of the wrong kind; the file has no positions
/// for values read from its parsed form, so the message names the key instead.
fn setting_error(file: &str, message: String) -> ConfigError {
    ConfigError::whole_file(file, message)
}

/// `llm_judge` in `config/agent.yaml`: `provider` (`anthropic`, the default, or `openai` for
/// any OpenAI-compatible server), `model`, `base_url` and `api_key_env`, each over the
/// provider's defaults.
fn judge_endpoint(field: &Option<Typed<Object<Judge>>>) -> Result<JudgeEndpoint, String> {
    let section = match field {
        None => return Ok(JudgeEndpoint::default()),
        Some(Typed::Valid(Object(section))) => section,
        Some(Typed::Wrong(other)) => {
            return Err(format!(
                "expected a map of provider, model, base_url, api_key_env; found {}",
                agent_hooks_core::wording::kind_of(other)
            ));
        }
    };
    let text = |key: &str, field: &Option<Typed<String>>| -> Result<Option<String>, String> {
        let found = match field {
            None => return Ok(None),
            Some(Typed::Valid(s)) if !s.trim().is_empty() => return Ok(Some(s.trim().to_owned())),
            Some(Typed::Valid(blank)) => Value::String(blank.clone()),
            Some(Typed::Wrong(other)) => other.clone(),
        };
        Err(format!("{key}: expected a non-empty string, found {found}"))
    };
    let provider = match text("provider", &section.provider)?.as_deref() {
        None | Some("anthropic") => Provider::Anthropic,
        Some("openai") => Provider::OpenAi,
        Some(other) => {
            return Err(format!(
                "provider \"{other}\" is not one of anthropic, openai (any OpenAI-compatible server)"
            ));
        }
    };
    let mut endpoint = JudgeEndpoint::defaults(provider);
    if let Some(model) = text("model", &section.model)? {
        endpoint.model = model;
    }
    if let Some(url) = text("base_url", &section.base_url)? {
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            return Err(format!(
                "base_url \"{url}\" must start with http:// or https://"
            ));
        }
        endpoint.base_url = url;
    }
    if let Some(key) = text("api_key_env", &section.api_key_env)? {
        endpoint.api_key_env = key;
    }
    Ok(endpoint)
}

fn parse(text: &str) -> Result<Value, serde_saphyr::Error> {
    Ok(serde_saphyr::from_str::<Option<Value>>(text)?.unwrap_or(Value::Null))
}

/// What keeps a parsed `config/agent.yaml` from holding the master switch: a document that is
/// not a mapping of settings, or a `shell_hooks` that is not a mapping. Writing the switch
/// into either would throw away what the user wrote, so it is refused instead.
/// Top-level keys that are no setting of ours but one letter or two away from one
/// (`on_faliure`): the file is the host's too, so other keys are its own, but a near miss of
/// ours is a typo that would otherwise leave the setting at its default without a word.
fn misspelt_settings(doc: &Value) -> Vec<String> {
    let ours = super::typed::field_names::<AgentFile>();
    super::typed::unknown_keys::<AgentFile>(doc)
        .into_iter()
        .filter_map(|key| {
            // Short names (`logs`) are too near too many words to guess at.
            let meant = agent_hooks_core::wording::nearest(&key, ours.iter().copied(), |d, c| {
                d <= 2 && c.len() >= 7
            })?;
            Some(format!(
                "{key}: not a setting agent-hooks reads{}; it has no effect",
                agent_hooks_core::wording::did_you_mean(Some(meant))
            ))
        })
        .collect()
}

fn shape_problem(doc: &Value) -> Option<String> {
    match doc {
        Value::Null => None,
        Value::Object(_) => match from_object::<AgentFile>(doc)?.shell_hooks {
            Some(Typed::Wrong(other)) => Some(format!(
                "shell_hooks: expected a mapping (such as \"enabled: true\"), found {}",
                agent_hooks_core::wording::kind_of(&other)
            )),
            None | Some(Typed::Valid(_)) => None,
        },
        other => Some(format!(
            "expected a mapping of settings (key: value lines), found {}",
            agent_hooks_core::wording::kind_of(other)
        )),
    }
}

/// Why the master switch could not be written.
#[derive(Debug, thiserror::Error)]
pub enum SwitchError {
    /// `config/agent.yaml` could not be read or written.
    #[error("failed to write {path}: {source}")]
    Io {
        /// The file, as shown to the user.
        path: String,
        /// The underlying failure.
        source: std::io::Error,
    },
    /// The file exists but does not parse; it is left as it is rather than rewritten.
    #[error("{0}; fix the file before flipping the switch (nothing was written)")]
    Unparseable(ConfigError),
}

/// Sets `shell_hooks.enabled` in `config/agent.yaml`, keeping everything else.
pub(crate) fn set_master_switch(ws: &Workspace, enabled: bool) -> Result<(), SwitchError> {
    let path = ws.agent_yaml();
    let display = ws.display(&path).into_owned();
    let io = |source| SwitchError::Io {
        path: display.clone(),
        source,
    };
    let _lock = FileLock::acquire(ws, &path).map_err(io)?;
    let old = store::read_optional(&path).map_err(io)?.unwrap_or_default();
    let before = parse(&old).map_err(|e| SwitchError::Unparseable(parse_error(&display, &e)))?;
    if let Some(why) = shape_problem(&before) {
        return Err(SwitchError::Unparseable(setting_error(&display, why)));
    }
    let new = edit_enabled(&old, &before, enabled);
    store::write_atomic(&path, new.as_bytes()).map_err(io)
}

/// Returns `text` with `shell_hooks.enabled` set. Edits the line in place where the section is
/// in block style; otherwise rewrites the document from its parsed form (keeping every key).
fn edit_enabled(text: &str, before: &Value, enabled: bool) -> String {
    let edited = edit_block_style(text, enabled);
    if let Some(edited) = edited
        && let Ok(after) = parse(&edited)
        && same_except_switch(before, &after, enabled)
    {
        return edited;
    }
    let mut doc = match before {
        Value::Object(map) => map.clone(),
        _ => serde_json::Map::new(),
    };
    let section = doc
        .entry("shell_hooks")
        .or_insert_with(|| Value::Object(serde_json::Map::new()));
    if !section.is_object() {
        *section = Value::Object(serde_json::Map::new());
    }
    if let Value::Object(s) = section {
        s.insert("enabled".into(), Value::Bool(enabled));
    }
    serde_saphyr::to_string(&Value::Object(doc))
        .unwrap_or_else(|_| format!("shell_hooks:\n  enabled: {enabled}\n"))
}

fn same_except_switch(before: &Value, after: &Value, enabled: bool) -> bool {
    let strip = |v: &Value| {
        let mut v = v.clone();
        if let Some(Value::Object(s)) = v.get_mut("shell_hooks") {
            s.remove("enabled");
        }
        v
    };
    let switched = after
        .get("shell_hooks")
        .and_then(|s| s.get("enabled"))
        .and_then(Value::as_bool)
        == Some(enabled);
    let before_doc = if before.is_null() {
        Value::Object(Default::default())
    } else {
        before.clone()
    };
    let mut b = strip(&before_doc);
    let mut a = strip(after);
    // A section that existed only to hold the switch is not "another key".
    for v in [&mut a, &mut b] {
        if let Value::Object(m) = v
            && m.get("shell_hooks")
                .is_some_and(|s| s.as_object().is_some_and(|o| o.is_empty()))
        {
            m.remove("shell_hooks");
        }
    }
    switched && a == b
}

fn edit_block_style(text: &str, enabled: bool) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    let value = if enabled { "true" } else { "false" };
    let header = lines.iter().position(|l| {
        let rest = l.strip_prefix("shell_hooks:");
        rest.is_some_and(|r| {
            let r = r.trim();
            r.is_empty() || r.starts_with('#')
        })
    });
    let mut out: Vec<String> = lines.iter().map(|l| (*l).to_owned()).collect();
    match header {
        None => {
            if lines.iter().any(|l| l.starts_with("shell_hooks")) {
                return None; // flow style or odd spelling: let the caller rewrite
            }
            if !text.is_empty() && !text.ends_with('\n') {
                out.push(String::new());
                let mut joined = out.join("\n");
                joined.push_str(&format!("shell_hooks:\n  enabled: {value}\n"));
                return Some(joined);
            }
            let mut s = text.to_owned();
            s.push_str(&format!("shell_hooks:\n  enabled: {value}\n"));
            Some(s)
        }
        Some(h) => {
            let mut indent: Option<String> = None;
            let mut end = lines.len();
            for (i, line) in lines.iter().enumerate().skip(h + 1) {
                let trimmed = line.trim_start();
                if trimmed.is_empty() || trimmed.starts_with('#') {
                    continue;
                }
                let ws_len = line.len() - trimmed.len();
                if ws_len == 0 {
                    end = i;
                    break;
                }
                let this_indent = &line[..ws_len];
                let first = indent.get_or_insert_with(|| this_indent.to_owned());
                if this_indent == first.as_str()
                    && let Some(rest) = trimmed.strip_prefix("enabled:")
                {
                    let comment = rest
                        .find(" #")
                        .map(|i| &rest[rest[..i].trim_end().len()..])
                        .unwrap_or("");
                    out[i] = format!("{this_indent}enabled: {value}{comment}");
                    return Some(join(out, text));
                }
            }
            let _ = end;
            let indent = indent.unwrap_or_else(|| "  ".to_owned());
            out.insert(h + 1, format!("{indent}enabled: {value}"));
            Some(join(out, text))
        }
    }
}

fn join(lines: Vec<String>, original: &str) -> String {
    let mut s = lines.join("\n");
    if original.ends_with('\n') || original.is_empty() {
        s.push('\n');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flip(text: &str, enabled: bool) -> String {
        let before = parse(text).expect("test input parses");
        edit_enabled(text, &before, enabled)
    }

    #[test]
    fn flips_in_place_keeping_comments_and_keys() {
        let text = "# host settings\nmodel: opus\nshell_hooks:\n  enabled: false  # master\n  self_approve: true\nother: {a: 1}\n";
        assert_eq!(
            flip(text, true),
            "# host settings\nmodel: opus\nshell_hooks:\n  enabled: true  # master\n  self_approve: true\nother: {a: 1}\n"
        );
    }

    #[test]
    fn adds_the_key_or_section_when_missing() {
        assert_eq!(
            flip("model: x\n", true),
            "model: x\nshell_hooks:\n  enabled: true\n"
        );
        assert_eq!(flip("", false), "shell_hooks:\n  enabled: false\n");
        assert_eq!(
            flip("shell_hooks:\n    self_approve: false\n", true),
            "shell_hooks:\n    enabled: true\n    self_approve: false\n"
        );
    }

    /// A workspace whose `config/agent.yaml` is `text`.
    fn workspace_with(text: &str) -> (tempfile::TempDir, Workspace) {
        let dir = tempfile::tempdir().expect("tempdir");
        let ws = Workspace::new(dir.path());
        std::fs::create_dir_all(dir.path().join("config")).expect("config dir");
        std::fs::write(ws.agent_yaml(), text).expect("write agent.yaml");
        (dir, ws)
    }

    #[test]
    fn a_document_that_is_not_a_mapping_is_left_as_it_is_and_said_to_be_wrong() {
        for text in [
            "- model: x\n- shell_hooks: {enabled: false}\n",
            "just a sentence\n",
            "42\n",
        ] {
            let (_dir, ws) = workspace_with(text);
            let refused = set_master_switch(&ws, true).expect_err(text);
            assert!(refused.to_string().contains("mapping"), "{text}: {refused}");
            let after = std::fs::read_to_string(ws.agent_yaml()).expect("read agent.yaml");
            assert_eq!(after, text, "the file was rewritten");
            let error = AgentSettings::load(&ws)
                .error
                .expect("a configuration error");
            assert!(error.message().contains("mapping"), "{text}: {error}");
        }
    }

    #[test]
    fn a_shell_hooks_section_that_is_not_a_mapping_is_left_as_it_is() {
        let text = "model: opus\nshell_hooks: yes please\n";
        let (_dir, ws) = workspace_with(text);
        let refused = set_master_switch(&ws, true).expect_err("a section that is no mapping");
        assert!(refused.to_string().contains("shell_hooks"), "{refused}");
        let after = std::fs::read_to_string(ws.agent_yaml()).expect("read agent.yaml");
        assert_eq!(after, text);
        let error = AgentSettings::load(&ws)
            .error
            .expect("a configuration error");
        assert!(error.message().contains("shell_hooks"), "{error}");
    }

    #[test]
    fn a_near_miss_of_a_setting_is_a_typo_told_and_the_hosts_own_keys_are_not() {
        let (_dir, ws) = workspace_with("model: opus\nlog: debug\non_faliure: block\n");
        let settings = AgentSettings::load(&ws);
        assert_eq!(settings.on_failure, OnFailure::Continue);
        let error = settings.error.expect("the typo is told");
        assert!(
            error.message().contains("on_faliure") && error.message().contains("on_failure"),
            "{error}"
        );
        let (_dir, ws) = workspace_with("model: opus\nlog: debug\nshell_hooks: {enabled: true}\n");
        assert_eq!(AgentSettings::load(&ws).error, None);
    }

    #[test]
    fn an_empty_shell_hooks_section_takes_the_switch() {
        let (_dir, ws) = workspace_with("model: opus\nshell_hooks:\n");
        set_master_switch(&ws, true).expect("an empty section is no section");
        let settings = AgentSettings::load(&ws);
        assert!(settings.shell_hooks_enabled);
        assert_eq!(settings.error, None);
        let doc = parse(&std::fs::read_to_string(ws.agent_yaml()).expect("read")).expect("parses");
        assert_eq!(doc["model"], "opus");
    }

    #[test]
    fn a_setting_of_the_wrong_kind_is_named_and_the_last_one_is_told() {
        let told = |text: &str| {
            let (_dir, ws) = workspace_with(text);
            let settings = AgentSettings::load(&ws);
            settings.error.map(|e| e.message().to_owned())
        };
        assert_eq!(
            told("shell_hooks:\n  enabled: \"yes\"\n").as_deref(),
            Some(
                "shell_hooks.enabled: expected true or false, found \"yes\"; the master switch stays off"
            )
        );
        assert_eq!(
            told("shell_hooks:\n  redo_cap: -1\n").as_deref(),
            Some(format!(
                "shell_hooks.redo_cap: expected a whole number (0 for no cap), found -1; the default of {} applies",
                agent_hooks_core::event::REDO_CAP
            ).as_str())
        );
        assert_eq!(
            told("sidecar:\n  max_body: 0\n").as_deref(),
            Some(format!("sidecar.max_body: expected a number of bytes above 0, found 0; the default of {MAX_BODY} applies").as_str())
        );
        assert_eq!(
            told("logs:\n  events: \" \"\n").as_deref(),
            Some(
                "logs.events: expected a file path or false, found \" \"; the log stays at logs/events.jsonl"
            )
        );
        let judge =
            told("sidecar:\n  max_body: []\nllm_judge:\n  model: \"\"\n").expect("an error");
        assert!(
            judge.starts_with("llm_judge: model: expected a non-empty string, found \"\"; prompt hooks use the defaults"),
            "{judge}"
        );
        let settings = {
            let (_dir, ws) = workspace_with(
                "shell_hooks:\n  enabled: true\n  redo_cap: 0\n  host_events: [pre_tool_call, 3]\nsidecar: {max_body: 10, host_lifecycle: true}\nlogs: {events: false}\n",
            );
            AgentSettings::load(&ws)
        };
        assert_eq!(settings.error, None);
        assert!(settings.shell_hooks_enabled && settings.self_approve && settings.host_lifecycle);
        assert_eq!(settings.redo_cap, None);
        assert_eq!(settings.max_body, 10);
        assert_eq!(settings.events_log, LogDestination::Off);
        assert_eq!(settings.host_events.map(|events| events.len()), Some(1));
    }

    #[test]
    fn flow_style_is_rewritten_with_every_key() {
        let out = flip(
            "model: x\nshell_hooks: {enabled: false, self_approve: true}\n",
            true,
        );
        let doc = parse(&out).expect("output parses");
        assert_eq!(doc["model"], "x");
        assert_eq!(doc["shell_hooks"]["enabled"], true);
        assert_eq!(doc["shell_hooks"]["self_approve"], true);
    }
}
