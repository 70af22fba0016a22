//! What one policy decided for one event ([`Verdict`]), and how two verdicts differ
//! ([`FlipKind`]): a decision that changed, else an input rewritten differently, else context
//! added or removed. The decision is the strongest change; one flip an event.

use agent_hooks_runtime::{Decision, HookStatus, Outcome};
use serde_json::{Map, Value, json};

/// What a policy decided for one event.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Verdict {
    /// `allow`, `ask` or `block`.
    pub decision: &'static str,
    /// The hook that decided (blocked, asked, rewrote or added context), if one did.
    pub hook: Option<String>,
    /// The reason it gave, for a block or an ask.
    pub reason: Option<String>,
    /// The payload fields hooks rewrote, with their new values.
    pub rewritten: Map<String, Value>,
    /// Text added for the model (context and notes on the result).
    pub context: Vec<String>,
}

impl Verdict {
    /// The verdict `outcome` stands for.
    pub(crate) fn of(outcome: &Outcome) -> Verdict {
        let decision = match outcome.decision {
            Decision::Block => "block",
            Decision::Ask => "ask",
            _ => "allow",
        };
        let hook = outcome.blocked_by().map(str::to_owned).or_else(|| {
            outcome
                .hooks
                .iter()
                .find(|h| h.status == HookStatus::Ok)
                .map(|h| h.hook.to_string())
        });
        let rewritten = outcome
            .changed
            .iter()
            .filter_map(|field| {
                outcome
                    .payload
                    .get(field)
                    .map(|v| (field.clone(), v.clone()))
            })
            .collect();
        let mut context = outcome.context.clone();
        context.extend(outcome.notes.iter().cloned());
        Verdict {
            decision,
            hook: if decision == "allow" && outcome.changed.is_empty() && context.is_empty() {
                None
            } else {
                hook
            },
            reason: outcome.reason.clone(),
            rewritten,
            context,
        }
    }

    /// The verdict as JSON.
    pub fn to_json(&self) -> Value {
        json!({
            "decision": self.decision,
            "hook": self.hook,
            "reason": self.reason,
            "rewritten": self.rewritten,
            "context": self.context,
        })
    }
}

/// How an event's verdict changed from the baseline (`--against`) to the policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum FlipKind {
    /// Allowed before, blocked now.
    AllowToBlock,
    /// Allowed before, asked now.
    AllowToAsk,
    /// Asked before, blocked now.
    AskToBlock,
    /// Blocked before, allowed now: the change unblocks something.
    BlockToAllow,
    /// Blocked before, asked now.
    BlockToAsk,
    /// Asked before, allowed now.
    AskToAllow,
    /// The same decision, the input rewritten differently.
    Rewrite,
    /// Context for the model added.
    ContextAdded,
    /// Context for the model removed.
    ContextRemoved,
}

/// Every kind, in the order reports list them.
pub const FLIP_KINDS: [FlipKind; 9] = [
    FlipKind::AllowToBlock,
    FlipKind::AllowToAsk,
    FlipKind::AskToBlock,
    FlipKind::BlockToAllow,
    FlipKind::BlockToAsk,
    FlipKind::AskToAllow,
    FlipKind::Rewrite,
    FlipKind::ContextAdded,
    FlipKind::ContextRemoved,
];

impl FlipKind {
    /// Its name on the command line and in reports (`allow-to-block`).
    pub fn as_str(self) -> &'static str {
        match self {
            FlipKind::AllowToBlock => "allow-to-block",
            FlipKind::AllowToAsk => "allow-to-ask",
            FlipKind::AskToBlock => "ask-to-block",
            FlipKind::BlockToAllow => "block-to-allow",
            FlipKind::BlockToAsk => "block-to-ask",
            FlipKind::AskToAllow => "ask-to-allow",
            FlipKind::Rewrite => "rewrite",
            FlipKind::ContextAdded => "context-added",
            FlipKind::ContextRemoved => "context-removed",
        }
    }

    /// The kind named `name`.
    pub fn parse(name: &str) -> Option<FlipKind> {
        FLIP_KINDS.into_iter().find(|k| k.as_str() == name)
    }

    /// How `before` became `after`, if it changed.
    pub(crate) fn between(before: &Verdict, after: &Verdict) -> Option<FlipKind> {
        let kind = match (before.decision, after.decision) {
            ("allow", "block") => FlipKind::AllowToBlock,
            ("allow", "ask") => FlipKind::AllowToAsk,
            ("ask", "block") => FlipKind::AskToBlock,
            ("block", "allow") => FlipKind::BlockToAllow,
            ("block", "ask") => FlipKind::BlockToAsk,
            ("ask", "allow") => FlipKind::AskToAllow,
            // A blocked action runs with no input at all: how it would have been rewritten
            // does not matter.
            ("block", "block") => return None,
            _ if before.rewritten != after.rewritten => FlipKind::Rewrite,
            _ if after.context.iter().any(|c| !before.context.contains(c)) => {
                FlipKind::ContextAdded
            }
            _ if before.context.iter().any(|c| !after.context.contains(c)) => {
                FlipKind::ContextRemoved
            }
            _ => return None,
        };
        Some(kind)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verdict(decision: &'static str) -> Verdict {
        Verdict {
            decision,
            hook: None,
            reason: None,
            rewritten: Map::new(),
            context: Vec::new(),
        }
    }

    #[test]
    fn a_changed_decision_is_the_flip_whatever_else_changed() {
        let mut after = verdict("block");
        after.context.push("careful".into());
        assert_eq!(
            FlipKind::between(&verdict("allow"), &after),
            Some(FlipKind::AllowToBlock)
        );
        assert_eq!(
            FlipKind::between(&verdict("block"), &verdict("allow")),
            Some(FlipKind::BlockToAllow)
        );
        assert_eq!(
            FlipKind::between(&verdict("ask"), &verdict("block")),
            Some(FlipKind::AskToBlock)
        );
    }

    #[test]
    fn the_same_decision_flips_on_a_rewrite_then_on_context() {
        let mut rewritten = verdict("allow");
        rewritten
            .rewritten
            .insert("tool_input".into(), json!({"command": "ls"}));
        rewritten.context.push("note".into());
        assert_eq!(
            FlipKind::between(&verdict("allow"), &rewritten),
            Some(FlipKind::Rewrite)
        );
        let mut noted = verdict("allow");
        noted.context.push("note".into());
        assert_eq!(
            FlipKind::between(&verdict("allow"), &noted),
            Some(FlipKind::ContextAdded)
        );
        assert_eq!(
            FlipKind::between(&noted, &verdict("allow")),
            Some(FlipKind::ContextRemoved)
        );
        assert_eq!(FlipKind::between(&noted, &noted.clone()), None);
    }

    #[test]
    fn two_blocks_are_no_flip_however_the_input_would_have_been_rewritten() {
        let mut after = verdict("block");
        after.rewritten.insert("tool_input".into(), json!({}));
        assert_eq!(FlipKind::between(&verdict("block"), &after), None);
    }

    #[test]
    fn every_kind_is_read_back_from_its_name() {
        for kind in FLIP_KINDS {
            assert_eq!(FlipKind::parse(kind.as_str()), Some(kind));
        }
        assert_eq!(FlipKind::parse("allow-to-blok"), None);
    }
}
