//! The Cursor dialect, both ways, in one place: Cursor's agent-hook events and their canonical
//! twins (one canonical event may be several Cursor events: a shell command, an MCP tool and a
//! file read are all `pre_tool_call`), the stdin a hook declared in `.cursor/hooks.json` reads,
//! its answer read with Cursor's rules (`permission`, `user_message`/`agent_message`,
//! `continue`, `followup_message`), and the other direction for the `cursor-hook` bridge.

use serde_json::{Map, Value, json};

use super::PayloadView;
use super::claude::{Sent, bridge_log};
use super::read::{self, Ended, Fields, parse_object};
use crate::agent::{Agent, AgentAnswer, SourceKind};
use crate::home::{
    AgentHome, AgentNames, Bridged, HooksFile, InputError, RewritePermission, Selector,
    TimeoutUnit, ToolAliases,
};
use crate::matcher::Matcher;
use agent_hooks_core::answer::{Answer, Decision, Unusable};
use agent_hooks_core::diag::DiagKind;
use agent_hooks_core::event::Event;
use agent_hooks_core::outcome::{Lapse, LapseKind, Outcome};
use agent_hooks_transports::Reply;

/// A Cursor hook event that has a canonical twin.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CursorEvent {
    /// `beforeSubmitPrompt` ↔ `on_user_message`.
    BeforeSubmitPrompt,
    /// `beforeShellExecution` ↔ `pre_tool_call` of the shell tool.
    BeforeShellExecution,
    /// `beforeMCPExecution` ↔ `pre_tool_call` of any other tool.
    BeforeMcpExecution,
    /// `beforeReadFile` ↔ `pre_tool_call` of `read_file`.
    BeforeReadFile,
    /// `afterShellExecution` ↔ `post_tool_call` of the shell tool.
    AfterShellExecution,
    /// `afterMCPExecution` ↔ `post_tool_call` of any other tool.
    AfterMcpExecution,
    /// `afterFileEdit` ↔ `post_tool_call` of `edit_file` / `write_file`.
    AfterFileEdit,
    /// `afterAgentResponse` ↔ `on_response_end`.
    AfterAgentResponse,
    /// `stop` ↔ `on_stop` (a `followup_message` is a redo).
    Stop,
    /// `sessionStart` ↔ `on_session_start` (`additional_context` is context).
    SessionStart,
    /// `sessionEnd` ↔ `on_session_end`.
    SessionEnd,
    /// `preToolUse` ↔ `pre_tool_call` of every tool, beside the tool-specific events.
    PreToolUse,
    /// `postToolUse` ↔ `post_tool_call` of every tool that succeeded.
    PostToolUse,
    /// `postToolUseFailure` ↔ `post_tool_call` of every tool that failed.
    PostToolUseFailure,
}

/// Cursor event names and their canonical twins.
pub const CURSOR_EVENTS: [(&str, CursorEvent, Event); 14] = [
    (
        "beforeSubmitPrompt",
        CursorEvent::BeforeSubmitPrompt,
        Event::OnUserMessage,
    ),
    (
        "beforeShellExecution",
        CursorEvent::BeforeShellExecution,
        Event::PreToolCall,
    ),
    (
        "beforeMCPExecution",
        CursorEvent::BeforeMcpExecution,
        Event::PreToolCall,
    ),
    (
        "beforeReadFile",
        CursorEvent::BeforeReadFile,
        Event::PreToolCall,
    ),
    (
        "afterShellExecution",
        CursorEvent::AfterShellExecution,
        Event::PostToolCall,
    ),
    (
        "afterMCPExecution",
        CursorEvent::AfterMcpExecution,
        Event::PostToolCall,
    ),
    (
        "afterFileEdit",
        CursorEvent::AfterFileEdit,
        Event::PostToolCall,
    ),
    (
        "afterAgentResponse",
        CursorEvent::AfterAgentResponse,
        Event::OnResponseEnd,
    ),
    ("stop", CursorEvent::Stop, Event::OnStop),
    (
        "sessionStart",
        CursorEvent::SessionStart,
        Event::OnSessionStart,
    ),
    ("sessionEnd", CursorEvent::SessionEnd, Event::OnSessionEnd),
    ("preToolUse", CursorEvent::PreToolUse, Event::PreToolCall),
    ("postToolUse", CursorEvent::PostToolUse, Event::PostToolCall),
    (
        "postToolUseFailure",
        CursorEvent::PostToolUseFailure,
        Event::PostToolCall,
    ),
];

/// The events the installer wires the bridge on: the generic tool events are left out, since
/// Cursor fires them beside the tool-specific ones (a shell command would be judged twice),
/// and the tool-specific ones are in every Cursor that has hooks. A failed call has no
/// specific event, so `postToolUseFailure` is wired.
const BRIDGED_GENERIC: &[CursorEvent] = &[CursorEvent::PostToolUseFailure];

/// Cursor events with no canonical twin: hooks on them are listed but never fire here.
pub const CURSOR_UNMAPPED_EVENTS: &[&str] = &[
    "afterAgentThought",
    "beforeTabFileRead",
    "afterTabFileEdit",
    "subagentStart",
    "subagentStop",
    "preCompact",
];

/// Cursor's names of the host's own tools in `preToolUse`/`postToolUse` (other tools, MCP's
/// among them, keep their names both ways).
const CURSOR_TOOLS: [(&str, &str); 5] = [
    ("Shell", SHELL_TOOL),
    ("Read", READ_TOOL),
    ("Write", "write_file"),
    ("Edit", "edit_file"),
    ("Grep", "grep"),
];

/// The host's name for a tool Cursor names `name`.
fn host_tool(name: &str) -> &str {
    CURSOR_TOOLS
        .iter()
        .find(|(cursor, _)| *cursor == name)
        .map_or(name, |(_, host)| host)
}

/// Cursor's name for the host's tool `name`.
fn cursor_tool(name: &str) -> &str {
    CURSOR_TOOLS
        .iter()
        .find(|(_, host)| *host == name)
        .map_or(name, |(cursor, _)| cursor)
}

/// The host's tool names Cursor has hooks of its own for.
const SHELL_TOOL: &str = "bash";
const READ_TOOL: &str = "read_file";
const EDIT_TOOLS: [&str; 2] = ["edit_file", "write_file"];

