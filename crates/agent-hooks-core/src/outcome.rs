//! The result of one dispatch (`docs/protocol.md`): the decision, the rewritten payload, what to
//! inject or show, and one report per hook of the event saying what it did.

use std::borrow::Cow;
use std::sync::Arc;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::answer::Decision;
use crate::event::Event;

/// What happened to one hook in a dispatch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum HookStatus {
    /// Ran and answered with an effect.
    Ok,
    /// Ran and answered nothing that changes anything.
    Noop,
    /// Ran and blocked (or asked).
    Blocked,
    /// Not run: no match, not approved, drift, master switch off, an earlier block.
    Skipped,
    /// Killed after its timeout (the whole process group).
    Timeout,
    /// Could not start, or exited with an error.
    Error,
    /// Ran, but its answer could not be used.
    InvalidOutput,
    /// Ran, but hit a limit of its own (a built-in guard's time budget, shell code nested
    /// deeper than it reads) and answered `ask` for what it could not judge: never an allow.
    Limit,
}

impl HookStatus {
    /// The snake_case name used in outcomes, logs and `list`.
    pub fn as_str(self) -> &'static str {
        match self {
            HookStatus::Ok => "ok",
            HookStatus::Noop => "noop",
            HookStatus::Blocked => "blocked",
            HookStatus::Skipped => "skipped",
            HookStatus::Timeout => "timeout",
            HookStatus::Error => "error",
            HookStatus::InvalidOutput => "invalid_output",
            HookStatus::Limit => "limit",
        }
    }

    /// A failure of the hook (as opposed to a decision or a skip).
    pub fn is_failure(self) -> bool {
        matches!(
            self,
            HookStatus::Timeout | HookStatus::Error | HookStatus::InvalidOutput | HookStatus::Limit
        )
    }
}

/// One hook's line in an outcome.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct HookReport {
    /// The hook's name, as in `list` and the logs.
    pub hook: Arc<str>,
    /// The declaring file, workspace-relative.
    pub source: Arc<str>,
    /// What happened to the hook.
    pub status: HookStatus,
    /// Why the hook was skipped or failed; the common skip reasons are static text.
    pub detail: Option<Cow<'static, str>>,
    /// Wall time spent on this hook, in milliseconds.
    pub ms: f64,
}

/// The outcome of dispatching one event: everything the host must apply.
///
/// A host reads it in this order: if [`decision`](Outcome::decision) is `Block`, refuse the
/// action and show [`reason`](Outcome::reason); if `Ask`, confirm with the user first; else
/// carry on with [`payload`](Outcome::payload) (which holds every allowed rewrite) and inject
/// [`context`](Outcome::context), append [`notes`](Outcome::notes), show
/// [`warnings`](Outcome::warnings). Effects an event does not allow never reach the outcome.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Outcome {
    /// The event that was dispatched.
    pub event: Event,
    /// The strongest decision any hook was allowed to make here.
    pub decision: Decision,
    /// Set on a block or an ask.
    pub reason: Option<String>,
    /// A synthetic tool result handed to the agent instead of running the tool.
    pub result: Option<Value>,
    /// The payload after every rewrite.
    pub payload: Map<String, Value>,
    /// Text to inject into the model's prompt, in hook order.
    pub context: Vec<String>,
    /// Notes appended to the tool result the agent sees.
    pub notes: Vec<String>,
    /// Notes shown to the user, never to the model.
    pub warnings: Vec<String>,
    /// The model for the next call, when a hook swapped it.
    pub model: Option<String>,
    /// The reason as a UI shows it (`None` without a reason); see [`ReasonDisplay`].
    pub display: Option<ReasonDisplay>,
    /// Set when a hook asked the agent to stop its turn altogether (Claude Code's
    /// `continue: false`), which is more than refusing one action: the host ends the turn.
    pub stop: Option<Stop>,
    /// One report per hook wired to the event, in run order, including skipped ones.
    pub hooks: Vec<HookReport>,
    /// The payload's top-level fields that hooks rewrote, in the order first rewritten, so a
    /// host need not compare `payload` with what it sent.
    pub changed: Vec<String>,
    /// Every problem this dispatch ran into (a hook's stderr, an answer that could not be
    /// used, a refused `_block` or rewrite, a timeout, drift), as also written to the event
    /// log: the host sees them without reading that file.
    pub diagnostics: Vec<Diagnostic>,
    /// Why the policy could not be fully evaluated for this event (a configuration error, an
    /// input that could not be read, a hook that failed or was kept from running), each
    /// also told in [`warnings`](Outcome::warnings); empty when every hook that should have
    /// judged the event did. Filled in by the runtime's lapse rule, not by the dispatcher.
    pub lapses: Vec<Lapse>,
    /// Set when a hook that needs no approval (a skill hook) rewrote the payload at an event
    /// where hooks may ask: its name. The rewritten input was checked again by every approved
    /// hook that may block, but an agent's answer never turns it into an explicit allow —
    /// Claude Code is asked to confirm it, and Codex, which cannot ask, refuses it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unvetted_rewrite: Option<String>,
}

