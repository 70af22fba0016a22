//! The outcome being built, hook by hook: each run's answer checked against the event's row
//! of the capability table and folded in, then the redo cap applied and the records written.

use std::sync::OnceLock;

use serde_json::{Map, Value};

use super::run::hook_record;
use super::{HookRun, Runtime};
use crate::hook::{Hook, OnError};
use agent_hooks_core::answer::{Admitted, Answer, Decision, Effect};
use agent_hooks_core::diag::{DiagKind, DiagRecord, EventLog, LoggedDecision};
use agent_hooks_core::event::{Event, RewriteRule, complete_payload, redo_count};
use agent_hooks_core::outcome::{HookReport, HookStatus, Outcome, ReasonDisplay};
use agent_hooks_transports::TransportSpec;

/// What [`complete_payload`] fills in for `event` (with an empty `cwd`), built once per process
/// rather than once per dispatch: a dispatch that runs no hook should cost next to nothing.
fn filled_defaults(event: Event) -> &'static Map<String, Value> {
    static DEFAULTS: OnceLock<Vec<Map<String, Value>>> = OnceLock::new();
    &DEFAULTS.get_or_init(|| {
        Event::all()
            .map(|event| {
                let mut defaults = Map::new();
                complete_payload(event, &mut defaults, "");
                defaults
            })
            .collect()
    })[event as usize]
}

/// The outcome being built, hook by hook.
pub(super) struct Merge {
    event: Event,
    pub(super) payload: Map<String, Value>,
    pub(super) decision: Decision,
    reason: Option<String>,
    result: Option<Value>,
    pub(super) context: Vec<String>,
    notes: Vec<String>,
    warnings: Vec<String>,
    model: Option<String>,
    stop: Option<agent_hooks_core::outcome::Stop>,
    pub(super) reports: Vec<HookReport>,
    /// Top-level payload fields hooks rewrote, first rewrite first.
    changed: Vec<String>,
    /// A block that later hooks of its source may still lift (see [`Answer::provisional`]).
    open_block: Option<OpenBlock>,
    /// The `hook_decision` records of this dispatch, written when it ends (a redo cap may
    /// still overrule a block).
    decisions: Vec<DiagRecord>,
    /// The last hook that needs no approval and rewrote the payload.
    unvetted: Option<String>,
}

/// A provisional block: what the outcome said before it, and its records, logged only if the
/// block stands when the dispatch ends.
struct OpenBlock {
    source: crate::hook::SourceKind,
    before: (Decision, Option<String>, Option<Value>),
    records: Vec<DiagRecord>,
}

impl Merge {
    #[inline]
    pub(super) fn new(event: Event, payload: Map<String, Value>) -> Merge {
        Merge {
            event,
            payload,
            decision: Decision::Continue,
            reason: None,
            result: None,
            context: Vec::new(),
            notes: Vec::new(),
            warnings: Vec::new(),
            model: None,
            stop: None,
            reports: Vec::new(),
            changed: Vec::new(),
            open_block: None,
            decisions: Vec::new(),
            unvetted: None,
        }
    }

    /// Whether hooks of `source` may still run after the block in force (they may lift it).
    pub(super) fn block_open_for(&self, source: crate::hook::SourceKind) -> bool {
        self.open_block.as_ref().is_some_and(|b| b.source == source)
    }

    /// Logs the records of a provisional block that stood to the end.
    pub(super) fn settle_open_block(&mut self, rt: &Runtime<'_>) {
        if let Some(open) = self.open_block.take() {
            for record in open.records {
                rt.record(record);
            }
        }
    }

    fn note_changed(&mut self, field: &str) {
        if !self.changed.iter().any(|f| f == field) {
            self.changed.push(field.to_owned());
        }
    }

    /// Notes what `hook` decided, to be logged when the dispatch ends.
    fn decided(&mut self, hook: &Hook, decision: LoggedDecision, detail: String) {
        let mut record = DiagRecord::decision(decision, detail)
            .event(self.event.name())
            .hook(&*hook.name, &*hook.file_display);
        if let Some(session) = self
            .payload
            .get("session_id")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
        {
            record = record.field("session_id", session);
        }
        self.decisions.push(record);
    }