impl CursorEvent {
    /// The event called `name` by Cursor, if it has a twin.
    pub fn parse(name: &str) -> Option<CursorEvent> {
        super::named(&CURSOR_EVENTS, name)
    }

    /// Cursor's name for the event.
    pub fn name(self) -> &'static str {
        super::name_of(&CURSOR_EVENTS, self)
    }

    /// The canonical event it is dispatched as.
    pub fn canonical(self) -> Event {
        super::twin_of(&CURSOR_EVENTS, self).unwrap_or(Event::OnUserMessage)
    }

    /// The Cursor event a canonical dispatch corresponds to, if any: on the tool events the
    /// tool decides (Cursor has no hook before an edit, nor after a read).
    pub fn of(event: Event, payload: &Map<String, Value>) -> Option<CursorEvent> {
        let tool = payload
            .get("tool_name")
            .and_then(Value::as_str)
            .unwrap_or("");
        match event {
            Event::OnUserMessage => Some(CursorEvent::BeforeSubmitPrompt),
            Event::PreToolCall => match tool {
                SHELL_TOOL => Some(CursorEvent::BeforeShellExecution),
                READ_TOOL => Some(CursorEvent::BeforeReadFile),
                t if EDIT_TOOLS.contains(&t) => None,
                _ => Some(CursorEvent::BeforeMcpExecution),
            },
            Event::PostToolCall => {
                if payload.get("status").and_then(Value::as_str) == Some("blocked") {
                    return None;
                }
                match tool {
                    SHELL_TOOL => Some(CursorEvent::AfterShellExecution),
                    READ_TOOL => None,
                    t if EDIT_TOOLS.contains(&t) => Some(CursorEvent::AfterFileEdit),
                    _ => Some(CursorEvent::AfterMcpExecution),
                }
            }
            Event::OnResponseEnd => Some(CursorEvent::AfterAgentResponse),
            Event::OnStop => Some(CursorEvent::Stop),
            Event::OnSessionStart => Some(CursorEvent::SessionStart),
            Event::OnSessionEnd => Some(CursorEvent::SessionEnd),
            _ => None,
        }
    }

    /// Whether a hook declared under this event runs at a canonical dispatch: the
    /// tool-specific events on their tools ([`CursorEvent::of`]), the generic tool events on
    /// every tool (a failure apart from a success).
    pub fn fires_on(self, event: Event, payload: &Map<String, Value>) -> bool {
        let status = payload.get("status").and_then(Value::as_str);
        match self {
            CursorEvent::PreToolUse => event == Event::PreToolCall,
            CursorEvent::PostToolUse => {
                event == Event::PostToolCall && !matches!(status, Some("error" | "blocked"))
            }
            CursorEvent::PostToolUseFailure => {
                event == Event::PostToolCall && status == Some("error")
            }
            specific => CursorEvent::of(event, payload) == Some(specific),
        }
    }

    /// Whether the installer wires the bridge on this event.
    pub fn bridged(self) -> bool {
        !matches!(
            self,
            CursorEvent::PreToolUse | CursorEvent::PostToolUse | CursorEvent::PostToolUseFailure
        ) || BRIDGED_GENERIC.contains(&self)
    }

    /// Whether the event asks Cursor's permission (`permission` is read).
    fn asks_permission(self) -> bool {
        matches!(
            self,
            CursorEvent::BeforeShellExecution
                | CursorEvent::BeforeMcpExecution
                | CursorEvent::BeforeReadFile
                | CursorEvent::PreToolUse
        )
    }
}

/// Compiles a Cursor hook's `matcher`: empty or `*` match everything (`None`), anything else
/// is an unanchored regex.
///
/// # Errors
///
/// The pattern is not a valid regex.
pub fn compile_matcher(pattern: &str) -> Result<Option<Matcher>, regex::Error> {
    if pattern.trim().is_empty() || pattern == "*" {
        return Ok(None);
    }
    Ok(Some(Matcher::new(
        pattern.to_owned(),
        regex::Regex::new(pattern)?,
    )))
}

/// Cursor, as an [`AgentHome`]: a flat list of handlers per event, a `version`, and one
/// canonical tool event split by tool into several of its own.
#[derive(Debug, Clone, Copy)]
pub struct Cursor;

