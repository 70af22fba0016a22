//! Whether a hook can ever fire: the host sends its events and, in a workspace bridged into
//! Claude Code, the bridge dispatches them.

use super::{Context, Finding, FindingCode, Severity, names};
use crate::hook::Hook;
use agent_hooks_core::event::Event;

/// Whether the host sends the hook's events at all.
pub(super) fn firing(ctx: &Context<'_>, hook: &Hook) -> Vec<Finding> {
    let mut findings = unreachable_from_claude(ctx.ws, hook);
    let Some(sent) = &ctx.host_events else {
        return findings;
    };
    let unsent: Vec<Event> = hook
        .events
        .iter()
        .copied()
        .filter(|e| !sent.contains(e))
        .collect();
    if unsent.is_empty() {
        return Vec::new();
    }
    let severity = if unsent.len() == hook.events.len() {
        Severity::Error
    } else {
        Severity::Warning
    };
    findings.push(
        Finding::new(
            FindingCode::HostNeverSends,
            severity,
            format!(
                "declared for {}, which this host never sends (config/agent.yaml shell_hooks.host_events)",
                names(&unsent)
            ),
        )
        .fix("declare the hook for an event the host sends, or add the event to host_events if the host does send it"),
    );
    findings
}

/// In a workspace bridged into Claude Code, a hook on an event the bridge never dispatches
/// (`pre_llm_call`, `on_completion_claim`, ...) does nothing there: say so.
fn unreachable_from_claude(ws: &crate::Workspace, hook: &Hook) -> Vec<Finding> {
    if hook.source == crate::hook::SourceKind::ClaudeCode || !crate::bridge::is_installed(ws) {
        return Vec::new();
    }
    let unreachable: Vec<Event> = hook
        .events
        .iter()
        .copied()
        .filter(|e| !agent_hooks_dialects::agent::Agent::ClaudeCode.reaches(*e))
        .collect();
    if unreachable.is_empty() {
        return Vec::new();
    }
    vec![
        Finding::new(
            FindingCode::ClaudeNeverSends,
            Severity::Warning,
            format!(
                "declared for {}, which the Claude Code bridge never dispatches (docs/claude-code.md)",
                names(&unreachable)
            ),
        )
        .fix("in Claude Code, use an event the bridge maps (pre_tool_call, on_stop, ...)"),
    ]
}
