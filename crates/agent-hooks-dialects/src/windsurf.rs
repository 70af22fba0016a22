//! The Windsurf (Cascade) dialect, both ways: Cascade's hook events and their canonical twins
//! (one canonical event is several Cascade events, split by tool: a command, a file read, a
//! file write, an MCP tool), the stdin a hook declared in a `hooks.json` reads (the
//! `agent_action_name` / `tool_info` envelope), its answer read with Cascade's rule (exit 2
//! blocks a pre-hook, stderr the reason), and the other direction for the `windsurf-hook`
//! bridge.

use serde_json::{Map, Value, json};

use super::claude::bridge_log;
use super::read::{self, Ended};
use crate::agent::{Agent, AgentAnswer, SourceKind};
use crate::home::{
    AgentHome, AgentNames, Bridged, HandlerKeys, HooksFile, InputError, RewritePermission,
    Selector, TimeoutUnit, ToolAliases,
};
use crate::matcher::Matcher;
use agent_hooks_core::answer::{Answer, Decision, Unusable};
use agent_hooks_core::diag::DiagKind;
use agent_hooks_core::event::Event;
use agent_hooks_core::outcome::Outcome;
use agent_hooks_transports::Reply;

/// A Cascade hook event that has a canonical twin.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WindsurfEvent {
    /// `pre_user_prompt` ↔ `on_user_message`.
    PreUserPrompt,
    /// `pre_read_code` ↔ `pre_tool_call` of `read_file`.
    PreReadCode,
    /// `pre_write_code` ↔ `pre_tool_call` of `edit_file` / `write_file`.
    PreWriteCode,
    /// `pre_run_command` ↔ `pre_tool_call` of the shell tool.
    PreRunCommand,
    /// `pre_mcp_tool_use` ↔ `pre_tool_call` of any other tool.
    PreMcpToolUse,
    /// `post_read_code` ↔ `post_tool_call` of `read_file`.
    PostReadCode,
    /// `post_write_code` ↔ `post_tool_call` of `edit_file` / `write_file`.
    PostWriteCode,
    /// `post_run_command` ↔ `post_tool_call` of the shell tool.
    PostRunCommand,
    /// `post_mcp_tool_use` ↔ `post_tool_call` of any other tool.
    PostMcpToolUse,
    /// `post_cascade_response` ↔ `on_response_end`.
    PostCascadeResponse,
}

/// Cascade event names and their canonical twins.
pub const WINDSURF_EVENTS: [(&str, WindsurfEvent, Event); 10] = [
    (
        "pre_user_prompt",
        WindsurfEvent::PreUserPrompt,
        Event::OnUserMessage,
    ),
    (
        "pre_read_code",
        WindsurfEvent::PreReadCode,
        Event::PreToolCall,
    ),
    (
        "pre_write_code",
        WindsurfEvent::PreWriteCode,
        Event::PreToolCall,
    ),
    (
        "pre_run_command",
        WindsurfEvent::PreRunCommand,
        Event::PreToolCall,
    ),
    (
        "pre_mcp_tool_use",
        WindsurfEvent::PreMcpToolUse,
        Event::PreToolCall,
    ),
    (
        "post_read_code",
        WindsurfEvent::PostReadCode,
        Event::PostToolCall,
    ),
    (
        "post_write_code",
        WindsurfEvent::PostWriteCode,
        Event::PostToolCall,
    ),
    (
        "post_run_command",
        WindsurfEvent::PostRunCommand,
        Event::PostToolCall,
    ),
    (
        "post_mcp_tool_use",
        WindsurfEvent::PostMcpToolUse,
        Event::PostToolCall,
    ),
    (
        "post_cascade_response",
        WindsurfEvent::PostCascadeResponse,
        Event::OnResponseEnd,
    ),
];

/// Cascade events with no canonical twin: hooks on them are listed but never fire here.
pub const WINDSURF_UNMAPPED_EVENTS: &[&str] = &[
    "post_cascade_response_with_transcript",
    "post_setup_worktree",
];

