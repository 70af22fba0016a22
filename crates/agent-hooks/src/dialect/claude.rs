//! The Claude Code dialect (SPEC §7): hooks declared in `.claude/settings*.json` get Claude
//! Code's hook input (`hook_event_name`, `tool_name`, `tool_input`, `prompt`, ...) and are read
//! with Claude Code's rules — exit 2 blocks with stderr, plain stdout is context on
//! `UserPromptSubmit`/`SessionStart`, JSON decides on exit 0 — so a script written for Claude
//! Code runs here unmodified with the same effect. The event table and tool-name aliases used
//! by this source and by the `claude-hook` bridge live here.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::{Map, Value};

use super::PayloadView;
use super::shell::{Fields, parse_object, preview};
use crate::answer::{Answer, Decision, Rewrite, Unusable};
use crate::diag::DiagKind;
use crate::event::{Event, RewriteRule};
use crate::transport::{Exit, Reply};

/// A Claude Code hook event that has a canonical twin.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ClaudeEvent {
    /// `UserPromptSubmit` ↔ `on_user_message`.
    UserPromptSubmit,
    /// `PreToolUse` ↔ `pre_tool_call`.
    PreToolUse,
    /// `PostToolUse` ↔ `post_tool_call` with `status` success.
    PostToolUse,
    /// `PostToolUseFailure` ↔ `post_tool_call` with `status` error.
    PostToolUseFailure,
    /// `Stop` ↔ `on_stop`.
    Stop,
    /// `SessionStart` ↔ `on_session_start`.
    SessionStart,
    /// `SessionEnd` ↔ `on_session_end`.
    SessionEnd,
    /// `Notification` ↔ `on_outbound_message`.
    Notification,
}

/// Claude Code event names and their canonical twins.
pub const CLAUDE_EVENTS: [(&str, ClaudeEvent, Event); 8] = [
    (
        "UserPromptSubmit",
        ClaudeEvent::UserPromptSubmit,
        Event::OnUserMessage,
    ),
    ("PreToolUse", ClaudeEvent::PreToolUse, Event::PreToolCall),
    ("PostToolUse", ClaudeEvent::PostToolUse, Event::PostToolCall),
    (
        "PostToolUseFailure",
        ClaudeEvent::PostToolUseFailure,
        Event::PostToolCall,
    ),
    ("Stop", ClaudeEvent::Stop, Event::OnStop),
    (
        "SessionStart",
        ClaudeEvent::SessionStart,
        Event::OnSessionStart,
    ),
    ("SessionEnd", ClaudeEvent::SessionEnd, Event::OnSessionEnd),
    (
        "Notification",
        ClaudeEvent::Notification,
        Event::OnOutboundMessage,
    ),
];

/// Claude Code events with no canonical twin: hooks on them are listed but never fire here.
pub const CLAUDE_UNMAPPED_EVENTS: &[&str] = &[
    "PermissionRequest",
    "SubagentStart",
    "SubagentStop",
    "PreCompact",
    "PostCompact",
    "Setup",
    "TeammateIdle",
    "TaskCompleted",
    "ConfigChange",
    "WorktreeCreate",
    "WorktreeRemove",
    "InstructionsLoaded",
    "UserPromptExpansion",
    "StopFailure",
];

impl ClaudeEvent {
    /// The event called `name` by Claude Code (`PreToolUse`, ...), if it has a twin.
    pub fn parse(name: &str) -> Option<ClaudeEvent> {
        CLAUDE_EVENTS
            .iter()
            .find(|(n, _, _)| *n == name)
            .map(|(_, c, _)| *c)
    }

