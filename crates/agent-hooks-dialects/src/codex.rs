//! The Codex dialect. Codex speaks Claude Code's hook protocol — the same event names, stdin
//! fields and answer fields — so its hooks go through the Claude Code dialect (`claude/`) with
//! the differences kept here: which events Codex has, the two fields its input adds
//! (`turn_id`, `model`, and `transcript_path` always, null without a transcript), the answers
//! Codex refuses (`ask`; `continue: false` before a tool), which the bridge never sends it, and
//! which a Codex hook's `ask` is read as (no decision: Codex runs the call).

use serde_json::{Map, Value};

use super::claude::{
    CLAUDE_HOOKS_FILE, ClaudeEvent, ClaudeFamily, RewritePermission, Sent, claude_matcher,
    read_family_input, to_claude,
};
use crate::agent::{Agent, AgentAnswer, SourceKind};
use crate::home::{AgentHome, AgentNames, Bridged, HooksFile, InputError, ToolAliases};
use crate::matcher::Matcher;
use agent_hooks_core::answer::{Answer, Decision};
use agent_hooks_core::diag::DiagKind;
use agent_hooks_core::event::Event;
use agent_hooks_core::outcome::Outcome;

/// The Claude Code events Codex fires, with the same names and input shapes. (Codex has no
/// `Notification`, and reports a failed tool call with `PostToolUse`.)
pub const CODEX_EVENTS: [ClaudeEvent; 6] = [
    ClaudeEvent::UserPromptSubmit,
    ClaudeEvent::PreToolUse,
    ClaudeEvent::PostToolUse,
    ClaudeEvent::Stop,
    ClaudeEvent::SessionStart,
    ClaudeEvent::SessionEnd,
];

/// Codex events with no canonical twin: hooks on them are listed but never fire here.
pub const CODEX_UNMAPPED_EVENTS: &[&str] = &[
    "PermissionRequest",
    "PreCompact",
    "PostCompact",
    "SubagentStart",
    "SubagentStop",
    "StopFailure",
    "Interrupt",
];

/// The Codex event called `name`, if it has a canonical twin.
pub fn parse(name: &str) -> Option<ClaudeEvent> {
    ClaudeEvent::parse(name).filter(|e| CODEX_EVENTS.contains(e))
}

/// The Codex event a canonical dispatch corresponds to, if any.
pub fn event_of(event: Event, payload: &Map<String, Value>) -> Option<ClaudeEvent> {
    match ClaudeEvent::of(event, payload)? {
        ClaudeEvent::PostToolUseFailure => Some(ClaudeEvent::PostToolUse),
        other => CODEX_EVENTS.contains(&other).then_some(other),
    }
}

/// Codex, as a [`ClaudeFamily`] member: Claude Code's protocol with Codex's events.
#[derive(Debug, Clone, Copy)]
pub struct Codex;

impl ClaudeFamily for Codex {
    fn agent(&self) -> Agent {
        Agent::Codex
    }

    fn parse(&self, name: &str) -> Option<ClaudeEvent> {
        parse(name)
    }

    fn event_of(&self, event: Event, payload: &Map<String, Value>) -> Option<ClaudeEvent> {
        event_of(event, payload)
    }

    fn complete_input(&self, input: &mut Map<String, Value>, payload: &Map<String, Value>) {
        complete_input(input, payload);
    }

    fn follow_answer(&self, event: ClaudeEvent, answer: &mut Answer) {
        follow_answer(event, answer);
    }
}

/// Codex rejects `ask` (and `defer`) from a PreToolUse hook as unsupported output and runs the
/// call, so a Codex hook's ask is no decision here either: the call goes on, and the user is
/// told why, rather than asked a question Codex would never have asked.
pub fn follow_answer(event: ClaudeEvent, answer: &mut Answer) {
    if event == ClaudeEvent::PreToolUse && answer.decision == Some(Decision::Ask) {
        answer.decision = None;
        let why = answer.reason.take().unwrap_or_default();
        let text = format!(
            "a Codex hook asked to confirm this call{}, but Codex does not support ask before a tool and runs the call; it goes on here too",
            if why.is_empty() {
                String::new()
            } else {
                format!(" ({why})")
            }
        );
        answer
            .problems
            .push((DiagKind::HookInvalidOutput, text.clone()));
        answer.warnings.push(text);
    }
}

