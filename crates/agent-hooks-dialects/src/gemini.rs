//! The Gemini CLI dialect, both ways, in one place: Gemini CLI's events and their canonical
//! twins, its tool names, the stdin a hook declared in `.gemini/settings.json` reads, its
//! answer read with Gemini CLI's rules (exit 2 + stderr, `decision`, `continue`,
//! `hookSpecificOutput`), and the other direction for the `gemini-hook` bridge (a Gemini CLI
//! hook input read into a canonical dispatch, an outcome written as Gemini CLI's answer).

use serde_json::{Map, Value, json};

use super::PayloadView;
use super::claude::{Sent, answer_with};
use super::read::{self, Ended, Fields, parse_object};
use crate::agent::{Agent, AgentAnswer, SourceKind};
use crate::home::{
    AgentHome, AgentNames, Bridged, HooksFile, InputError, RewritePermission, TimeoutUnit,
    ToolAliases,
};
use crate::matcher::Matcher;
use agent_hooks_core::answer::{Answer, Decision, Rewrite, Unusable};
use agent_hooks_core::diag::DiagKind;
use agent_hooks_core::event::{Event, RewriteRule};
use agent_hooks_core::outcome::Outcome;
use agent_hooks_transports::Reply;

/// A Gemini CLI hook event that has a canonical twin.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GeminiEvent {
    /// `BeforeAgent` ↔ `on_user_message`.
    BeforeAgent,
    /// `BeforeTool` ↔ `pre_tool_call`.
    BeforeTool,
    /// `AfterTool` ↔ `post_tool_call`.
    AfterTool,
    /// `AfterAgent` ↔ `on_stop` (a denial is a retry with the reason as the next prompt).
    AfterAgent,
    /// `SessionStart` ↔ `on_session_start`.
    SessionStart,
    /// `SessionEnd` ↔ `on_session_end`.
    SessionEnd,
    /// `Notification` ↔ `on_outbound_message`.
    Notification,
}

/// Gemini CLI event names and their canonical twins.
pub const GEMINI_EVENTS: [(&str, GeminiEvent, Event); 7] = [
    (
        "BeforeAgent",
        GeminiEvent::BeforeAgent,
        Event::OnUserMessage,
    ),
    ("BeforeTool", GeminiEvent::BeforeTool, Event::PreToolCall),
    ("AfterTool", GeminiEvent::AfterTool, Event::PostToolCall),
    ("AfterAgent", GeminiEvent::AfterAgent, Event::OnStop),
    (
        "SessionStart",
        GeminiEvent::SessionStart,
        Event::OnSessionStart,
    ),
    ("SessionEnd", GeminiEvent::SessionEnd, Event::OnSessionEnd),
    (
        "Notification",
        GeminiEvent::Notification,
        Event::OnOutboundMessage,
    ),
];

/// Gemini CLI events with no canonical twin: hooks on them are listed but never fire here.
/// (The model hooks see Gemini's own request and response objects, per streamed chunk;
/// `PreCompress` has no counterpart.)
pub const GEMINI_UNMAPPED_EVENTS: &[&str] = &[
    "BeforeModel",
    "AfterModel",
    "BeforeToolSelection",
    "PreCompress",
];

/// Host tool name ↔ Gemini CLI's built-in tool name.
const GEMINI_TOOLS: [(&str, &str); 4] = [
    ("bash", "run_shell_command"),
    ("edit_file", "replace"),
    ("write_file", "write_file"),
    ("read_file", "read_file"),
];

/// The tool-name aliases between this host and Gemini CLI.
pub fn tool_aliases() -> ToolAliases {
    ToolAliases::from_pairs(&GEMINI_TOOLS)
}

impl GeminiEvent {
    /// The event called `name` by Gemini CLI, if it has a twin.
    pub fn parse(name: &str) -> Option<GeminiEvent> {
        super::named(&GEMINI_EVENTS, name)
    }