impl AgentHome for Cursor {
    fn user_config_dirs(&self) -> &'static [&'static str] {
        &[".cursor"]
    }

    fn names(&self) -> &'static AgentNames {
        &AgentNames {
            name: "cursor",
            label: "Cursor",
            hook_command: "cursor-hook",
            http_route: "/v1/hooks/cursor",
            config_file: ".cursor/hooks.json",
            source: SourceKind::Cursor,
        }
    }

    fn events(&self) -> Vec<(&'static str, Event)> {
        CURSOR_EVENTS.iter().map(|(n, _, e)| (*n, *e)).collect()
    }

    fn unmapped_events(&self) -> &'static [&'static str] {
        CURSOR_UNMAPPED_EVENTS
    }

    fn bridged_events(&self) -> Vec<&'static str> {
        CURSOR_EVENTS
            .iter()
            .filter(|(_, c, _)| c.bridged())
            .map(|(n, _, _)| *n)
            .collect()
    }

    fn is_failure_event(&self, name: &str) -> bool {
        name == CursorEvent::PostToolUseFailure.name()
    }

    fn is_success_event(&self, name: &str) -> bool {
        name == CursorEvent::PostToolUse.name()
    }

    fn mcp_only(&self, name: &str) -> bool {
        matches!(
            CursorEvent::parse(name),
            Some(CursorEvent::BeforeMcpExecution | CursorEvent::AfterMcpExecution)
        )
    }

    fn tool_aliases(&self) -> ToolAliases {
        ToolAliases::from_pairs(&CURSOR_TOOLS.map(|(cursor, host)| (host, cursor)))
    }

    /// The generic tool events are narrowed by a matcher of Cursor's tool names.
    fn tool_matcher(&self, name: &str, tools: &[String]) -> Option<String> {
        matches!(
            CursorEvent::parse(name),
            Some(
                CursorEvent::PreToolUse
                    | CursorEvent::PostToolUse
                    | CursorEvent::PostToolUseFailure
            )
        )
        .then(|| {
            tools
                .iter()
                .map(|t| cursor_tool(t))
                .collect::<Vec<_>>()
                .join("|")
        })
    }

    fn hooks_file(&self) -> HooksFile {
        HooksFile {
            grouped: false,
            typed: false,
            version: Some(1),
            timeout_unit: TimeoutUnit::Seconds,
        }
    }

    fn matcher(&self, _event: &str, pattern: &str) -> Result<Option<Matcher>, regex::Error> {
        compile_matcher(pattern)
    }

    /// Cursor's handlers are a command alone.
    fn bridge_handler(&self, command: String) -> Value {
        json!({ "command": command })
    }

    fn tools_of(&self, name: &str) -> Option<Vec<String>> {
        if self.mcp_only(name) {
            return None;
        }
        let tools: &[&str] = match CursorEvent::parse(name)? {
            CursorEvent::BeforeShellExecution | CursorEvent::AfterShellExecution => &[SHELL_TOOL],
            CursorEvent::BeforeReadFile => &[READ_TOOL],
            CursorEvent::AfterFileEdit => &EDIT_TOOLS,
            _ => return None,
        };
        Some(tools.iter().map(|t| (*t).to_owned()).collect())
    }

    /// Before a call: the shell, the file read, and MCP for every other tool; after it: the
    /// shell, the file edit, and MCP again.
    fn events_for(&self, hook: &Selector<'_>) -> Vec<&'static str> {
        let pre = hook.event == Event::PreToolCall;
        if pre || hook.event == Event::PostToolCall {
            // A failure, MCP tools, or every tool: one event says exactly that.
            if hook.failure {
                return if pre {
                    Vec::new()
                } else {
                    vec![CursorEvent::PostToolUseFailure.name()]
                };
            }
            if hook.mcp_only {
                let mcp = if pre {
                    CursorEvent::BeforeMcpExecution
                } else {
                    CursorEvent::AfterMcpExecution
                };
                return vec![mcp.name()];
            }
            if hook.every_tool() {
                return match (pre, hook.success_only) {
                    (true, _) => vec![CursorEvent::PreToolUse.name()],
                    (false, true) => vec![CursorEvent::PostToolUse.name()],
                    (false, false) => vec![
                        CursorEvent::PostToolUse.name(),
                        CursorEvent::PostToolUseFailure.name(),
                    ],
                };
            }
        }
        let (shell, mcp, file, file_tools): (_, _, _, &[&str]) = match hook.event {
            Event::PreToolCall => (
                CursorEvent::BeforeShellExecution,
                CursorEvent::BeforeMcpExecution,
                CursorEvent::BeforeReadFile,
                &[READ_TOOL],
            ),
            Event::PostToolCall => (
                CursorEvent::AfterShellExecution,
                CursorEvent::AfterMcpExecution,
                CursorEvent::AfterFileEdit,
                &EDIT_TOOLS,
            ),
            other => {
                return CURSOR_EVENTS
                    .iter()
                    .find(|(_, _, e)| *e == other)
                    .map(|(n, _, _)| *n)
                    .into_iter()
                    .collect();
            }
        };
        let other = hook.has_tool_besides(&[SHELL_TOOL, READ_TOOL, EDIT_TOOLS[0], EDIT_TOOLS[1]]);
        let mut names = Vec::new();
        if hook.has_tool(SHELL_TOOL) {
            names.push(shell.name());
        }
        if other {
            names.push(mcp.name());
        }
        if file_tools.iter().any(|t| hook.has_tool(t)) {
            names.push(file.name());
        }
        names
    }

    /// Cursor has no hook before an edit, nor after a read.
    fn tools_without_hook(&self, event: Event) -> &'static [&'static str] {
        match event {
            Event::PreToolCall => &EDIT_TOOLS,
            Event::PostToolCall => &[READ_TOOL],
            _ => &[],
        }
    }

    fn read_input(
        &self,
        input: &Value,
        _aliases: &ToolAliases,
        _rewrite: RewritePermission,
    ) -> Result<Bridged, InputError> {
        let t = from_cursor(input)?;
        let event = t.cursor.canonical();
        let sent = Sent::of_event(event, &t.payload);
        let cursor = t.cursor;
        Ok(Bridged {
            event,
            payload: t.payload,
            answer: Box::new(move |outcome| to_cursor(cursor, outcome, &sent)),
            lapses: t.lapses,
        })
    }

    fn no_opinion(&self) -> &'static str {
        "{}"
    }

    /// Cursor's `stop` says only how the loop ended; the reply came in `afterAgentResponse`.
    fn stop_has_response(&self) -> bool {
        false
    }

    /// Cursor refuses a call with `permission: "deny"` and a prompt with `continue: false`.
    fn deny_any(&self, message: &str) -> Value {
        json!({
            "permission": "deny",
            "continue": false,
            "user_message": message,
            "agent_message": message,
        })
    }

    /// Cursor reads `user_message` as the message for the user; exit 2 is its deny.
    fn unread_answer(&self, message: &str, block: bool) -> AgentAnswer {
        AgentAnswer {
            stdout: if block {
                String::new()
            } else {
                json!({ "user_message": message }).to_string()
            },
            stderr: message.to_owned(),
            exit: if block { 2 } else { 0 },
        }
    }

    /// Cursor runs hooks from the directory of `hooks.json`, not from the project: its first
    /// `workspace_roots` entry is the project.
    fn input_workspace<'a>(&self, input: &'a Value) -> Option<&'a str> {
        input.get("workspace_roots")?.as_array()?.first()?.as_str()
    }
}

/// What a Cursor hook's `matcher` is matched against: the command on the shell events, the
/// tool name on the MCP events, the file on the file events; `None` elsewhere.
pub fn match_target(cursor: CursorEvent, payload: &Map<String, Value>) -> Option<String> {
    let input = payload.get("tool_input");
    let input_text = |k: &str| {
        input
            .and_then(|i| i.get(k))
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned()
    };
    match cursor {
        CursorEvent::BeforeShellExecution | CursorEvent::AfterShellExecution => {
            Some(input_text("command"))
        }
        CursorEvent::BeforeMcpExecution | CursorEvent::AfterMcpExecution => Some(
            payload
                .get("tool_name")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned(),
        ),
        CursorEvent::BeforeReadFile | CursorEvent::AfterFileEdit => Some(file_path(payload)),
        CursorEvent::PreToolUse | CursorEvent::PostToolUse | CursorEvent::PostToolUseFailure => {
            Some(
                cursor_tool(
                    payload
                        .get("tool_name")
                        .and_then(Value::as_str)
                        .unwrap_or(""),
                )
                .to_owned(),
            )
        }
        CursorEvent::BeforeSubmitPrompt
        | CursorEvent::AfterAgentResponse
        | CursorEvent::Stop
        | CursorEvent::SessionStart
        | CursorEvent::SessionEnd => None,
    }
}

