//! Every declared hook as a host reads it (the sidecar's `GET /v1/hooks`): `list`'s health
//! of each, plus what a host needs to reason about it in its own dialect's names.

use serde_json::json;

use super::health::assess_engine;
use crate::engine::Engine;

/// Every declared hook as a host reads it (the sidecar's `GET /v1/hooks`): `list`'s health of
/// each, plus what the host needs to reason about it (its events in its own dialect's names,
/// timeout, the names of its extra environment, whether it gets the conversation). Env values
/// are left out: they may be secrets.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct HookListing {
    /// Whether the master switch is on.
    pub master_enabled: bool,
    /// One JSON object per declared hook, in declaration order.
    pub hooks: Vec<serde_json::Value>,
}

/// The [`HookListing`] of the workspace `engine` has loaded (it re-hashes every recorded
/// file, so call it off the async threads).
pub fn hook_listing(engine: &Engine) -> HookListing {
    let report = assess_engine(engine);
    let hooks: Vec<serde_json::Value> = report
        .hooks
        .iter()
        .map(|h| {
            let hook = &h.hook;
            let include_conversation = matches!(
                hook.dialect,
                agent_hooks_dialects::Dialect::Skill {
                    include_conversation: true,
                    ..
                }
            );
            json!({
                "name": h.name,
                "source": h.source,
                "file": h.file,
                "line": h.line,
                "dialect": h.dialect,
                "events": h.events,
                "dialect_events": hook.events.iter().map(|e| hook.dialect.event_name(*e)).collect::<Vec<_>>(),
                "matcher": h.matcher,
                "transport": h.transport,
                "run": h.run,
                "timeout_s": hook.timeout.as_secs_f64(),
                "on_error": match hook.on_error {
                    crate::hook::OnError::Continue => "continue",
                    crate::hook::OnError::Block => "block",
                },
                "env": hook.env.iter().map(|(name, _)| name.as_str()).collect::<Vec<_>>(),
                "include_conversation": include_conversation,
                "approval_key": h.approval_key,
                "approved_events": h.approved_events,
                "health": h.health,
                "why": h.why,
                "fix": h.fix,
            })
        })
        .collect();
    HookListing {
        master_enabled: report.master_enabled,
        hooks,
    }
}