    /// Gemini CLI's name for the event.
    pub fn name(self) -> &'static str {
        super::name_of(&GEMINI_EVENTS, self)
    }

    /// The canonical event it is dispatched as.
    pub fn canonical(self) -> Event {
        super::twin_of(&GEMINI_EVENTS, self).unwrap_or(Event::OnUserMessage)
    }

    /// The Gemini CLI event a canonical dispatch corresponds to, if any.
    pub fn of(event: Event, payload: &Map<String, Value>) -> Option<GeminiEvent> {
        // A call a hook blocked never ran; Gemini CLI fires no AfterTool for it.
        if event == Event::PostToolCall
            && payload.get("status").and_then(Value::as_str) == Some("blocked")
        {
            return None;
        }
        GEMINI_EVENTS
            .iter()
            .find(|(_, _, e)| *e == event)
            .map(|(_, g, _)| *g)
    }

    /// Whether the event is about one tool call (a hook's matcher is matched against the
    /// tool's name).
    pub fn is_tool_event(self) -> bool {
        matches!(self, GeminiEvent::BeforeTool | GeminiEvent::AfterTool)
    }
}

/// What a Gemini CLI matcher is matched against: the tool name on tool events (a regex), the
/// `source` / `reason` / `notification_type` on lifecycle events (an exact string); `None`
/// where Gemini CLI has nothing to match.
pub fn match_target<'a>(
    gemini: GeminiEvent,
    payload: &'a Map<String, Value>,
    aliases: &'a ToolAliases,
) -> Option<&'a str> {
    let field = |k: &str| payload.get(k).and_then(Value::as_str);
    match gemini {
        GeminiEvent::BeforeTool | GeminiEvent::AfterTool => {
            Some(aliases.to_claude(field("tool_name").unwrap_or("")))
        }
        GeminiEvent::SessionStart => Some(cause(payload, "source", "startup")),
        GeminiEvent::SessionEnd => Some(cause(payload, "reason", "exit")),
        GeminiEvent::Notification => Some(field("type").unwrap_or("")),
        GeminiEvent::BeforeAgent | GeminiEvent::AfterAgent => None,
    }
}

/// SessionStart's `source` / SessionEnd's `reason`: the payload's own field, else the canonical
/// `status`, else Gemini CLI's most common value.
fn cause<'a>(payload: &'a Map<String, Value>, own: &str, default: &'a str) -> &'a str {
    [own, "status"]
        .into_iter()
        .filter_map(|k| payload.get(k).and_then(Value::as_str))
        .find(|v| !v.is_empty())
        .unwrap_or(default)
}

/// Compiles a Gemini CLI matcher for `gemini`: `*` or empty match everything (`None`); on tool
/// events a regex, on lifecycle events an exact string.
pub fn compile_matcher(
    gemini: GeminiEvent,
    pattern: &str,
) -> Result<Option<regex::Regex>, regex::Error> {
    compile(gemini.is_tool_event(), pattern)
}

fn compile(tool_event: bool, pattern: &str) -> Result<Option<regex::Regex>, regex::Error> {
    let p = pattern.trim();
    if p.is_empty() || p == "*" {
        return Ok(None);
    }
    if tool_event {
        regex::Regex::new(p).map(Some)
    } else {
        regex::Regex::new(&format!("^{}$", regex::escape(p))).map(Some)
    }
}

/// Gemini CLI, as an [`AgentHome`]: its hooks file counts timeouts in milliseconds.
#[derive(Debug, Clone, Copy)]
pub struct Gemini;