/// The file a tool call reads or edits (`file_path`, or `path`).
fn file_path(payload: &Map<String, Value>) -> String {
    let input = payload.get("tool_input");
    ["file_path", "path"]
        .into_iter()
        .find_map(|k| input.and_then(|i| i.get(k)).and_then(Value::as_str))
        .unwrap_or("")
        .to_owned()
}

/// A value as the text Cursor passes (a string stays itself; anything else is JSON).
fn as_text(value: Option<&Value>) -> String {
    match value {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    }
}

/// Cursor's hook input for a canonical payload; `root` is the workspace (Cursor's
/// `workspace_roots`).
pub fn cursor_input(
    cursor: CursorEvent,
    payload: &Map<String, Value>,
    root: &str,
) -> Map<String, Value> {
    let text = |k: &str| as_text(payload.get(k));
    let mut input = Map::new();
    input.insert("conversation_id".into(), json!(text("session_id")));
    let generation = ["generation_id", "turn_id"]
        .into_iter()
        .map(&text)
        .find(|s| !s.is_empty())
        .unwrap_or_default();
    input.insert("generation_id".into(), json!(generation));
    if let Some(model) = payload.get("model").filter(|m| m.is_string()) {
        input.insert("model".into(), model.clone());
    }
    input.insert("hook_event_name".into(), json!(cursor.name()));
    input.insert("workspace_roots".into(), json!([root]));
    let tool_input = payload.get("tool_input");
    let field = |k: &str| tool_input.and_then(|i| i.get(k)).cloned();
    let cwd = || {
        let cwd = text("cwd");
        json!(if cwd.is_empty() { root.to_owned() } else { cwd })
    };
    match cursor {
        CursorEvent::BeforeSubmitPrompt => {
            input.insert("prompt".into(), json!(text("message")));
            input.insert("attachments".into(), json!([]));
        }
        CursorEvent::BeforeShellExecution | CursorEvent::AfterShellExecution => {
            input.insert("command".into(), json!(as_text(field("command").as_ref())));
            input.insert("cwd".into(), cwd());
            if cursor == CursorEvent::AfterShellExecution {
                input.insert("output".into(), json!(text("tool_result")));
                input.insert(
                    "duration".into(),
                    payload.get("duration").cloned().unwrap_or(json!(0)),
                );
            }
        }
        CursorEvent::BeforeMcpExecution | CursorEvent::AfterMcpExecution => {
            input.insert("tool_name".into(), json!(text("tool_name")));
            input.insert("tool_input".into(), json!(as_text(tool_input)));
            if cursor == CursorEvent::AfterMcpExecution {
                input.insert("result_json".into(), json!(text("tool_result")));
                input.insert(
                    "duration".into(),
                    payload.get("duration").cloned().unwrap_or(json!(0)),
                );
            }
        }
        CursorEvent::BeforeReadFile => {
            input.insert("file_path".into(), json!(file_path(payload)));
            input.insert("content".into(), json!(as_text(field("content").as_ref())));
            input.insert("attachments".into(), json!([]));
        }
        CursorEvent::AfterFileEdit => {
            input.insert("file_path".into(), json!(file_path(payload)));
            let edits = field("edits").unwrap_or_else(|| {
                json!([{
                    "old_string": as_text(field("old_string").as_ref()),
                    "new_string": as_text(field("new_string").or_else(|| field("content")).as_ref()),
                }])
            });
            input.insert("edits".into(), edits);
        }
        CursorEvent::AfterAgentResponse => {
            input.insert("text".into(), json!(text("response")));
        }
        CursorEvent::Stop => {
            input.insert("status".into(), json!("completed"));
            input.insert(
                "loop_count".into(),
                payload.get("redo_count").cloned().unwrap_or(json!(0)),
            );
        }
        CursorEvent::SessionStart | CursorEvent::SessionEnd => {
            input.insert("session_id".into(), json!(text("session_id")));
            input.insert(
                "is_background_agent".into(),
                payload
                    .get("is_background_agent")
                    .cloned()
                    .unwrap_or(json!(false)),
            );
            if cursor == CursorEvent::SessionStart {
                let mode = text("composer_mode");
                input.insert(
                    "composer_mode".into(),
                    json!(if mode.is_empty() { "agent" } else { &mode }),
                );
            } else {
                let reason = ["reason", "status"]
                    .into_iter()
                    .map(&text)
                    .find(|s| !s.is_empty())
                    .unwrap_or_else(|| "completed".to_owned());
                input.insert("reason".into(), json!(reason));
                input.insert(
                    "duration_ms".into(),
                    payload.get("duration_ms").cloned().unwrap_or(json!(0)),
                );
            }
        }
        CursorEvent::PreToolUse | CursorEvent::PostToolUse | CursorEvent::PostToolUseFailure => {
            input.insert("tool_name".into(), json!(cursor_tool(&text("tool_name"))));
            input.insert(
                "tool_input".into(),
                tool_input.cloned().unwrap_or_else(|| json!({})),
            );
            input.insert("tool_use_id".into(), json!(text("tool_use_id")));
            input.insert("cwd".into(), cwd());
            let duration = || payload.get("duration").cloned().unwrap_or(json!(0));
            if cursor == CursorEvent::PostToolUse {
                input.insert("tool_output".into(), json!(text("tool_result")));
                input.insert("duration".into(), duration());
            } else if cursor == CursorEvent::PostToolUseFailure {
                input.insert("error_message".into(), json!(text("tool_result")));
                input.insert("failure_type".into(), json!("error"));
                input.insert("duration".into(), duration());
                input.insert("is_interrupt".into(), json!(false));
            }
        }
    }
    input
}

/// The canonical payload as a Cursor hook's stdin for `cursor`: one JSON line in Cursor's field
/// names, with the workspace's root as the project.
pub fn input(view: &PayloadView<'_>, cursor: CursorEvent) -> Vec<u8> {
    let root = view.ws.root().to_string_lossy();
    let input = cursor_input(cursor, view.payload, &root);
    let mut bytes = serde_json::to_vec(&input).unwrap_or_else(|_| b"{}".to_vec());
    bytes.push(b'\n');
    bytes
}

