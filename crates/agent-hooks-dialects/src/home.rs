//! What every agent's home answers: [`AgentHome`], the one trait the bridge, the sidecar,
//! `convert` and the installers call for anything that differs from agent to agent — its
//! names and files, its event table, the shape of its hooks file, how its matchers compile,
//! how its hook input is read and its answer written. Each agent implements it once, in its
//! own module (`claude/home.rs`, `codex.rs`, `gemini.rs`, `cursor.rs`); `table.rs` maps an
//! [`Agent`] to its home. The vocabulary the trait speaks (tool aliases, the bridge's input
//! error, the rewrite permission) lives here too, so no agent's module owns another's words.

use std::collections::BTreeMap;
use std::fmt;

use serde_json::{Map, Value, json};

use crate::agent::{Agent, AgentAnswer, SourceKind};
use crate::matcher::Matcher;
use agent_hooks_core::event::Event;
use agent_hooks_core::outcome::{Lapse, Outcome};
use agent_hooks_core::store;
use agent_hooks_core::workspace::Workspace;

/// The timeout, in seconds, of a bridge entry an installer writes.
const BRIDGE_TIMEOUT_SECS: u64 = 120;

/// What an agent is called and where its files and routes are: one row of data per agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AgentNames {
    /// The short name: `claude`, `codex`.
    pub name: &'static str,
    /// How messages and docs name the agent (`Claude Code`).
    pub label: &'static str,
    /// The subcommand the agent runs as its bridge hook (`claude-hook`).
    pub hook_command: &'static str,
    /// The sidecar route that answers the agent's hook input in its own format.
    pub http_route: &'static str,
    /// The project file of hooks, relative to the workspace.
    pub config_file: &'static str,
    /// Which source the hooks declared in the agent's own configuration load as.
    pub source: SourceKind,
}

/// Everything about one agent that only its module knows. Implemented once per agent; a
/// fifth agent is a module with one more implementation and a row in `table.rs`.
pub trait AgentHome: Sync {
    /// What the agent is called and where its files and routes are.
    fn names(&self) -> &'static AgentNames;