impl AgentHome for Codex {
    fn user_config_dirs(&self) -> &'static [&'static str] {
        &[".codex"]
    }

    fn names(&self) -> &'static AgentNames {
        &AgentNames {
            name: "codex",
            label: "Codex",
            hook_command: "codex-hook",
            http_route: "/v1/hooks/codex",
            config_file: ".codex/hooks.json",
            source: SourceKind::Codex,
        }
    }

    fn events(&self) -> Vec<(&'static str, Event)> {
        CODEX_EVENTS
            .iter()
            .map(|c| (c.name(), c.canonical()))
            .collect()
    }

    fn unmapped_events(&self) -> &'static [&'static str] {
        CODEX_UNMAPPED_EVENTS
    }

    fn hooks_file(&self) -> HooksFile {
        CLAUDE_HOOKS_FILE
    }

    /// `.codex/hooks.json`, or the `[hooks]` of `.codex/config.toml`.
    fn parse_config(&self, text: &str) -> Result<Value, String> {
        serde_json::from_str(text).or_else(|json_error| {
            toml::from_str(text).map_err(|e: toml::de::Error| {
                format!("neither JSON ({json_error}) nor TOML ({})", e.message())
            })
        })
    }

    fn matcher(&self, _event: &str, pattern: &str) -> Result<Option<Matcher>, regex::Error> {
        claude_matcher(pattern)
    }

    /// Codex names MCP tools as Claude Code does.
    fn mcp_prefix(&self) -> Option<&'static str> {
        Some("mcp__")
    }

    fn read_input(
        &self,
        input: &Value,
        aliases: &ToolAliases,
        _rewrite: RewritePermission,
    ) -> Result<Bridged, InputError> {
        read_family_input(self, input, aliases, to_codex)
    }
}

/// Adds what Codex's input has beyond Claude Code's: the turn's id and the model (the
/// payload's, when the host gives them).
pub fn complete_input(input: &mut Map<String, Value>, payload: &Map<String, Value>) {
    let text = |k: &str| {
        payload
            .get(k)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned()
    };
    input.insert("turn_id".into(), Value::String(text("turn_id")));
    input.insert("model".into(), Value::String(text("model")));
    // Codex always sends the key, null when the session has no transcript file.
    input.entry("transcript_path").or_insert(Value::Null);
}

/// Writes an outcome as Codex's answer: Claude Code's, without what Codex rejects as invalid
/// output. Before a tool, an `ask` becomes a deny (Codex cannot ask; `docs/protocol.md`: a host
/// with no way to ask treats it as a block), a stop becomes a deny of the call, and a rewritten
/// input goes with `permissionDecision: "allow"`, the only decision Codex applies it with.
pub fn to_codex(claude: ClaudeEvent, outcome: &Outcome, sent: &Sent) -> AgentAnswer {
    // A rewrite by a hook that needs no approval would go out as an explicit allow: it asks.
    let unvetted = outcome.decision == Decision::Continue
        && outcome.unvetted_rewrite.is_some()
        && !sent.is(outcome.payload.get("tool_input"));
    if claude != ClaudeEvent::PreToolUse
        || (outcome.decision != Decision::Ask && outcome.stop.is_none() && !unvetted)
    {
        return to_claude(claude, outcome, sent, RewritePermission::Allow);
    }
    let mut outcome = outcome.clone();
    if unvetted {
        outcome.decision = Decision::Ask;
        outcome.reason = Some(format!(
            "hook \"{}\" rewrote this call and needs no approval, so its rewrite is not run unconfirmed",
            outcome.unvetted_rewrite.as_deref().unwrap_or_default()
        ));
    }
    if let Some(stop) = outcome.stop.take()
        && outcome.decision != Decision::Block
    {
        outcome.decision = Decision::Block;
        outcome.reason = Some(stop.reason);
    }
    if outcome.decision == Decision::Ask {
        outcome.decision = Decision::Block;
        let why = outcome.reason.take().unwrap_or_default();
        outcome.reason = Some(if why.is_empty() {
            "a hook wants this call confirmed, and Codex cannot ask".to_owned()
        } else {
            format!("{why} (a hook wants this call confirmed, and Codex cannot ask)")
        });
    }
    to_claude(claude, &outcome, sent, RewritePermission::Allow)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codex_has_no_notification_and_folds_failures_into_post_tool_use() {
        assert_eq!(parse("Notification"), None);
        assert_eq!(parse("PreToolUse"), Some(ClaudeEvent::PreToolUse));
        let mut payload = Map::new();
        payload.insert("status".into(), Value::from("error"));
        assert_eq!(
            event_of(Event::PostToolCall, &payload),
            Some(ClaudeEvent::PostToolUse)
        );
        assert_eq!(event_of(Event::OnOutboundMessage, &Map::new()), None);
    }

    #[test]
    fn a_codex_hooks_ask_before_a_tool_is_no_decision_and_is_told() {
        let mut answer = Answer {
            decision: Some(Decision::Ask),
            reason: Some("confirm the deploy".into()),
            ..Answer::default()
        };
        follow_answer(ClaudeEvent::PreToolUse, &mut answer);
        assert_eq!(answer.decision, None);
        assert!(
            answer.warnings[0].contains("confirm the deploy"),
            "{answer:?}"
        );
        let mut block = Answer {
            decision: Some(Decision::Block),
            ..Answer::default()
        };
        follow_answer(ClaudeEvent::PreToolUse, &mut block);
        assert_eq!(block.decision, Some(Decision::Block));
    }
}