/// The answer keys Cursor reads, in both spellings its documents use.
const KNOWN_KEYS: &[&str] = &[
    "additional_context",
    "updated_input",
    "updated_mcp_tool_output",
    "env",
    "permission",
    "user_message",
    "userMessage",
    "agent_message",
    "agentMessage",
    "continue",
    "followup_message",
    "followupMessage",
];

/// Reads a Cursor hook's exit code and stdout with Cursor's rules: exit 0 with one JSON
/// object decides; exit 2 denies with stderr as the message, as Claude Code's convention that
/// Cursor follows; any other exit, or stdout that is not JSON, fails open.
pub fn interpret(cursor: CursorEvent, reply: &Reply) -> Result<Answer, Unusable> {
    if let Ended::Two(stderr) = read::ended(reply, "Cursor lets the action proceed")? {
        let reason = if stderr.is_empty() {
            "blocked by a Cursor hook (exit 2)".to_owned()
        } else {
            stderr
        };
        return Ok(denied(cursor, reason, None));
    }
    let stdout = read::stdout_text(reply)?;
    let Some(object) = parse_object(stdout)? else {
        return Ok(Answer::default());
    };
    decode(cursor, &object)
}

/// A denial on `cursor`: the action does not happen (a prompt is not sent, a call not made,
/// the turn not ended); after an action it can only be shown.
fn denied(cursor: CursorEvent, reason: String, user: Option<String>) -> Answer {
    let mut answer = Answer::default();
    match cursor {
        CursorEvent::BeforeSubmitPrompt
        | CursorEvent::BeforeShellExecution
        | CursorEvent::BeforeMcpExecution
        | CursorEvent::BeforeReadFile
        | CursorEvent::PreToolUse
        | CursorEvent::Stop => {
            answer.decision = Some(Decision::Block);
            answer.reason = Some(reason.clone());
        }
        CursorEvent::AfterShellExecution
        | CursorEvent::AfterMcpExecution
        | CursorEvent::AfterFileEdit
        | CursorEvent::AfterAgentResponse
        | CursorEvent::SessionStart
        | CursorEvent::SessionEnd
        | CursorEvent::PostToolUse
        | CursorEvent::PostToolUseFailure => answer.warnings.push(reason.clone()),
    }
    if let Some(user) = user.filter(|u| *u != reason) {
        answer.warnings.push(user);
    }
    answer
}

/// Decodes a Cursor JSON answer with Cursor's rules.
fn decode(cursor: CursorEvent, object: &Map<String, Value>) -> Result<Answer, Unusable> {
    let mut fields = Fields::new(object);
    let either = |fields: &mut Fields<'_>, a: &str, b: &str| -> Result<Option<String>, Unusable> {
        Ok(fields.string(a)?.or(fields.string(b)?))
    };
    let user = either(&mut fields, "user_message", "userMessage")?;
    let agent = either(&mut fields, "agent_message", "agentMessage")?;
    let followup = either(&mut fields, "followup_message", "followupMessage")?;
    let permission = fields.string("permission")?;
    let mut answer = Answer::default();
    let reason = || {
        agent
            .clone()
            .or_else(|| user.clone())
            .unwrap_or_else(|| "denied by a Cursor hook".to_owned())
    };
    match permission.as_deref() {
        None | Some("allow") => {}
        Some(_) if !cursor.asks_permission() => answer.problems.push((
            DiagKind::HookInvalidOutput,
            format!("\"permission\" is not read on {}; ignored", cursor.name()),
        )),
        Some("deny") => answer = denied(cursor, reason(), user.clone()),
        Some("ask") => {
            answer.decision = Some(Decision::Ask);
            answer.reason = Some(reason());
        }
        Some(other) => {
            return Err(Unusable {
                kind: DiagKind::HookInvalidOutput,
                detail: format!("permission \"{other}\" is not one of allow, deny, ask"),
            });
        }
    }
    match object.get("continue") {
        None | Some(Value::Null) | Some(Value::Bool(true)) => {}
        Some(Value::Bool(false)) if cursor == CursorEvent::BeforeSubmitPrompt => {
            let why = user
                .clone()
                .unwrap_or_else(|| "a Cursor hook stopped this prompt".to_owned());
            answer = denied(cursor, why, None);
        }
        Some(Value::Bool(false)) => answer.problems.push((
            DiagKind::HookInvalidOutput,
            format!(
                "\"continue\" is read on beforeSubmitPrompt only, not {}; ignored",
                cursor.name()
            ),
        )),
        Some(other) => return Err(read::wrong_type("continue", "a boolean", other)),
    }
    if let Some(followup) = followup {
        if cursor == CursorEvent::Stop {
            // Cursor sends it as the next user message: the agent goes on (a redo).
            answer.decision = Some(Decision::Block);
            answer.reason = Some(followup);
        } else {
            answer.problems.push((
                DiagKind::HookInvalidOutput,
                format!(
                    "followup_message is read on stop only, not {}; ignored",
                    cursor.name()
                ),
            ));
        }
    }
    read_generic(cursor, object, &mut answer)?;
    if answer.decision.is_none()
        && let Some(user) =
            user.filter(|_| permission.as_deref() == Some("allow") || cursor.asks_permission())
    {
        answer.warnings.push(user);
    }
    for key in object.keys() {
        if !KNOWN_KEYS.contains(&key.as_str()) {
            answer.problems.push((
                DiagKind::HookInvalidOutput,
                format!("\"{key}\" is not a Cursor hook output field; ignored"),
            ));
        }
    }
    Ok(answer)
}

