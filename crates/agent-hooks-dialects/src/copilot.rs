//! The GitHub Copilot dialect (Copilot CLI and the Copilot coding agent), both ways: its
//! camelCase hook events and their canonical twins, the stdin a hook declared in
//! `.github/hooks/*.json` reads, its answer read with Copilot's rules (`permissionDecision`,
//! `decision`/`reason`, `additionalContext`, and its exit codes: a `preToolUse` hook that exits
//! 2 or crashes denies), and the other direction for the `copilot-hook` bridge.

use serde_json::{Map, Value, json};

use super::claude::bridge_log;
use super::read::{self, Fields, parse_object};
use crate::agent::{Agent, AgentAnswer, SourceKind};
use crate::home::{
    AgentHome, AgentNames, Bridged, HandlerKeys, HooksFile, InputError, RewritePermission,
    Selector, TimeoutUnit, ToolAliases,
};
use crate::matcher::Matcher;
use agent_hooks_core::answer::{Answer, Decision, Rewrite, Unusable};
use agent_hooks_core::diag::DiagKind;
use agent_hooks_core::event::Event;
use agent_hooks_core::outcome::{Lapse, LapseKind, Outcome};
use agent_hooks_transports::{Exit, Reply};

/// A Copilot hook event that has a canonical twin.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CopilotEvent {
    /// `sessionStart` ↔ `on_session_start`.
    SessionStart,
    /// `sessionEnd` ↔ `on_session_end`.
    SessionEnd,
    /// `userPromptSubmitted` ↔ `on_user_message` (Copilot cannot block a prompt).
    UserPromptSubmitted,
    /// `preToolUse` ↔ `pre_tool_call`.
    PreToolUse,
    /// `postToolUse` ↔ `post_tool_call` of a call that succeeded.
    PostToolUse,
    /// `postToolUseFailure` ↔ `post_tool_call` of a call that failed.
    PostToolUseFailure,
    /// `agentStop` ↔ `on_stop` (`decision: "block"` is a redo).
    AgentStop,
}

/// Copilot event names and their canonical twins.
pub const COPILOT_EVENTS: [(&str, CopilotEvent, Event); 7] = [
    (
        "sessionStart",
        CopilotEvent::SessionStart,
        Event::OnSessionStart,
    ),
    ("sessionEnd", CopilotEvent::SessionEnd, Event::OnSessionEnd),
    (
        "userPromptSubmitted",
        CopilotEvent::UserPromptSubmitted,
        Event::OnUserMessage,
    ),
    ("preToolUse", CopilotEvent::PreToolUse, Event::PreToolCall),
    (
        "postToolUse",
        CopilotEvent::PostToolUse,
        Event::PostToolCall,
    ),
    (
        "postToolUseFailure",
        CopilotEvent::PostToolUseFailure,
        Event::PostToolCall,
    ),
    ("agentStop", CopilotEvent::AgentStop, Event::OnStop),
];

/// Copilot events with no canonical twin, and the PascalCase names of its VS Code-compatible
/// form (a different input and matcher language, not read here): hooks on them are listed but
/// never fire here.
pub const COPILOT_UNMAPPED_EVENTS: &[&str] = &[
    "permissionRequest",
    "subagentStart",
    "subagentStop",
    "errorOccurred",
    "notification",
    "preCompact",
    "userPromptTransformed",
    "SessionStart",
    "SessionEnd",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "Stop",
    "SubagentStop",
    "ErrorOccurred",
    "PreCompact",
    "PermissionRequest",
];

/// Host tool name ↔ Copilot tool name (Copilot's hooks reference, "Tool names for hook
/// matching"); every other name passes through.
const TOOL_NAMES: [(&str, &str); 4] = [
    ("bash", "bash"),
    ("read_file", "view"),
    ("write_file", "create"),
    ("edit_file", "edit"),
];

fn aliases() -> ToolAliases {
    ToolAliases::from_pairs(&TOOL_NAMES)
}

impl CopilotEvent {
    /// The event called `name` by Copilot, if it has a twin.
    pub fn parse(name: &str) -> Option<CopilotEvent> {
        super::named(&COPILOT_EVENTS, name)
    }