/// The host's tool names Cascade has hooks of its own for.
const SHELL_TOOL: &str = "bash";
const READ_TOOL: &str = "read_file";
const WRITE_TOOLS: [&str; 2] = ["edit_file", "write_file"];

/// The prefix of an MCP tool's host name, `mcp__<server>__<tool>` (Claude Code's spelling).
const MCP_PREFIX: &str = "mcp__";

impl WindsurfEvent {
    /// The event called `name` by Cascade, if it has a twin.
    pub fn parse(name: &str) -> Option<WindsurfEvent> {
        super::named(&WINDSURF_EVENTS, name)
    }

    /// Cascade's name for the event.
    pub fn name(self) -> &'static str {
        super::name_of(&WINDSURF_EVENTS, self)
    }

    /// The canonical event it is dispatched as.
    pub fn canonical(self) -> Event {
        super::twin_of(&WINDSURF_EVENTS, self).unwrap_or(Event::OnUserMessage)
    }

    /// The Cascade event a canonical dispatch corresponds to: on the tool events the tool
    /// decides.
    pub fn of(event: Event, payload: &Map<String, Value>) -> Option<WindsurfEvent> {
        let tool = payload
            .get("tool_name")
            .and_then(Value::as_str)
            .unwrap_or("");
        let pick = |run, read, write, mcp| match tool {
            SHELL_TOOL => run,
            READ_TOOL => read,
            t if WRITE_TOOLS.contains(&t) => write,
            _ => mcp,
        };
        match event {
            Event::OnUserMessage => Some(WindsurfEvent::PreUserPrompt),
            Event::PreToolCall => Some(pick(
                WindsurfEvent::PreRunCommand,
                WindsurfEvent::PreReadCode,
                WindsurfEvent::PreWriteCode,
                WindsurfEvent::PreMcpToolUse,
            )),
            Event::PostToolCall => {
                if payload.get("status").and_then(Value::as_str) == Some("blocked") {
                    return None;
                }
                Some(pick(
                    WindsurfEvent::PostRunCommand,
                    WindsurfEvent::PostReadCode,
                    WindsurfEvent::PostWriteCode,
                    WindsurfEvent::PostMcpToolUse,
                ))
            }
            Event::OnResponseEnd => Some(WindsurfEvent::PostCascadeResponse),
            _ => None,
        }
    }

    /// Whether Cascade lets the event's hook stop the action (its pre-hooks).
    pub fn can_block(self) -> bool {
        matches!(
            self,
            WindsurfEvent::PreUserPrompt
                | WindsurfEvent::PreReadCode
                | WindsurfEvent::PreWriteCode
                | WindsurfEvent::PreRunCommand
                | WindsurfEvent::PreMcpToolUse
        )
    }

    /// The host tools the event is about, when it is about some tools only.
    fn tools(self) -> Option<&'static [&'static str]> {
        match self {
            WindsurfEvent::PreRunCommand | WindsurfEvent::PostRunCommand => Some(&[SHELL_TOOL]),
            WindsurfEvent::PreReadCode | WindsurfEvent::PostReadCode => Some(&[READ_TOOL]),
            WindsurfEvent::PreWriteCode | WindsurfEvent::PostWriteCode => Some(&WRITE_TOOLS),
            _ => None,
        }
    }
}

/// Windsurf (Cascade), as an [`AgentHome`]: a flat list of `{"command": ...}` handlers per
/// event, no version, no matcher and no timeout field.
#[derive(Debug, Clone, Copy)]
pub struct Windsurf;