    /// The short name: `claude`, `codex` — the prefix of its bridge commands and the value
    /// of `convert --from`.
    fn name(&self) -> &'static str {
        self.names().name
    }

    /// How messages and docs name the agent (`Claude Code`).
    fn label(&self) -> &'static str {
        self.names().label
    }

    /// The subcommand the agent runs as its bridge hook (`claude-hook`).
    fn hook_command(&self) -> &'static str {
        self.names().hook_command
    }

    /// The sidecar route that answers the agent's hook input in its own format.
    fn http_route(&self) -> &'static str {
        self.names().http_route
    }

    /// The project file of hooks, relative to the workspace: what the installer writes and
    /// what `convert` reads by default.
    fn config_file(&self) -> &'static str {
        self.names().config_file
    }

    /// The directories, relative to the user's home, that hold the agent's user-wide settings
    /// (read in every project): an installer whose file lands there must be told `--user`.
    fn user_config_dirs(&self) -> &'static [&'static str] {
        &[]
    }

    /// Which source the hooks declared in the agent's own configuration load as.
    fn source(&self) -> SourceKind {
        self.names().source
    }

    /// Whether the agent itself can call an HTTP hook (and so its installer has `--http`).
    fn has_http_hooks(&self) -> bool {
        false
    }

    /// Whether the sidecar serves the agent's route: not for an agent whose answer has no JSON
    /// form at all (Windsurf reads only an exit status, and calls no HTTP hook).
    fn has_sidecar_route(&self) -> bool {
        true
    }

    /// The answer that says "no opinion" on an event with no counterpart here (Cursor reads
    /// one JSON object from every hook).
    fn no_opinion(&self) -> &'static str {
        ""
    }

    /// Whether the agent's stop input carries the turn's last reply. When it does not (Cursor's
    /// `stop`), the bridge keeps the reply of the response event before it (per session, in
    /// the workspace's state, since each event is its own bridge process) and gives it to the
    /// stop hooks as `response`.
    fn stop_has_response(&self) -> bool {
        true
    }

    /// For an agent whose stop carries no reply ([`AgentHome::stop_has_response`]): keeps the
    /// reply of a response event, per session, in the runtime's directory, and gives it to the
    /// stop after it as `response` (once: the next turn's stop must not judge this reply).
    fn carry_response(&self, ws: &Workspace, event: Event, payload: &mut Map<String, Value>) {
        if self.stop_has_response() {
            return;
        }
        let session = payload
            .get("session_id")
            .and_then(Value::as_str)
            .unwrap_or("");
        if session.is_empty() {
            return;
        }
        // The runtime's own bookkeeping: never in the workspace's `state/`.
        let path = ws
            .runtime_dir()
            .join(format!("{}-bridge", self.name()))
            .join(format!("{}.response", store::filesystem_safe(session)));
        match event {
            Event::OnResponseEnd => {
                if let Some(text) = payload.get("response").and_then(Value::as_str) {
                    let _ = ws.create_runtime_dir();
                    if let Some(dir) = path.parent() {
                        let _ = std::fs::create_dir_all(dir);
                    }
                    let _ = store::write_atomic(&path, text.as_bytes());
                }
            }
            Event::OnStop => {
                let empty = payload
                    .get("response")
                    .and_then(Value::as_str)
                    .is_none_or(str::is_empty);
                if let Ok(Some(text)) = store::read_optional(&path)
                    && empty
                {
                    payload.insert("response".into(), Value::String(text));
                }
                let _ = std::fs::remove_file(&path);
            }
            _ => {}
        }
    }

    /// Why the agent does not call an HTTP hook on its event `name`, when it does not (the
    /// installer's `--http` then leaves the event out and says so).
    fn no_http_on(&self, _name: &str) -> Option<&'static str> {
        None
    }

    /// The environment variable the agent sets to its project directory for its hooks.
    fn project_dir_var(&self) -> Option<&'static str> {
        None
    }

    /// The agent's events that have a canonical twin, each with its twin, in the order its
    /// installer wires them: the one table both directions translate through.
    fn events(&self) -> Vec<(&'static str, Event)>;

    /// The agent's events its installer wires the bridge on: all of [`AgentHome::events`]
    /// unless some fire beside others for the same action.
    fn bridged_events(&self) -> Vec<&'static str> {
        self.events().into_iter().map(|(name, _)| name).collect()
    }

    /// The agent's events with no canonical twin: hooks on them are listed but never fire.
    fn unmapped_events(&self) -> &'static [&'static str];

    /// The canonical twin of the agent's event `name`, if it has one.
    fn twin_of(&self, name: &str) -> Option<Event> {
        self.events()
            .into_iter()
            .find(|(n, _)| *n == name)
            .map(|(_, event)| event)
    }

    /// The shape of the agent's hooks file.
    fn hooks_file(&self) -> HooksFile;

    /// Reads the text of the agent's hooks file into JSON; `Err` says why it cannot be.
    fn parse_config(&self, text: &str) -> Result<Value, String> {
        serde_json::from_str(text).map_err(|e| e.to_string())
    }

    /// Compiles the matcher `pattern` of a hook declared under the agent's event `event`:
    /// `None` when it matches everything.
    ///
    /// # Errors
    ///
    /// The pattern is not a valid regex.
    fn matcher(&self, event: &str, pattern: &str) -> Result<Option<Matcher>, regex::Error>;

    /// The host tool names ↔ the agent's tool names, as the agent names them by default.
    fn tool_aliases(&self) -> ToolAliases {
        ToolAliases::default()
    }

    /// The handler the installer writes for the agent to run `command` (its bridge).
    fn bridge_handler(&self, command: String) -> Value {
        json!({
            "type": "command",
            "command": command,
            "timeout": self.hooks_file().timeout_unit.whole(BRIDGE_TIMEOUT_SECS),
        })
    }

    /// The keys a handler of the agent's hooks file keeps its command and timeout under, and
    /// what its matchers can say: what `convert` reads and writes.
    fn handler_keys(&self) -> HandlerKeys {
        HandlerKeys::default()
    }

    /// The matcher the installer gives the group of its bridge entry on the event `name`.
    fn bridge_matcher(&self, _name: &str) -> Option<&'static str> {
        None
    }

    /// The host tools the agent's event `name` stands for, when the event is about some tools
    /// only (its matcher then narrows something else).
    fn tools_of(&self, _name: &str) -> Option<Vec<String>> {
        None
    }

    /// How the agent's tool matchers single out MCP tools: the prefix of their names
    /// (`mcp__` for Claude Code's `mcp__server__tool`); `None` when no matcher can.
    fn mcp_prefix(&self) -> Option<&'static str> {
        None
    }

    /// Whether the agent's event `name` is one for MCP tools only.
    fn mcp_only(&self, _name: &str) -> bool {
        false
    }

    /// The matcher a converted hook for `tools` gets under the agent's event `name`, when the
    /// event itself does not narrow it to them (the agent's names for them).
    fn tool_matcher(&self, _name: &str, _tools: &[String]) -> Option<String> {
        None
    }

    /// Whether the agent's event `name` is one for tool calls that succeeded only (its
    /// failures have an event of their own).
    fn is_success_event(&self, _name: &str) -> bool {
        false
    }

    /// Whether the agent's event `name` is one for failed tool calls only.
    fn is_failure_event(&self, _name: &str) -> bool {
        false
    }

    /// The agent's event names a converted hook goes under; none when it has no such event.
    fn events_for(&self, hook: &Selector<'_>) -> Vec<&'static str> {
        self.events()
            .into_iter()
            .find(|(_, event)| *event == hook.event)
            .map(|(name, _)| name)
            .into_iter()
            .collect()
    }

    /// The host tools the agent has no hook for at `event`.
    fn tools_without_hook(&self, _event: Event) -> &'static [&'static str] {
        &[]
    }

    /// Reads the agent's hook input into a canonical dispatch, with how to answer it.
    /// `aliases` are the configured Claude Code tool names; `rewrite` how Claude Code
    /// applies a rewritten input.
    ///
    /// # Errors
    ///
    /// [`InputError`] when `input` is not a hook input of the agent that maps to a canonical
    /// event.
    fn read_input(
        &self,
        input: &Value,
        aliases: &ToolAliases,
        rewrite: RewritePermission,
    ) -> Result<Bridged, InputError>;

    /// The workspace root the hook input itself names, for an agent that does not run its
    /// hooks from the project directory.
    fn input_workspace<'a>(&self, _input: &'a Value) -> Option<&'a str> {
        None
    }

    /// The answer to an input no event could be read from (`docs/agents.md`): `message` for
    /// the user in the agent's channel, exit 0, so the action goes on; with `block`, exit 2
    /// with `message` on stderr, which the agent reads as "do not go on" wherever its event
    /// can block (its JSON is not read then).
    fn unread_answer(&self, message: &str, block: bool) -> AgentAnswer {
        if block {
            return AgentAnswer {
                stdout: String::new(),
                stderr: message.to_owned(),
                exit: 2,
            };
        }
        AgentAnswer {
            stdout: json!({ "systemMessage": message }).to_string(),
            stderr: message.to_owned(),
            exit: 0,
        }
    }

    /// A deny said in JSON alone, for a channel with no exit status (an HTTP hook) when the
    /// event is not known: the fields that refuse on every event that can refuse, and
    /// `message` where the user reads it.
    fn deny_any(&self, message: &str) -> Value {
        json!({ "decision": "block", "reason": message, "systemMessage": message })
    }
}

