//! What a hook said, in canonical terms: the effects a dialect decoded from its raw answer.
//! The dispatcher checks each effect against the event's capabilities and merges the allowed
//! ones into the [`Outcome`](crate::Outcome).

use serde::Serialize;
use serde_json::Value;

use crate::diag::DiagKind;
use crate::event::RewriteRule;

/// The decision of a dispatch, from weakest to strongest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// Let the action proceed (possibly rewritten).
    #[default]
    Continue,
    /// Ask the user to confirm before the action proceeds; only events whose
    /// [`EventSpec::may_ask`](crate::EventSpec) is set honour it.
    Ask,
    /// Stop the action; the outcome's `reason` says why.
    Block,
}

impl Decision {
    /// The snake_case name used in outcomes, logs and the CLI.
    pub fn as_str(self) -> &'static str {
        match self {
            Decision::Continue => "continue",
            Decision::Ask => "ask",
            Decision::Block => "block",
        }
    }
}

/// A change of one payload field.
#[derive(Debug, Clone, PartialEq)]
pub struct Rewrite {
    /// The payload field to change (`tool_input`, `message`, ...).
    pub field: String,
    /// The new value, applied by the event's [`RewriteRule`] for that field.
    pub value: Value,
    /// Overrides the event's rule (Claude Code's `updatedInput` replaces the whole input).
    pub rule: Option<RewriteRule>,
}

/// The canonical effects of one hook's answer. `Answer::default()` is "continue, no change".
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Answer {
    /// `None` is no decision (the same as continue).
    pub decision: Option<Decision>,
    /// Why the hook blocked or asked; shown to the user and, for redo events, the model.
    pub reason: Option<String>,
    /// Field changes, checked against the event's rewritable fields before they apply.
    pub rewrites: Vec<Rewrite>,
    /// Text to inject into the model's prompt.
    pub context: Vec<String>,
    /// Notes appended to the tool result the agent sees.
    pub notes: Vec<String>,
    /// Messages for the user only, never the model.
    pub warnings: Vec<String>,
    /// The model to use for the next LLM call.
    pub model: Option<String>,
    /// A synthetic tool result to hand the agent instead of running the tool.
    pub result: Option<Value>,
    /// Problems the dialect found that did not invalidate the whole answer.
    pub problems: Vec<(DiagKind, String)>,
    /// Records to log about a legitimate effect (e.g. `hook_blocked_tool_call`).
    pub records: Vec<(DiagKind, String)>,
}

impl Answer {
    /// No effect at all: the hook answered nothing that changes anything.
    pub fn is_noop(&self) -> bool {
        self.decision.is_none_or(|d| d == Decision::Continue)
            && self.rewrites.is_empty()
            && self.context.is_empty()
            && self.notes.is_empty()
            && self.warnings.is_empty()
            && self.model.is_none()
            && self.result.is_none()
    }

    /// A block with `reason` and no other effect.
    pub fn block(reason: impl Into<String>) -> Answer {
        Answer {
            decision: Some(Decision::Block),
            reason: Some(reason.into()),
            ..Answer::default()
        }
    }
}

/// Why a hook's answer could not be used at all. The hook counts as failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unusable {
    /// The log record type the failure is reported as (`hook_invalid_json`, ...).
    pub kind: DiagKind,
    /// What was wrong, with a preview of the offending output.
    pub detail: String,
}