impl AgentHome for Windsurf {
    fn user_config_dirs(&self) -> &'static [&'static str] {
        &[".codeium/windsurf"]
    }

    fn names(&self) -> &'static AgentNames {
        &AgentNames {
            name: "windsurf",
            label: "Windsurf",
            hook_command: "windsurf-hook",
            http_route: "/v1/hooks/windsurf",
            config_file: ".windsurf/hooks.json",
            source: SourceKind::Windsurf,
        }
    }

    fn events(&self) -> Vec<(&'static str, Event)> {
        WINDSURF_EVENTS.iter().map(|(n, _, e)| (*n, *e)).collect()
    }

    fn unmapped_events(&self) -> &'static [&'static str] {
        WINDSURF_UNMAPPED_EVENTS
    }

    fn hooks_file(&self) -> HooksFile {
        HooksFile {
            grouped: false,
            typed: false,
            version: None,
            timeout_unit: TimeoutUnit::Seconds,
        }
    }

    /// Cascade calls no HTTP hook and reads only an exit status: there is no JSON answer for
    /// a route to give.
    fn has_sidecar_route(&self) -> bool {
        false
    }

    /// Cascade has no matchers: a hook runs on every action of its event.
    fn matcher(&self, _event: &str, _pattern: &str) -> Result<Option<Matcher>, regex::Error> {
        Ok(None)
    }

    /// The command alone, its output shown in Cascade (`show_output`), where the bridge's
    /// messages for the user go.
    fn bridge_handler(&self, command: String) -> Value {
        json!({ "command": command, "show_output": true })
    }

    fn handler_keys(&self) -> HandlerKeys {
        HandlerKeys {
            command: &["command"],
            timeout: None,
            matcher_lists_tools: false,
            matchers: false,
            known: &["powershell", "show_output", "working_directory"],
        }
    }

    fn tools_of(&self, name: &str) -> Option<Vec<String>> {
        let tools = WindsurfEvent::parse(name)?.tools()?;
        Some(tools.iter().map(|t| (*t).to_owned()).collect())
    }

    /// Before and after a call: the command, the file read, the file write, and MCP for every
    /// other tool.
    fn events_for(&self, hook: &Selector<'_>) -> Vec<&'static str> {
        let (run, read, write, mcp) = match hook.event {
            Event::PreToolCall => (
                WindsurfEvent::PreRunCommand,
                WindsurfEvent::PreReadCode,
                WindsurfEvent::PreWriteCode,
                WindsurfEvent::PreMcpToolUse,
            ),
            Event::PostToolCall => (
                WindsurfEvent::PostRunCommand,
                WindsurfEvent::PostReadCode,
                WindsurfEvent::PostWriteCode,
                WindsurfEvent::PostMcpToolUse,
            ),
            other => {
                return WINDSURF_EVENTS
                    .iter()
                    .find(|(_, _, e)| *e == other)
                    .map(|(n, _, _)| *n)
                    .into_iter()
                    .collect();
            }
        };
        let other = hook.has_tool_besides(&[SHELL_TOOL, READ_TOOL, WRITE_TOOLS[0], WRITE_TOOLS[1]]);
        let mut names = Vec::new();
        if hook.has_tool(SHELL_TOOL) {
            names.push(run.name());
        }
        if hook.has_tool(READ_TOOL) {
            names.push(read.name());
        }
        if WRITE_TOOLS.iter().any(|t| hook.has_tool(t)) {
            names.push(write.name());
        }
        if other {
            names.push(mcp.name());
        }
        names
    }

    fn read_input(
        &self,
        input: &Value,
        _aliases: &ToolAliases,
        _rewrite: RewritePermission,
    ) -> Result<Bridged, InputError> {
        let (windsurf, payload) = from_windsurf(input)?;
        let sent = payload.get("tool_input").cloned();
        Ok(Bridged {
            event: windsurf.canonical(),
            payload,
            answer: Box::new(move |outcome| to_windsurf(windsurf, outcome, sent.as_ref())),
            lapses: Vec::new(),
        })
    }

    /// Cascade reads no JSON: exit 2 with the message on stderr stops a pre-hook's action;
    /// otherwise the message is printed, which Cascade shows with `show_output`.
    fn unread_answer(&self, message: &str, block: bool) -> AgentAnswer {
        AgentAnswer {
            stdout: if block {
                String::new()
            } else {
                message.to_owned()
            },
            stderr: message.to_owned(),
            exit: if block { 2 } else { 0 },
        }
    }

    /// Cascade calls no HTTP hook (and the sidecar serves it no route); the deny of the
    /// convention some Cascade hook kits print.
    fn deny_any(&self, message: &str) -> Value {
        json!({ "decision": "deny", "message": message })
    }
}