    /// Claude Code's name for the event.
    pub fn name(self) -> &'static str {
        CLAUDE_EVENTS
            .iter()
            .find(|(_, c, _)| *c == self)
            .map_or("", |(n, _, _)| *n)
    }

    /// The canonical event it is dispatched as.
    pub fn canonical(self) -> Event {
        CLAUDE_EVENTS
            .iter()
            .find(|(_, c, _)| *c == self)
            .map_or(Event::OnUserMessage, |(_, _, e)| *e)
    }

    /// The Claude Code event that a canonical dispatch corresponds to, if any.
    pub fn of(event: Event, payload: &Map<String, Value>) -> Option<ClaudeEvent> {
        if event == Event::PostToolCall {
            return match payload.get("status").and_then(Value::as_str) {
                Some("error") => Some(ClaudeEvent::PostToolUseFailure),
                // A call a hook blocked never ran; Claude Code fires no Post event for it.
                Some("blocked") => None,
                _ => Some(ClaudeEvent::PostToolUse),
            };
        }
        CLAUDE_EVENTS
            .iter()
            .find(|(_, _, e)| *e == event)
            .map(|(_, c, _)| *c)
    }

    /// Whether exit 2 / `decision: block` stops the action on this event.
    fn blocks(self) -> bool {
        matches!(
            self,
            ClaudeEvent::PreToolUse | ClaudeEvent::UserPromptSubmit | ClaudeEvent::Stop
        )
    }

    fn is_tool_event(self) -> bool {
        matches!(
            self,
            ClaudeEvent::PreToolUse | ClaudeEvent::PostToolUse | ClaudeEvent::PostToolUseFailure
        )
    }
}

/// Host tool name ↔ Claude Code tool name, so matchers like `Bash` or `Edit|Write` match this
/// host's tools. Configurable in `config/agent.yaml` under `claude_hooks.tool_aliases`.
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
    /// The defaults, overridden and extended by `claude_hooks.tool_aliases` (host: Claude).
    pub fn from_settings(document: &Value) -> ToolAliases {
        let mut aliases = ToolAliases::default();
        if let Some(Value::Object(map)) = document
            .get("claude_hooks")
            .and_then(|c| c.get("tool_aliases"))
        {
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

    /// Claude Code's name for the host tool `host`; unaliased names pass through.
    pub fn to_claude<'a>(&'a self, host: &'a str) -> &'a str {
        self.host_to_claude.get(host).map_or(host, String::as_str)
    }

    /// The host's name for the Claude Code tool `claude`; unaliased names pass through.
    pub fn to_host<'a>(&'a self, claude: &'a str) -> &'a str {
        self.host_to_claude
            .iter()
            .find(|(_, c)| c.as_str() == claude)
            .map_or(claude, |(h, _)| h.as_str())
    }
}

/// What a Claude Code hook's matcher is matched against for `event` (SPEC §7): the aliased tool
/// name, or `source` / `reason` / `notification_type`; `None` where Claude Code ignores matchers.
pub fn match_target<'a>(
    claude: ClaudeEvent,
    payload: &'a Map<String, Value>,
    aliases: &'a ToolAliases,
) -> Option<&'a str> {
    let field = |k: &str| payload.get(k).and_then(Value::as_str);
    match claude {
        ClaudeEvent::PreToolUse | ClaudeEvent::PostToolUse | ClaudeEvent::PostToolUseFailure => {
            Some(aliases.to_claude(field("tool_name").unwrap_or("")))
        }
        ClaudeEvent::SessionStart | ClaudeEvent::SessionEnd => Some(session_cause(claude, payload)),
        ClaudeEvent::Notification => Some(field("type").unwrap_or("")),
        ClaudeEvent::UserPromptSubmit | ClaudeEvent::Stop => None,
    }
}

/// SessionStart's `source` / SessionEnd's `reason`: the payload's own field when a host (or the
/// bridge) gives it, else the canonical `status`, else Claude Code's most common value.
fn session_cause(claude: ClaudeEvent, payload: &Map<String, Value>) -> &str {
    let (own, default) = match claude {
        ClaudeEvent::SessionEnd => ("reason", "other"),
        _ => ("source", "startup"),
    };
    [own, "status"]
        .into_iter()
        .filter_map(|k| payload.get(k).and_then(Value::as_str))
        .find(|v| !v.is_empty())
        .unwrap_or(default)
}