/// `text` with its `//` and `/* */` comments blanked out (newlines kept, so positions in it
/// stay those of the file as written), as Gemini CLI strips them from its settings.
pub fn strip_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let mut in_string = false;
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            match c {
                '\\' => out.extend(chars.next()),
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match (c, chars.peek()) {
            ('"', _) => {
                in_string = true;
                out.push(c);
            }
            ('/', Some('/')) => {
                out.push(' ');
                for c in chars.by_ref() {
                    if c == '\n' {
                        out.push('\n');
                        break;
                    }
                    out.push(' ');
                }
            }
            ('/', Some('*')) => {
                chars.next();
                out.push_str("  ");
                let mut last = ' ';
                for c in chars.by_ref() {
                    out.push(if c == '\n' { '\n' } else { ' ' });
                    if last == '*' && c == '/' {
                        break;
                    }
                    last = c;
                }
            }
            _ => out.push(c),
        }
    }
    out
}

impl AgentHome for Gemini {
    fn user_config_dirs(&self) -> &'static [&'static str] {
        &[".gemini"]
    }

    fn names(&self) -> &'static AgentNames {
        &AgentNames {
            name: "gemini",
            label: "Gemini CLI",
            hook_command: "gemini-hook",
            http_route: "/v1/hooks/gemini",
            config_file: ".gemini/settings.json",
            source: SourceKind::Gemini,
        }
    }

    fn project_dir_var(&self) -> Option<&'static str> {
        Some("GEMINI_PROJECT_DIR")
    }

    fn events(&self) -> Vec<(&'static str, Event)> {
        GEMINI_EVENTS.iter().map(|(n, _, e)| (*n, *e)).collect()
    }

    fn unmapped_events(&self) -> &'static [&'static str] {
        GEMINI_UNMAPPED_EVENTS
    }

    fn hooks_file(&self) -> HooksFile {
        HooksFile {
            grouped: true,
            typed: true,
            version: None,
            timeout_unit: TimeoutUnit::Milliseconds,
        }
    }

    /// By [`compile_matcher`]'s rules for `event`; an event Gemini CLI lacks counts as a
    /// lifecycle event (an exact string).
    /// Settings with comments, which Gemini CLI strips.
    fn parse_config(&self, text: &str) -> Result<Value, String> {
        serde_json::from_str(&strip_comments(text)).map_err(|e| e.to_string())
    }

    fn matcher(&self, event: &str, pattern: &str) -> Result<Option<Matcher>, regex::Error> {
        let tool_event = GeminiEvent::parse(event).is_some_and(GeminiEvent::is_tool_event);
        Ok(compile(tool_event, pattern)?.map(|regex| Matcher::new(pattern.to_owned(), regex)))
    }

    fn tool_aliases(&self) -> ToolAliases {
        tool_aliases()
    }

    /// Gemini CLI refuses with `decision: "deny"`.
    fn deny_any(&self, message: &str) -> Value {
        json!({ "decision": "deny", "reason": message, "systemMessage": message })
    }

    fn read_input(
        &self,
        input: &Value,
        _aliases: &ToolAliases,
        _rewrite: RewritePermission,
    ) -> Result<Bridged, InputError> {
        let t = from_gemini(input)?;
        let event = t.gemini.canonical();
        let sent = Sent::of_event(event, &t.payload);
        let gemini = t.gemini;
        Ok(Bridged {
            event,
            payload: t.payload,
            answer: Box::new(move |outcome| to_gemini(gemini, outcome, &sent)),
            lapses: Vec::new(),
        })
    }
}