/// The shape of an agent's hooks file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HooksFile {
    /// Each event lists matcher groups (`{"matcher": ..., "hooks": [handler, ...]}`);
    /// otherwise it lists handlers, each with its own `matcher` (Cursor).
    pub grouped: bool,
    /// Handlers say their `"type"` (`"command"`).
    pub typed: bool,
    /// The top-level `"version"` the file must carry, if any.
    pub version: Option<u64>,
    /// The unit of a handler's `timeout`.
    pub timeout_unit: TimeoutUnit,
}

/// Where a handler of an agent's hooks file keeps its command and timeout, and what its
/// matchers can say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HandlerKeys {
    /// The keys of the command, the first the one written (Copilot: `bash`, then `command`).
    pub command: &'static [&'static str],
    /// The key of the timeout, if a handler has one.
    pub timeout: Option<&'static str>,
    /// A flat handler's `matcher` is a list of tool names (Copilot's regex on `toolName`),
    /// rather than a pattern on the command or file (Cursor's).
    pub matcher_lists_tools: bool,
    /// Handlers can have a matcher at all (Windsurf's cannot: a hook runs on every action of
    /// its event).
    pub matchers: bool,
    /// Other handler fields the agent reads, which `convert` carries without a caveat when
    /// converting into the agent.
    pub known: &'static [&'static str],
}