/// Compiles a Claude Code matcher: empty, missing or `*` match everything (`None`); a plain
/// list of names (`Bash`, `Edit|Write`, `Edit, Write`) matches exactly; anything else is an
/// unanchored regex.
pub fn compile_matcher(pattern: &str) -> Result<Option<regex::Regex>, regex::Error> {
    let p = pattern.trim();
    if p.is_empty() || p == "*" {
        return Ok(None);
    }
    let plain = p
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | ' ' | ',' | '|'));
    if plain {
        let names: Vec<String> = p
            .split(['|', ','])
            .map(str::trim)
            .filter(|n| !n.is_empty())
            .map(regex::escape)
            .collect();
        return regex::Regex::new(&format!("^(?:{})$", names.join("|"))).map(Some);
    }
    regex::Regex::new(p).map(Some)
}

/// A tool-use id for payloads that bring none, unique enough within one machine.
pub fn generate_tool_use_id() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    format!(
        "toolu_{:016x}{:08x}{:04x}",
        nanos as u64,
        std::process::id(),
        n & 0xffff
    )
}

/// Claude Code's hook input for a canonical payload.
pub fn claude_input(
    claude: ClaudeEvent,
    payload: &Map<String, Value>,
    aliases: &ToolAliases,
    transcript_default: &str,
    tool_use_id: impl FnOnce() -> String,
) -> Map<String, Value> {
    let text = |k: &str| {
        payload
            .get(k)
            .cloned()
            .unwrap_or(Value::String(String::new()))
    };
    let mut input = Map::new();
    input.insert("session_id".into(), text("session_id"));
    input.insert(
        "transcript_path".into(),
        payload
            .get("transcript_path")
            .filter(|v| v.as_str().is_some_and(|s| !s.is_empty()))
            .cloned()
            .unwrap_or_else(|| Value::String(transcript_default.to_owned())),
    );
    input.insert("cwd".into(), text("cwd"));
    input.insert(
        "permission_mode".into(),
        payload
            .get("permission_mode")
            .cloned()
            .unwrap_or_else(|| Value::String("default".into())),
    );
    input.insert(
        "hook_event_name".into(),
        Value::String(claude.name().to_owned()),
    );
    if claude.is_tool_event() {
        let tool = payload
            .get("tool_name")
            .and_then(Value::as_str)
            .unwrap_or("");
        input.insert(
            "tool_name".into(),
            Value::String(aliases.to_claude(tool).to_owned()),
        );
        input.insert(
            "tool_input".into(),
            payload
                .get("tool_input")
                .cloned()
                .unwrap_or_else(|| Value::Object(Map::new())),
        );
        let id = match payload.get("tool_use_id").and_then(Value::as_str) {
            Some(id) if !id.is_empty() => id.to_owned(),
            _ => tool_use_id(),
        };
        input.insert("tool_use_id".into(), Value::String(id));
    }
    match claude {
        ClaudeEvent::UserPromptSubmit => {
            input.insert("prompt".into(), text("message"));
        }
        ClaudeEvent::PostToolUse => {
            input.insert(
                "tool_response".into(),
                payload.get("tool_result").cloned().unwrap_or(Value::Null),
            );
        }
        ClaudeEvent::PostToolUseFailure => {
            input.insert(
                "error".into(),
                payload.get("error").cloned().unwrap_or(Value::Null),
            );
            input.insert("is_interrupt".into(), Value::Bool(false));
        }
        ClaudeEvent::Stop => {
            input.insert(
                "stop_hook_active".into(),
                payload
                    .get("stop_hook_active")
                    .cloned()
                    .unwrap_or(Value::Bool(false)),
            );
            input.insert("last_assistant_message".into(), text("response"));
        }
        ClaudeEvent::SessionStart => {
            input.insert("source".into(), session_cause(claude, payload).into());
            if let Some(model) = payload.get("model") {
                input.insert("model".into(), model.clone());
            }
        }
        ClaudeEvent::SessionEnd => {
            input.insert("reason".into(), session_cause(claude, payload).into());
        }
        ClaudeEvent::Notification => {
            input.insert("message".into(), text("notification"));
            input.insert("notification_type".into(), text("type"));
            if let Some(title) = payload.get("title") {
                input.insert("title".into(), title.clone());
            }
        }
        ClaudeEvent::PreToolUse => {}
    }
    input
}