/// Gemini CLI's hook input for a canonical payload.
pub fn gemini_input(
    gemini: GeminiEvent,
    payload: &Map<String, Value>,
    aliases: &ToolAliases,
    timestamp: String,
) -> Map<String, Value> {
    let text = |k: &str| {
        payload
            .get(k)
            .cloned()
            .unwrap_or(Value::String(String::new()))
    };
    let mut input = Map::new();
    input.insert("session_id".into(), text("session_id"));
    // Gemini CLI's transcript is its own JSON format: passed on only when the host gives one.
    if let Some(path) = payload
        .get("transcript_path")
        .filter(|v| v.as_str().is_some_and(|s| !s.is_empty()))
    {
        input.insert("transcript_path".into(), path.clone());
    }
    input.insert("cwd".into(), text("cwd"));
    input.insert("hook_event_name".into(), json!(gemini.name()));
    input.insert("timestamp".into(), json!(timestamp));
    let tool = || {
        let host = payload
            .get("tool_name")
            .and_then(Value::as_str)
            .unwrap_or("");
        json!(aliases.to_claude(host))
    };
    let tool_input = || {
        payload
            .get("tool_input")
            .cloned()
            .unwrap_or_else(|| json!({}))
    };
    match gemini {
        GeminiEvent::BeforeTool => {
            input.insert("tool_name".into(), tool());
            input.insert("tool_input".into(), tool_input());
        }
        GeminiEvent::AfterTool => {
            input.insert("tool_name".into(), tool());
            input.insert("tool_input".into(), tool_input());
            let result = payload.get("tool_result").cloned().unwrap_or(Value::Null);
            let text = result
                .as_str()
                .map_or_else(|| result.to_string(), str::to_owned);
            let mut response = json!({"llmContent": text, "returnDisplay": text});
            if payload.get("status").and_then(Value::as_str) == Some("error") {
                response["error"] = payload.get("error").cloned().unwrap_or(Value::Null);
            }
            input.insert("tool_response".into(), response);
        }
        GeminiEvent::BeforeAgent => {
            input.insert("prompt".into(), text("message"));
        }
        GeminiEvent::AfterAgent => {
            let prompt = payload
                .get("prompt")
                .or_else(|| payload.get("last_user_message"))
                .cloned()
                .unwrap_or(Value::String(String::new()));
            input.insert("prompt".into(), prompt);
            input.insert("prompt_response".into(), text("response"));
            input.insert(
                "stop_hook_active".into(),
                payload
                    .get("stop_hook_active")
                    .cloned()
                    .unwrap_or(Value::Bool(false)),
            );
        }
        GeminiEvent::SessionStart => {
            input.insert("source".into(), json!(cause(payload, "source", "startup")));
        }
        GeminiEvent::SessionEnd => {
            input.insert("reason".into(), json!(cause(payload, "reason", "exit")));
        }
        GeminiEvent::Notification => {
            input.insert("notification_type".into(), text("type"));
            input.insert("message".into(), text("notification"));
            input.insert(
                "details".into(),
                payload.get("details").cloned().unwrap_or_else(|| json!({})),
            );
        }
    }
    input
}

/// The canonical payload as a Gemini CLI hook's stdin for `gemini`: one JSON line, tool
/// names given as Gemini CLI's through `aliases`.
pub fn input(view: &PayloadView<'_>, gemini: GeminiEvent, aliases: &ToolAliases) -> Vec<u8> {
    let now = time::OffsetDateTime::now_utc()
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_default();
    let input = gemini_input(gemini, view.payload, aliases, now);
    let mut bytes = serde_json::to_vec(&input).unwrap_or_else(|_| b"{}".to_vec());
    bytes.push(b'\n');
    bytes
}

/// Reads a Gemini CLI hook's exit code, stdout and stderr with Gemini CLI's rules: exit 0
/// parses stdout as JSON (plain text is allowed through and shown as a system message); exit 2
/// is a block whose reason is stderr; any other exit is a warning and the action proceeds.
pub fn interpret(
    gemini: GeminiEvent,
    view: &PayloadView<'_>,
    reply: &Reply,
) -> Result<Answer, Unusable> {
    let proceeds = "a warning in Gemini CLI's rules; the action proceeds";
    if let Ended::Two(stderr) = read::ended(reply, proceeds)? {
        return Ok(denied(gemini, stderr_or(&stderr), true));
    }
    let stdout = String::from_utf8_lossy(&reply.stdout);
    let stdout = stdout.trim();
    if stdout.is_empty() {
        return Ok(Answer::default());
    }
    match parse_object(stdout) {
        Ok(Some(object)) => decode(gemini, view, &object),
        Ok(None) => Ok(Answer::default()),
        // Gemini CLI allows the action and shows the text as a system message.
        Err(unusable) => Ok(Answer {
            warnings: vec![stdout.to_owned()],
            problems: vec![(
                unusable.kind,
                format!(
                    "{} (Gemini CLI allows the action and shows the text)",
                    unusable.detail
                ),
            )],
            ..Answer::default()
        }),
    }
}

