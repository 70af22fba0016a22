//! Claude Code's events, the tool-name aliases between this host and Claude Code, and how its
//! matchers are read: the tables both directions of the dialect (a source of hooks, and the
//! `claude-hook` bridge) translate through.

use serde_json::{Map, Value};

use crate::home::ToolAliases;
use agent_hooks_core::event::Event;

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
    "PermissionDenied",
    "PostToolBatch",
    "TaskCreated",
    "CwdChanged",
    "DirectoryAdded",
    "FileChanged",
    "MessageDisplay",
    "Elicitation",
    "ElicitationResult",
    "PreModelSwitch",
    "PostModelSwitch",
];

/// An agent that speaks Claude Code's hook protocol — its event names, stdin fields and
/// answer fields — with an event set of its own: Claude Code itself ([`ClaudeCode`]) and
/// Codex (`crate::codex::Codex`). The Claude Code dialect reads and writes through this, so it
/// never names another agent; `Agent::claude_family` picks the implementation.
pub trait ClaudeFamily: Sync {
    /// The agent.
    fn agent(&self) -> crate::agent::Agent;

    /// The event called `name` by this agent, if agent-hooks has a twin for it.
    fn parse(&self, name: &str) -> Option<ClaudeEvent>;

    /// The event a hook of this agent declared under a Claude Code event name runs at for a
    /// canonical dispatch.
    fn event_of(&self, event: Event, payload: &Map<String, Value>) -> Option<ClaudeEvent>;

    /// Adds what this agent's hook input has beyond Claude Code's.
    fn complete_input(&self, _input: &mut Map<String, Value>, _payload: &Map<String, Value>) {}

    /// Reads a hook's answer, decoded with Claude Code's rules, as this agent reads it where the
    /// two differ.
    fn follow_answer(&self, _event: ClaudeEvent, _answer: &mut agent_hooks_core::answer::Answer) {}
}

/// Claude Code, as a [`ClaudeFamily`] member: its own rules.
#[derive(Debug, Clone, Copy)]
pub struct ClaudeCode;

impl ClaudeFamily for ClaudeCode {
    fn agent(&self) -> crate::agent::Agent {
        crate::agent::Agent::ClaudeCode
    }

    fn parse(&self, name: &str) -> Option<ClaudeEvent> {
        ClaudeEvent::parse(name)
    }

    fn event_of(&self, event: Event, payload: &Map<String, Value>) -> Option<ClaudeEvent> {
        ClaudeEvent::of(event, payload)
    }
}

impl ClaudeEvent {
    /// The event called `name` by Claude Code (`PreToolUse`, ...), if it has a twin.
    pub fn parse(name: &str) -> Option<ClaudeEvent> {
        crate::named(&CLAUDE_EVENTS, name)
    }

    /// Claude Code's name for the event.
    pub fn name(self) -> &'static str {
        crate::name_of(&CLAUDE_EVENTS, self)
    }

    /// The canonical event it is dispatched as.
    pub fn canonical(self) -> Event {
        crate::twin_of(&CLAUDE_EVENTS, self).unwrap_or(Event::OnUserMessage)
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
    pub fn blocks(self) -> bool {
        matches!(
            self,
            ClaudeEvent::PreToolUse | ClaudeEvent::UserPromptSubmit | ClaudeEvent::Stop
        )
    }

    /// Whether the event concerns one tool call (and so carries a tool name and input).
    pub fn is_tool_event(self) -> bool {
        matches!(
            self,
            ClaudeEvent::PreToolUse | ClaudeEvent::PostToolUse | ClaudeEvent::PostToolUseFailure
        )
    }
}

/// What a Claude Code hook's matcher is matched against for `event` (`docs/claude-code.md`): the
/// aliased tool name, or `source` / `reason` / `notification_type`; `None` where Claude Code
/// ignores matchers.
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
pub(crate) fn session_cause(claude: ClaudeEvent, payload: &Map<String, Value>) -> &str {
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

/// The names a matcher lists when it is a plain list of names (`Bash`, `Edit|Write`,
/// `Edit, Write`) rather than a regex.
pub fn tool_names(pattern: &str) -> Option<Vec<&str>> {
    let p = pattern.trim();
    let plain = !p.is_empty()
        && p.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | ' ' | ',' | '|'));
    plain.then(|| {
        p.split(['|', ','])
            .map(str::trim)
            .filter(|n| !n.is_empty())
            .collect()
    })
}

/// Compiles a Claude Code matcher: empty, missing or `*` match everything (`None`); a plain
/// list of names ([`tool_names`]) matches exactly; anything else is an unanchored regex.
pub fn compile_matcher(pattern: &str) -> Result<Option<regex::Regex>, regex::Error> {
    let p = pattern.trim();
    if p.is_empty() || p == "*" {
        return Ok(None);
    }
    if let Some(names) = tool_names(p) {
        let names: Vec<String> = names.into_iter().map(regex::escape).collect();
        return regex::Regex::new(&format!("^(?:{})$", names.join("|"))).map(Some);
    }
    regex::Regex::new(p).map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_event_of_the_current_reference_is_known() {
        // Claude Code's hooks reference names 33 events (v2.1.317).
        let mut names: Vec<&str> = CLAUDE_EVENTS.iter().map(|(n, _, _)| *n).collect();
        names.extend(CLAUDE_UNMAPPED_EVENTS);
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), 33, "{names:?}");
        for newer in [
            "PreModelSwitch",
            "PostModelSwitch",
            "PostToolBatch",
            "DirectoryAdded",
        ] {
            assert!(names.contains(&newer), "{newer}");
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
