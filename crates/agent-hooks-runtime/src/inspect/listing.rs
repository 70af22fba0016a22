//! Every declared hook as a host reads it (the sidecar's `GET /v1/hooks`): `list`'s health
//! of each, plus what a host needs to reason about it in its own dialect's names.

use serde_json::json;

use super::health::assess_engine;
use crate::engine::Engine;
use crate::hook::Hook;
use agent_hooks_transports::TransportSpec;

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
                "packs": rule_packs_of(hook).map(|packs| match packs {
                    Ok(packs) => json!({
                        "always_on": packs.always_on,
                        "enabled": packs.enabled,
                        "available": packs.available,
                    }),
                    Err(why) => json!({"error": why}),
                }),
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

/// The rule packs of a built-in guard that has them (security_guard), as its rules file sets
/// them: `None` for any other hook, an error when the rules file cannot be read or loaded.
pub(crate) fn rule_packs_of(hook: &Hook) -> Option<Result<agent_hooks_guards::RulePacks, String>> {
    let TransportSpec::Builtin(spec) = &hook.transport else {
        return None;
    };
    if spec.guard != "security_guard" {
        return None;
    }
    let text = match &spec.rules {
        Some(path) => match std::fs::read_to_string(path) {
            Ok(text) => Some(text),
            Err(e) => return Some(Err(format!("{}: {e}", path.display()))),
        },
        None => None,
    };
    Some(agent_hooks_guards::rule_packs(text.as_deref()).map_err(|e| e.to_string()))
}

/// One line on a guard's rule packs for `list`: the opt-in packs it turns on, then the
/// ones it could (`None` for a hook without packs).
pub(crate) fn rule_packs_line(hook: &Hook) -> Option<String> {
    Some(match rule_packs_of(hook)? {
        Ok(packs) => {
            let on = if packs.enabled.is_empty() {
                "default only".to_owned()
            } else {
                format!("default + {}", packs.enabled.join(", "))
            };
            let off: Vec<&str> = packs
                .available
                .iter()
                .filter(|p| !packs.enabled.contains(p))
                .map(String::as_str)
                .collect();
            if off.is_empty() {
                on
            } else {
                format!("{on} (off: {})", off.join(", "))
            }
        }
        Err(why) => format!("unreadable ({why})"),
    })
}