    /// Folds one hook's run into the outcome, enforcing the event's capabilities. Says
    /// whether the hook's answer changed the payload.
    pub(super) fn absorb(&mut self, rt: &Runtime<'_>, hook: &Hook, mut run: HookRun) -> bool {
        let spec = self.event.spec();
        if let Some(warning) = run.fallback.take() {
            self.warnings.push(warning);
        }
        if let Some((why, warning)) = run.lapse.take() {
            self.decided(hook, LoggedDecision::SkipTrust, warning.clone());
            if let Some(record) = self.decisions.last_mut() {
                record.fields.insert("trust".into(), why.into());
            }
            self.warnings.push(warning);
        }
        // Records are written once the answer is merged, in the shape of the hook's dialect.
        let mut pending: Vec<(DiagKind, String)> = Vec::new();
        let Some(answer) = run.answer.take() else {
            self.failed(hook, run.report);
            return false;
        };
        // A provisional decision (a skill chain's `_block`) opens or lifts a block that later
        // hooks of the same source may still change; its records wait to see if it stands.
        let deferred = answer.provisional && spec.may_block && self.provisional(hook, &answer);
        let Admitted { effects, ignored } = answer.admit(spec);
        if matches!(answer.decision, Some(Decision::Block | Decision::Ask))
            && !effects
                .iter()
                .any(|e| matches!(e, Effect::Block { .. } | Effect::Ask { .. }))
        {
            // The event does not honour the decision: the hook did nothing that counts there.
            run.report.status = HookStatus::Ok;
        }
        // The fields this hook's rewrites actually changed.
        let rewritten = self.apply(hook, effects, deferred, &mut pending);
        // Any event may end the turn (Claude Code's universal `continue: false`); the first
        // hook to ask gives the reason.
        if !rewritten.is_empty() {
            let detail = format!("rewrote {}", rewritten.join(", "));
            let fields: Vec<Value> = rewritten.iter().map(|f| Value::from(*f)).collect();
            self.decided(hook, LoggedDecision::Rewrite, detail);
            if let Some(record) = self.decisions.last_mut() {
                record.fields.insert("fields".into(), Value::Array(fields));
            }
        }
        if let Some(reason) = &answer.stop {
            self.decided(hook, LoggedDecision::Stop, reason.clone());
            if self.stop.is_none() {
                self.stop = Some(agent_hooks_core::outcome::Stop::new(reason.clone()));
            }
        }
        if !deferred {
            pending.extend(answer.records.iter().cloned());
        }
        if !ignored.is_empty() {
            let detail = format!(
                "{} {} not allowed on {}; ignored",
                ignored.join(", "),
                if ignored.len() == 1 { "is" } else { "are" },
                self.event
            );
            pending.push((DiagKind::HookInvalidOutput, detail.clone()));
            run.report.detail = Some(detail.into());
            if run.report.status == HookStatus::Ok && answer.is_noop() {
                run.report.status = HookStatus::Noop;
            }
        }
        for (kind, detail) in pending {
            rt.record(hook_record(hook, self.event, &self.payload, kind, detail));
        }
        // A guard's own limit answered `ask`; one set to fail closed blocks instead.
        if run.report.status == HookStatus::Limit
            && hook.on_error == OnError::Block
            && spec.may_block
        {
            let reason = format!(
                "hook \"{}\" reached a limit of its own ({}) and is set to fail closed (on_error: block)",
                hook.name,
                run.report.detail.as_deref().unwrap_or("limit")
            );
            self.decided(hook, LoggedDecision::Block, reason.clone());
            self.decision = Decision::Block;
            self.reason = Some(reason);
        }
        self.reports.push(run.report);
        !rewritten.is_empty()
    }