pub(crate) fn input(view: &PayloadView<'_>, claude: ClaudeEvent, aliases: &ToolAliases) -> Vec<u8> {
    let transcript = view.ws.chat_history().to_string_lossy().into_owned();
    let input = claude_input(claude, view.payload, aliases, &transcript, || {
        view.cache
            .tool_use_id
            .get_or_init(generate_tool_use_id)
            .clone()
    });
    let mut bytes = serde_json::to_vec(&input).unwrap_or_else(|_| b"{}".to_vec());
    bytes.push(b'\n');
    bytes
}

/// Reads a Claude Code hook's exit code, stdout and stderr with Claude Code's rules.
pub(crate) fn interpret(claude: ClaudeEvent, reply: &Reply) -> Result<Answer, Unusable> {
    super::refuse_overflow(reply)?;
    let stdout = String::from_utf8_lossy(&reply.stdout);
    let stdout = stdout.trim();
    let stderr = String::from_utf8_lossy(&reply.stderr);
    let stderr = stderr.trim();
    // Claude Code treats stdout as JSON only when it looks like an object.
    let json = if stdout.starts_with('{') {
        Some(parse_object(stdout))
    } else {
        None
    };
    match reply.exit {
        Exit::Code(0) => match json {
            Some(Ok(Some(object))) => decode(claude, &object),
            Some(Ok(None)) => Ok(Answer::default()),
            Some(Err(unusable)) => Err(unusable),
            None if stdout.is_empty() => Ok(Answer::default()),
            None => Ok(match claude {
                ClaudeEvent::UserPromptSubmit | ClaudeEvent::SessionStart => Answer {
                    context: vec![stdout.to_owned()],
                    ..Answer::default()
                },
                // Elsewhere Claude Code shows plain stdout only in its transcript view.
                _ => Answer::default(),
            }),
        },
        Exit::Code(2) => {
            let json_reason = match &json {
                Some(Ok(Some(object))) => reason_of(object),
                _ => None,
            };
            let reason = json_reason.or_else(|| (!stderr.is_empty()).then(|| stderr.to_owned()));
            Ok(exit_two(claude, reason))
        }
        other => match json {
            Some(Ok(Some(object))) => decode(claude, &object),
            _ => Err(Unusable {
                kind: DiagKind::HookNonzeroExit,
                detail: if stderr.is_empty() {
                    format!("{other} (a non-blocking error in Claude Code's rules)")
                } else {
                    format!("{other}: {}", preview(stderr))
                },
            }),
        },
    }
}

fn reason_of(object: &Map<String, Value>) -> Option<String> {
    let specific = object.get("hookSpecificOutput");
    specific
        .and_then(|s| s.get("permissionDecisionReason"))
        .or_else(|| object.get("reason"))
        .or_else(|| object.get("stopReason"))
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
}

/// Exit 2: a block on the blocking events; feedback to the model after a tool ran; a message
/// to the user elsewhere.
fn exit_two(claude: ClaudeEvent, reason: Option<String>) -> Answer {
    let mut answer = Answer::default();
    if claude.blocks() {
        answer.decision = Some(Decision::Block);
        answer.reason =
            Some(reason.unwrap_or_else(|| "blocked by a Claude Code hook (exit 2)".into()));
    } else if let Some(text) = reason {
        match claude {
            ClaudeEvent::PostToolUse | ClaudeEvent::PostToolUseFailure => answer.notes.push(text),
            _ => answer.warnings.push(text),
        }
    }
    answer
}