impl Default for HandlerKeys {
    fn default() -> Self {
        HandlerKeys {
            command: &["command"],
            timeout: Some("timeout"),
            matcher_lists_tools: false,
            matchers: true,
            known: &[],
        }
    }
}

/// The unit an agent counts a hook's timeout in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeoutUnit {
    /// Seconds (Claude Code, Codex, Cursor).
    Seconds,
    /// Milliseconds (Gemini CLI).
    Milliseconds,
}

impl TimeoutUnit {
    /// A timeout written in this unit, in seconds.
    pub fn to_secs(self, timeout: f64) -> f64 {
        match self {
            TimeoutUnit::Seconds => timeout,
            TimeoutUnit::Milliseconds => timeout / 1000.0,
        }
    }

    /// `secs` seconds as written in this unit.
    pub fn from_secs(self, secs: f64) -> Value {
        match self {
            // A whole number stays one (`10`, not `10.0`), as a user writes it.
            TimeoutUnit::Seconds if secs.fract() == 0.0 && secs.abs() < 1e15 => json!(secs as i64),
            TimeoutUnit::Seconds => json!(secs),
            TimeoutUnit::Milliseconds => json!((secs * 1000.0).round() as u64),
        }
    }

    /// A whole number of seconds as written in this unit.
    pub fn whole(self, secs: u64) -> u64 {
        match self {
            TimeoutUnit::Seconds => secs,
            TimeoutUnit::Milliseconds => secs.saturating_mul(1000),
        }
    }
}

/// A hook being converted, in no agent's terms: what the target agent's home needs to pick
/// the events it goes under.
#[derive(Debug, Clone, Copy)]
pub struct Selector<'a> {
    /// The canonical event.
    pub event: Event,
    /// It was declared for failed tool calls only.
    pub failure: bool,
    /// It was declared for tool calls that succeeded only (Claude Code's `PostToolUse`);
    /// with neither this nor `failure`, it is for both.
    pub success_only: bool,
    /// The host tools it is for, when its matcher is a plain list of names.
    pub tools: Option<&'a [String]>,
    /// Its matcher, when that is not a plain list of tool names (for an MCP-only hook: the
    /// pattern on the MCP tool's name, if any).
    pub pattern: Option<&'a str>,
    /// It is for MCP tools only.
    pub mcp_only: bool,
}

impl Selector<'_> {
    /// Whether the hook selects every tool (no tool list and no pattern).
    pub fn every_tool(&self) -> bool {
        self.tools.is_none() && self.pattern.is_none() && !self.mcp_only
    }

    /// Whether the hook is for the host tool `tool`.
    pub fn has_tool(&self, tool: &str) -> bool {
        self.every_tool() || self.tools.unwrap_or_default().iter().any(|t| t == tool)
    }

    /// Whether the hook is for some tool besides `own` (every tool, a pattern, or a tool
    /// `own` does not list): for an agent with one event per kind of tool, whether its event
    /// for the other tools is wanted too.
    pub fn has_tool_besides(&self, own: &[&str]) -> bool {
        self.every_tool()
            || self.pattern.is_some()
            || self
                .tools
                .unwrap_or_default()
                .iter()
                .any(|t| !own.contains(&t.as_str()))
    }
}

/// Writes the canonical outcome of a bridged dispatch as the agent's answer.
pub type WriteAnswer = Box<dyn FnOnce(&Outcome) -> AgentAnswer + Send>;

/// An agent's hook input read into a canonical dispatch.
pub struct Bridged {
    /// The canonical event to dispatch.
    pub event: Event,
    /// The canonical payload.
    pub payload: Map<String, Value>,
    /// Writes the outcome in the shape of the event the input came as.
    pub answer: WriteAnswer,
    /// What of the input could not be read as the agent meant it (Cursor's MCP arguments
    /// that are not JSON), for the lapse rule.
    pub lapses: Vec<Lapse>,
}

impl fmt::Debug for Bridged {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Bridged")
            .field("event", &self.event)
            .field("payload", &self.payload)
            .finish_non_exhaustive()
    }
}

/// Why an agent's hook input cannot be dispatched.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    /// Stdin was not a hook input of the agent.
    #[error("the hook input is not a JSON object with a \"hook_event_name\"")]
    NotAnInput,
    /// An event of the agent that agent-hooks has no event for; the bridge should not be
    /// wired to it.
    #[error("{agent} event \"{name}\" has no counterpart in agent-hooks")]
    Unmapped {
        /// The agent that sent it.
        agent: Agent,
        /// The agent's name for the event.
        name: String,
    },
}