/// A value as text (a string stays itself; anything else is JSON).
fn as_text(value: Option<&Value>) -> String {
    match value {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    }
}

/// The file a tool call reads or writes (`file_path`, or `path`).
fn file_path(payload: &Map<String, Value>) -> String {
    let input = payload.get("tool_input");
    ["file_path", "path"]
        .into_iter()
        .find_map(|k| input.and_then(|i| i.get(k)).and_then(Value::as_str))
        .unwrap_or("")
        .to_owned()
}

/// An ISO 8601 timestamp of now, in UTC, as Cascade's `timestamp` is.
fn now_iso() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (h, m, s) = (rem / 3600, rem % 3600 / 60, rem % 60);
    // Days since the epoch to a civil date (Howard Hinnant's algorithm).
    let z = i64::try_from(days).unwrap_or(0) + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}T{h:02}:{m:02}:{s:02}Z")
}

/// The MCP server and tool of a host tool name `mcp__<server>__<tool>`; another name is a
/// tool of no known server.
fn mcp_parts(tool: &str) -> (String, String) {
    match tool
        .strip_prefix(MCP_PREFIX)
        .and_then(|rest| rest.split_once("__"))
    {
        Some((server, name)) => (server.to_owned(), name.to_owned()),
        None => (String::new(), tool.to_owned()),
    }
}

/// Cascade's hook input for a canonical payload; `root` is the workspace.
pub fn windsurf_input(
    windsurf: WindsurfEvent,
    payload: &Map<String, Value>,
    root: &str,
) -> Map<String, Value> {
    let text = |k: &str| as_text(payload.get(k));
    let mut input = Map::new();
    input.insert("agent_action_name".into(), json!(windsurf.name()));
    input.insert("trajectory_id".into(), json!(text("session_id")));
    let execution = ["execution_id", "generation_id", "turn_id"]
        .into_iter()
        .map(&text)
        .find(|s| !s.is_empty())
        .unwrap_or_default();
    input.insert("execution_id".into(), json!(execution));
    input.insert("timestamp".into(), json!(now_iso()));
    if let Some(model) = payload.get("model").filter(|m| m.is_string()) {
        input.insert("model_name".into(), model.clone());
    }
    let tool_input = payload.get("tool_input");
    let field = |k: &str| tool_input.and_then(|i| i.get(k)).cloned();
    let tool_info = match windsurf {
        WindsurfEvent::PreUserPrompt => json!({ "user_prompt": text("message") }),
        WindsurfEvent::PreRunCommand | WindsurfEvent::PostRunCommand => {
            let cwd = text("cwd");
            json!({
                "command_line": as_text(field("command").as_ref()),
                "cwd": if cwd.is_empty() { root.to_owned() } else { cwd },
            })
        }
        WindsurfEvent::PreReadCode | WindsurfEvent::PostReadCode => {
            json!({ "file_path": file_path(payload) })
        }
        WindsurfEvent::PreWriteCode | WindsurfEvent::PostWriteCode => {
            let edits = field("edits").unwrap_or_else(|| {
                json!([{
                    "old_string": as_text(field("old_string").as_ref()),
                    "new_string": as_text(field("new_string").or_else(|| field("content")).as_ref()),
                }])
            });
            json!({ "file_path": file_path(payload), "edits": edits })
        }
        WindsurfEvent::PreMcpToolUse | WindsurfEvent::PostMcpToolUse => {
            let (server, tool) = mcp_parts(&text("tool_name"));
            let mut info = json!({
                "mcp_server_name": server,
                "mcp_tool_name": tool,
                "mcp_tool_arguments": tool_input.cloned().unwrap_or(json!({})),
            });
            if windsurf == WindsurfEvent::PostMcpToolUse {
                info["mcp_result"] = json!(text("tool_result"));
            }
            info
        }
        WindsurfEvent::PostCascadeResponse => json!({ "response": text("response") }),
    };
    input.insert("tool_info".into(), tool_info);
    input
}

