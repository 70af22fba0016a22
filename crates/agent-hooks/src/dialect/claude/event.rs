//! Claude Code's events, the tool-name aliases between this host and Claude Code, and how its
//! matchers are read: the tables both directions of the dialect (a source of hooks, and the
//! `claude-hook` bridge) translate through.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::event::Event;

/// A Claude Code hook event that has a canonical twin.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum ClaudeEvent {
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
pub(crate) const CLAUDE_EVENTS: [(&str, ClaudeEvent, Event); 8] = [
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
pub(crate) const CLAUDE_UNMAPPED_EVENTS: &[&str] = &[
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
];

/// The event a hook of `agent` declared under a Claude Code event name runs at for a canonical
/// dispatch: Claude Code's own rules, or Codex's, which has fewer events.
pub(crate) fn event_for(
    agent: crate::agent::Agent,
    event: Event,
    payload: &Map<String, Value>,
) -> Option<ClaudeEvent> {
    match agent {
        crate::agent::Agent::Codex => crate::dialect::codex::event_of(event, payload),
        _ => ClaudeEvent::of(event, payload),
    }
}

/// Whether the `claude-hook` bridge ever dispatches `event`: the twins of the mapped Claude
/// Code events, and `transform_tool_result`, which runs with `PostToolUse`. Hooks on any
/// other event never run inside Claude Code.
pub(crate) fn reachable_from_claude(event: Event) -> bool {
    reachable_from(crate::agent::Agent::ClaudeCode, event)
}

/// Whether `agent`'s bridge ever dispatches `event` (see [`reachable_from_claude`]).
pub(crate) fn reachable_from(agent: crate::agent::Agent, event: Event) -> bool {
    event == Event::TransformToolResult
        || match agent {
            crate::agent::Agent::ClaudeCode => CLAUDE_EVENTS.iter().any(|(_, _, e)| *e == event),
            crate::agent::Agent::Codex => crate::dialect::codex::CODEX_EVENTS
                .iter()
                .any(|c| c.canonical() == event),
            crate::agent::Agent::Gemini => crate::dialect::gemini::GEMINI_EVENTS
                .iter()
                .any(|(_, _, e)| *e == event),
            crate::agent::Agent::Cursor => crate::dialect::cursor::CURSOR_EVENTS
                .iter()
                .any(|(_, _, e)| *e == event),
        }
}

impl ClaudeEvent {
    /// The event called `name` by Claude Code (`PreToolUse`, ...), if it has a twin.
    pub(crate) fn parse(name: &str) -> Option<ClaudeEvent> {
        crate::dialect::named(&CLAUDE_EVENTS, name)
    }

    /// Claude Code's name for the event.
    pub(crate) fn name(self) -> &'static str {
        crate::dialect::name_of(&CLAUDE_EVENTS, self)
    }

    /// The canonical event it is dispatched as.
    pub(crate) fn canonical(self) -> Event {
        crate::dialect::twin_of(&CLAUDE_EVENTS, self).unwrap_or(Event::OnUserMessage)
    }

    /// The Claude Code event that a canonical dispatch corresponds to, if any.
    pub(crate) fn of(event: Event, payload: &Map<String, Value>) -> Option<ClaudeEvent> {
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
    pub(crate) fn blocks(self) -> bool {
        matches!(
            self,
            ClaudeEvent::PreToolUse | ClaudeEvent::UserPromptSubmit | ClaudeEvent::Stop
        )
    }

    pub(crate) fn is_tool_event(self) -> bool {
        matches!(
            self,
            ClaudeEvent::PreToolUse | ClaudeEvent::PostToolUse | ClaudeEvent::PostToolUseFailure
        )
    }
}

/// Host tool name ↔ Claude Code tool name, so matchers like `Bash` or `Edit|Write` match this
/// host's tools. Configurable in `config/agent.yaml` under `claude_hooks.tool_aliases`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ToolAliases {
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
    pub(crate) fn from_pairs(pairs: &[(&str, &str)]) -> ToolAliases {
        ToolAliases {
            host_to_claude: pairs
                .iter()
                .map(|(h, c)| ((*h).to_owned(), (*c).to_owned()))
                .collect(),
        }
    }

    /// The defaults, overridden and extended by `overrides` (`claude_hooks.tool_aliases` in
    /// `config/agent.yaml`: host name → Claude Code name).
    pub(crate) fn with_overrides(overrides: Option<&Value>) -> ToolAliases {
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

    /// Claude Code's name for the host tool `host`; unaliased names pass through.
    pub(crate) fn to_claude<'a>(&'a self, host: &'a str) -> &'a str {
        self.host_to_claude.get(host).map_or(host, String::as_str)
    }

    /// The host's name for the Claude Code tool `claude`; unaliased names pass through.
    pub(crate) fn to_host<'a>(&'a self, claude: &'a str) -> &'a str {
        self.host_to_claude
            .iter()
            .find(|(_, c)| c.as_str() == claude)
            .map_or(claude, |(h, _)| h.as_str())
    }
}

/// What a Claude Code hook's matcher is matched against for `event` (SPEC §7): the aliased tool
/// name, or `source` / `reason` / `notification_type`; `None` where Claude Code ignores matchers.
pub(crate) fn match_target<'a>(
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

/// Compiles a Claude Code matcher: empty, missing or `*` match everything (`None`); a plain
/// list of names (`Bash`, `Edit|Write`, `Edit, Write`) matches exactly; anything else is an
/// unanchored regex.
pub(crate) fn compile_matcher(pattern: &str) -> Result<Option<regex::Regex>, regex::Error> {
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

#[cfg(test)]
mod tests {
    use super::*;

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
