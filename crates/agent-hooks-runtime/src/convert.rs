//! `agent-hooks convert --from <agent> --to <agent>`: one agent's hook configuration rewritten
//! in another's, for a user moving a policy by hand. Events go through the canonical event
//! (each agent's table), tool-name matchers through each agent's tool names, timeouts into the
//! target's unit. Whatever has no equivalent is reported, never dropped: an event the target
//! lacks is listed with its JSON, and a handler field the target does not know is kept as
//! written and named. A hook for MCP tools stays one for MCP tools (Cursor's MCP events,
//! Claude Code's and Codex's `mcp__` names), and a command's paths are rebased where the
//! agents run hooks from different directories (Cursor from `.cursor/`, the others from the
//! project) or name the project by different variables; a hook whose meaning cannot be kept
//! (MCP tools for Gemini CLI, `${CLAUDE_PLUGIN_ROOT}` outside a plugin) is not converted, and
//! says why. This workspace's own `config/shell_hooks.yaml` (the agent-hooks dialect) is an
//! end too, for hooks whose selection it can say: its matcher is a regex over the whole
//! payload, so a hook narrowed to some tools (or to a call's success) is not converted there.

use serde_json::{Map, Value, json};

use agent_hooks_core::event::Event;
use agent_hooks_dialects::agent::Agent;
use agent_hooks_dialects::claude::tool_names;
use agent_hooks_dialects::home::Selector;

/// The converted configuration and what could not be carried over as it was.
#[derive(Debug, Clone, PartialEq)]
pub struct Conversion {
    /// The target agent's configuration, one JSON object.
    pub output: Value,
    /// One line per thing with no equivalent (or converted with a caveat), for the user.
    pub notes: Vec<String>,
}

/// Why a configuration cannot be converted.
#[derive(Debug, thiserror::Error)]
pub enum ConvertError {
    /// The input is not JSON (or TOML for Codex's `config.toml`, YAML for agent-hooks).
    #[error("the {agent} configuration is not valid: {error}")]
    Unreadable {
        /// The format it was read as.
        agent: Format,
        /// What the parser said.
        error: String,
    },
    /// The input has no `hooks` object (a `hooks` list for agent-hooks).
    #[error("the {0} configuration has no \"hooks\"")]
    NoHooks(Format),
}

/// One end of a conversion: an agent's hooks file, or this workspace's own hooks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// An agent's project file of hooks.
    Agent(Agent),
    /// `config/shell_hooks.yaml`: hooks in the agent-hooks dialect.
    AgentHooks,
}

/// The name `--from`/`--to` give the agent-hooks dialect.
pub const AGENT_HOOKS: &str = "agent-hooks";

impl Format {
    /// How messages name it.
    pub fn label(self) -> &'static str {
        match self {
            Format::Agent(agent) => agent.label(),
            Format::AgentHooks => "agent-hooks",
        }
    }

    /// Its file in a workspace, relative to the root.
    pub fn config_file(self) -> &'static str {
        match self {
            Format::Agent(agent) => agent.config_file(),
            Format::AgentHooks => "config/shell_hooks.yaml",
        }
    }
}

impl std::fmt::Display for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.label())
    }
}

impl std::str::FromStr for Format {
    type Err = agent_hooks_dialects::agent::UnknownAgent;

    fn from_str(name: &str) -> Result<Format, Self::Err> {
        if name == AGENT_HOOKS {
            return Ok(Format::AgentHooks);
        }
        name.parse::<Agent>().map(Format::Agent)
    }
}

/// One handler, in no agent's terms.
#[derive(Debug, Clone)]
struct Entry {
    /// Where it was, for notes (`hooks.PreToolUse[0].hooks[1]`).
    at: String,
    event: Event,
    /// The source agent's event name.
    from_event: String,
    /// The source agent declared it for failed tool calls only.
    failure: bool,
    /// The source agent declared it for tool calls that succeeded only.
    success_only: bool,
    /// Tool names (host names) the matcher lists, when it is a plain list of names.
    tools: Option<Vec<String>>,
    /// The matcher as written, when it is not a plain list of tool names (for an MCP-only
    /// hook: the pattern on the MCP tool's name, if any).
    pattern: Option<String>,
    /// It is for MCP tools only.
    mcp_only: bool,
    command: String,
    timeout_secs: Option<f64>,
    /// Fields the neutral form does not carry (kept as written in the output).
    extra: Map<String, Value>,
}