    /// Copilot's name for the event.
    pub fn name(self) -> &'static str {
        super::name_of(&COPILOT_EVENTS, self)
    }

    /// The canonical event it is dispatched as.
    pub fn canonical(self) -> Event {
        super::twin_of(&COPILOT_EVENTS, self).unwrap_or(Event::OnUserMessage)
    }

    /// The Copilot event a canonical dispatch corresponds to: after a tool, its status
    /// decides (a refused call runs no post hook).
    pub fn of(event: Event, payload: &Map<String, Value>) -> Option<CopilotEvent> {
        match event {
            Event::OnSessionStart => Some(CopilotEvent::SessionStart),
            Event::OnSessionEnd => Some(CopilotEvent::SessionEnd),
            Event::OnUserMessage => Some(CopilotEvent::UserPromptSubmitted),
            Event::PreToolCall => Some(CopilotEvent::PreToolUse),
            Event::PostToolCall => match payload.get("status").and_then(Value::as_str) {
                None | Some("success") => Some(CopilotEvent::PostToolUse),
                Some("blocked") => None,
                Some(_) => Some(CopilotEvent::PostToolUseFailure),
            },
            Event::OnStop => Some(CopilotEvent::AgentStop),
            _ => None,
        }
    }

    /// Whether Copilot reads a `matcher` on the event (a regex on the tool name).
    pub fn has_tool_matcher(self) -> bool {
        matches!(
            self,
            CopilotEvent::PreToolUse | CopilotEvent::PostToolUse | CopilotEvent::PostToolUseFailure
        )
    }
}

/// Compiles a Copilot hook's `matcher` as Copilot does: anchored as `^(?:pattern)$`, so it
/// must match the whole tool name; empty matches everything (`None`).
///
/// # Errors
///
/// The pattern is not a valid regex (Copilot skips such a hook too).
pub fn compile_matcher(pattern: &str) -> Result<Option<Matcher>, regex::Error> {
    if pattern.is_empty() {
        return Ok(None);
    }
    Ok(Some(Matcher::new(
        pattern.to_owned(),
        regex::Regex::new(&format!("^(?:{pattern})$"))?,
    )))
}

/// What a Copilot hook's `matcher` is matched against: Copilot's name of the tool on the tool
/// events; `None` elsewhere (the matcher is not read there).
pub fn match_target(copilot: CopilotEvent, payload: &Map<String, Value>) -> Option<String> {
    copilot.has_tool_matcher().then(|| {
        let host = payload
            .get("tool_name")
            .and_then(Value::as_str)
            .unwrap_or("");
        aliases().to_claude(host).to_owned()
    })
}

/// GitHub Copilot, as an [`AgentHome`]: a flat list of handlers per event with a `bash`
/// command and `timeoutSec`, in files of its own under `.github/hooks/`.
#[derive(Debug, Clone, Copy)]
pub struct Copilot;

/// The file `copilot-install` writes (Copilot reads every `.github/hooks/*.json`).
pub const COPILOT_HOOKS_FILE: &str = ".github/hooks/agent-hooks.json";