    /// Folds in the second run of `hook`, an approved hook that may block, on the payload as
    /// `writer` rewrote it after the hook had passed it (`docs/protocol.md`, "The final input
    /// is the checked input"). Its block or ask counts; what it cannot judge, and any further
    /// change it would make, asks the user; nothing else of its answer is taken twice. Says
    /// whether the outcome is now a block.
    pub(super) fn rechecked(
        &mut self,
        rt: &Runtime<'_>,
        hook: &Hook,
        mut run: HookRun,
        writer: &str,
    ) -> bool {
        let spec = self.event.spec();
        if let Some(warning) = run.fallback.take() {
            self.warnings.push(warning);
        }
        let said = format!(
            "hook \"{}\" ({}) checked the input again after hook \"{writer}\" rewrote it",
            hook.name, hook.file_display
        );
        let (decision, reason) = match run.answer.take() {
            Some(answer) => {
                for (kind, detail) in answer.problems.iter().chain(&answer.records) {
                    rt.record(hook_record(hook, self.event, &self.payload, *kind, detail));
                }
                let Admitted { effects, .. } = answer.admit(spec);
                let mut verdict = (Decision::Continue, None);
                for effect in effects {
                    match effect {
                        Effect::Block { reason } => {
                            verdict = (Decision::Block, reason.map(str::to_owned));
                            break;
                        }
                        Effect::Ask { reason } => {
                            verdict = (Decision::Ask, reason.map(str::to_owned));
                        }
                        Effect::Rewrite { field, value, .. }
                            if verdict.0 == Decision::Continue
                                && self.payload.get(field) != Some(value) =>
                        {
                            verdict = (
                                Decision::Ask,
                                Some(format!(
                                    "hook \"{}\" would change {field} again after hook \"{writer}\" rewrote it; confirm the call as it stands",
                                    hook.name
                                )),
                            );
                        }
                        Effect::Warnings(warnings) => {
                            self.warnings.extend(warnings.iter().cloned());
                        }
                        _ => {}
                    }
                }
                verdict
            }
            None => {
                let why = run
                    .lapse
                    .as_ref()
                    .map(|(_, warning)| warning.clone())
                    .or_else(|| run.report.detail.as_deref().map(str::to_owned))
                    .unwrap_or_else(|| run.report.status.as_str().to_owned());
                let decision = if hook.on_error == OnError::Block {
                    Decision::Block
                } else {
                    Decision::Ask
                };
                (
                    decision,
                    Some(format!(
                        "hook \"{}\" could not check the input as hook \"{writer}\" rewrote it ({why})",
                        hook.name
                    )),
                )
            }
        };
        if decision == Decision::Continue {
            return false;
        }
        let decision = if decision == Decision::Ask && !spec.may_ask {
            Decision::Block
        } else {
            decision
        };
        let reason = reason.unwrap_or_else(|| format!("blocked by hook \"{}\"", hook.name));
        let logged = if decision == Decision::Block {
            LoggedDecision::Block
        } else {
            LoggedDecision::Ask
        };
        self.decided(hook, logged, format!("{reason} ({said})"));
        self.warnings.push(format!("{said}: {reason}"));
        if decision > self.decision {
            self.decision = decision;
            self.reason = Some(reason);
        }
        if let Some(report) = self
            .reports
            .iter_mut()
            .find(|r| r.hook == hook.name && r.source == hook.file_display)
        {
            report.status = HookStatus::Blocked;
            report.detail = Some(said.into());
        }
        self.decision == Decision::Block
    }

    /// Tells the user of a hook the trust gate kept from checking the final payload.
    pub(super) fn lapsed(&mut self, warning: String) {
        if !self.warnings.contains(&warning) {
            self.warnings.push(warning);
        }
    }

    /// Notes that `hook`, which needs no approval, rewrote the payload.
    pub(super) fn unvetted_rewrite(&mut self, hook: &Hook) {
        self.unvetted = Some(hook.name.to_string());
    }

    /// Folds in a hook that gave no answer: a failure fails closed when the hook says
    /// `on_error: block`, and a judge's failure is told to the user.
    fn failed(&mut self, hook: &Hook, report: HookReport) {
        // A judge's failure is a remote service's (an outage, a refusal, a bad key): the
        // user is told, since nothing on this machine would show it otherwise.
        if report.status.is_failure() && matches!(hook.transport, TransportSpec::Judge(_)) {
            self.warnings.push(format!(
                "LLM judge \"{}\" ({}) failed: {}; {}",
                hook.name,
                hook.file_display,
                report.detail.as_deref().unwrap_or(report.status.as_str()),
                match hook.on_error {
                    OnError::Continue => "the action went on without its judgement",
                    OnError::Block => "the action is blocked (on_error: block)",
                }
            ));
        }
        if report.status == HookStatus::Limit && hook.on_error == OnError::Continue {
            self.limited(hook, &report);
        }
        if report.status.is_failure() && hook.on_error == OnError::Block {
            let reason = format!(
                "hook \"{}\" failed ({}) and is set to fail closed (on_error: block)",
                hook.name,
                report.detail.as_deref().unwrap_or(report.status.as_str())
            );
            self.decided(hook, LoggedDecision::Block, reason.clone());
            self.decision = Decision::Block;
            self.reason = Some(reason);
        }
        self.reports.push(report);
    }