/// The permission decision sent with a rewritten tool input (`updatedInput`), which Claude
/// Code applies only together with one. `claude_hooks.rewrite_permission` in
/// `config/agent.yaml`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RewritePermission {
    /// `"ask"` (the default): Claude Code shows the user the rewritten input to confirm, so a
    /// rewrite never skips a prompt the user would have had.
    #[default]
    Ask,
    /// `"allow"`: the rewritten call runs without a prompt. This loosens Claude Code's
    /// permissions (its deny and ask rules still apply), so it is opt-in.
    Allow,
}

impl RewritePermission {
    /// The setting in `document` (`config/agent.yaml`); anything but `allow` is `ask`.
    pub fn from_settings(document: &Value) -> RewritePermission {
        let value = document
            .get("claude_hooks")
            .and_then(|c| c.get("rewrite_permission"))
            .and_then(Value::as_str);
        match value {
            Some("allow") => RewritePermission::Allow,
            _ => RewritePermission::Ask,
        }
    }

    /// The decision as Claude Code spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            RewritePermission::Ask => "ask",
            RewritePermission::Allow => "allow",
        }
    }
}

/// Host tool name ↔ an agent's tool name, so matchers like `Bash` or `Edit|Write` match this
/// host's tools. Claude Code's are configurable in `config/agent.yaml` under
/// `claude_hooks.tool_aliases`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolAliases {
    host_to_claude: BTreeMap<String, String>,
}

impl Default for ToolAliases {
    fn default() -> Self {
        let host_to_claude = [
            ("bash", "Bash"),
            ("edit_file", "Edit"),
            ("write_file", "Write"),
            ("read_file", "Read"),
        ]
        .into_iter()
        .map(|(h, c)| (h.to_owned(), c.to_owned()))
        .collect();
        ToolAliases { host_to_claude }
    }
}

impl ToolAliases {
    /// Exactly these (host name, agent name) pairs, for an agent with other tool names.
    pub fn from_pairs(pairs: &[(&str, &str)]) -> ToolAliases {
        ToolAliases {
            host_to_claude: pairs
                .iter()
                .map(|(h, c)| ((*h).to_owned(), (*c).to_owned()))
                .collect(),
        }
    }

    /// The defaults, overridden and extended by `overrides` (`claude_hooks.tool_aliases` in
    /// `config/agent.yaml`: host name → Claude Code name).
    pub fn with_overrides(overrides: Option<&Value>) -> ToolAliases {
        let mut aliases = ToolAliases::default();
        if let Some(Value::Object(map)) = overrides {
            for (host, claude) in map {
                if let Some(claude) = claude.as_str() {
                    aliases
                        .host_to_claude
                        .insert(host.clone(), claude.to_owned());
                }
            }
        }
        aliases
    }

    /// The agent's name for the host tool `host`; unaliased names pass through.
    pub fn to_claude<'a>(&'a self, host: &'a str) -> &'a str {
        self.host_to_claude.get(host).map_or(host, String::as_str)
    }

    /// The tool names of `payload` (`tool_name`, `tool_names`) that these aliases map to
    /// another name, as (host name, the name it stands for): what a guard is handed so it
    /// treats `shell_exec` aliased to `Bash` exactly as `Bash`.
    pub fn aliased_in(
        &self,
        payload: &serde_json::Map<String, serde_json::Value>,
    ) -> Vec<(String, String)> {
        use serde_json::Value;
        let names = payload
            .get("tool_name")
            .and_then(Value::as_str)
            .into_iter()
            .chain(
                payload
                    .get("tool_names")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str),
            );
        let mut pairs: Vec<(String, String)> = Vec::new();
        for name in names {
            let canonical = self.to_claude(name);
            if canonical != name && !pairs.iter().any(|(host, _)| host == name) {
                pairs.push((name.to_owned(), canonical.to_owned()));
            }
        }
        pairs
    }

    /// The host's name for the agent's tool `claude`; unaliased names pass through.
    pub fn to_host<'a>(&'a self, claude: &'a str) -> &'a str {
        self.host_to_claude
            .iter()
            .find(|(_, c)| c.as_str() == claude)
            .map_or(claude, |(h, _)| h.as_str())
    }
}