/// The canonical payload as a Cascade hook's stdin for `windsurf`: one JSON line; `root` is the
/// workspace.
pub fn input(windsurf: WindsurfEvent, payload: &Map<String, Value>, root: &str) -> Vec<u8> {
    let input = windsurf_input(windsurf, payload, root);
    let mut bytes = serde_json::to_vec(&input).unwrap_or_else(|_| b"{}".to_vec());
    bytes.push(b'\n');
    bytes
}

/// Reads a Cascade hook's exit and output with Cascade's rule: exit 2 blocks a pre-hook's
/// action with stderr as the reason (after the action it is shown only); any other non-zero
/// exit is an error and the action goes on. Cascade reads no JSON; a hook that prints the
/// `{"decision": "deny", "message": ...}` some Cascade hook kits use is taken at its word (the
/// safe reading of an answer Cascade's documentation does not define). Other output is shown
/// to the user when the hook says `show_output`.
pub fn interpret(
    windsurf: WindsurfEvent,
    show_output: bool,
    reply: &Reply,
) -> Result<Answer, Unusable> {
    if let Ended::Two(stderr) = read::ended(reply, "Cascade goes on")? {
        let reason = if stderr.is_empty() {
            format!("blocked by a Windsurf {} hook (exit 2)", windsurf.name())
        } else {
            stderr
        };
        return Ok(denied(windsurf, reason));
    }
    let stdout = read::stdout_text(reply)?;
    if stdout.starts_with('{')
        && let Ok(Value::Object(object)) = serde_json::from_str::<Value>(stdout)
        && let Some(decision) = object.get("decision").and_then(Value::as_str)
    {
        let message = object
            .get("message")
            .and_then(Value::as_str)
            .filter(|m| !m.is_empty())
            .map(str::to_owned);
        return Ok(match decision {
            "deny" | "block" => denied(
                windsurf,
                message.unwrap_or_else(|| format!("denied by a Windsurf {} hook", windsurf.name())),
            ),
            "ask" if windsurf.can_block() => Answer {
                decision: Some(Decision::Ask),
                reason: Some(message.unwrap_or_else(|| "a Windsurf hook asks to confirm".into())),
                ..Answer::default()
            },
            _ => Answer::default(),
        });
    }
    let mut answer = Answer::default();
    if show_output && !stdout.is_empty() {
        answer.warnings.push(stdout.to_owned());
    } else if !stdout.is_empty() {
        answer.problems.push((
            DiagKind::HookInvalidOutput,
            "Cascade reads no output from a hook without show_output; ignored".into(),
        ));
    }
    Ok(answer)
}

/// A denial on `windsurf`: a pre-hook's action does not happen; after the action it can only
/// be shown.
fn denied(windsurf: WindsurfEvent, reason: String) -> Answer {
    if windsurf.can_block() {
        Answer::block(reason)
    } else {
        Answer {
            warnings: vec![reason],
            ..Answer::default()
        }
    }
}