    /// A guard that ran out of its time budget never lets the action through unjudged: where
    /// the event can ask, the user is asked; elsewhere the user is told it went on without it.
    fn limited(&mut self, hook: &Hook, report: &HookReport) {
        let why = report.detail.as_deref().unwrap_or(report.status.as_str());
        if self.event.spec().may_ask {
            let reason = format!(
                "hook \"{}\" ({}) could not judge this: {why}; confirm it yourself",
                hook.name, hook.file_display
            );
            self.decided(hook, LoggedDecision::Ask, reason.clone());
            if self.decision < Decision::Ask {
                self.decision = Decision::Ask;
                self.reason = Some(reason);
            }
        } else {
            self.warnings.push(format!(
                "hook \"{}\" ({}): {why}; {} went on without its judgement",
                hook.name, hook.file_display, self.event
            ));
        }
    }

    /// Applies a provisional decision (a skill chain's `_block`): a block opens one that later
    /// hooks of the same source may still lift, a continue lifts it. Says whether the answer's
    /// block and result were applied here, their records waiting to see if the block stands.
    fn provisional(&mut self, hook: &Hook, answer: &Answer) -> bool {
        match answer.decision {
            Some(Decision::Block) => {
                let before = (self.decision, self.reason.take(), self.result.take());
                let open = self.open_block.get_or_insert(OpenBlock {
                    source: hook.source,
                    before,
                    records: Vec::new(),
                });
                open.records = answer
                    .records
                    .iter()
                    .map(|(kind, detail)| {
                        hook_record(hook, self.event, &self.payload, *kind, detail.clone())
                    })
                    .collect();
                self.decision = Decision::Block;
                self.reason = answer.reason.clone();
                self.result = answer.result.clone();
                true
            }
            Some(Decision::Continue) => {
                if let Some(open) = self.open_block.take() {
                    (self.decision, self.reason, self.result) = open.before;
                }
                false
            }
            _ => false,
        }
    }

    /// Applies an `ExistingKeys` rewrite of `field`: only keys that exist change, new ones are
    /// dropped with a record in `pending`. Says whether the field changed.
    fn merge_keys(
        &mut self,
        field: &str,
        value: &Value,
        pending: &mut Vec<(DiagKind, String)>,
    ) -> bool {
        let Value::Object(changes) = value else {
            return false;
        };
        let target = self
            .payload
            .entry(field.to_owned())
            .or_insert_with(|| Value::Object(Map::new()));
        let Value::Object(target) = target else {
            return false;
        };
        let mut added = Vec::new();
        let mut changed = false;
        for (key, value) in changes {
            if let Some(slot) = target.get_mut(key) {
                changed |= slot != value;
                *slot = value.clone();
            } else {
                added.push(key.clone());
            }
        }
        if changed {
            self.note_changed(field);
        }
        if !added.is_empty() {
            pending.push((
                DiagKind::HookInvalidMutation,
                format!(
                    "{field}: new key(s) {} dropped; a hook may only change keys that exist",
                    added.join(", ")
                ),
            ));
        }
        changed
    }