/// What kind of lapse kept the policy from being fully evaluated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum LapseKind {
    /// A configuration file did not load, so some hooks may be missing.
    ConfigError,
    /// No workspace was found, so no hook ran at all.
    NoWorkspace,
    /// The agent's input could not be read in full.
    UnreadableInput,
    /// A hook failed, timed out, answered something unusable or hit a limit.
    HookFailed,
    /// A hook was kept from running by the trust gate (not approved, changed since approval,
    /// master switch off).
    Untrusted,
}

impl LapseKind {
    /// The snake_case name, as in outcomes and logs.
    pub fn as_str(self) -> &'static str {
        match self {
            LapseKind::ConfigError => "config_error",
            LapseKind::NoWorkspace => "no_workspace",
            LapseKind::UnreadableInput => "unreadable_input",
            LapseKind::HookFailed => "hook_failed",
            LapseKind::Untrusted => "untrusted",
        }
    }
}

/// One reason the policy could not be fully evaluated for an event, with the sentence the
/// user is shown.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Lapse {
    /// What kind of lapse.
    pub kind: LapseKind,
    /// The hook concerned, by name, when there is one.
    pub hook: Option<String>,
    /// What happened, for the user.
    pub message: String,
}

impl Lapse {
    /// A lapse of `kind` told by `message`, concerning no one hook.
    pub fn new(kind: LapseKind, message: impl Into<String>) -> Lapse {
        Lapse {
            kind,
            hook: None,
            message: message.into(),
        }
    }
}

/// What an event whose policy could not be fully evaluated comes to: `on_failure` in
/// `config/agent.yaml`, or an installed bridge's `--fail-closed`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OnFailure {
    /// Fail open (the default): the action goes on, and the user is told what was not
    /// checked.
    #[default]
    Continue,
    /// Fail closed: at an event that can block, the action is denied with the reason.
    Block,
}

impl OnFailure {
    /// The setting as written: `continue` or `block`.
    pub fn as_str(self) -> &'static str {
        match self {
            OnFailure::Continue => "continue",
            OnFailure::Block => "block",
        }
    }

    /// How `list`, `doctor` and the installers say the mode.
    pub fn describe(self) -> &'static str {
        match self {
            OnFailure::Continue => {
                "fail open (on_failure: continue): a lapse is shown, the action goes on"
            }
            OnFailure::Block => {
                "fail closed (on_failure: block): a lapse at an event that can block denies the action"
            }
        }
    }
}

/// The details a dispatcher gives a hook that the trust gate kept from running
/// (`docs/trust.md`): each is a lapse of [`LapseKind::Untrusted`].
pub const TRUST_SKIPS: [&str; 3] = ["master switch off", "not approved", "drift"];

/// One problem a dispatch or a reload ran into, as a host reads it: the record type of
/// `logs/events.jsonl`, the hook and the file concerned, and what happened.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Diagnostic {
    /// The record type (`hook_stderr`, `hook_invalid_output`, `hook_config_error`, ...), as
    /// `logs/events.jsonl` names it.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// The hook concerned, by name; `None` for a configuration file's problem.
    pub hook: Option<String>,
    /// The file that declared the hook, or the broken configuration file.
    pub source: Option<String>,
    /// What happened, for a human.
    pub detail: String,
    /// The event it happened at, as the record names it (a skill hook's own event name).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub event: Option<String>,
    /// The facts of the record's type, as in the log (`returncode` as a number, `tool`,
    /// `timeout_seconds`, `channel_id`, ...): the same record in the log and in the answer.
    #[serde(flatten)]
    pub fields: serde_json::Map<String, serde_json::Value>,
}