/// Maps a Cascade hook input to its event and the canonical payload.
///
/// # Errors
///
/// [`InputError::NotAnInput`] without an `agent_action_name`, `Unmapped` for an event with no
/// canonical twin.
pub fn from_windsurf(input: &Value) -> Result<(WindsurfEvent, Map<String, Value>), InputError> {
    let Value::Object(input) = input else {
        return Err(InputError::NotAnInput);
    };
    let name = input
        .get("agent_action_name")
        .and_then(Value::as_str)
        .ok_or(InputError::NotAnInput)?;
    let windsurf = WindsurfEvent::parse(name).ok_or_else(|| InputError::Unmapped {
        agent: Agent::Windsurf,
        name: name.to_owned(),
    })?;
    let info = input.get("tool_info").cloned().unwrap_or(json!({}));
    let get = |k: &str| info.get(k).cloned();
    let mut p = Map::new();
    if let Some(id) = input.get("trajectory_id") {
        p.insert("session_id".into(), id.clone());
    }
    if let Some(id) = input.get("execution_id") {
        p.insert("execution_id".into(), id.clone());
    }
    if let Some(model) = input.get("model_name") {
        p.insert("model".into(), model.clone());
    }
    if let Some(cwd) = get("cwd") {
        p.insert("cwd".into(), cwd);
    }
    let tool = |p: &mut Map<String, Value>, name: Value, args: Value| {
        p.insert("tool_name".into(), name);
        p.insert("tool_input".into(), args);
    };
    let command = || json!({ "command": get("command_line").unwrap_or(json!("")) });
    let path = || get("file_path").unwrap_or(json!(""));
    let mcp = || {
        let server = get("mcp_server_name")
            .and_then(|s| s.as_str().map(str::to_owned))
            .unwrap_or_default();
        let tool = get("mcp_tool_name")
            .and_then(|s| s.as_str().map(str::to_owned))
            .unwrap_or_default();
        let name = if server.is_empty() {
            tool
        } else {
            format!("{MCP_PREFIX}{server}__{tool}")
        };
        let args = match get("mcp_tool_arguments") {
            Some(args @ Value::Object(_)) => args,
            Some(Value::Null) | None => json!({}),
            Some(other) => json!({ "input": other }),
        };
        (json!(name), args)
    };
    let after = |p: &mut Map<String, Value>, result: Value| {
        p.insert("tool_result".into(), result);
        p.insert("status".into(), json!("success"));
    };
    match windsurf {
        WindsurfEvent::PreUserPrompt => {
            p.insert("message".into(), get("user_prompt").unwrap_or(json!("")));
            p.insert("channel".into(), json!("windsurf"));
        }
        WindsurfEvent::PreRunCommand => tool(&mut p, json!(SHELL_TOOL), command()),
        WindsurfEvent::PostRunCommand => {
            tool(&mut p, json!(SHELL_TOOL), command());
            after(&mut p, get("output").unwrap_or(json!("")));
        }
        WindsurfEvent::PreReadCode => {
            tool(&mut p, json!(READ_TOOL), json!({ "file_path": path() }));
        }
        WindsurfEvent::PostReadCode => {
            tool(&mut p, json!(READ_TOOL), json!({ "file_path": path() }));
            after(&mut p, get("content").unwrap_or(json!("")));
        }
        WindsurfEvent::PreWriteCode | WindsurfEvent::PostWriteCode => {
            let args = json!({ "file_path": path(), "edits": get("edits").unwrap_or(json!([])) });
            tool(&mut p, json!("edit_file"), args);
            if windsurf == WindsurfEvent::PostWriteCode {
                after(&mut p, Value::Null);
            }
        }
        WindsurfEvent::PreMcpToolUse => {
            let (name, args) = mcp();
            tool(&mut p, name, args);
        }
        WindsurfEvent::PostMcpToolUse => {
            let (name, args) = mcp();
            tool(&mut p, name, args);
            after(&mut p, get("mcp_result").unwrap_or(json!("")));
        }
        WindsurfEvent::PostCascadeResponse => {
            p.insert("response".into(), get("response").unwrap_or(json!("")));
        }
    }
    Ok((windsurf, p))
}