/// Converts `text` (the `from` agent's configuration file) into the `to` agent's.
///
/// # Errors
///
/// [`ConvertError`] when `text` does not parse or has no `hooks` object.
pub fn convert(from: Agent, to: Agent, text: &str) -> Result<Conversion, ConvertError> {
    convert_between(Format::Agent(from), Format::Agent(to), text)
}

/// Converts `text` (the `from` file) into the `to` format; [`convert`] between any two ends,
/// the agent-hooks dialect included.
///
/// # Errors
///
/// [`ConvertError`] when `text` does not parse or has no hooks.
pub fn convert_between(from: Format, to: Format, text: &str) -> Result<Conversion, ConvertError> {
    let mut notes = Vec::new();
    let entries = match from {
        Format::Agent(agent) => {
            let doc = agent
                .home()
                .parse_config(text)
                .map_err(|error| ConvertError::Unreadable { agent: from, error })?;
            let Some(Value::Object(hooks)) = doc.get("hooks") else {
                return Err(ConvertError::NoHooks(from));
            };
            read(agent, hooks, &mut notes)
        }
        Format::AgentHooks => read_agent_hooks(text, &mut notes)?,
    };
    let output = match to {
        Format::Agent(agent) => write(from, agent, &entries, &mut notes),
        Format::AgentHooks => write_agent_hooks(from, &entries, &mut notes),
    };
    if !entries.is_empty() && from != to {
        notes.push(format!(
            "commands are copied as written: a script that reads {}'s input or prints its answers must be adapted to {}'s (docs/agents.md compares them)",
            from.label(),
            to.label()
        ));
    }
    Ok(Conversion { output, notes })
}

/// `config/shell_hooks.yaml`'s command hooks as neutral entries. A hook with a `matcher` (a
/// regex over the whole payload, which no agent's matcher means) or of another type is not
/// converted.
fn read_agent_hooks(text: &str, notes: &mut Vec<String>) -> Result<Vec<Entry>, ConvertError> {
    let doc: Value = serde_saphyr::from_str(text).map_err(|e| ConvertError::Unreadable {
        agent: Format::AgentHooks,
        error: e.to_string(),
    })?;
    let Some(Value::Array(hooks)) = doc.get("hooks") else {
        return Err(ConvertError::NoHooks(Format::AgentHooks));
    };
    let mut entries = Vec::new();
    for (i, hook) in hooks.iter().enumerate() {
        let at = format!("hooks[{i}]");
        let Some(hook) = hook.as_object() else {
            notes.push(format!("not converted: {at} is not an object: {hook}"));
            continue;
        };
        let mut extra = hook.clone();
        let whole = Value::Object(hook.clone());
        let kind = extra
            .remove("type")
            .and_then(|t| t.as_str().map(str::to_owned))
            .unwrap_or_else(|| "command".into());
        if kind != "command" {
            notes.push(format!(
                "not converted: {at}: type \"{kind}\" is this host's own; no agent runs it: {whole}"
            ));
            continue;
        }
        let event_name = extra
            .remove("event")
            .and_then(|e| e.as_str().map(str::to_owned))
            .unwrap_or_default();
        let event = match event_name.parse::<Event>() {
            Ok(event) => event,
            Err(e) => {
                notes.push(format!("not converted: {at}: {e}: {whole}"));
                continue;
            }
        };
        if let Some(matcher) = extra.remove("matcher") {
            notes.push(format!(
                "not converted: {at}: its matcher {matcher} is a regex over the whole payload, which no agent's matcher means: {whole}"
            ));
            continue;
        }
        let Some(command) = extra
            .remove("command")
            .and_then(|c| c.as_str().map(str::to_owned))
        else {
            notes.push(format!("not converted: {at}: no command: {whole}"));
            continue;
        };
        let timeout_secs = extra.remove("timeout").and_then(|t| t.as_f64());
        entries.push(Entry {
            at,
            event,
            from_event: event_name,
            failure: false,
            success_only: false,
            tools: None,
            pattern: None,
            mcp_only: false,
            command,
            timeout_secs,
            extra,
        });
    }
    Ok(entries)
}

