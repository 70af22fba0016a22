//! Claude Code's home: its names and files, its hooks file's shape, and its bridge, for the
//! callers that go through [`AgentHome`]. Codex shares the file's shape and the matcher rules.

use serde_json::Value;

use super::event::{
    CLAUDE_EVENTS, CLAUDE_UNMAPPED_EVENTS, ClaudeCode, ClaudeEvent, ClaudeFamily, compile_matcher,
};
use super::reverse::{Sent, from_claude, to_claude};
use crate::agent::{AgentAnswer, SourceKind};
use crate::home::{
    AgentHome, AgentNames, Bridged, HooksFile, InputError, RewritePermission, Selector,
    TimeoutUnit, ToolAliases,
};
use crate::matcher::Matcher;
use agent_hooks_core::event::Event;
use agent_hooks_core::outcome::Outcome;

/// A hook input of an agent that speaks Claude Code's protocol (`family`) read into a
/// canonical dispatch, its answer written by `write` in the shape of the event it came as.
///
/// # Errors
///
/// The input is not a hook input of the agent, or names an event it has no twin for.
pub fn read_family_input(
    family: &dyn ClaudeFamily,
    input: &Value,
    aliases: &ToolAliases,
    write: impl FnOnce(ClaudeEvent, &Outcome, &Sent) -> AgentAnswer + Send + 'static,
) -> Result<Bridged, InputError> {
    let t = from_claude(family, input, aliases)?;
    let sent = Sent::of_event(t.event, &t.payload);
    let claude = t.claude;
    Ok(Bridged {
        event: t.event,
        payload: t.payload,
        answer: Box::new(move |outcome| write(claude, outcome, &sent)),
        lapses: Vec::new(),
    })
}

/// The hooks file of Claude Code and of the agents that copy it: matcher groups, typed
/// handlers, timeouts in seconds, no version.
pub const CLAUDE_HOOKS_FILE: HooksFile = HooksFile {
    grouped: true,
    typed: true,
    version: None,
    timeout_unit: TimeoutUnit::Seconds,
};

/// Compiles a matcher by Claude Code's rules ([`compile_matcher`]), keeping the pattern as
/// written for display.
///
/// # Errors
///
/// The pattern is not a plain list of names and not a valid regex.
pub fn claude_matcher(pattern: &str) -> Result<Option<Matcher>, regex::Error> {
    Ok(compile_matcher(pattern)?.map(|regex| Matcher::new(pattern.to_owned(), regex)))
}

impl AgentHome for ClaudeCode {
    fn user_config_dirs(&self) -> &'static [&'static str] {
        &[".claude"]
    }

    fn names(&self) -> &'static AgentNames {
        &AgentNames {
            name: "claude",
            label: "Claude Code",
            hook_command: "claude-hook",
            http_route: "/v1/hooks/claude-code",
            config_file: ".claude/settings.json",
            source: SourceKind::ClaudeCode,
        }
    }

    fn has_http_hooks(&self) -> bool {
        true
    }

    /// `mcp__server__tool`.
    fn mcp_prefix(&self) -> Option<&'static str> {
        Some("mcp__")
    }

    fn no_http_on(&self, name: &str) -> Option<&'static str> {
        (name == ClaudeEvent::SessionStart.name())
            .then_some("Claude Code runs only command hooks on SessionStart")
    }

    fn project_dir_var(&self) -> Option<&'static str> {
        Some("CLAUDE_PROJECT_DIR")
    }

    fn events(&self) -> Vec<(&'static str, Event)> {
        CLAUDE_EVENTS.iter().map(|(n, _, e)| (*n, *e)).collect()
    }

    fn unmapped_events(&self) -> &'static [&'static str] {
        CLAUDE_UNMAPPED_EVENTS
    }

    fn hooks_file(&self) -> HooksFile {
        CLAUDE_HOOKS_FILE
    }

    fn matcher(&self, _event: &str, pattern: &str) -> Result<Option<Matcher>, regex::Error> {
        claude_matcher(pattern)
    }

    /// A tool event's bridge group matches every tool (`*`).
    fn bridge_matcher(&self, name: &str) -> Option<&'static str> {
        ClaudeEvent::parse(name)
            .is_some_and(ClaudeEvent::is_tool_event)
            .then_some("*")
    }

    fn is_failure_event(&self, name: &str) -> bool {
        name == ClaudeEvent::PostToolUseFailure.name()
    }

    fn is_success_event(&self, name: &str) -> bool {
        name == ClaudeEvent::PostToolUse.name()
    }

    /// A failed tool call goes under `PostToolUseFailure` only, one that succeeded under
    /// `PostToolUse`, and a hook for both under both.
    fn events_for(&self, hook: &Selector<'_>) -> Vec<&'static str> {
        if hook.event == Event::PostToolCall && !hook.failure && !hook.success_only {
            return vec![
                ClaudeEvent::PostToolUse.name(),
                ClaudeEvent::PostToolUseFailure.name(),
            ];
        }
        let tool = matches!(hook.event, Event::PreToolCall | Event::PostToolCall);
        CLAUDE_EVENTS
            .iter()
            .filter(|(_, c, _)| (*c == ClaudeEvent::PostToolUseFailure) == hook.failure || !tool)
            .find(|(_, _, e)| *e == hook.event)
            .map(|(n, _, _)| *n)
            .into_iter()
            .collect()
    }

    fn read_input(
        &self,
        input: &Value,
        aliases: &ToolAliases,
        rewrite: RewritePermission,
    ) -> Result<Bridged, InputError> {
        read_family_input(self, input, aliases, move |claude, outcome, sent| {
            to_claude(claude, outcome, sent, rewrite)
        })
    }
}