fn stderr_or(stderr: &str) -> String {
    if stderr.is_empty() {
        "blocked by a Gemini CLI hook (exit 2)".to_owned()
    } else {
        stderr.to_owned()
    }
}

/// A denial (`decision: "deny"` or exit 2) on `gemini`: blocks the tool call or the turn,
/// hides a tool's result behind the reason, or retries the turn with the reason; advisory
/// events ignore it.
fn denied(gemini: GeminiEvent, reason: String, by_exit: bool) -> Answer {
    let mut answer = Answer::default();
    match gemini {
        GeminiEvent::BeforeTool | GeminiEvent::BeforeAgent | GeminiEvent::AfterAgent => {
            answer.decision = Some(Decision::Block);
            answer.reason = Some(reason);
        }
        GeminiEvent::AfterTool => answer.rewrites.push(Rewrite {
            field: "tool_result".into(),
            value: Value::String(reason),
            rule: Some(RewriteRule::Replace),
        }),
        GeminiEvent::SessionStart | GeminiEvent::SessionEnd | GeminiEvent::Notification => {
            if by_exit {
                answer.warnings.push(reason);
            } else {
                answer.problems.push((
                    DiagKind::HookInvalidOutput,
                    format!("{} is advisory: its decision is ignored", gemini.name()),
                ));
            }
        }
    }
    answer
}

/// The `hookSpecificOutput` keys Gemini CLI documents that this host has no counterpart for.
const UNSUPPORTED_SPECIFIC: &[&str] = &[
    "tailToolCallRequest",
    "clearContext",
    "llm_request",
    "llm_response",
    "toolConfig",
];

/// Decodes a Gemini CLI JSON answer with Gemini CLI's rules.
fn decode(
    gemini: GeminiEvent,
    view: &PayloadView<'_>,
    object: &Map<String, Value>,
) -> Result<Answer, Unusable> {
    let mut fields = Fields::new(object);
    let reason = fields.string("reason")?;
    let decision = fields.string("decision")?;
    let system_message = fields.string("systemMessage")?;
    let stop = match object.get("continue") {
        None | Some(Value::Null) | Some(Value::Bool(true)) => None,
        Some(Value::Bool(false)) => Some(fields.string("stopReason")?),
        Some(other) => return Err(read::wrong_type("continue", "a boolean", other)),
    };
    let mut answer = match decision.as_deref() {
        Some("deny" | "block") => denied(
            gemini,
            reason.unwrap_or_else(|| "denied by a Gemini CLI hook".into()),
            false,
        ),
        Some("ask") if gemini == GeminiEvent::BeforeTool => Answer {
            decision: Some(Decision::Ask),
            reason,
            ..Answer::default()
        },
        Some("allow" | "approve" | "") | None => Answer::default(),
        Some(other) => {
            return Err(Unusable {
                kind: DiagKind::HookInvalidOutput,
                detail: format!("decision \"{other}\" is not \"allow\" or \"deny\""),
            });
        }
    };
    if let Some(specific) = fields.object_field("hookSpecificOutput")? {
        let mut inner = Fields::new(specific);
        let context = inner.text_or_list("additionalContext")?.unwrap_or_default();
        match gemini {
            GeminiEvent::AfterTool => answer.notes.extend(context),
            GeminiEvent::BeforeAgent | GeminiEvent::SessionStart => answer.context.extend(context),
            _ if !context.is_empty() => answer.problems.push((
                DiagKind::HookInvalidOutput,
                format!(
                    "hookSpecificOutput.additionalContext is not read on {}; ignored",
                    gemini.name()
                ),
            )),
            _ => {}
        }
        if let Some(partial) = inner.object_field("tool_input")?
            && gemini == GeminiEvent::BeforeTool
            && answer.decision != Some(Decision::Block)
        {
            // Gemini CLI merges the hook's keys over the model's arguments.
            let mut merged = view
                .payload
                .get("tool_input")
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default();
            merged.extend(partial.clone());
            answer.rewrites.push(Rewrite {
                field: "tool_input".into(),
                value: Value::Object(merged),
                rule: Some(RewriteRule::Replace),
            });
        }
        for key in UNSUPPORTED_SPECIFIC {
            if specific.get(*key).is_some_and(|v| !v.is_null()) {
                answer.problems.push((
                    DiagKind::HookInvalidOutput,
                    format!("hookSpecificOutput.{key} has no counterpart in this host; ignored"),
                ));
            }
        }
    }
    if let Some(why) = stop {
        let why =
            why.unwrap_or_else(|| "a Gemini CLI hook stopped the agent (continue: false)".into());
        match gemini {
            // Retrying is off: the session stops instead.
            GeminiEvent::AfterAgent => {
                answer.decision = None;
                answer.reason = None;
            }
            GeminiEvent::BeforeTool | GeminiEvent::BeforeAgent => {
                answer.decision = Some(Decision::Block);
                answer.reason = Some(why.clone());
            }
            _ => {}
        }
        if !matches!(
            gemini,
            GeminiEvent::SessionStart | GeminiEvent::SessionEnd | GeminiEvent::Notification
        ) {
            answer.stop = Some(why);
        }
    }
    answer.warnings.extend(system_message);
    Ok(answer)
}