/// The fields of the newer events' answers: `additional_context` (context at session start,
/// a note to the model after a tool), `updated_input` before a tool, `updated_mcp_tool_output`
/// after one; `env` is Cursor's to set for its later hooks and has no effect here.
fn read_generic(
    cursor: CursorEvent,
    object: &Map<String, Value>,
    answer: &mut Answer,
) -> Result<(), Unusable> {
    let mut fields = Fields::new(object);
    let context = fields.string("additional_context")?;
    let ignored = |answer: &mut Answer, key: &str| {
        answer.problems.push((
            DiagKind::HookInvalidOutput,
            format!("\"{key}\" is not read on {}; ignored", cursor.name()),
        ));
    };
    match (cursor, context) {
        (_, None) => {}
        (CursorEvent::SessionStart, Some(text)) => answer.context.push(text),
        (CursorEvent::PostToolUse, Some(text)) => answer.notes.push(text),
        (_, Some(_)) => ignored(answer, "additional_context"),
    }
    match (cursor, object.get("updated_input")) {
        (_, None | Some(Value::Null)) => {}
        (CursorEvent::PreToolUse, Some(Value::Object(updated))) => {
            answer.rewrites.push(agent_hooks_core::answer::Rewrite {
                field: "tool_input".into(),
                value: Value::Object(updated.clone()),
                rule: Some(agent_hooks_core::event::RewriteRule::Replace),
            });
        }
        (CursorEvent::PreToolUse, Some(other)) => {
            return Err(read::wrong_type("updated_input", "an object", other));
        }
        (_, Some(_)) => ignored(answer, "updated_input"),
    }
    match (cursor, object.get("updated_mcp_tool_output")) {
        (_, None | Some(Value::Null)) => {}
        (CursorEvent::PostToolUse, Some(output)) => {
            answer.rewrites.push(agent_hooks_core::answer::Rewrite {
                field: "tool_result".into(),
                value: output.clone(),
                rule: Some(agent_hooks_core::event::RewriteRule::Replace),
            });
        }
        (_, Some(_)) => ignored(answer, "updated_mcp_tool_output"),
    }
    if object.contains_key("env") {
        answer.problems.push((
            DiagKind::HookInvalidOutput,
            "\"env\" sets variables for Cursor's later hooks; this host does not apply it".into(),
        ));
    }
    Ok(())
}

/// Cursor's default `loop_limit` of a stop hook: the follow-ups of one turn it may ask for.
pub const DEFAULT_LOOP_LIMIT: u64 = 5;

/// A stop hook's follow-up past its `loop_limit` is not sent, as in Cursor: the turn ends, and
/// the user is told.
pub fn hold_loop_limit(
    cursor: CursorEvent,
    limit: Option<u64>,
    payload: &Map<String, Value>,
    answer: &mut Answer,
) {
    let Some(limit) = limit else { return };
    let loops = payload
        .get("redo_count")
        .and_then(Value::as_u64)
        .unwrap_or(0);
    if cursor == CursorEvent::Stop && answer.decision == Some(Decision::Block) && loops >= limit {
        answer.decision = None;
        let followup = answer.reason.take().unwrap_or_default();
        answer.warnings.push(format!(
            "a Cursor stop hook asked for another follow-up ({followup}), past its loop_limit of {limit}; the turn ends"
        ));
    }
}

/// A Cursor hook input translated to a canonical dispatch.
#[derive(Debug, Clone, PartialEq)]
pub struct Translated {
    /// The Cursor event it came as, which decides the answer's shape.
    pub cursor: CursorEvent,
    /// The canonical payload.
    pub payload: Map<String, Value>,
    /// What of the input hooks cannot see as Cursor meant it (MCP arguments that are not a
    /// JSON object).
    pub lapses: Vec<Lapse>,
}

/// Maps a Cursor hook input to the canonical event and payload.
///
/// # Errors
///
/// [`InputError::NotAnInput`] without a `hook_event_name`, `Unmapped` for an event with no
/// canonical twin.
pub fn from_cursor(input: &Value) -> Result<Translated, InputError> {
    let Value::Object(input) = input else {
        return Err(InputError::NotAnInput);
    };
    let name = input
        .get("hook_event_name")
        .and_then(Value::as_str)
        .ok_or(InputError::NotAnInput)?;
    let cursor = CursorEvent::parse(name).ok_or_else(|| InputError::Unmapped {
        agent: Agent::Cursor,
        name: name.to_owned(),
    })?;
    let get = |k: &str| input.get(k).cloned();
    let mut p = Map::new();
    if let Some(id) = get("conversation_id") {
        p.insert("session_id".into(), id);
    }
    if let Some(id) = get("generation_id") {
        p.insert("generation_id".into(), id);
    }
    let cwd = get("cwd").or_else(|| {
        input
            .get("workspace_roots")
            .and_then(Value::as_array)
            .and_then(|roots| roots.first())
            .cloned()
    });
    if let Some(cwd) = cwd {
        p.insert("cwd".into(), cwd);
    }
    // MCP arguments come as JSON text (read as leniently as the rest of the input) or as an
    // object; text that is not a JSON object reaches hooks as `{"input": text}`, and the user
    // is told, since a hook looking for the arguments' fields finds none.
    let mut lapses = Vec::new();
    let mut mcp_input = || match get("tool_input") {
        Some(Value::String(text)) => match crate::json::read(text.as_bytes()).map(|(v, _)| v) {
            Ok(value @ Value::Object(_)) => value,
            read => {
                let why = match read {
                    Err(e) => e.to_string(),
                    Ok(other) => format!("it is {}", agent_hooks_core::wording::kind_of(&other)),
                };
                lapses.push(Lapse::new(
                        LapseKind::UnreadableInput,
                        format!(
                            "Cursor's arguments for MCP tool \"{}\" are not a JSON object ({why}); hooks saw them as {{\"input\": <the text>}}",
                            input.get("tool_name").and_then(Value::as_str).unwrap_or("")
                        ),
                    ));
                json!({"input": text})
            }
        },
        Some(value @ Value::Object(_)) => value,
        _ => json!({}),
    };
    let tool = |p: &mut Map<String, Value>, name: Value, tool_input: Value| {
        p.insert("tool_name".into(), name);
        p.insert("tool_input".into(), tool_input);
    };
    let command = || json!({"command": get("command").unwrap_or(json!(""))});
    let after = |p: &mut Map<String, Value>, result: Value| {
        p.insert("tool_result".into(), result);
        p.insert("status".into(), json!("success"));
    };
    match cursor {
        CursorEvent::BeforeSubmitPrompt => {
            p.insert("message".into(), get("prompt").unwrap_or(json!("")));
            p.insert("channel".into(), json!("cursor"));
        }
        CursorEvent::BeforeShellExecution => tool(&mut p, json!(SHELL_TOOL), command()),
        CursorEvent::AfterShellExecution => {
            tool(&mut p, json!(SHELL_TOOL), command());
            after(&mut p, get("output").unwrap_or(json!("")));
        }
        CursorEvent::BeforeMcpExecution => {
            tool(&mut p, get("tool_name").unwrap_or(json!("")), mcp_input());
        }
        CursorEvent::AfterMcpExecution => {
            tool(&mut p, get("tool_name").unwrap_or(json!("")), mcp_input());
            after(&mut p, get("result_json").unwrap_or(Value::Null));
        }
        CursorEvent::BeforeReadFile => {
            let mut args = json!({"file_path": get("file_path").unwrap_or(json!(""))});
            if let Some(content) = get("content") {
                args["content"] = content;
            }
            tool(&mut p, json!(READ_TOOL), args);
        }
        CursorEvent::AfterFileEdit => {
            let args = json!({"file_path": get("file_path").unwrap_or(json!("")),
                              "edits": get("edits").unwrap_or(json!([]))});
            tool(&mut p, json!("edit_file"), args);
            after(&mut p, Value::Null);
        }
        CursorEvent::AfterAgentResponse => {
            p.insert("response".into(), get("text").unwrap_or(json!("")));
        }
        CursorEvent::Stop => {
            let loops = input.get("loop_count").and_then(Value::as_u64).unwrap_or(0);
            p.insert("response".into(), json!(""));
            p.insert("stop_hook_active".into(), json!(loops > 0));
            p.insert("status".into(), get("status").unwrap_or(json!("completed")));
        }
        CursorEvent::SessionStart | CursorEvent::SessionEnd => {
            if let Some(id) = get("session_id").filter(|id| id.is_string()) {
                p.insert("session_id".into(), id);
            }
            let status = if cursor == CursorEvent::SessionStart {
                get("composer_mode").unwrap_or(json!("startup"))
            } else {
                get("reason").unwrap_or(json!("completed"))
            };
            p.insert("status".into(), status);
        }
        CursorEvent::PreToolUse | CursorEvent::PostToolUse | CursorEvent::PostToolUseFailure => {
            let name = input.get("tool_name").and_then(Value::as_str).unwrap_or("");
            let args = mcp_input();
            tool(&mut p, json!(host_tool(name)), args);
            if let Some(id) = get("tool_use_id") {
                p.insert("tool_use_id".into(), id);
            }
            if cursor == CursorEvent::PostToolUse {
                after(&mut p, get("tool_output").unwrap_or(json!("")));
            } else if cursor == CursorEvent::PostToolUseFailure {
                p.insert(
                    "tool_result".into(),
                    get("error_message").unwrap_or(json!("")),
                );
                p.insert("status".into(), json!("error"));
            }
        }
    }
    Ok(Translated {
        cursor,
        payload: p,
        lapses,
    })
}