/// Neutral entries as `config/shell_hooks.yaml` (written as JSON, which is YAML): only those
/// whose selection it can say — every call of their event.
fn write_agent_hooks(from: Format, entries: &[Entry], notes: &mut Vec<String>) -> Value {
    let mut hooks = Vec::new();
    for entry in entries {
        let narrowed = if entry.mcp_only {
            Some("it is for MCP tools only")
        } else if entry.tools.is_some() || entry.pattern.is_some() {
            Some("its matcher selects tools (or text) by name")
        } else if entry.failure || entry.success_only {
            Some("it runs only after calls that failed, or only after those that succeeded")
        } else {
            None
        };
        if let Some(why) = narrowed {
            notes.push(format!(
                "not converted: {} ({}): {why}, and an agent-hooks hook's matcher is a regex over the whole payload, which cannot say that: {}",
                entry.at, entry.from_event, entry.command
            ));
            continue;
        }
        let (command, rewritten) = match rebase(from, Format::AgentHooks, &entry.command) {
            Ok(rebased) => rebased,
            Err(why) => {
                notes.push(format!(
                    "not converted: {} ({}): {why}: {}",
                    entry.at, entry.from_event, entry.command
                ));
                continue;
            }
        };
        notes.extend(rewritten);
        let mut hook = Map::new();
        hook.insert("event".into(), json!(entry.event.name()));
        hook.insert("command".into(), json!(command));
        if let Some(secs) = entry.timeout_secs {
            hook.insert("timeout".into(), json!(secs));
        }
        for (key, value) in &entry.extra {
            notes.push(format!(
                "not converted: {}.{key}: agent-hooks has no such field: {value}",
                entry.at
            ));
        }
        hooks.push(Value::Object(hook));
    }
    json!({ "hooks": hooks })
}

/// The canonical event of `from`'s event `name`; `Err` with why not.
fn canonical(from: Agent, name: &str) -> Result<Event, String> {
    let home = from.home();
    home.twin_of(name).ok_or_else(|| {
        if home.unmapped_events().contains(&name) {
            format!("{name} has no counterpart in agent-hooks")
        } else {
            format!("{name} is not a {} event", from.label())
        }
    })
}

/// A matcher read as a list of host tool names, when it is a plain `A|B` list.
fn tool_list(from: Agent, pattern: &str) -> Option<Vec<String>> {
    let aliases = from.home().tool_aliases();
    let names = tool_names(pattern)?;
    Some(
        names
            .into_iter()
            .map(|n| aliases.to_host(n).to_owned())
            .collect(),
    )
}