/// A Gemini CLI hook input translated to a canonical dispatch.
#[derive(Debug, Clone, PartialEq)]
pub struct Translated {
    /// The Gemini CLI event it came as, which decides the answer's shape.
    pub gemini: GeminiEvent,
    /// The canonical payload (tool names mapped back to the host's).
    pub payload: Map<String, Value>,
}

/// Maps a Gemini CLI hook input to the canonical event and payload.
///
/// # Errors
///
/// [`InputError::NotAnInput`] without a `hook_event_name`, and
/// `Unmapped` for an event with no canonical twin.
pub fn from_gemini(input: &Value) -> Result<Translated, InputError> {
    let Value::Object(input) = input else {
        return Err(InputError::NotAnInput);
    };
    let name = input
        .get("hook_event_name")
        .and_then(Value::as_str)
        .ok_or(InputError::NotAnInput)?;
    let gemini = GeminiEvent::parse(name).ok_or_else(|| InputError::Unmapped {
        agent: Agent::Gemini,
        name: name.to_owned(),
    })?;
    let aliases = tool_aliases();
    let get = |k: &str| input.get(k).cloned();
    let mut p = Map::new();
    for key in ["session_id", "cwd", "transcript_path"] {
        if let Some(v) = get(key) {
            p.insert(key.into(), v);
        }
    }
    let tool = || {
        let name = input.get("tool_name").and_then(Value::as_str).unwrap_or("");
        json!(aliases.to_host(name))
    };
    match gemini {
        GeminiEvent::BeforeTool => {
            p.insert("tool_name".into(), tool());
            p.insert("tool_input".into(), get("tool_input").unwrap_or(json!({})));
        }
        GeminiEvent::AfterTool => {
            p.insert("tool_name".into(), tool());
            p.insert("tool_input".into(), get("tool_input").unwrap_or(json!({})));
            let response = get("tool_response").unwrap_or(Value::Null);
            let failed = response.get("error").is_some_and(|e| !e.is_null());
            let content = response
                .get("llmContent")
                .cloned()
                .unwrap_or(response.clone());
            p.insert("tool_result".into(), content);
            p.insert(
                "status".into(),
                json!(if failed { "error" } else { "success" }),
            );
            if failed {
                p.insert("error".into(), response["error"].clone());
            }
        }
        GeminiEvent::BeforeAgent => {
            p.insert("message".into(), get("prompt").unwrap_or(json!("")));
            p.insert("channel".into(), json!("gemini-cli"));
        }
        GeminiEvent::AfterAgent => {
            p.insert(
                "response".into(),
                get("prompt_response").unwrap_or(json!("")),
            );
            p.insert(
                "stop_hook_active".into(),
                get("stop_hook_active").unwrap_or(json!(false)),
            );
            if let Some(prompt) = get("prompt") {
                p.insert("prompt".into(), prompt);
            }
        }
        GeminiEvent::SessionStart => {
            let source = get("source").unwrap_or(json!("startup"));
            p.insert("status".into(), source.clone());
            p.insert("source".into(), source);
        }
        GeminiEvent::SessionEnd => {
            let reason = get("reason").unwrap_or(json!("exit"));
            p.insert("status".into(), reason.clone());
            p.insert("reason".into(), reason);
        }
        GeminiEvent::Notification => {
            p.insert("notification".into(), get("message").unwrap_or(json!("")));
            p.insert("type".into(), get("notification_type").unwrap_or(json!("")));
            if let Some(details) = get("details") {
                p.insert("details".into(), details);
            }
        }
    }
    Ok(Translated { gemini, payload: p })
}