/// Turns an outcome into Cascade's answer for `windsurf`. Cascade reads only the exit status:
/// a block or an ask at a pre-hook is exit 2 with the reason on stderr (Cascade cannot ask,
/// so an ask is refused, saying so); everything for the user is printed on stdout, which the
/// installed entry's `show_output` shows, and on stderr, Cascade's hook log.
pub fn to_windsurf(
    windsurf: WindsurfEvent,
    outcome: &Outcome,
    sent: Option<&Value>,
) -> AgentAnswer {
    let reason = outcome.reason.clone().unwrap_or_default();
    let mut shown: Vec<String> = Vec::new();
    let mut exit = 0;
    if windsurf.can_block() {
        match outcome.decision {
            Decision::Block => {
                exit = 2;
                let text = outcome
                    .result
                    .as_ref()
                    .map(|r| as_text(Some(r)))
                    .unwrap_or(reason);
                shown.push(text);
            }
            Decision::Ask => {
                exit = 2;
                shown.push(format!(
                    "{reason} (a hook asks to confirm this, which Windsurf cannot ask; refused)"
                ));
            }
            Decision::Continue => {
                if outcome.payload.get("tool_input") != sent {
                    shown.push("agent-hooks: a hook rewrote the tool input, which Windsurf cannot apply; the action runs as Cascade wrote it".into());
                }
            }
        }
    } else if outcome.is_blocked() && !reason.is_empty() {
        shown.push(format!(
            "agent-hooks: a hook objected after the action, which Windsurf cannot undo: {reason}"
        ));
    }
    shown.extend(outcome.notes.iter().cloned());
    for warning in &outcome.warnings {
        if !shown.contains(warning) {
            shown.push(warning.clone());
        }
    }
    let mut log = shown.clone();
    for line in bridge_log(outcome) {
        if !log.contains(&line) {
            log.push(line);
        }
    }
    AgentAnswer {
        // With exit 2 Cascade shows stderr; printing it twice would say it twice.
        stdout: if exit == 2 {
            String::new()
        } else {
            shown.join("\n")
        },
        stderr: log.join("\n"),
        exit,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_two_blocks_a_pre_hook_and_is_only_shown_after() {
        let pre = interpret(
            WindsurfEvent::PreRunCommand,
            false,
            &Reply::exited("", 2, "no force pushes"),
        )
        .unwrap_or_default();
        assert_eq!(pre.decision, Some(Decision::Block));
        assert_eq!(pre.reason.as_deref(), Some("no force pushes"));
        let post = interpret(
            WindsurfEvent::PostRunCommand,
            false,
            &Reply::exited("", 2, "noted"),
        )
        .unwrap_or_default();
        assert_eq!(post.decision, None);
        assert_eq!(post.warnings, vec!["noted".to_owned()]);
        assert!(
            interpret(
                WindsurfEvent::PreRunCommand,
                false,
                &Reply::exited("", 1, "x")
            )
            .is_err()
        );
    }

    #[test]
    fn inputs_round_trip_through_the_canonical_payload() {
        let input = json!({
            "agent_action_name": "pre_mcp_tool_use",
            "trajectory_id": "t-1",
            "execution_id": "e-1",
            "timestamp": "2026-01-01T00:00:00Z",
            "tool_info": {"mcp_server_name": "github", "mcp_tool_name": "create_issue",
                          "mcp_tool_arguments": {"title": "x"}}
        });
        let (event, payload) = from_windsurf(&input).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(event, WindsurfEvent::PreMcpToolUse);
        assert_eq!(payload["tool_name"], "mcp__github__create_issue");
        let back = windsurf_input(event, &payload, "/ws");
        assert_eq!(back["tool_info"], input["tool_info"]);
        assert_eq!(back["trajectory_id"], "t-1");
        assert_eq!(
            WindsurfEvent::of(Event::PreToolCall, &payload),
            Some(WindsurfEvent::PreMcpToolUse)
        );
    }

    #[test]
    fn an_ask_is_refused_with_exit_two() {
        let mut outcome = Outcome::unchanged(Event::PreToolCall, Map::new());
        outcome.decision = Decision::Ask;
        outcome.reason = Some("push?".into());
        let answer = to_windsurf(WindsurfEvent::PreRunCommand, &outcome, None);
        assert_eq!(answer.exit, 2);
        assert!(answer.stderr.contains("cannot ask"), "{}", answer.stderr);
    }
}