fn read(from: Agent, hooks: &Map<String, Value>, notes: &mut Vec<String>) -> Vec<Entry> {
    let home = from.home();
    let file = home.hooks_file();
    let mut entries = Vec::new();
    for (name, groups) in hooks {
        let event = match canonical(from, name) {
            Ok(event) => event,
            Err(why) => {
                notes.push(format!("not converted: hooks.{name}: {why}: {groups}"));
                continue;
            }
        };
        let Some(groups) = groups.as_array() else {
            notes.push(format!(
                "not converted: hooks.{name} is not a list: {groups}"
            ));
            continue;
        };
        for (g, group) in groups.iter().enumerate() {
            // Grouped files put handlers under a matcher; the others (Cursor) list them.
            let (handlers, group_at, group_fields): (Vec<Value>, String, Map<String, Value>) =
                if !file.grouped {
                    (
                        vec![group.clone()],
                        format!("hooks.{name}[{g}]"),
                        Map::new(),
                    )
                } else {
                    let handlers = group
                        .get("hooks")
                        .and_then(Value::as_array)
                        .cloned()
                        .unwrap_or_default();
                    let mut fields = group.as_object().cloned().unwrap_or_default();
                    fields.remove("hooks");
                    (handlers, format!("hooks.{name}[{g}]"), fields)
                };
            let mut group_fields = group_fields;
            let matcher = group_fields
                .remove("matcher")
                .and_then(|m| m.as_str().map(str::to_owned));
            for (h, handler) in handlers.iter().enumerate() {
                let at = if !file.grouped {
                    group_at.clone()
                } else {
                    format!("{group_at}.hooks[{h}]")
                };
                let Some(handler) = handler.as_object() else {
                    notes.push(format!("not converted: {at} is not an object: {handler}"));
                    continue;
                };
                let mut extra = handler.clone();
                let kind = extra
                    .remove("type")
                    .and_then(|t| t.as_str().map(str::to_owned))
                    .unwrap_or_else(|| "command".into());
                let keys = home.handler_keys();
                let command = keys
                    .command
                    .iter()
                    .filter_map(|k| extra.remove(*k))
                    .find_map(|c| c.as_str().map(str::to_owned));
                let Some(command) = command else {
                    notes.push(format!(
                        "not converted: {at}: a \"{kind}\" handler has no command to carry over: {}",
                        Value::Object(handler.clone())
                    ));
                    continue;
                };
                if kind != "command" {
                    notes.push(format!(
                        "not converted: {at}: type \"{kind}\" has no equivalent: {}",
                        Value::Object(handler.clone())
                    ));
                    continue;
                }
                // Copilot's `timeoutSec` has `timeout` for an alias.
                let timeout_secs = keys
                    .timeout
                    .and_then(|k| extra.remove(k))
                    .or_else(|| keys.timeout.and_then(|_| extra.remove("timeout")))
                    .and_then(|t| t.as_f64())
                    .map(|t| file.timeout_unit.to_secs(t));
                let matcher = if !file.grouped {
                    extra
                        .remove("matcher")
                        .and_then(|m| m.as_str().map(str::to_owned))
                } else {
                    matcher.clone()
                };
                let mcp = mcp_selection(from, name, matcher.as_deref());
                let (tools, pattern) = home
                    .tools_of(name)
                    .map(|t| (Some(t), matcher.clone()))
                    .unwrap_or_else(|| match matcher.as_deref().map(str::trim) {
                        None | Some("" | "*") => (None, None),
                        Some(p) => match tool_list(from, p) {
                            Some(list) if is_tool_event(event) => (Some(list), None),
                            _ => (None, Some(p.to_owned())),
                        },
                    });
                let mcp_only = mcp.is_some();
                let (tools, pattern) = match mcp {
                    Some(inner) => (None, inner),
                    None => (tools, pattern),
                };
                for (key, value) in &group_fields {
                    extra.insert(key.clone(), value.clone());
                }
                if !keys.matchers && is_tool_event(event) && tools.is_none() {
                    notes.push(format!(
                        "widened: {at} ({name}): converted for every tool, as {} runs it for the tools it has no event of their own for (MCP tools); add a matcher if the target should narrow it: {command}",
                        from.label()
                    ));
                }
                entries.push(Entry {
                    at,
                    event,
                    from_event: name.clone(),
                    failure: home.is_failure_event(name),
                    success_only: home.is_success_event(name),
                    tools,
                    pattern,
                    mcp_only,
                    command,
                    timeout_secs,
                    extra,
                });
            }
        }
    }
    subsumed(entries)
}

/// `entries` without those a hook for every tool of the same event and command already
/// covers: an agent with one event per kind of tool (Cascade) holds an every-tool hook as one
/// entry per event, and one of them already reads as every tool; written out with the others,
/// the command would run twice for those tools.
fn subsumed(entries: Vec<Entry>) -> Vec<Entry> {
    let every_tool = |e: &Entry| e.tools.is_none() && e.pattern.is_none() && !e.mcp_only;
    let covered = |e: &Entry| {
        !every_tool(e)
            && entries.iter().any(|other| {
                every_tool(other)
                    && other.event == e.event
                    && other.command == e.command
                    && other.failure == e.failure
                    && other.success_only == e.success_only
            })
    };
    let keep: Vec<bool> = entries.iter().map(|e| !covered(e)).collect();
    entries
        .into_iter()
        .zip(keep)
        .filter_map(|(e, keep)| keep.then_some(e))
        .collect()
}

/// Whether `from`'s hook under `name` with `matcher` is for MCP tools only: `Some` with the
/// pattern on the tool's name, if any. Cursor says it by its event; Claude Code and Codex by
/// a matcher of their `mcp__` prefix — `mcp__.*`, or `mcp__.*(?:P)` as written here for a
/// pattern on the name.
fn mcp_selection(from: Agent, name: &str, matcher: Option<&str>) -> Option<Option<String>> {
    let home = from.home();
    let matcher = matcher
        .map(str::trim)
        .filter(|m| !m.is_empty() && *m != "*");
    if home.mcp_only(name) {
        return Some(matcher.map(str::to_owned));
    }
    let rest = matcher?
        .strip_prefix(home.mcp_prefix()?)?
        .strip_prefix(".*")?;
    if rest.is_empty() {
        return Some(None);
    }
    let inner = rest.strip_prefix("(?:")?.strip_suffix(')')?;
    Some(Some(inner.to_owned()))
}