impl HookReport {
    /// The report of `hook`, declared in `source`, that ended as `status` after `ms`
    /// milliseconds; `detail` says why it was skipped or failed.
    #[inline]
    pub fn new(
        hook: Arc<str>,
        source: Arc<str>,
        status: HookStatus,
        detail: Option<Cow<'static, str>>,
        ms: f64,
    ) -> HookReport {
        HookReport {
            hook,
            source,
            status,
            detail,
            ms,
        }
    }
}

impl HookReport {
    /// The lapse this report stands for, if any: a failure of the hook (whatever
    /// [`HookStatus::is_failure`] counts, limits included), or a skip by the trust gate. A hook
    /// skipped because it did not match, or because an earlier hook blocked, is no lapse.
    pub fn lapse(&self) -> Option<Lapse> {
        let detail = self.detail.as_deref().unwrap_or("");
        let message = if self.status.is_failure() {
            format!(
                "hook \"{}\" ({}) did not judge this event: {}{}",
                self.hook,
                self.source,
                self.status.as_str(),
                if detail.is_empty() {
                    String::new()
                } else {
                    format!(" ({detail})")
                }
            )
        } else if self.status == HookStatus::Skipped && TRUST_SKIPS.contains(&detail) {
            format!(
                "hook \"{}\" ({}) did not run: {detail}",
                self.hook, self.source
            )
        } else {
            return None;
        };
        Some(Lapse {
            kind: if self.status.is_failure() {
                LapseKind::HookFailed
            } else {
                LapseKind::Untrusted
            },
            hook: Some(self.hook.to_string()),
            message,
        })
    }
}

impl Diagnostic {
    /// The diagnostic of a broken configuration file: its file as `source`, the error with
    /// its line and column as `detail`.
    pub fn of_config(error: &crate::config_error::ConfigError) -> Diagnostic {
        Diagnostic {
            kind: error.kind().as_str(),
            hook: None,
            source: Some(error.file().to_owned()),
            detail: error.to_string(),
            event: None,
            fields: serde_json::Map::new(),
        }
    }

    /// The diagnostic of a log record.
    pub fn of(record: &crate::diag::DiagRecord) -> Diagnostic {
        Diagnostic {
            kind: record.kind.as_str(),
            hook: record.hook.clone(),
            source: record.source.clone(),
            detail: record.detail.clone(),
            event: record.event.clone(),
            fields: record.fields.clone(),
        }
    }
}

/// A reason split the way the seeds say a UI shows it, so hosts need not each re-implement
/// it: a leading `[tag]` is dropped, the sentence is capitalised, and what follows the first
/// `": "` becomes the evidence (shown in a monospace box) when it looks like a payload — it
/// has a space or is longer than 12 characters. Otherwise the whole reason is the summary.
///
/// `[security] Blocked (recursive force-delete): rm -rf /` shows as the summary
/// `Blocked (recursive force-delete)` over the evidence `rm -rf /`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct ReasonDisplay {
    /// The explanation, one sentence.
    pub summary: String,
    /// The offending command or payload, if the reason quotes one.
    pub evidence: Option<String>,
}

impl ReasonDisplay {
    /// The longest tail after `": "` that still reads as part of the sentence.
    const MAX_PLAIN_TAIL: usize = 12;

    /// Splits `reason` for display.
    pub fn of(reason: &str) -> ReasonDisplay {
        let text = reason.trim();
        let text = match text.strip_prefix('[').and_then(|rest| rest.split_once(']')) {
            Some((tag, rest)) if !tag.is_empty() && !tag.contains(char::is_whitespace) => {
                rest.trim_start()
            }
            _ => text,
        };
        let (summary, evidence) = match text.split_once(": ") {
            Some((head, tail))
                if !head.trim().is_empty()
                    && (tail.trim().contains(' ')
                        || tail.trim().chars().count() > Self::MAX_PLAIN_TAIL) =>
            {
                (head.trim_end(), Some(tail.trim().to_owned()))
            }
            _ => (text, None),
        };
        let mut chars = summary.chars();
        let summary = match chars.next() {
            Some(first) => first.to_uppercase().chain(chars).collect(),
            None => String::new(),
        };
        ReasonDisplay { summary, evidence }
    }
}