/// Turns an outcome into Cursor's answer for `cursor`: always one JSON object (`{}` when there
/// is nothing to say, which Cursor reads as "go on").
pub fn to_cursor(cursor: CursorEvent, outcome: &Outcome, sent: &Sent) -> AgentAnswer {
    let mut out = Map::new();
    let reason = outcome.reason.clone().unwrap_or_default();
    let mut notes: Vec<String> = Vec::new();
    match cursor {
        CursorEvent::BeforeShellExecution | CursorEvent::BeforeMcpExecution => {
            let permission = match outcome.decision {
                Decision::Block => Some("deny"),
                Decision::Ask => Some("ask"),
                Decision::Continue => None,
            };
            if let Some(permission) = permission {
                let text = outcome
                    .result
                    .as_ref()
                    .filter(|_| outcome.is_blocked())
                    .map(|r| as_text(Some(r)))
                    .unwrap_or(reason);
                out.insert("permission".into(), json!(permission));
                out.insert("user_message".into(), json!(text));
                out.insert("agent_message".into(), json!(text));
            }
        }
        // Cursor reads only the permission here, and cannot ask.
        CursorEvent::BeforeReadFile => {
            if outcome.decision != Decision::Continue {
                out.insert("permission".into(), json!("deny"));
            }
        }
        CursorEvent::BeforeSubmitPrompt => {
            out.insert("continue".into(), json!(!outcome.is_blocked()));
            if outcome.is_blocked() {
                out.insert("user_message".into(), json!(reason));
            }
        }
        CursorEvent::Stop => {
            if outcome.is_blocked() {
                out.insert("followup_message".into(), json!(reason));
            }
        }
        // Cursor's preToolUse reads allow or deny: an ask becomes a deny that says so, the
        // safe reading of a confirmation it cannot ask for.
        CursorEvent::PreToolUse => {
            if outcome.decision != Decision::Continue {
                let mut text = outcome
                    .result
                    .as_ref()
                    .filter(|_| outcome.is_blocked())
                    .map(|r| as_text(Some(r)))
                    .unwrap_or(reason);
                if outcome.decision == Decision::Ask {
                    text = format!(
                        "{text} (a hook wants this call confirmed, and Cursor's preToolUse cannot ask)"
                    );
                }
                out.insert("permission".into(), json!("deny"));
                out.insert("user_message".into(), json!(text));
                out.insert("agent_message".into(), json!(text));
            } else if !sent.is(outcome.payload.get("tool_input"))
                && let Some(updated) = outcome.payload.get("tool_input")
            {
                out.insert("permission".into(), json!("allow"));
                out.insert("updated_input".into(), updated.clone());
            }
        }
        CursorEvent::PostToolUse => {
            if !outcome.notes.is_empty() {
                out.insert(
                    "additional_context".into(),
                    json!(outcome.notes.join("\n\n")),
                );
            }
        }
        CursorEvent::SessionStart => {
            if !outcome.context.is_empty() {
                out.insert(
                    "additional_context".into(),
                    json!(outcome.context.join("\n\n")),
                );
            }
        }
        CursorEvent::AfterShellExecution
        | CursorEvent::AfterMcpExecution
        | CursorEvent::AfterFileEdit
        | CursorEvent::AfterAgentResponse
        | CursorEvent::SessionEnd
        | CursorEvent::PostToolUseFailure => {}
    }
    if cursor.asks_permission()
        && cursor != CursorEvent::PreToolUse
        && outcome.decision == Decision::Continue
        && !sent.is(outcome.payload.get("tool_input"))
    {
        notes.push("a hook rewrote the tool input, which Cursor cannot apply; the call runs as the agent wrote it".into());
    }
    // What is for the user goes in `user_message` where Cursor reads one (its permission
    // events other than file reads, and the prompt), and always to its hook log (stderr),
    // with every failure: a lapse is never told only where nobody looks.
    let reads_user_message = matches!(
        cursor,
        CursorEvent::BeforeShellExecution
            | CursorEvent::BeforeMcpExecution
            | CursorEvent::BeforeSubmitPrompt
            | CursorEvent::PreToolUse
    );
    if reads_user_message && !outcome.warnings.is_empty() {
        let mut shown: Vec<String> = out
            .get("user_message")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .into_iter()
            .collect();
        let said = shown.join("\n");
        shown.extend(
            outcome
                .warnings
                .iter()
                .filter(|w| !said.contains(w.as_str()))
                .cloned(),
        );
        out.insert("user_message".into(), json!(shown.join("\n")));
    }
    // The lapses come with the log below.
    notes.extend(
        outcome
            .warnings
            .iter()
            .filter(|w| !outcome.lapses.iter().any(|l| l.message == **w))
            .cloned(),
    );
    notes.extend(bridge_log(outcome));
    AgentAnswer {
        stdout: Value::Object(out).to_string(),
        stderr: notes.join("\n"),
        exit: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply(stdout: &str, code: i32, stderr: &str) -> Reply {
        Reply::exited(stdout, code, stderr)
    }

    #[test]
    fn a_deny_tells_the_agent_its_message_and_the_user_theirs() {
        let a = interpret(
            CursorEvent::BeforeShellExecution,
            &reply(
                r#"{"permission":"deny","userMessage":"Blocked rm -rf","agentMessage":"Do not delete recursively; remove the files by name."}"#,
                0,
                "",
            ),
        )
        .unwrap_or_default();
        assert_eq!(a.decision, Some(Decision::Block));
        assert_eq!(
            a.reason.as_deref(),
            Some("Do not delete recursively; remove the files by name.")
        );
        assert_eq!(a.warnings, vec!["Blocked rm -rf".to_owned()]);
    }

    #[test]
    fn a_followup_keeps_the_agent_going_and_continue_false_stops_a_prompt() {
        let stop = interpret(
            CursorEvent::Stop,
            &reply(r#"{"followup_message":"Run the tests."}"#, 0, ""),
        )
        .unwrap_or_default();
        assert_eq!(stop.decision, Some(Decision::Block));
        assert_eq!(stop.reason.as_deref(), Some("Run the tests."));
        let prompt = interpret(
            CursorEvent::BeforeSubmitPrompt,
            &reply(r#"{"continue":false,"user_message":"no secrets"}"#, 0, ""),
        )
        .unwrap_or_default();
        assert_eq!(prompt.decision, Some(Decision::Block));
        assert_eq!(prompt.reason.as_deref(), Some("no secrets"));
    }

    #[test]
    fn one_canonical_event_is_several_cursor_events_by_tool() {
        let payload = |tool: &str| {
            let mut p = Map::new();
            p.insert("tool_name".into(), json!(tool));
            p
        };
        assert_eq!(
            CursorEvent::of(Event::PreToolCall, &payload("bash")),
            Some(CursorEvent::BeforeShellExecution)
        );
        assert_eq!(
            CursorEvent::of(Event::PreToolCall, &payload("read_file")),
            Some(CursorEvent::BeforeReadFile)
        );
        assert_eq!(
            CursorEvent::of(Event::PreToolCall, &payload("edit_file")),
            None
        );
        assert_eq!(
            CursorEvent::of(Event::PostToolCall, &payload("write_file")),
            Some(CursorEvent::AfterFileEdit)
        );
        assert_eq!(
            CursorEvent::of(Event::PreToolCall, &payload("db_query")),
            Some(CursorEvent::BeforeMcpExecution)
        );
    }

    #[test]
    fn a_warning_reaches_the_user_message_where_cursor_reads_one_and_stderr_always() {
        let mut outcome = Outcome::unchanged(Event::PreToolCall, Map::new());
        outcome.add_lapse(Lapse::new(
            LapseKind::Untrusted,
            "hook \"guard\" (config/shell_hooks.yaml) did not run: not approved",
        ));
        let sent = Sent::of_event(Event::PreToolCall, &Map::new());
        for cursor in [
            CursorEvent::BeforeShellExecution,
            CursorEvent::BeforeMcpExecution,
            CursorEvent::BeforeSubmitPrompt,
        ] {
            let answer = to_cursor(cursor, &outcome, &sent);
            let json: Value = serde_json::from_str(&answer.stdout).unwrap_or_default();
            assert!(
                json["user_message"]
                    .as_str()
                    .is_some_and(|m| m.contains("did not run")),
                "{cursor:?}: {json}"
            );
            assert!(json.get("permission").is_none(), "{cursor:?}: {json}");
            assert!(answer.stderr.contains("did not run"), "{cursor:?}");
        }
        // Cursor reads only the permission before a file read: the log says it.
        let read = to_cursor(CursorEvent::BeforeReadFile, &outcome, &sent);
        assert_eq!(read.stdout, "{}");
        assert!(read.stderr.contains("did not run"));
    }

    #[test]
    fn mcp_arguments_that_are_not_json_are_a_lapse() {
        let t = from_cursor(&json!({
            "hook_event_name": "beforeMCPExecution",
            "tool_name": "db",
            "tool_input": "{\"q\": nope",
        }))
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(t.payload["tool_input"], json!({"input": "{\"q\": nope"}));
        assert_eq!(t.lapses.len(), 1);
        let t = from_cursor(&json!({
            "hook_event_name": "beforeMCPExecution",
            "tool_name": "db",
            "tool_input": "{\"q\": \"a\\ud800\"}",
        }))
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(t.payload["tool_input"], json!({"q": "a\u{FFFD}"}));
        assert!(t.lapses.is_empty());
    }

    #[test]
    fn unknown_output_fields_are_reported() {
        let a = interpret(
            CursorEvent::BeforeShellExecution,
            &reply(r#"{"permission":"allow","decision":"block"}"#, 0, ""),
        )
        .unwrap_or_default();
        assert_eq!(a.decision, None);
        assert!(a.problems[0].1.contains("\"decision\""), "{:?}", a.problems);
    }
}