/// The project directory as a command of `agent` names it, and where `agent` runs a hook's
/// command from relative to the project (`.cursor` for Cursor).
fn project_dir(format: Format) -> (String, &'static str) {
    match format {
        // agent-hooks runs a hook from the workspace: a relative path is already rooted.
        Format::AgentHooks => (String::new(), ""),
        Format::Agent(Agent::Cursor) => ("\"$CURSOR_PROJECT_DIR\"".to_owned(), ".cursor"),
        // Copilot runs a hook from the repository root, Cascade from the workspace root, and
        // neither names it in a variable: a relative path is rooted already.
        Format::Agent(Agent::Copilot | Agent::Windsurf) => (String::new(), ""),
        Format::Agent(other) => match other.home().project_dir_var() {
            Some(var) => (format!("\"${var}\""), ""),
            // Codex sets no variable: its reference names the repository's top level.
            None => ("\"$(git rev-parse --show-toplevel)\"".to_owned(), ""),
        },
    }
}

/// Whether `format` runs hooks from the project root without a variable naming it (agent-hooks,
/// Copilot, Cascade): its relative paths are the project's, which another agent may have to
/// root.
fn rooted_without_a_name(format: Format) -> bool {
    matches!(
        format,
        Format::AgentHooks | Format::Agent(Agent::Copilot | Agent::Windsurf)
    )
}

/// The variable `format`'s hooks find the project in, when there is one.
fn project_var(format: Format) -> Option<&'static str> {
    match format {
        Format::AgentHooks => Some(agent_hooks_core::workspace::WORKSPACE_ENV),
        Format::Agent(Agent::Cursor) => Some("CURSOR_PROJECT_DIR"),
        Format::Agent(other) => other.home().project_dir_var(),
    }
}

/// Whether `line` needs a shell to run as written (agent-hooks runs a command as its words).
fn needs_shell(line: &str) -> bool {
    line.contains([
        '$', '`', '|', '&', ';', '<', '>', '(', ')', '*', '?', '~', '{', '}', '[', '#', '\n',
    ]) || shell_words::split(line).is_err()
}