/// Decodes a Claude Code JSON answer. Unknown keys are ignored, as Claude Code does.
fn decode(claude: ClaudeEvent, object: &Map<String, Value>) -> Result<Answer, Unusable> {
    let mut answer = Answer::default();
    let mut fields = Fields::new(object);
    let reason = fields.string("reason")?;
    match fields.string("decision")?.as_deref() {
        Some("block") => {
            let text = reason
                .clone()
                .unwrap_or_else(|| "blocked by a Claude Code hook".into());
            match claude {
                ClaudeEvent::PostToolUse | ClaudeEvent::PostToolUseFailure => {
                    // The tool already ran: Claude Code hands the reason to the model.
                    answer.notes.push(text);
                }
                _ if claude.blocks() => {
                    answer.decision = Some(Decision::Block);
                    answer.reason = Some(text);
                }
                _ => answer.warnings.push(text),
            }
        }
        Some("approve" | "allow" | "") | None => {}
        Some(other) => {
            return Err(Unusable {
                kind: DiagKind::HookInvalidOutput,
                detail: format!("decision \"{other}\" is not \"block\" or \"approve\""),
            });
        }
    }
    if let Some(specific) = fields.object_field("hookSpecificOutput")? {
        let mut inner = Fields::new(specific);
        match inner.string("permissionDecision")?.as_deref() {
            Some("deny") => {
                answer.decision = Some(Decision::Block);
                answer.reason = inner
                    .string("permissionDecisionReason")?
                    .or_else(|| Some("denied by a Claude Code hook".into()));
            }
            Some("ask" | "defer") => {
                if answer.decision != Some(Decision::Block) {
                    answer.decision = Some(Decision::Ask);
                    answer.reason = inner.string("permissionDecisionReason")?;
                }
            }
            Some("allow") | None => {}
            Some(other) => {
                return Err(Unusable {
                    kind: DiagKind::HookInvalidOutput,
                    detail: format!(
                        "hookSpecificOutput.permissionDecision \"{other}\" is not allow, deny, ask or defer"
                    ),
                });
            }
        }
        if let Some(updated) = inner.object_field("updatedInput")? {
            answer.rewrites.push(Rewrite {
                field: "tool_input".into(),
                value: Value::Object(updated.clone()),
                // Claude Code replaces the whole tool input with updatedInput.
                rule: Some(RewriteRule::Replace),
            });
        }
        if let Some(context) = inner.text_or_list("additionalContext")? {
            match claude {
                ClaudeEvent::PostToolUse | ClaudeEvent::PostToolUseFailure => {
                    answer.notes.extend(context)
                }
                _ => answer.context.extend(context),
            }
        }
    }
    if object.get("continue") == Some(&Value::Bool(false)) {
        let why = fields.string("stopReason")?;
        if claude == ClaudeEvent::Stop {
            // On Stop, "do not continue" means "let it stop", and Claude Code gives it
            // precedence over `decision: block`: nothing to redo.
            answer.decision = None;
            answer.reason = None;
            answer.warnings.extend(why);
        } else if claude.blocks() {
            answer.decision = Some(Decision::Block);
            answer.reason = why
                .or(answer.reason.take())
                .or_else(|| Some("a Claude Code hook asked to stop (continue: false)".into()));
        } else {
            // Claude Code would end the whole session here; this host cannot be stopped from
            // a hook of an event that only observes, so the user is told instead.
            answer.warnings.push(why.unwrap_or_else(|| {
                "a Claude Code hook asked to stop the session (continue: false)".into()
            }));
        }
    }
    if let Some(message) = fields.string("systemMessage")? {
        answer.warnings.push(message);
    }
    Ok(answer)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn reply(stdout: &str, code: i32, stderr: &str) -> Reply {
        Reply {
            stdout: stdout.as_bytes().to_vec(),
            stdout_overflow: false,
            stderr: stderr.as_bytes().to_vec(),
            exit: Exit::Code(code),
            left_behind: None,
            elapsed: Duration::ZERO,
        }
    }

    #[test]
    fn matchers_follow_claude_code_rules() {
        let exact = compile_matcher("Edit|Write").unwrap().unwrap();
        assert!(exact.is_match("Edit") && exact.is_match("Write"));
        assert!(!exact.is_match("MultiEdit"));
        assert!(compile_matcher("*").unwrap().is_none());
        assert!(compile_matcher("").unwrap().is_none());
        let re = compile_matcher("Notebook.*").unwrap().unwrap();
        assert!(re.is_match("NotebookEdit"));
        let mcp = compile_matcher("mcp__memory__.*").unwrap().unwrap();
        assert!(mcp.is_match("mcp__memory__create_entities"));
    }

    #[test]
    fn exit_two_blocks_even_if_json_allows() {
        let a = interpret(
            ClaudeEvent::PreToolUse,
            &reply(r#"{"decision":"approve"}"#, 2, "nope"),
        )
        .unwrap();
        assert_eq!(a.decision, Some(Decision::Block));
        assert_eq!(a.reason.as_deref(), Some("nope"));
    }

    #[test]
    fn plain_stdout_is_context_only_where_claude_code_says() {
        let a = interpret(ClaudeEvent::SessionStart, &reply("hello", 0, "")).unwrap();
        assert_eq!(a.context, vec!["hello".to_owned()]);
        let b = interpret(ClaudeEvent::PreToolUse, &reply("hello", 0, "")).unwrap();
        assert!(b.is_noop());
    }

    #[test]
    fn post_tool_use_block_is_a_note_for_the_model() {
        let a = interpret(
            ClaudeEvent::PostToolUse,
            &reply(r#"{"decision":"block","reason":"lint failed"}"#, 0, ""),
        )
        .unwrap();
        assert_eq!(a.decision, None);
        assert_eq!(a.notes, vec!["lint failed".to_owned()]);
    }

    #[test]
    fn continue_false_on_stop_lets_it_stop_even_over_a_block() {
        let a = interpret(
            ClaudeEvent::Stop,
            &reply(
                r#"{"decision":"block","reason":"again","continue":false,"stopReason":"budget spent"}"#,
                0,
                "",
            ),
        )
        .unwrap();
        assert_eq!(a.decision, None);
        assert_eq!(a.warnings, vec!["budget spent".to_owned()]);
    }

    #[test]
    fn continue_false_blocks_a_tool_call_and_warns_elsewhere() {
        let answer = r#"{"continue":false,"stopReason":"maintenance window"}"#;
        let pre = interpret(ClaudeEvent::PreToolUse, &reply(answer, 0, "")).unwrap();
        assert_eq!(pre.decision, Some(Decision::Block));
        assert_eq!(pre.reason.as_deref(), Some("maintenance window"));
        let post = interpret(ClaudeEvent::PostToolUse, &reply(answer, 0, "")).unwrap();
        assert_eq!(post.decision, None);
        assert_eq!(post.warnings, vec!["maintenance window".to_owned()]);
    }

    #[test]
    fn session_fields_fall_back_to_the_canonical_status() {
        let mut payload = Map::new();
        payload.insert("status".into(), Value::from("resume"));
        let input = claude_input(
            ClaudeEvent::SessionStart,
            &payload,
            &ToolAliases::default(),
            "/t",
            String::new,
        );
        assert_eq!(input["source"], "resume");
        payload.insert("source".into(), Value::from("clear"));
        let aliases = ToolAliases::default();
        assert_eq!(
            match_target(ClaudeEvent::SessionStart, &payload, &aliases),
            Some("clear")
        );
        assert_eq!(
            match_target(ClaudeEvent::SessionEnd, &Map::new(), &aliases),
            Some("other")
        );
    }

    #[test]
    fn blocked_tool_calls_fire_no_post_event() {
        let mut payload = Map::new();
        payload.insert("status".into(), Value::from("blocked"));
        assert_eq!(ClaudeEvent::of(Event::PostToolCall, &payload), None);
        payload.insert("status".into(), Value::from("error"));
        assert_eq!(
            ClaudeEvent::of(Event::PostToolCall, &payload),
            Some(ClaudeEvent::PostToolUseFailure)
        );
        payload.insert("status".into(), Value::from("success"));
        assert_eq!(
            ClaudeEvent::of(Event::PostToolCall, &payload),
            Some(ClaudeEvent::PostToolUse)
        );
    }

    #[test]
    fn aliases_map_both_ways() {
        let a = ToolAliases::default();
        assert_eq!(a.to_claude("bash"), "Bash");
        assert_eq!(a.to_host("Edit"), "edit_file");
        assert_eq!(a.to_claude("custom"), "custom");
    }
}