/// Turns an outcome into Gemini CLI's answer for `gemini`. `sent` is what the dispatch started
/// from, to tell whether hooks rewrote it.
pub fn to_gemini(gemini: GeminiEvent, outcome: &Outcome, sent: &Sent) -> AgentAnswer {
    let mut out = Map::new();
    let mut specific = Map::new();
    let mut context = outcome.context.clone();
    let reason = outcome.reason.clone().unwrap_or_default();
    let deny = |out: &mut Map<String, Value>, reason: String| {
        out.insert("decision".into(), json!("deny"));
        out.insert("reason".into(), json!(reason));
    };
    match gemini {
        GeminiEvent::BeforeTool => {
            match outcome.decision {
                Decision::Block => {
                    let text = outcome
                        .result
                        .as_ref()
                        .map(|r| r.as_str().map_or_else(|| r.to_string(), str::to_owned))
                        .unwrap_or(reason);
                    deny(&mut out, text);
                }
                // Gemini CLI's hooks cannot ask the user: a host that cannot ask blocks.
                Decision::Ask => deny(
                    &mut out,
                    format!(
                        "{reason} (a hook wants this call confirmed, and Gemini CLI cannot ask)"
                    ),
                ),
                Decision::Continue => {}
            }
            let now = outcome.payload.get("tool_input");
            if outcome.decision == Decision::Continue && now.is_some() && !sent.is(now) {
                specific.insert("tool_input".into(), now.cloned().unwrap_or(json!({})));
            }
        }
        GeminiEvent::AfterTool => {
            context.extend(outcome.notes.iter().cloned());
            let now = outcome.payload.get("tool_result");
            if now.is_some() && !sent.is(now) {
                // A denial's reason replaces the result the model sees.
                let text = now
                    .map(|r| r.as_str().map_or_else(|| r.to_string(), str::to_owned))
                    .unwrap_or_default();
                deny(&mut out, text);
            }
        }
        GeminiEvent::BeforeAgent => {
            if outcome.is_blocked() {
                deny(&mut out, reason);
            }
            if let Some(rewritten) = outcome.payload.get("message").and_then(Value::as_str)
                && !sent.is(outcome.payload.get("message"))
            {
                context.push(format!(
                    "A hook rewrote the user's message; treat it as: {rewritten}"
                ));
            }
        }
        GeminiEvent::AfterAgent => {
            if outcome.is_blocked() {
                deny(&mut out, reason);
            }
        }
        GeminiEvent::SessionStart | GeminiEvent::SessionEnd | GeminiEvent::Notification => {}
    }
    let context_allowed = matches!(
        gemini,
        GeminiEvent::BeforeAgent | GeminiEvent::SessionStart | GeminiEvent::AfterTool
    );
    if context_allowed && !context.is_empty() {
        specific.insert("additionalContext".into(), json!(context.join("\n\n")));
    }
    answer_with(out, specific, gemini.name(), outcome)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply(stdout: &str, code: i32, stderr: &str) -> Reply {
        Reply::exited(stdout, code, stderr)
    }

    fn read(gemini: GeminiEvent, payload: Value, stdout: &str, code: i32, stderr: &str) -> Answer {
        let ws = agent_hooks_core::workspace::Workspace::new("/tmp");
        let cache = super::super::DispatchCache::default();
        let payload = payload.as_object().cloned().unwrap_or_default();
        let view = PayloadView::new(gemini.canonical(), &payload, &ws, &cache);
        interpret(gemini, &view, &reply(stdout, code, stderr)).unwrap_or_default()
    }

    #[test]
    fn comments_are_blanked_and_strings_kept() {
        let text = "{\n  // the team's hooks\n  \"a\": \"http://x/*y*/\", /* why */ \"b\": 1\n}";
        let stripped = strip_comments(text);
        assert_eq!(stripped.lines().count(), text.lines().count());
        let value: Value = serde_json::from_str(&stripped).expect("JSON");
        assert_eq!(value["a"], "http://x/*y*/");
        assert_eq!(value["b"], 1);
    }

    #[test]
    fn exit_two_blocks_a_tool_and_hides_a_result() {
        let a = read(GeminiEvent::BeforeTool, json!({}), "", 2, "no root deletes");
        assert_eq!(a.decision, Some(Decision::Block));
        assert_eq!(a.reason.as_deref(), Some("no root deletes"));
        let b = read(GeminiEvent::AfterTool, json!({}), "", 2, "[hidden]");
        assert_eq!(b.decision, None);
        assert_eq!(b.rewrites[0].value, json!("[hidden]"));
    }

    #[test]
    fn tool_input_merges_over_the_models_arguments() {
        let a = read(
            GeminiEvent::BeforeTool,
            json!({"tool_input": {"command": "ls", "dir_path": "."}}),
            r#"{"hookSpecificOutput":{"tool_input":{"command":"ls -la"}}}"#,
            0,
            "",
        );
        assert_eq!(
            a.rewrites[0].value,
            json!({"command": "ls -la", "dir_path": "."})
        );
    }

    #[test]
    fn plain_stdout_allows_and_is_shown_and_unknown_outputs_are_reported() {
        let a = read(GeminiEvent::BeforeTool, json!({}), "checking...", 0, "");
        assert_eq!(a.decision, None);
        assert_eq!(a.warnings, vec!["checking...".to_owned()]);
        let b = read(
            GeminiEvent::AfterAgent,
            json!({}),
            r#"{"hookSpecificOutput":{"clearContext":true}}"#,
            0,
            "",
        );
        assert!(b.problems[0].1.contains("clearContext"), "{:?}", b.problems);
    }

    #[test]
    fn continue_false_after_the_agent_stops_without_a_retry() {
        let a = read(
            GeminiEvent::AfterAgent,
            json!({}),
            r#"{"decision":"deny","reason":"again","continue":false,"stopReason":"budget"}"#,
            0,
            "",
        );
        assert_eq!(a.decision, None);
        assert_eq!(a.stop.as_deref(), Some("budget"));
    }

    #[test]
    fn the_tool_names_map_both_ways() {
        let aliases = tool_aliases();
        assert_eq!(aliases.to_claude("bash"), "run_shell_command");
        assert_eq!(aliases.to_host("replace"), "edit_file");
        let t = from_gemini(&json!({"hook_event_name": "BeforeTool",
            "tool_name": "run_shell_command", "tool_input": {"command": "rm -rf /"}}));
        let Ok(t) = t else {
            unreachable!("a BeforeTool input maps")
        };
        assert_eq!(t.payload["tool_name"], "bash");
        assert_eq!(t.gemini.canonical(), Event::PreToolCall);
    }
}
