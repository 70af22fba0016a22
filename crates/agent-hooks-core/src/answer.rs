//! What a hook said, in canonical terms: the effects a dialect decoded from its raw answer.
//! The dispatcher checks each effect against the event's capabilities and merges the allowed
//! ones into the [`Outcome`](crate::Outcome).

use serde::Serialize;
use serde_json::Value;

use crate::diag::DiagKind;
use crate::event::{EventSpec, RewriteRule};

/// The decision of a dispatch, from weakest to strongest.
///
/// Exhaustive on purpose: these three are the protocol's decisions (`docs/protocol.md`), and every
/// agent's answer mapping must say what it does with each, which a wildcard arm would hide.
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
    /// The hook asks the agent to stop its turn altogether (Claude Code's `continue: false`),
    /// with the reason shown to the user.
    pub stop: Option<String>,
    /// A synthetic tool result to hand the agent instead of running the tool.
    pub result: Option<Value>,
    /// Problems the dialect found that did not invalidate the whole answer.
    pub problems: Vec<(DiagKind, String)>,
    /// Records to log about a legitimate effect (e.g. `hook_blocked_tool_call`).
    pub records: Vec<(DiagKind, String)>,
    /// The decision is the state of an event-replacement chain (skill hooks) rather than a
    /// vote: `Block` opens a block that later hooks of the same source may still lift, and
    /// `Continue` lifts the one open. Such a block does not end that source's chain.
    pub provisional: bool,
}

impl Answer {
    /// No effect at all: the hook answered nothing that changes anything.
    pub fn is_noop(&self) -> bool {
        (self.decision.is_none()
            || (self.decision == Some(Decision::Continue) && !self.provisional))
            && self.rewrites.is_empty()
            && self.context.is_empty()
            && self.notes.is_empty()
            && self.warnings.is_empty()
            && self.model.is_none()
            && self.result.is_none()
            && self.stop.is_none()
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

/// One effect of an answer that its event allows, as [`Answer::admit`] lets it through.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Effect<'a> {
    /// Stop the action (a redo where [`EventSpec::redo`] is set).
    Block {
        /// The hook's reason, if it gave one.
        reason: Option<&'a str>,
    },
    /// Ask the user to confirm.
    Ask {
        /// The hook's reason, if it gave one.
        reason: Option<&'a str>,
    },
    /// Hand the agent this result instead of running the tool.
    Result(&'a Value),
    /// Change a payload field by `rule`.
    Rewrite {
        /// The payload field.
        field: &'a str,
        /// Its new value (for [`RewriteRule::ExistingKeys`], an object of changed keys).
        value: &'a Value,
        /// How the value applies.
        rule: RewriteRule,
    },
    /// Text injected into the model's prompt.
    Context(&'a [String]),
    /// Notes appended to the tool result the agent sees.
    Notes(&'a [String]),
    /// The model for the next call.
    Model(&'a str),
    /// Messages for the user only.
    Warnings(&'a [String]),
}

/// An answer sorted against one event's row of the capability table: what counts, in the
/// answer's order, and what the event does not allow (named for a message).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Admitted<'a> {
    /// The effects that count.
    pub effects: Vec<Effect<'a>>,
    /// The effects that do not, as "decision \"block\"", "a rewrite of \"message\"", ...
    pub ignored: Vec<String>,
}

impl Answer {
    /// Sorts this answer's effects by what `spec` allows. This is the one place the capability
    /// table is applied to an answer: the dispatcher merges the admitted effects, `doctor`
    /// describes them, and both name the ignored ones the same way.
    pub fn admit<'a>(&'a self, spec: &EventSpec) -> Admitted<'a> {
        let mut admitted = Admitted::default();
        let Admitted { effects, ignored } = &mut admitted;
        let reason = self.reason.as_deref();
        match self.decision {
            Some(Decision::Block) if spec.may_block => effects.push(Effect::Block { reason }),
            Some(Decision::Ask) if spec.may_ask => effects.push(Effect::Ask { reason }),
            Some(d @ (Decision::Block | Decision::Ask)) => {
                ignored.push(format!("decision \"{}\"", d.as_str()));
            }
            _ => {}
        }
        if let Some(result) = &self.result {
            if spec.result {
                effects.push(Effect::Result(result));
            } else {
                ignored.push("a synthetic result".into());
            }
        }
        for rewrite in &self.rewrites {
            let Some(rule) = spec.rewrite_rule(&rewrite.field) else {
                ignored.push(format!("a rewrite of \"{}\"", rewrite.field));
                continue;
            };
            let rule = rewrite.rule.unwrap_or(rule);
            if rule == RewriteRule::ExistingKeys && !rewrite.value.is_object() {
                ignored.push(format!("a non-object \"{}\"", rewrite.field));
                continue;
            }
            effects.push(Effect::Rewrite {
                field: &rewrite.field,
                value: &rewrite.value,
                rule,
            });
        }
        let mut gated = |allowed: bool, effect: Effect<'a>, what: &str| {
            if allowed {
                effects.push(effect);
            } else {
                ignored.push(what.to_owned());
            }
        };
        if !self.context.is_empty() {
            gated(spec.context, Effect::Context(&self.context), "context");
        }
        if !self.notes.is_empty() {
            gated(spec.note, Effect::Notes(&self.notes), "a note");
        }
        if let Some(model) = &self.model {
            gated(spec.model, Effect::Model(model), "a model");
        }
        if !self.warnings.is_empty() {
            effects.push(Effect::Warnings(&self.warnings));
        }
        admitted
    }
}