    /// Applies the admitted `effects` of `hook`'s answer (a provisional block and result were
    /// applied already when `deferred`) and returns the fields its rewrites changed; a dropped
    /// key of an `ExistingKeys` rewrite goes to `pending` as a record.
    fn apply<'a>(
        &mut self,
        hook: &Hook,
        effects: Vec<Effect<'a>>,
        deferred: bool,
        pending: &mut Vec<(DiagKind, String)>,
    ) -> Vec<&'a str> {
        let mut rewritten: Vec<&str> = Vec::new();
        for effect in effects {
            match effect {
                // Already applied above, as provisional (and logged by its dialect's record).
                Effect::Block { .. } | Effect::Result(_) if deferred => {}
                Effect::Block { reason } => {
                    let reason = reason.map_or_else(
                        || format!("blocked by hook \"{}\"", hook.name),
                        str::to_owned,
                    );
                    self.decided(hook, LoggedDecision::Block, reason.clone());
                    self.decision = Decision::Block;
                    self.reason = Some(reason);
                }
                Effect::Ask { reason } => {
                    let reason = reason.map_or_else(
                        || format!("hook \"{}\" asks for confirmation", hook.name),
                        str::to_owned,
                    );
                    self.decided(hook, LoggedDecision::Ask, reason.clone());
                    if self.decision < Decision::Ask {
                        self.decision = Decision::Ask;
                        self.reason = Some(reason);
                    }
                }
                Effect::Result(result) => self.result = Some(result.clone()),
                Effect::Rewrite {
                    field,
                    value,
                    rule: RewriteRule::Replace,
                } => {
                    if self.payload.get(field) != Some(value) {
                        rewritten.push(field);
                        self.note_changed(field);
                    }
                    self.payload.insert(field.to_owned(), value.clone());
                }
                Effect::Rewrite {
                    field,
                    value,
                    rule: RewriteRule::ExistingKeys,
                } => {
                    if self.merge_keys(field, value, pending) {
                        rewritten.push(field);
                    }
                }
                Effect::Context(context) => self.context.extend(context.iter().cloned()),
                Effect::Notes(notes) => self.notes.extend(notes.iter().cloned()),
                Effect::Model(model) => self.model = Some(model.to_owned()),
                Effect::Warnings(warnings) => self.warnings.extend(warnings.iter().cloned()),
            }
        }
        rewritten
    }

    /// Logs the dispatch's decisions and builds the outcome.
    /// `given`: how many keys the caller's payload had, when the defaults were filled in.
    /// `redo_cap`: `config/agent.yaml`'s cap on redos in a turn (`None`: no cap).
    #[inline]
    pub(super) fn finish(
        mut self,
        log: Option<&EventLog>,
        given: Option<usize>,
        redo_cap: Option<u64>,
    ) -> Outcome {
        let spec = self.event.spec();
        if let Some(cap) = redo_cap.filter(|_| spec.redo && self.decision == Decision::Block) {
            let overruled = match redo_count(self.payload.get("redo_count")) {
                Ok(count) if count >= cap => {
                    Some(format!("redo cap reached ({count} redos this turn)"))
                }
                Ok(_) => None,
                Err(unreadable) => Some(format!("{unreadable}, so the redo cap applies")),
            };
            if let Some(why) = overruled {
                self.warnings.push(format!(
                    "{why}: a hook blocked {} but the turn ends anyway; its reason was: {}",
                    self.event,
                    self.reason.as_deref().unwrap_or("(none)")
                ));
                self.decision = Decision::Continue;
                self.reason = None;
                for record in &mut self.decisions {
                    if record.fields.get("decision").and_then(Value::as_str)
                        == Some(LoggedDecision::Block.as_str())
                    {
                        record.fields.insert("overruled".into(), why.clone().into());
                    }
                }
            }
        }
        for record in std::mem::take(&mut self.decisions) {
            if let Some(log) = log {
                log.write(record);
            }
        }
        // Hand back the caller's payload as rewritten, without the defaults filled in for hooks.
        if let Some(given) = given {
            let defaults = filled_defaults(self.event);
            let mut position = 0;
            self.payload.retain(|key, value| {
                let added = position >= given;
                position += 1;
                let untouched = defaults
                    .get(key)
                    .is_some_and(|default| value == default || key == "cwd");
                !(added && untouched)
            });
        }
        let mut outcome = Outcome::unchanged(self.event, self.payload);
        outcome.decision = self.decision;
        outcome.result = self.result;
        outcome.context = self.context;
        outcome.notes = self.notes;
        outcome.warnings = self.warnings;
        outcome.model = self.model;
        outcome.display = self.reason.as_deref().map(ReasonDisplay::of);
        outcome.reason = self.reason;
        outcome.stop = self.stop;
        outcome.hooks = self.reports;
        outcome.changed = self.changed;
        outcome.unvetted_rewrite = self.unvetted.filter(|_| self.event.spec().may_ask);
        outcome
    }
}