/// A hook's request to end the agent's turn (`docs/protocol.md`: `{"reason": …}`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Stop {
    /// Why, for the user (Claude Code's `stopReason`); not shown to the model.
    pub reason: String,
}

impl Stop {
    /// A request to end the turn, for `reason`.
    #[inline]
    pub fn new(reason: impl Into<String>) -> Stop {
        Stop {
            reason: reason.into(),
        }
    }
}

impl Serialize for Event {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl Outcome {
    /// The outcome of `event` when no hook changed anything: `continue`, `payload` as given,
    /// nothing to inject or show, no hook reports. A dispatcher starts from it and fills in what
    /// its hooks did.
    #[inline]
    pub fn unchanged(event: Event, payload: Map<String, Value>) -> Outcome {
        Outcome {
            event,
            decision: Decision::Continue,
            reason: None,
            result: None,
            payload,
            context: Vec::new(),
            notes: Vec::new(),
            warnings: Vec::new(),
            model: None,
            display: None,
            stop: None,
            hooks: Vec::new(),
            changed: Vec::new(),
            diagnostics: Vec::new(),
            lapses: Vec::new(),
            unvetted_rewrite: None,
        }
    }

    /// Adds `lapse` to [`lapses`](Outcome::lapses), and its message to the warnings unless a
    /// warning already says it (the trust gate's own warning names the fix).
    pub fn add_lapse(&mut self, lapse: Lapse) {
        if self.lapses.contains(&lapse) {
            return;
        }
        let told = match lapse.kind {
            LapseKind::Untrusted => lapse.hook.as_deref().is_some_and(|hook| {
                let name = format!("hook \"{hook}\"");
                self.warnings.iter().any(|w| w.starts_with(&name))
            }),
            _ => self.warnings.contains(&lapse.message),
        };
        if !told {
            self.warnings.push(lapse.message.clone());
        }
        self.lapses.push(lapse);
    }

    /// Turns the lapses into a deny where the event can block (`on_failure: block`): the
    /// action does not happen, and the reason names every lapse. A block already in force
    /// keeps its own reason. `on_stop` is left alone: a block there is a redo, not a deny, and
    /// a lapse that cannot heal would only spend the redo cap. Says whether it blocked.
    pub fn fail_closed(&mut self) -> bool {
        if self.lapses.is_empty() || !self.event.spec().may_block || self.event == Event::OnStop {
            return false;
        }
        if self.decision != Decision::Block {
            let why: Vec<&str> = self.lapses.iter().map(|l| l.message.as_str()).collect();
            let reason = format!(
                "blocked: agent-hooks could not fully evaluate the policy and fails closed (on_failure: block): {}",
                why.join("; ")
            );
            self.decision = Decision::Block;
            self.display = Some(ReasonDisplay::of(&reason));
            self.reason = Some(reason);
        }
        true
    }

    /// Whether the host must not perform the action.
    pub fn is_blocked(&self) -> bool {
        self.decision == Decision::Block
    }

    /// The name of the hook whose block decided this outcome, if any.
    pub fn blocked_by(&self) -> Option<&str> {
        self.hooks
            .iter()
            .find(|h| h.status == HookStatus::Blocked)
            .map(|h| &*h.hook)
    }