impl AgentHome for Copilot {
    fn user_config_dirs(&self) -> &'static [&'static str] {
        &[".copilot"]
    }

    fn names(&self) -> &'static AgentNames {
        &AgentNames {
            name: "copilot",
            label: "GitHub Copilot",
            hook_command: "copilot-hook",
            http_route: "/v1/hooks/copilot",
            config_file: COPILOT_HOOKS_FILE,
            source: SourceKind::Copilot,
        }
    }

    fn events(&self) -> Vec<(&'static str, Event)> {
        COPILOT_EVENTS.iter().map(|(n, _, e)| (*n, *e)).collect()
    }

    fn unmapped_events(&self) -> &'static [&'static str] {
        COPILOT_UNMAPPED_EVENTS
    }

    fn hooks_file(&self) -> HooksFile {
        HooksFile {
            grouped: false,
            typed: true,
            version: Some(1),
            timeout_unit: TimeoutUnit::Seconds,
        }
    }

    fn matcher(&self, _event: &str, pattern: &str) -> Result<Option<Matcher>, regex::Error> {
        compile_matcher(pattern)
    }

    fn tool_aliases(&self) -> ToolAliases {
        aliases()
    }

    /// Copilot's command hooks name their shell: `bash` on Unix; the timeout is `timeoutSec`.
    fn bridge_handler(&self, command: String) -> Value {
        json!({ "type": "command", "bash": command, "timeoutSec": 120 })
    }

    fn handler_keys(&self) -> HandlerKeys {
        HandlerKeys {
            command: &["bash", "command"],
            timeout: Some("timeoutSec"),
            matcher_lists_tools: true,
            matchers: true,
            known: &["powershell", "cwd", "env", "comment"],
        }
    }

    fn is_failure_event(&self, name: &str) -> bool {
        name == CopilotEvent::PostToolUseFailure.name()
    }

    fn is_success_event(&self, name: &str) -> bool {
        name == CopilotEvent::PostToolUse.name()
    }

    /// As Claude Code's: a failed call goes under `postToolUseFailure` only, one that
    /// succeeded under `postToolUse`, and a hook for both under both.
    fn events_for(&self, hook: &Selector<'_>) -> Vec<&'static str> {
        if hook.event == Event::PostToolCall && !hook.failure && !hook.success_only {
            return vec![
                CopilotEvent::PostToolUse.name(),
                CopilotEvent::PostToolUseFailure.name(),
            ];
        }
        let copilot = match hook.event {
            Event::PostToolCall if hook.failure => CopilotEvent::PostToolUseFailure,
            other => match COPILOT_EVENTS.iter().find(|(_, _, e)| *e == other) {
                Some((_, c, _)) => *c,
                None => return Vec::new(),
            },
        };
        vec![copilot.name()]
    }

    fn read_input(
        &self,
        input: &Value,
        _aliases: &ToolAliases,
        _rewrite: RewritePermission,
    ) -> Result<Bridged, InputError> {
        let t = from_copilot(input)?;
        let copilot = t.copilot;
        let sent = t.payload.get("tool_input").cloned();
        Ok(Bridged {
            event: copilot.canonical(),
            payload: t.payload,
            answer: Box::new(move |outcome| to_copilot(copilot, outcome, sent.as_ref())),
            lapses: t.lapses,
        })
    }

    /// Exit 2 denies a `preToolUse` call (Copilot reads no JSON then); elsewhere it shows
    /// stderr to the user as a warning. Without a block, the message goes where Copilot reads
    /// one (`additionalContext`) and to its hook log.
    fn unread_answer(&self, message: &str, block: bool) -> AgentAnswer {
        AgentAnswer {
            stdout: if block {
                String::new()
            } else {
                json!({ "additionalContext": message }).to_string()
            },
            stderr: message.to_owned(),
            exit: if block { 2 } else { 0 },
        }
    }

    /// Copilot refuses a tool call with `permissionDecision: "deny"` and a permission request
    /// with `behavior: "deny"`. (`decision: "block"` would force another turn at `agentStop`,
    /// which is not a refusal, so it is not said.)
    fn deny_any(&self, message: &str) -> Value {
        json!({
            "permissionDecision": "deny",
            "permissionDecisionReason": message,
            "behavior": "deny",
            "message": message,
        })
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

/// Milliseconds since the epoch, as Copilot's `timestamp` is.
fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// Copilot's hook input for a canonical payload; `root` is the workspace, the `cwd` when the
/// payload names none.
pub fn copilot_input(
    copilot: CopilotEvent,
    payload: &Map<String, Value>,
    root: &str,
) -> Map<String, Value> {
    let text = |k: &str| as_text(payload.get(k));
    let mut input = Map::new();
    input.insert("sessionId".into(), json!(text("session_id")));
    input.insert("timestamp".into(), json!(now_ms()));
    let cwd = text("cwd");
    input.insert(
        "cwd".into(),
        json!(if cwd.is_empty() { root.to_owned() } else { cwd }),
    );
    let tool = |input: &mut Map<String, Value>| {
        let host = text("tool_name");
        input.insert("toolName".into(), json!(aliases().to_claude(&host)));
        // A JSON string, as Copilot's configuration reference shows it (`jq -r '.toolArgs' | jq`).
        let args = payload.get("tool_input").cloned().unwrap_or(json!({}));
        input.insert("toolArgs".into(), json!(args.to_string()));
    };
    match copilot {
        CopilotEvent::SessionStart => {
            let source = payload
                .get("source")
                .and_then(Value::as_str)
                .unwrap_or("new");
            input.insert("source".into(), json!(source));
            if let Some(prompt) = payload.get("initial_prompt").and_then(Value::as_str) {
                input.insert("initialPrompt".into(), json!(prompt));
            }
        }
        CopilotEvent::SessionEnd => {
            let reason = payload
                .get("reason")
                .and_then(Value::as_str)
                .unwrap_or("complete");
            input.insert("reason".into(), json!(reason));
        }
        CopilotEvent::UserPromptSubmitted => {
            input.insert("prompt".into(), json!(text("message")));
        }
        CopilotEvent::PreToolUse => tool(&mut input),
        CopilotEvent::PostToolUse => {
            tool(&mut input);
            input.insert(
                "toolResult".into(),
                json!({"resultType": "success", "textResultForLlm": text("tool_result")}),
            );
        }
        CopilotEvent::PostToolUseFailure => {
            tool(&mut input);
            let error = payload
                .get("error")
                .map(|e| as_text(Some(e)))
                .unwrap_or_else(|| text("tool_result"));
            input.insert("error".into(), json!(error));
        }
        CopilotEvent::AgentStop => {
            input.insert("transcriptPath".into(), json!(text("transcript_path")));
            input.insert("stopReason".into(), json!("end_turn"));
            let redo = payload
                .get("redo_count")
                .and_then(Value::as_u64)
                .unwrap_or(0);
            let active = payload
                .get("stop_hook_active")
                .and_then(Value::as_bool)
                .unwrap_or(false);
            input.insert("stop_hook_active".into(), json!(active || redo > 0));
        }
    }
    input
}

/// The canonical payload as a Copilot hook's stdin for `copilot`: one JSON line; `root` is the
/// workspace.
pub fn input(copilot: CopilotEvent, payload: &Map<String, Value>, root: &str) -> Vec<u8> {
    let input = copilot_input(copilot, payload, root);
    let mut bytes = serde_json::to_vec(&input).unwrap_or_else(|_| b"{}".to_vec());
    bytes.push(b'\n');
    bytes
}

/// The answer keys Copilot reads from a command hook, per event.
fn known_keys(copilot: CopilotEvent) -> &'static [&'static str] {
    match copilot {
        CopilotEvent::PreToolUse => &[
            "permissionDecision",
            "permissionDecisionReason",
            "modifiedArgs",
        ],
        CopilotEvent::PostToolUse => &["additionalContext", "modifiedResult"],
        CopilotEvent::PostToolUseFailure => &["additionalContext"],
        CopilotEvent::AgentStop => &["decision", "reason"],
        CopilotEvent::SessionStart => &["additionalContext"],
        CopilotEvent::SessionEnd | CopilotEvent::UserPromptSubmitted => &[],
    }
}

/// Stdout without the progress lines Copilot strips (`{"type": "progress", ...}` alone on a
/// line): what remains is the hook's answer.
fn without_progress(stdout: &str) -> String {
    stdout
        .lines()
        .filter(|line| {
            let line = line.trim();
            !(line.starts_with('{')
                && serde_json::from_str::<Value>(line)
                    .is_ok_and(|v| v.get("type").and_then(Value::as_str) == Some("progress")))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Reads a Copilot hook's exit and stdout with Copilot's rules: exit 0 with one JSON object
/// decides; exit 2 denies a `preToolUse` call (whatever its stdout says), gives recovery
/// guidance after a failed call, and is a warning shown to the user elsewhere; a `preToolUse`
/// hook that fails any other way denies too (Copilot fails closed there), while on every
/// other event a failure is logged and the agent goes on.
pub fn interpret(copilot: CopilotEvent, reply: &Reply) -> Result<Answer, Unusable> {
    read::refuse_overflow(reply)?;
    let stderr = String::from_utf8_lossy(&reply.stderr).trim().to_owned();
    let stdout = without_progress(read::stdout_text(reply)?);
    let object = match reply.exit {
        Exit::Code(0) => parse_object(&stdout)?,
        Exit::Code(2) => {
            return Ok(match copilot {
                CopilotEvent::PreToolUse => {
                    let reason = parse_object(&stdout)
                        .ok()
                        .flatten()
                        .and_then(|o| {
                            o.get("permissionDecisionReason")
                                .and_then(Value::as_str)
                                .map(str::to_owned)
                        })
                        .filter(|r| !r.is_empty())
                        .unwrap_or_else(|| {
                            if stderr.is_empty() {
                                "denied by a Copilot preToolUse hook (exit 2)".to_owned()
                            } else {
                                stderr.clone()
                            }
                        });
                    Answer::block(reason)
                }
                CopilotEvent::PostToolUseFailure => {
                    let guidance = if stdout.is_empty() { stderr } else { stdout };
                    Answer {
                        notes: vec![guidance]
                            .into_iter()
                            .filter(|g| !g.is_empty())
                            .collect(),
                        ..Answer::default()
                    }
                }
                _ => Answer {
                    warnings: vec![if stderr.is_empty() {
                        format!("a Copilot {} hook exited 2", copilot.name())
                    } else {
                        stderr
                    }],
                    ..Answer::default()
                },
            });
        }
        other if copilot == CopilotEvent::PreToolUse => {
            let mut answer = Answer::block(format!(
                "Denied by preToolUse hook (hook errored: {other}{})",
                if stderr.is_empty() {
                    String::new()
                } else {
                    format!(": {}", read::last_lines(&stderr, 3))
                }
            ));
            answer.problems.push((
                DiagKind::HookNonzeroExit,
                format!("{other}; Copilot denies the call when a preToolUse hook fails"),
            ));
            return Ok(answer);
        }
        other => {
            return Err(Unusable {
                kind: DiagKind::HookNonzeroExit,
                detail: if stderr.is_empty() {
                    format!("{other} (Copilot logs it and goes on)")
                } else {
                    format!("{other}: {}", read::answer_preview(&stderr))
                },
            });
        }
    };
    let Some(object) = object else {
        return Ok(Answer::default());
    };
    decode(copilot, &object)
}

/// Decodes a Copilot JSON answer with Copilot's rules.
fn decode(copilot: CopilotEvent, object: &Map<String, Value>) -> Result<Answer, Unusable> {
    let mut fields = Fields::new(object);
    let mut answer = Answer::default();
    match copilot {
        CopilotEvent::PreToolUse => {
            let reason = fields.string("permissionDecisionReason")?;
            match fields.string("permissionDecision")?.as_deref() {
                None | Some("allow") => {}
                Some("deny") => {
                    answer.decision = Some(Decision::Block);
                    answer.reason =
                        Some(reason.unwrap_or_else(|| "denied by a Copilot hook".to_owned()));
                }
                Some("ask") => {
                    answer.decision = Some(Decision::Ask);
                    answer.reason =
                        Some(reason.unwrap_or_else(|| "a Copilot hook asks to confirm".to_owned()));
                }
                Some(other) => {
                    return Err(Unusable {
                        kind: DiagKind::HookInvalidOutput,
                        detail: format!(
                            "permissionDecision \"{other}\" is not one of allow, deny, ask"
                        ),
                    });
                }
            }
            match object.get("modifiedArgs") {
                None | Some(Value::Null) => {}
                Some(args @ Value::Object(_)) if answer.decision != Some(Decision::Block) => {
                    answer.rewrites.push(Rewrite {
                        field: "tool_input".into(),
                        value: args.clone(),
                        rule: Some(agent_hooks_core::event::RewriteRule::Replace),
                    });
                }
                Some(Value::Object(_)) => {}
                Some(other) => return Err(read::wrong_type("modifiedArgs", "an object", other)),
            }
        }
        CopilotEvent::PostToolUse | CopilotEvent::PostToolUseFailure => {
            if let Some(context) = fields.string("additionalContext")? {
                answer.notes.push(context);
            }
            if object.get("modifiedResult").is_some() {
                answer.problems.push((
                    DiagKind::HookInvalidOutput,
                    "modifiedResult: replacing a tool's result is not applied here; add a note with additionalContext".into(),
                ));
            }
        }
        CopilotEvent::AgentStop => {
            let reason = fields.string("reason")?;
            match fields.string("decision")?.as_deref() {
                None | Some("allow") => {}
                Some("block") => {
                    answer.decision = Some(Decision::Block);
                    answer.reason = Some(reason.unwrap_or_else(|| "Continue working.".to_owned()));
                }
                Some(other) => {
                    return Err(Unusable {
                        kind: DiagKind::HookInvalidOutput,
                        detail: format!("decision \"{other}\" is not one of block, allow"),
                    });
                }
            }
        }
        CopilotEvent::SessionStart => {
            if let Some(context) = fields.string("additionalContext")? {
                answer.context.push(context);
            }
        }
        CopilotEvent::SessionEnd | CopilotEvent::UserPromptSubmitted => {}
    }
    for key in object.keys() {
        if !known_keys(copilot).contains(&key.as_str()) {
            answer.problems.push((
                DiagKind::HookInvalidOutput,
                format!(
                    "\"{key}\" is not read by Copilot on {}; ignored",
                    copilot.name()
                ),
            ));
        }
    }
    Ok(answer)
}

/// A Copilot hook input translated to a canonical dispatch.
#[derive(Debug, Clone, PartialEq)]
pub struct Translated {
    /// The Copilot event it came as, which decides the answer's shape.
    pub copilot: CopilotEvent,
    /// The canonical payload.
    pub payload: Map<String, Value>,
    /// What of the input hooks cannot see as Copilot meant it (tool arguments that are not
    /// a JSON object).
    pub lapses: Vec<Lapse>,
}

/// The Copilot event of an input. Copilot's camelCase inputs carry no event name, so the
/// event is read off the fields each one has (`docs/agents.md`); an input that names its event
/// (`hook_event_name`, as the VS Code-compatible form and Copilot's notifications do) is taken
/// at its word. `Err` with the name of an event this host has no twin for.
fn event_of(input: &Map<String, Value>) -> Result<Option<CopilotEvent>, String> {
    if let Some(name) = input.get("hook_event_name").and_then(Value::as_str) {
        return CopilotEvent::parse(name)
            .map(Some)
            .ok_or_else(|| name.to_owned());
    }
    let has = |k: &str| input.contains_key(k);
    let unmapped = |name: &str| Err(name.to_owned());
    if has("toolName") {
        if has("toolResult") {
            return Ok(Some(CopilotEvent::PostToolUse));
        }
        if has("error") {
            return Ok(Some(CopilotEvent::PostToolUseFailure));
        }
        if has("toolArgs") {
            return Ok(Some(CopilotEvent::PreToolUse));
        }
        return unmapped("permissionRequest");
    }
    if has("agentName") {
        return unmapped(if has("stopReason") {
            "subagentStop"
        } else {
            "subagentStart"
        });
    }
    if has("stopReason") {
        return Ok(Some(CopilotEvent::AgentStop));
    }
    if has("transformedPrompt") {
        return unmapped("userPromptTransformed");
    }
    if has("prompt") {
        return Ok(Some(CopilotEvent::UserPromptSubmitted));
    }
    if has("errorContext") || input.get("error").is_some_and(Value::is_object) {
        return unmapped("errorOccurred");
    }
    if has("trigger") {
        return unmapped("preCompact");
    }
    if has("source") {
        return Ok(Some(CopilotEvent::SessionStart));
    }
    if has("reason") {
        return Ok(Some(CopilotEvent::SessionEnd));
    }
    Ok(None)
}

/// Maps a Copilot hook input to the canonical event and payload.
///
/// # Errors
///
/// [`InputError::NotAnInput`] when no Copilot event can be read from it, `Unmapped` for an
/// event with no canonical twin.
pub fn from_copilot(input: &Value) -> Result<Translated, InputError> {
    let Value::Object(input) = input else {
        return Err(InputError::NotAnInput);
    };
    let copilot = match event_of(input) {
        Ok(Some(event)) => event,
        Ok(None) => return Err(InputError::NotAnInput),
        Err(name) => {
            return Err(InputError::Unmapped {
                agent: Agent::Copilot,
                name,
            });
        }
    };
    let get = |k: &str| input.get(k).cloned();
    let mut p = Map::new();
    if let Some(id) = get("sessionId").or_else(|| get("session_id")) {
        p.insert("session_id".into(), id);
    }
    if let Some(cwd) = get("cwd") {
        p.insert("cwd".into(), cwd);
    }
    let mut lapses = Vec::new();
    let tool_name = input
        .get("toolName")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned();
    let mut tool = |p: &mut Map<String, Value>| {
        p.insert(
            "tool_name".into(),
            json!(aliases().to_host(&tool_name).to_owned()),
        );
        // Copilot sends the arguments as JSON text (or, in newer versions, an object); text
        // that is not a JSON object reaches hooks as `{"input": text}`, and the user is told.
        let args = match get("toolArgs") {
            Some(Value::String(text)) => match crate::json::read(text.as_bytes()).map(|(v, _)| v) {
                Ok(value @ Value::Object(_)) => value,
                read => {
                    let why = match read {
                        Err(e) => e.to_string(),
                        Ok(other) => {
                            format!("it is {}", agent_hooks_core::wording::kind_of(&other))
                        }
                    };
                    lapses.push(Lapse::new(
                            LapseKind::UnreadableInput,
                            format!(
                                "Copilot's arguments for tool \"{tool_name}\" are not a JSON object ({why}); hooks saw them as {{\"input\": <the text>}}"
                            ),
                        ));
                    json!({ "input": text })
                }
            },
            Some(value @ Value::Object(_)) => value,
            _ => json!({}),
        };
        p.insert("tool_input".into(), args);
    };
    match copilot {
        CopilotEvent::SessionStart => {
            p.insert("source".into(), get("source").unwrap_or(json!("new")));
            if let Some(prompt) = get("initialPrompt") {
                p.insert("initial_prompt".into(), prompt);
            }
        }
        CopilotEvent::SessionEnd => {
            p.insert("reason".into(), get("reason").unwrap_or(json!("complete")));
        }
        CopilotEvent::UserPromptSubmitted => {
            p.insert("message".into(), get("prompt").unwrap_or(json!("")));
            p.insert("channel".into(), json!("copilot"));
        }
        CopilotEvent::PreToolUse => tool(&mut p),
        CopilotEvent::PostToolUse => {
            tool(&mut p);
            let result = input
                .get("toolResult")
                .and_then(|r| r.get("textResultForLlm"))
                .cloned()
                .unwrap_or(json!(""));
            p.insert("tool_result".into(), result);
            p.insert("status".into(), json!("success"));
        }
        CopilotEvent::PostToolUseFailure => {
            tool(&mut p);
            let error = get("error").unwrap_or(json!(""));
            p.insert("tool_result".into(), error.clone());
            p.insert("error".into(), error);
            p.insert("status".into(), json!("error"));
        }
        CopilotEvent::AgentStop => {
            p.insert("response".into(), json!(""));
            let active = input
                .get("stop_hook_active")
                .and_then(Value::as_bool)
                .unwrap_or(false);
            p.insert("stop_hook_active".into(), json!(active));
            if let Some(path) = get("transcriptPath") {
                p.insert("transcript_path".into(), path);
            }
        }
    }
    Ok(Translated {
        copilot,
        payload: p,
        lapses,
    })
}

/// Turns an outcome into Copilot's answer for `copilot`. `sent` is the tool input the
/// dispatch started from, to tell whether hooks rewrote it. Every warning and failure goes to
/// Copilot's hook log (stderr) and, where Copilot reads one, to a field it shows: the deny
/// reason, `additionalContext`, or — on events whose output Copilot ignores — exit 2, which
/// Copilot surfaces to the user as a warning.
pub fn to_copilot(copilot: CopilotEvent, outcome: &Outcome, sent: Option<&Value>) -> AgentAnswer {
    let mut out = Map::new();
    let reason = outcome.reason.clone().unwrap_or_default();
    let mut log: Vec<String> = outcome
        .warnings
        .iter()
        .filter(|w| !outcome.lapses.iter().any(|l| l.message == **w))
        .cloned()
        .collect();
    log.extend(bridge_log(outcome));
    let mut exit = 0;
    match copilot {
        CopilotEvent::PreToolUse => {
            let rewritten = outcome.payload.get("tool_input");
            match outcome.decision {
                Decision::Block => {
                    let text = outcome
                        .result
                        .as_ref()
                        .map(|r| as_text(Some(r)))
                        .unwrap_or(reason);
                    out.insert("permissionDecision".into(), json!("deny"));
                    out.insert("permissionDecisionReason".into(), json!(text));
                }
                Decision::Ask => {
                    out.insert("permissionDecision".into(), json!("ask"));
                    out.insert("permissionDecisionReason".into(), json!(reason));
                }
                // Whether Copilot applies `modifiedArgs` from a command hook is not settled
                // (its hosted runtime ignores it): running the call as the agent wrote it,
                // which a hook found wanting, is the unsafe reading. The call is refused with
                // the rewritten arguments in the reason, so the agent can run them.
                Decision::Continue if rewritten != sent => {
                    let args = rewritten.map(Value::to_string).unwrap_or_default();
                    out.insert("permissionDecision".into(), json!("deny"));
                    out.insert(
                        "permissionDecisionReason".into(),
                        json!(format!(
                            "agent-hooks: a hook rewrote this call's arguments to {args}; run the call with those arguments instead"
                        )),
                    );
                }
                Decision::Continue => {}
            }
            if let Some(Value::String(text)) = out.get_mut("permissionDecisionReason") {
                for warning in &outcome.warnings {
                    if !text.contains(warning.as_str()) {
                        text.push('\n');
                        text.push_str(warning);
                    }
                }
            }
        }
        CopilotEvent::PostToolUse | CopilotEvent::PostToolUseFailure => {
            let mut context: Vec<String> = outcome.notes.clone();
            context.extend(outcome.context.iter().cloned());
            if outcome.is_blocked() && !reason.is_empty() {
                context.push(reason);
            }
            context.extend(outcome.warnings.iter().cloned());
            if !context.is_empty() {
                out.insert("additionalContext".into(), json!(context.join("\n\n")));
            }
        }
        CopilotEvent::SessionStart => {
            let mut context: Vec<String> = outcome.context.clone();
            context.extend(outcome.warnings.iter().cloned());
            if !context.is_empty() {
                out.insert("additionalContext".into(), json!(context.join("\n\n")));
            }
        }
        CopilotEvent::AgentStop => {
            if outcome.is_blocked() {
                out.insert("decision".into(), json!("block"));
                out.insert("reason".into(), json!(reason));
            } else if !outcome.warnings.is_empty() {
                // No field of agentStop reaches the user: exit 2 shows stderr as a warning.
                exit = 2;
            }
        }
        CopilotEvent::UserPromptSubmitted | CopilotEvent::SessionEnd => {
            if outcome.is_blocked() {
                log.insert(
                    0,
                    format!(
                        "agent-hooks: a hook would block this {} but Copilot cannot block it: {reason}",
                        if copilot == CopilotEvent::UserPromptSubmitted {
                            "prompt"
                        } else {
                            "session end"
                        }
                    ),
                );
            }
            if outcome.is_blocked() || !outcome.warnings.is_empty() {
                // Copilot ignores this event's output; exit 2 shows stderr to the user.
                exit = 2;
            }
        }
    }
    if exit == 2 {
        for warning in &outcome.warnings {
            if !log.contains(warning) {
                log.push(warning.clone());
            }
        }
    }
    AgentAnswer {
        stdout: if exit == 2 {
            String::new()
        } else {
            Value::Object(out).to_string()
        },
        stderr: log.join("\n"),
        exit,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_crashing_pre_tool_hook_denies_and_exit_two_outranks_an_allow() {
        let crashed = interpret(
            CopilotEvent::PreToolUse,
            &Reply::exited("", 1, "Traceback: boom"),
        )
        .unwrap_or_default();
        assert_eq!(crashed.decision, Some(Decision::Block));
        let two = interpret(
            CopilotEvent::PreToolUse,
            &Reply::exited(r#"{"permissionDecision":"allow"}"#, 2, "no"),
        )
        .unwrap_or_default();
        assert_eq!(two.decision, Some(Decision::Block));
        assert!(interpret(CopilotEvent::PostToolUse, &Reply::exited("", 1, "x")).is_err());
    }

    #[test]
    fn progress_lines_are_not_the_answer() {
        let a = interpret(
            CopilotEvent::PreToolUse,
            &Reply::exited(
                "{\"type\":\"progress\",\"message\":\"checking\"}\n{\"permissionDecision\":\"deny\",\"permissionDecisionReason\":\"no\"}",
                0,
                "",
            ),
        )
        .unwrap_or_default();
        assert_eq!(a.decision, Some(Decision::Block));
        assert_eq!(a.reason.as_deref(), Some("no"));
    }

    #[test]
    fn events_are_read_off_the_fields_copilot_sends() {
        let pre = json!({"sessionId": "s", "timestamp": 1, "cwd": "/p", "toolName": "edit", "toolArgs": "{\"path\":\"a.py\"}"});
        let t = from_copilot(&pre).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(t.copilot, CopilotEvent::PreToolUse);
        assert_eq!(t.payload["tool_name"], "edit_file");
        assert_eq!(t.payload["tool_input"], json!({"path": "a.py"}));
        let post = json!({"toolName": "bash", "toolArgs": "{}", "toolResult": {"resultType": "success", "textResultForLlm": "ok"}});
        assert_eq!(
            from_copilot(&post).map(|t| t.copilot).ok(),
            Some(CopilotEvent::PostToolUse)
        );
        let stop = json!({"sessionId": "s", "transcriptPath": "/t", "stopReason": "end_turn"});
        assert_eq!(
            from_copilot(&stop).map(|t| t.copilot).ok(),
            Some(CopilotEvent::AgentStop)
        );
        assert!(matches!(
            from_copilot(
                &json!({"sessionId": "s", "error": {"message": "x"}, "errorContext": "system"})
            ),
            Err(InputError::Unmapped { .. })
        ));
        assert!(matches!(
            from_copilot(&json!({"sessionId": "s"})),
            Err(InputError::NotAnInput)
        ));
    }

    #[test]
    fn matchers_are_anchored_on_copilots_tool_names() {
        let m = compile_matcher("bash|edit")
            .ok()
            .flatten()
            .unwrap_or_else(|| panic!("a matcher"));
        assert!(m.is_match("bash"));
        assert!(!m.is_match("bash2"));
        let mut p = Map::new();
        p.insert("tool_name".into(), json!("edit_file"));
        assert_eq!(
            match_target(CopilotEvent::PreToolUse, &p).as_deref(),
            Some("edit")
        );
    }
}