/// `command` as `to` must write it to run the same files as under `from`: the project
/// variable renamed, and relative paths rebased where the two run hooks from different
/// directories. `Err` when it cannot mean the same under `to`.
fn rebase(from: Format, to: Format, command: &str) -> Result<(String, Option<String>), String> {
    if from == to {
        return Ok((command.to_owned(), None));
    }
    if command.contains("CLAUDE_PLUGIN_ROOT") {
        return Err(
            "it names ${CLAUDE_PLUGIN_ROOT}, which only Claude Code sets, for a plugin's hooks; copy the plugin's files into the project and name them from there".into(),
        );
    }
    let (from_root, from_dir) = project_dir(from);
    let (to_root, to_dir) = project_dir(to);
    let mut out = command.to_owned();
    if from == Format::AgentHooks {
        // Its command is words, run without a shell; `sh -c '…'` is a shell line already.
        if let Ok(words) = shell_words::split(command)
            && let [shell, flag, line] = words.as_slice()
            && matches!(shell.as_str(), "sh" | "bash")
            && flag == "-c"
        {
            out = line.clone();
        }
    }
    // The project, as the target names it: rooted paths become relative for agent-hooks.
    let mut roots: Vec<String> = Vec::new();
    if !from_root.is_empty() {
        roots.push(from_root.clone());
    }
    if let Some(var) = project_var(from) {
        roots.extend([
            format!("\"${{{var}}}\""),
            format!("${{{var}}}"),
            format!("${var}"),
        ]);
    }
    for root in &roots {
        if to == Format::AgentHooks {
            out = out.replace(&format!("{root}/"), "");
            out = out.replace(root, "\"$AGENT_HOOKS_WORKSPACE\"");
        } else if to_root.is_empty() {
            // An agent that runs hooks from the project root: `./` runs a script there.
            out = out.replace(&format!("{root}/"), "./");
            out = out.replace(root, ".");
        } else {
            out = out.replace(root, &to_root);
        }
    }
    if from_dir != to_dir || rooted_without_a_name(from) {
        // Words that are relative paths resolve against the directory hooks run from; from
        // agent-hooks, that is the workspace, which an agent's hooks name by its variable.
        let words = shell_words::split(&out).unwrap_or_default();
        for word in words {
            let relative =
                (word.starts_with("./") || word.starts_with("../") || word.contains('/'))
                    && !word.starts_with('/')
                    && !word.starts_with('$')
                    && !word.starts_with('~')
                    && !word.starts_with('"')
                    && !word.contains("://");
            if !relative || !out.contains(&word) {
                continue;
            }
            let in_project = normalize(&format!("{from_dir}/{word}"));
            let rebased = match (to_dir, to_root.as_str()) {
                // An agent's shell needs `./` to run a script of the directory it is in.
                ("", "") if to != Format::AgentHooks && !in_project.starts_with('/') => {
                    format!("./{in_project}")
                }
                ("", "") => in_project,
                ("", root) => format!("{root}/{in_project}"),
                (dir, _) => match in_project.strip_prefix(&format!("{dir}/")) {
                    Some(inside) => format!("./{inside}"),
                    None => format!("../{in_project}"),
                },
            };
            out = out.replacen(&word, &rebased, 1);
        }
    }
    // Back into Cursor's own directory: `"$CURSOR_PROJECT_DIR"/.cursor/x` is `./x` there.
    if to == Format::Agent(Agent::Cursor) {
        out = out.replace(&format!("{to_root}/.cursor/"), "./");
    }
    if to == Format::AgentHooks && needs_shell(&out) {
        out = format!("sh -c {}", shell_words::quote(&out));
    }
    let place = |dir: &str| if dir.is_empty() { "the project" } else { dir }.to_owned();
    let why = if from_dir == to_dir {
        format!(
            "{} and {} name the project differently",
            from.label(),
            to.label()
        )
    } else {
        format!(
            "{} runs hooks from {}, {} from {}",
            from.label(),
            place(from_dir),
            to.label(),
            place(to_dir)
        )
    };
    let note = (out != command).then(|| {
        format!(
            "rewritten for {}: \"{command}\" → \"{out}\" ({why})",
            to.label()
        )
    });
    Ok((out, note))
}

/// A relative path with `.` and `..` resolved (never above its start).
fn normalize(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            part => parts.push(part),
        }
    }
    parts.join("/")
}

fn is_tool_event(event: Event) -> bool {
    matches!(event, Event::PreToolCall | Event::PostToolCall)
}

/// The target's event names for `entry` (an agent may split a tool event by tool).
fn target_events(to: Agent, entry: &Entry) -> Vec<&'static str> {
    to.home().events_for(&Selector {
        event: entry.event,
        failure: entry.failure,
        success_only: entry.success_only,
        tools: entry.tools.as_deref(),
        pattern: entry.pattern.as_deref(),
        mcp_only: entry.mcp_only,
    })
}