    /// Adds what `earlier` — an outcome of the same action at an earlier event — gave the
    /// agent and the user: its notes and warnings (first), a stop, and its hook reports. Its
    /// decision is not taken: the event it came from could not decide this action.
    pub fn absorb_observations(&mut self, earlier: Outcome) {
        let mut notes = earlier.notes;
        notes.append(&mut self.notes);
        self.notes = notes;
        let mut warnings = earlier.warnings;
        warnings.append(&mut self.warnings);
        self.warnings = warnings;
        if self.stop.is_none() {
            self.stop = earlier.stop;
        }
        let mut hooks = earlier.hooks;
        hooks.append(&mut self.hooks);
        self.hooks = hooks;
        let mut diagnostics = earlier.diagnostics;
        diagnostics.append(&mut self.diagnostics);
        self.diagnostics = diagnostics;
        for lapse in earlier.lapses {
            if !self.lapses.contains(&lapse) {
                self.lapses.push(lapse);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(status: HookStatus, detail: &'static str) -> HookReport {
        HookReport::new(
            "guard".into(),
            "config/shell_hooks.yaml".into(),
            status,
            Some(detail.into()),
            0.0,
        )
    }

    #[test]
    fn failures_and_trust_skips_are_lapses_and_other_skips_are_not() {
        let failed = report(HookStatus::Timeout, "killed after 1s").lapse();
        assert_eq!(failed.as_ref().map(|l| l.kind), Some(LapseKind::HookFailed));
        assert!(failed.is_some_and(|l| l.message.contains("timeout (killed after 1s)")));
        for detail in TRUST_SKIPS {
            let lapse = report(HookStatus::Skipped, detail).lapse();
            assert_eq!(
                lapse.map(|l| l.kind),
                Some(LapseKind::Untrusted),
                "{detail}"
            );
        }
        for detail in ["no match", "an earlier hook blocked"] {
            assert_eq!(
                report(HookStatus::Skipped, detail).lapse(),
                None,
                "{detail}"
            );
        }
        assert_eq!(report(HookStatus::Blocked, "").lapse(), None);
    }

    #[test]
    fn a_lapse_is_told_once_and_fails_closed_where_the_event_can_block() {
        let mut outcome = Outcome::unchanged(Event::PreToolCall, Map::new());
        let lapse = Lapse::new(LapseKind::ConfigError, "configuration error: x");
        outcome.add_lapse(lapse.clone());
        outcome.add_lapse(lapse);
        assert_eq!(outcome.warnings, vec!["configuration error: x".to_owned()]);
        assert!(outcome.fail_closed());
        assert!(outcome.is_blocked());
        assert!(
            outcome
                .reason
                .as_deref()
                .is_some_and(|r| r.contains("configuration error: x"))
        );

        let mut stop = Outcome::unchanged(Event::OnStop, Map::new());
        stop.add_lapse(Lapse::new(LapseKind::NoWorkspace, "no workspace"));
        assert!(
            !stop.fail_closed(),
            "a block at the stop is a redo, not a deny"
        );
        assert!(!stop.is_blocked());

        let mut clean = Outcome::unchanged(Event::PreToolCall, Map::new());
        assert!(!clean.fail_closed());
        assert!(!clean.is_blocked());
    }

    fn shown(reason: &str) -> (String, Option<String>) {
        let d = ReasonDisplay::of(reason);
        (d.summary, d.evidence)
    }

    #[test]
    fn a_tag_is_dropped_and_a_payload_after_the_colon_is_evidence() {
        assert_eq!(
            shown("[security] Blocked (recursive force-delete): rm -rf /"),
            (
                "Blocked (recursive force-delete)".into(),
                Some("rm -rf /".into())
            )
        );
        assert_eq!(
            shown("[verify-publish] not in the registry: /preview/x-made-up-id/"),
            (
                "Not in the registry".into(),
                Some("/preview/x-made-up-id/".into())
            )
        );
    }

    #[test]
    fn a_short_word_after_the_colon_stays_in_the_sentence() {
        assert_eq!(shown("note: careful"), ("Note: careful".into(), None));
        assert_eq!(
            shown("[policy] blocked: 123456789012"),
            ("Blocked: 123456789012".into(), None)
        );
        assert_eq!(
            shown("blocked: 1234567890123"),
            ("Blocked".into(), Some("1234567890123".into()))
        );
    }

    #[test]
    fn a_reason_without_a_colon_is_one_sentence() {
        assert_eq!(
            shown("[security] message holds a seed phrase. It was not sent."),
            ("Message holds a seed phrase. It was not sent.".into(), None)
        );
        assert_eq!(shown("[not a tag] x"), ("[not a tag] x".into(), None));
        assert_eq!(shown(""), (String::new(), None));
    }
}