fn write(from: Format, to: Agent, entries: &[Entry], notes: &mut Vec<String>) -> Value {
    let home = to.home();
    let file = home.hooks_file();
    let mut hooks: Map<String, Value> = Map::new();
    let aliases = home.tool_aliases();
    let keys = home.handler_keys();
    for entry in entries {
        let (command, rewritten) = match rebase(from, Format::Agent(to), &entry.command) {
            Ok(rebased) => rebased,
            Err(why) => {
                notes.push(format!(
                    "not converted: {} ({}): {why}: {}",
                    entry.at, entry.from_event, entry.command
                ));
                continue;
            }
        };
        let mcp_events = home.events().iter().any(|(name, _)| home.mcp_only(name));
        if entry.mcp_only && !mcp_events && home.mcp_prefix().is_none() {
            notes.push(format!(
                "not converted: {} ({}): it is for MCP tools only, and no {} matcher singles them out: {}",
                entry.at,
                entry.from_event,
                to.label(),
                entry.command
            ));
            continue;
        }
        notes.extend(rewritten);
        let names = target_events(to, entry);
        if entry.success_only
            && !names.iter().any(|n| home.is_success_event(n))
            && !names.is_empty()
        {
            notes.push(format!(
                "widened: {} ({}): {} has no event for calls that succeeded only, so it also runs after failed ones: {}",
                entry.at,
                entry.from_event,
                to.label(),
                entry.command
            ));
        }
        let missing = home.tools_without_hook(entry.event);
        for tool in entry
            .tools
            .iter()
            .flatten()
            .filter(|t| missing.contains(&t.as_str()))
        {
            notes.push(format!(
                "not converted: {} ({}): {} has no {} hook for {tool}: {}",
                entry.at,
                entry.from_event,
                to.label(),
                entry.event.name(),
                entry.command
            ));
        }
        if names.is_empty() {
            notes.push(format!(
                "not converted: {} ({}): {} has no {} event for it: {}",
                entry.at,
                entry.from_event,
                entry.event.name(),
                to.label(),
                entry.command
            ));
            continue;
        }
        // Without matchers (Windsurf), a hook for some tools only could only become a hook
        // for more of them.
        let widened = entry.pattern.is_some()
            || (entry.tools.is_some() && names.iter().any(|n| home.tools_of(n).is_none()));
        if !keys.matchers && widened {
            notes.push(format!(
                "not converted: {} ({}): {} hooks have no matcher, so it would run for more than {}: {}",
                entry.at,
                entry.from_event,
                to.label(),
                entry
                    .pattern
                    .clone()
                    .or_else(|| entry.tools.as_ref().map(|t| t.join(", ")))
                    .unwrap_or_default(),
                entry.command
            ));
            continue;
        }
        let mut handler = Map::new();
        if file.typed {
            handler.insert("type".into(), json!("command"));
        }
        handler.insert(keys.command[0].into(), json!(command));
        if let Some(secs) = entry.timeout_secs {
            match keys.timeout {
                Some(key) => {
                    handler.insert(key.into(), file.timeout_unit.from_secs(secs));
                }
                None => notes.push(format!(
                    "not kept: {}.timeout ({secs}s): {} hooks have no timeout",
                    entry.at,
                    to.label()
                )),
            }
        }
        for (key, value) in &entry.extra {
            if keys.known.contains(&key.as_str()) {
                handler.insert(key.clone(), value.clone());
                continue;
            }
            notes.push(format!(
                "kept as written: {}.{key}: {} has no such field (it ignores it): {value}",
                entry.at,
                to.label()
            ));
            handler.insert(key.clone(), value.clone());
        }
        let mcp_matcher = home
            .mcp_prefix()
            .filter(|_| entry.mcp_only && file.grouped)
            .map(|prefix| match &entry.pattern {
                None => format!("{prefix}.*"),
                Some(inner) => format!("{prefix}.*(?:{inner})"),
            });
        let matcher = match (&entry.tools, &entry.pattern) {
            _ if mcp_matcher.is_some() => mcp_matcher,
            (Some(list), pattern) if file.grouped || keys.matcher_lists_tools => {
                if let Some(pattern) = pattern {
                    notes.push(format!(
                        "not converted: {}.matcher \"{pattern}\": {} matches it against the command or file, {} matches tool names only",
                        entry.at,
                        from.label(),
                        to.label()
                    ));
                }
                Some(
                    list.iter()
                        .map(|t| aliases.to_claude(t).to_owned())
                        .collect::<Vec<_>>()
                        .join("|"),
                )
            }
            (_, Some(pattern)) => {
                notes.push(format!(
                    "kept as written: {}: the matcher \"{pattern}\" is a pattern, not a list of tool names; check it against {}'s names",
                    entry.at,
                    to.label()
                ));
                Some(pattern.clone())
            }
            _ => None,
        };
        for name in names {
            let list = hooks
                .entry(name)
                .or_insert_with(|| Value::Array(Vec::new()));
            let Value::Array(list) = list else { continue };
            let written =
                |list: &[Value], handler: &Map<String, Value>, matcher: Option<&Value>| {
                    list.iter().any(|h| {
                        let inner = h.get("hooks").and_then(Value::as_array);
                        let same_matcher = h.get("matcher") == matcher;
                        match inner {
                            Some(inner) => {
                                same_matcher
                                    && inner
                                        .iter()
                                        .any(|i| i.get("command") == handler.get("command"))
                            }
                            None => h.get("command") == handler.get("command") && same_matcher,
                        }
                    })
                };
            let matcher_value = matcher.as_ref().map(|m| json!(m));
            if file.grouped && written(list, &handler, matcher_value.as_ref()) {
                // Two source hooks that are one here (a call's success and failure).
                continue;
            }
            if !file.grouped {
                let mut handler = handler.clone();
                let narrowed = || {
                    entry
                        .tools
                        .as_deref()
                        .and_then(|tools| home.tool_matcher(name, tools))
                };
                if keys.matcher_lists_tools {
                    if let Some(matcher) = &matcher {
                        handler.insert("matcher".into(), json!(matcher));
                    }
                } else if let Some(pattern) = entry.pattern.clone().or_else(narrowed) {
                    handler.insert("matcher".into(), json!(pattern));
                }
                // Two source hooks that are one here (a call's success and failure).
                if !list.contains(&Value::Object(handler.clone())) {
                    list.push(Value::Object(handler));
                }
            } else {
                let mut group = Map::new();
                if let Some(matcher) = &matcher {
                    group.insert("matcher".into(), json!(matcher));
                }
                group.insert("hooks".into(), json!([handler.clone()]));
                list.push(Value::Object(group));
            }
        }
    }
    let mut out = Map::new();
    if let Some(version) = file.version {
        out.insert("version".into(), json!(version));
    }
    out.insert("hooks".into(), Value::Object(hooks));
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_claude_bash_guard_becomes_a_gemini_shell_guard_in_milliseconds() {
        let claude = r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": "guard.sh", "timeout": 5, "statusMessage": "checking"}]}],
            "PreCompact": [{"hooks": [{"type": "command", "command": "save.sh"}]}]}}"#;
        let Ok(c) = convert(Agent::ClaudeCode, Agent::Gemini, claude) else {
            unreachable!("valid input")
        };
        let group = &c.output["hooks"]["BeforeTool"][0];
        assert_eq!(group["matcher"], "run_shell_command");
        assert_eq!(group["hooks"][0]["timeout"], 5000);
        assert_eq!(group["hooks"][0]["statusMessage"], "checking");
        assert!(
            c.notes
                .iter()
                .any(|n| n.contains("PreCompact") && n.contains("save.sh"))
        );
        assert!(c.notes.iter().any(|n| n.contains("statusMessage")));
    }

    #[test]
    fn a_cursor_shell_hook_becomes_a_codex_bash_hook_and_back() {
        let cursor =
            r#"{"version": 1, "hooks": {"beforeShellExecution": [{"command": "./hooks/g.sh"}]}}"#;
        let Ok(c) = convert(Agent::Cursor, Agent::Codex, cursor) else {
            unreachable!("valid input")
        };
        assert_eq!(c.output["hooks"]["PreToolUse"][0]["matcher"], "Bash");
        let back = convert(Agent::Codex, Agent::Cursor, &c.output.to_string());
        let Ok(back) = back else {
            unreachable!("valid input")
        };
        assert_eq!(
            back.output["hooks"]["beforeShellExecution"][0]["command"],
            "./hooks/g.sh"
        );
        assert!(back.output["hooks"].get("beforeMCPExecution").is_none());
    }

    #[test]
    fn every_pair_converts_without_losing_a_mapped_hook() {
        let claude = r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "stop.sh"}]}],
            "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "prompt.sh"}]}]}}"#;
        for to in Agent::ALL {
            let Ok(c) = convert(Agent::ClaudeCode, to, claude) else {
                unreachable!("valid input")
            };
            let text = c.output.to_string();
            // Windsurf has no event at the end of a turn: its Stop hook is named, not lost.
            let stops = |a: Agent| a.reaches(Event::OnStop);
            assert!(
                text.contains("stop.sh") == stops(to) && text.contains("prompt.sh"),
                "{to}: {text}"
            );
            assert!(stops(to) || c.notes.iter().any(|n| n.contains("stop.sh")));
            for back in Agent::ALL {
                let Ok(again) = convert(to, back, &text) else {
                    unreachable!("{to} → {back}")
                };
                let again = again.output.to_string();
                assert!(
                    again.contains("stop.sh") == (stops(to) && stops(back))
                        && again.contains("prompt.sh"),
                    "{to} → {back}: {again}"
                );
            }
        }
    }
}
