//! Dispatch: run the hooks of one event in declaration order and merge what they said.
//!
//! Hooks that may block or rewrite run one after another, each on the payload as rewritten so
//! far; the first block ends the chain — except a provisional one (a skill hook's `_block`),
//! which later hooks of the same source may still lift. Hooks that only observe run concurrently. Every effect
//! is checked against the event's row of the capability table before it counts; every failure
//! is logged and reported, and fails open unless the hook says `on_error: block`.

pub(crate) mod background;

use std::borrow::Cow;
use std::sync::{Arc, OnceLock};
use std::time::Instant;

use serde_json::{Map, Value};

use crate::hook::{Hook, OnError, SourceKind};
use crate::snapshot::Snapshot;
use crate::trust::{DriftChecker, Verdict};
use agent_hooks_core::answer::{Admitted, Answer, Decision, Effect, Unusable};
use agent_hooks_core::diag::{DiagKind, DiagRecord, EventLog, LoggedDecision};
use agent_hooks_core::event::{Event, RewriteRule, complete_payload, redo_count};
use agent_hooks_core::outcome::{Diagnostic, HookReport, HookStatus, Outcome, ReasonDisplay};
use agent_hooks_core::workspace::Workspace;
use agent_hooks_dialects::{DispatchCache, PayloadView};
use agent_hooks_transports::{Failure, Ran, TransportSpec};

/// How one dispatch runs, beyond its event and payload. `DispatchOptions::default()` runs
/// every hook of the event.
#[derive(Debug, Clone, Default)]
pub struct DispatchOptions {
    skip: Option<(SourceKind, Cow<'static, str>)>,
    conversation: Option<Vec<Value>>,
}

impl DispatchOptions {
    /// Leaves out the hooks of `source`, each reported as skipped with `why`. The Claude Code
    /// bridge uses it so Claude Code's own hooks do not run twice.
    pub fn skip_source(mut self, source: SourceKind, why: impl Into<Cow<'static, str>>) -> Self {
        self.skip = Some((source, why.into()));
        self
    }

    /// The conversation so far, as the host holds it (a list of messages), for hooks that
    /// ask for it (`include_conversation`) in place of `logs/chat-history.jsonl`.
    pub fn conversation(mut self, messages: Vec<Value>) -> Self {
        self.conversation = Some(messages);
        self
    }
}

/// The shared pieces a dispatch needs besides the snapshot.
#[derive(Debug)]
pub(crate) struct Runtime<'a> {
    pub ws: &'a Workspace,
    /// Where records go; [`Runtime::record`] also keeps the problems for the outcome.
    pub log: &'a EventLog,
    /// The problems of the dispatch under way, for [`Outcome::diagnostics`].
    pub seen: std::sync::Mutex<Vec<Diagnostic>>,
    pub drift: &'a DriftChecker,
    /// Where background (async) hooks run.
    pub detach: &'a crate::dispatch::background::Detach,
    /// The forkers of `prefork` hooks.
    pub prefork: &'a agent_hooks_transports::prefork::Pool,
    /// A trial run (doctor, `agent-hooks test`): built-in guards write no state or records,
    /// and command hooks get [`DRY_RUN_ENV`] so theirs can do the same.
    pub dry_run: bool,
    /// Whether the dispatch writes `hook_decision` records. Off where the dispatch is itself
    /// one hook of another (`agent-hooks guard` run by agent-hooks), whose dispatch logs it.
    pub log_decisions: bool,
}

/// Set to `1` in the environment of a hook run as a trial (doctor, `agent-hooks test`): its
/// answer is looked at, not acted on, so a hook that keeps records of its own should not
/// write them.
pub const DRY_RUN_ENV: &str = "AGENT_HOOKS_DRY_RUN";

/// One hook's run, before it is merged.
struct HookRun {
    report: HookReport,
    answer: Option<Answer>,
    /// A hook the trust gate kept from running says so to the user (SPEC §4, no silent lapse):
    /// why (`master switch off`, `not approved`, `drift`) and the warning.
    lapse: Option<(&'static str, String)>,
    /// A `prefork` hook ran as a plain spawn instead: why, for the user.
    fallback: Option<String>,
}

impl Runtime<'_> {
    pub(crate) async fn dispatch(
        &self,
        snapshot: &Snapshot,
        event: Event,
        payload: Map<String, Value>,
        options: &DispatchOptions,
    ) -> Outcome {
        let skip = options.skip.as_ref().map(|(source, why)| (*source, why));
        // Keys keep their order (the map preserves insertion order), so the caller's keys are
        // the first `given` ones and everything after them was filled in or added by hooks.
        let given = payload.len();
        let mut merge = Merge::new(event, payload);
        // What background hooks of this session left since its last event that takes context.
        if snapshot.has_background() && event.spec().context {
            let session = merge
                .payload
                .get("session_id")
                .and_then(Value::as_str)
                .unwrap_or("");
            merge.context = crate::dispatch::background::take(self.ws, session);
        }
        let hooks = snapshot.hooks_for(event);
        merge.reports.reserve_exact(hooks.len());
        let cache = DispatchCache::default();
        if let Some(messages) = &options.conversation {
            let _ = cache
                .conversation
                .set(agent_hooks_dialects::skill::host_conversation(
                    &merge.payload,
                    messages.clone(),
                ));
        }
        // The matchers' text of the payload as it stands; renewed whenever the payload changes.
        let mut match_text = OnceLock::new();
        // The documented defaults are filled in only once some hook is about to run: a dispatch
        // that no hook matches (the common case on a busy tool path) never pays for them.
        // Matchers see the caller's values either way; the defaults are empty.
        let mut completed = false;
        let cwd = self.ws.root().to_string_lossy();
        let mut complete = |merge: &mut Merge, match_text: &mut OnceLock<String>| {
            if !completed {
                complete_payload(event, &mut merge.payload, &cwd);
                completed = true;
                *match_text = OnceLock::new();
            }
        };

        let mut i = 0;
        while i < hooks.len() {
            if merge.decision == Decision::Block && !merge.block_open_for(hooks[i].source) {
                for hook in &hooks[i..] {
                    merge.reports.push(skipped(hook, "an earlier hook blocked"));
                }
                break;
            }
            let hook = &hooks[i];
            if let Some((source, why)) = skip
                && hook.source == source
            {
                merge.reports.push(skipped(hook, why.clone()));
                i += 1;
                continue;
            }
            if hook.dialect.chains(event) {
                if !self.matches(hook, event, &merge.payload, &cache, &match_text) {
                    merge.reports.push(skipped(hook, "no match"));
                    i += 1;
                    continue;
                }
                complete(&mut merge, &mut match_text);
                let run = self
                    .run_hook(snapshot, hook, event, &merge.payload, &cache, &match_text)
                    .await;
                if run.answer.is_some() {
                    match_text = OnceLock::new();
                }
                merge.absorb(self, hook, run);
                i += 1;
            } else {
                let end = hooks[i..]
                    .iter()
                    .position(|h| {
                        h.dialect.chains(event) || skip.is_some_and(|(s, _)| h.source == s)
                    })
                    .map_or(hooks.len(), |p| i + p);
                let group = &hooks[i..end];
                let matched: Vec<bool> = group
                    .iter()
                    .map(|hook| self.matches(hook, event, &merge.payload, &cache, &match_text))
                    .collect();
                if matched.contains(&true) {
                    complete(&mut merge, &mut match_text);
                }
                let payload = &merge.payload;
                let text = &match_text;
                let runs =
                    futures::future::join_all(group.iter().zip(&matched).filter(|(_, m)| **m).map(
                        |(hook, _)| self.run_hook(snapshot, hook, event, payload, &cache, text),
                    ))
                    .await;
                if runs.iter().any(|run| run.answer.is_some()) {
                    match_text = OnceLock::new();
                }
                let mut runs = runs.into_iter();
                for (hook, matched) in group.iter().zip(matched) {
                    match matched.then(|| runs.next()).flatten() {
                        Some(run) => merge.absorb(self, hook, run),
                        None => merge.reports.push(skipped(hook, "no match")),
                    }
                }
                i = end;
            }
        }
        merge.settle_open_block(self);
        let mut outcome = merge.finish(
            self.log_decisions.then_some(self.log),
            completed.then_some(given),
            snapshot.config.agent.redo_cap,
        );
        outcome.diagnostics =
            std::mem::take(&mut *self.seen.lock().unwrap_or_else(|p| p.into_inner()));
        outcome
    }

    /// Writes `record` to the event log and, when it reports a problem, keeps it for the
    /// outcome's `diagnostics`.
    pub(crate) fn record(&self, record: DiagRecord) {
        if record.kind.is_problem() {
            self.seen
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push(Diagnostic::of(&record));
        }
        self.log.write(record);
    }

    /// Whether `hook`'s matcher lets it run on `payload` (no matcher: always).
    fn matches(
        &self,
        hook: &Hook,
        event: Event,
        payload: &Map<String, Value>,
        cache: &DispatchCache,
        match_text: &OnceLock<String>,
    ) -> bool {
        let view = PayloadView::new(event, payload, self.ws, cache).sharing_match_text(match_text);
        hook.dialect.matches(hook.matcher.as_ref(), &view)
    }

    async fn run_hook(
        &self,
        snapshot: &Snapshot,
        hook: &Arc<Hook>,
        event: Event,
        payload: &Map<String, Value>,
        cache: &DispatchCache,
        match_text: &OnceLock<String>,
    ) -> HookRun {
        let view = PayloadView::new(event, payload, self.ws, cache).sharing_match_text(match_text);
        let mut program = None;
        if hook.approval_key.is_some() {
            let lapse = if !snapshot.master_enabled() {
                Lapse::MasterOff
            } else {
                match self.drift.check(&snapshot.approvals, event, hook) {
                    Verdict::Approved(pinned) => {
                        program = pinned;
                        Lapse::None
                    }
                    Verdict::NotApproved => Lapse::NotApproved,
                    Verdict::Drifted(why) => {
                        self.record(
                            DiagRecord::new(
                                DiagKind::HookDrift,
                                format!("changed since approval, not run: {why}"),
                            )
                            .event(event.name())
                            .hook(&*hook.name, &*hook.file_display),
                        );
                        Lapse::Drifted(why)
                    }
                }
            };
            if let Some((detail, warning)) = lapse.describe(hook, event) {
                return HookRun {
                    report: skipped(hook, detail),
                    answer: None,
                    lapse: Some((detail, warning)),
                    fallback: None,
                };
            }
        }

        if hook.dialect.background().is_some() {
            return self.start_background(hook, event, &view, program);
        }
        let started = Instant::now();
        let ran = self.execute(hook, &view, program.as_ref()).await;
        let ms = started.elapsed().as_secs_f64() * 1000.0;
        let report = |status, detail: Option<String>| {
            HookReport::new(
                hook.name.clone(),
                hook.file_display.clone(),
                status,
                detail.map(Cow::Owned),
                (ms * 10.0).round() / 10.0,
            )
        };
        let record = |kind: DiagKind, detail: &str| hook_record(hook, event, payload, kind, detail);
        let log = |kind: DiagKind, detail: &str| self.record(record(kind, detail));
        let timeout_seconds = hook.timeout.as_secs_f64();
        let fallback = ran.fallback.map(|why: String| {
            log(DiagKind::HookPreforkFallback, &why);
            format!("hook \"{}\" ({}): {why}", hook.name, hook.file_display)
        });

        let reply = match ran.result {
            Ok(reply) => reply,
            Err(failure) => {
                let detail = failure.to_string();
                let status = match failure {
                    Failure::Timeout(_) => {
                        self.record(
                            record(DiagKind::HookTimeout, &detail)
                                .field("timeout_seconds", timeout_seconds),
                        );
                        HookStatus::Timeout
                    }
                    _ => {
                        log(DiagKind::HookExecError, &detail);
                        HookStatus::Error
                    }
                };
                return HookRun {
                    report: report(status, Some(detail)),
                    answer: None,
                    lapse: None,
                    fallback,
                };
            }
        };
        if let Some(why) = &reply.left_behind {
            self.record(
                record(DiagKind::HookTimeout, why).field("timeout_seconds", timeout_seconds),
            );
        }
        let stderr = String::from_utf8_lossy(&reply.stderr);
        if !stderr.trim().is_empty() {
            log(DiagKind::HookStderr, stderr.trim());
        }
        match hook.interpret(&view, &reply) {
            Ok(answer) => {
                for (kind, detail) in &answer.problems {
                    log(*kind, detail);
                }
                let status = match answer.decision {
                    Some(Decision::Block | Decision::Ask) => HookStatus::Blocked,
                    _ if answer.is_noop() => HookStatus::Noop,
                    _ => HookStatus::Ok,
                };
                HookRun {
                    report: report(status, None),
                    answer: Some(answer),
                    lapse: None,
                    fallback,
                }
            }
            Err(Unusable { kind, detail }) => {
                let mut diag = record(kind, &detail);
                match kind {
                    DiagKind::HookNonzeroExit => {
                        // As Python's `returncode`: a signal is its negated number.
                        let code = match reply.exit {
                            agent_hooks_transports::Exit::Code(c) => c,
                            agent_hooks_transports::Exit::Signal(s) => -s,
                        };
                        diag = diag.field("returncode", code);
                    }
                    DiagKind::HookInvalidOutput | DiagKind::HookInvalidJson => {
                        let output = String::from_utf8_lossy(&reply.stdout);
                        diag =
                            diag.field("output", agent_hooks_dialects::read::preview(&output, 500));
                    }
                    _ => {}
                }
                self.record(diag);
                let status = if kind == DiagKind::HookNonzeroExit {
                    HookStatus::Error
                } else {
                    HookStatus::InvalidOutput
                };
                HookRun {
                    report: report(status, Some(detail)),
                    answer: None,
                    lapse: None,
                    fallback,
                }
            }
        }
    }
}

impl Runtime<'_> {
    /// Starts a background (async) hook and reports it started; its answer reaches a later
    /// event of the session ([`crate::dispatch::background`]).
    fn start_background(
        &self,
        hook: &Arc<Hook>,
        event: Event,
        view: &PayloadView<'_>,
        program: Option<crate::trust::Pinned>,
    ) -> HookRun {
        if hook.state_dir.starts_with(self.ws.state_dir())
            && let Err(e) = std::fs::create_dir_all(&hook.state_dir)
        {
            tracing::warn!(dir = %hook.state_dir.display(), %e, "cannot create STATE_DIR");
        }
        let session = view
            .payload
            .get("session_id")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        let started = crate::dispatch::background::start(
            self.ws,
            self.detach,
            crate::dispatch::background::Job {
                hook: hook.clone(),
                event,
                input: hook.dialect.input(view),
                env: hook_env(self.ws, hook, event),
                program,
                session,
            },
        );
        let (status, detail) = match started {
            Ok(()) => (
                HookStatus::Ok,
                "started in the background (async); what it says reaches the model at this session's next event that takes context".to_owned(),
            ),
            Err(why) => {
                self.record(hook_record(
                    hook,
                    event,
                    view.payload,
                    DiagKind::HookExecError,
                    why.clone(),
                ));
                (HookStatus::Error, why)
            }
        };
        HookRun {
            report: HookReport::new(
                hook.name.clone(),
                hook.file_display.clone(),
                status,
                Some(Cow::Owned(detail)),
                0.0,
            ),
            answer: None,
            lapse: None,
            fallback: None,
        }
    }

    /// Runs `hook` once on `view` through its transport: no matcher, trust gate or logging.
    /// Dispatch calls it after its gate; `doctor` calls it to try one hook. `program` is the
    /// program the gate pinned: `execve` starts that file, not whatever `PATH` finds now.
    pub(crate) async fn execute(
        &self,
        hook: &Hook,
        view: &PayloadView<'_>,
        program: Option<&crate::trust::Pinned>,
    ) -> Ran {
        let input = || hook.dialect.input(view);
        match &hook.transport {
            TransportSpec::Command(spec) => {
                // State directories under `state/` are made on demand; a skill's STATE_DIR is its
                // own directory, which must never be conjured back if it was removed.
                if hook.state_dir.starts_with(self.ws.state_dir())
                    && let Err(e) = std::fs::create_dir_all(&hook.state_dir)
                {
                    tracing::warn!(dir = %hook.state_dir.display(), %e, "cannot create STATE_DIR");
                }
                let mut env = hook_env(self.ws, hook, view.event);
                if self.dry_run {
                    env.push((DRY_RUN_ENV.to_owned(), "1".to_owned()));
                }
                let input = input();
                let policy = hook.dialect.run_policy(input.len());
                if let Some(prefork) = &spec.prefork {
                    let job = agent_hooks_transports::prefork::Job {
                        ws: self.ws,
                        hook: &hook.name,
                        entry_env: &hook.env,
                        spec,
                        prefork,
                        env: &env,
                        program,
                    };
                    return self
                        .prefork
                        .run(&job, input.into(), hook.timeout, policy)
                        .await;
                }
                spec.run(input.into(), &env, hook.timeout, program, policy)
                    .await
                    .into()
            }
            TransportSpec::Http(spec) => spec.run(input(), hook.timeout).await.into(),
            // In-process: the guard reads the canonical payload itself, nothing is serialised.
            TransportSpec::Builtin(spec) => spec
                .run(view.event, view.payload, self.dry_run)
                .await
                .into(),
            TransportSpec::Judge(spec) => spec.run(&input(), hook.timeout).await.into(),
        }
    }
}

/// A record about `hook`, in the shape its dialect's readers expect.
fn hook_record(
    hook: &Hook,
    event: Event,
    payload: &Map<String, Value>,
    kind: DiagKind,
    detail: impl Into<String>,
) -> DiagRecord {
    let record = DiagRecord::new(kind, detail)
        .event(event.name())
        .hook(&*hook.name, &*hook.file_display);
    hook.dialect.shape_record(record, event, payload)
}

/// The environment a command hook gets on top of the runtime's (SPEC §5).
pub(crate) fn hook_env(ws: &Workspace, hook: &Hook, event: Event) -> Vec<(String, String)> {
    let mut env = vec![
        ("HOOK_NAME".to_owned(), hook.name.to_string()),
        (
            "HOOK_EVENT".to_owned(),
            hook.dialect.event_name(event).to_owned(),
        ),
        (
            agent_hooks_core::workspace::WORKSPACE_ENV.to_owned(),
            ws.root().to_string_lossy().into_owned(),
        ),
        (
            "STATE_DIR".to_owned(),
            hook.state_dir.to_string_lossy().into_owned(),
        ),
    ];
    env.extend(hook.env.iter().cloned());
    env
}

/// Why the trust gate keeps a hook from running, if it does.
pub(crate) enum Lapse {
    None,
    MasterOff,
    NotApproved,
    Drifted(String),
}

impl Lapse {
    /// The hook report's detail and the user-facing warning: the hook, the reason, the fix.
    pub(crate) fn describe(&self, hook: &Hook, event: Event) -> Option<(&'static str, String)> {
        let key = hook.approval_key.as_deref().unwrap_or(&hook.name);
        let approve = crate::trust::approve_command(key);
        let (detail, reason, fix) = match self {
            Lapse::None => return None,
            Lapse::MasterOff => (
                "master switch off",
                "the master switch is off".to_owned(),
                "/hooks on".to_owned(),
            ),
            Lapse::NotApproved => (
                "not approved",
                format!("it is not approved for {event}"),
                approve,
            ),
            Lapse::Drifted(why) => (
                "drift",
                format!("it changed since approval ({why})"),
                format!("review the change, then {approve}"),
            ),
        };
        Some((
            detail,
            format!(
                "hook \"{}\" ({}) did not run: {reason}; to run it: {fix}",
                hook.name, hook.file_display
            ),
        ))
    }
}

fn skipped(hook: &Hook, why: impl Into<Cow<'static, str>>) -> HookReport {
    HookReport::new(
        hook.name.clone(),
        hook.file_display.clone(),
        HookStatus::Skipped,
        Some(why.into()),
        0.0,
    )
}

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
struct Merge {
    event: Event,
    payload: Map<String, Value>,
    decision: Decision,
    reason: Option<String>,
    result: Option<Value>,
    context: Vec<String>,
    notes: Vec<String>,
    warnings: Vec<String>,
    model: Option<String>,
    stop: Option<agent_hooks_core::outcome::Stop>,
    reports: Vec<HookReport>,
    /// Top-level payload fields hooks rewrote, first rewrite first.
    changed: Vec<String>,
    /// A block that later hooks of its source may still lift (see [`Answer::provisional`]).
    open_block: Option<OpenBlock>,
    /// The `hook_decision` records of this dispatch, written when it ends (a redo cap may
    /// still overrule a block).
    decisions: Vec<DiagRecord>,
}

/// A provisional block: what the outcome said before it, and its records, logged only if the
/// block stands when the dispatch ends.
struct OpenBlock {
    source: crate::hook::SourceKind,
    before: (Decision, Option<String>, Option<Value>),
    records: Vec<DiagRecord>,
}

impl Merge {
    fn new(event: Event, payload: Map<String, Value>) -> Merge {
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
        }
    }

    /// Whether hooks of `source` may still run after the block in force (they may lift it).
    fn block_open_for(&self, source: crate::hook::SourceKind) -> bool {
        self.open_block.as_ref().is_some_and(|b| b.source == source)
    }

    /// Logs the records of a provisional block that stood to the end.
    fn settle_open_block(&mut self, rt: &Runtime<'_>) {
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

    /// Folds one hook's run into the outcome, enforcing the event's capabilities.
    fn absorb(&mut self, rt: &Runtime<'_>, hook: &Hook, mut run: HookRun) {
        let spec = self.event.spec();
        if let Some(warning) = run.fallback.take() {
            self.warnings.push(warning);
        }
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
            // A judge's failure is a remote service's (an outage, a refusal, a bad key): the
            // user is told, since nothing on this machine would show it otherwise.
            if run.report.status.is_failure() && matches!(hook.transport, TransportSpec::Judge(_)) {
                self.warnings.push(format!(
                    "LLM judge \"{}\" ({}) failed: {}; {}",
                    hook.name,
                    hook.file_display,
                    run.report
                        .detail
                        .as_deref()
                        .unwrap_or(run.report.status.as_str()),
                    match hook.on_error {
                        OnError::Continue => "the action went on without its judgement",
                        OnError::Block => "the action is blocked (on_error: block)",
                    }
                ));
            }
            if run.report.status.is_failure() && hook.on_error == OnError::Block {
                let reason = format!(
                    "hook \"{}\" failed ({}) and is set to fail closed (on_error: block)",
                    hook.name,
                    run.report
                        .detail
                        .as_deref()
                        .unwrap_or(run.report.status.as_str())
                );
                self.decided(hook, LoggedDecision::Block, reason.clone());
                self.decision = Decision::Block;
                self.reason = Some(reason);
            }
            self.reports.push(run.report);
            return;
        };
        // A provisional decision (a skill chain's `_block`) opens or lifts a block that later
        // hooks of the same source may still change; its records wait to see if it stands.
        let mut deferred = false;
        if answer.provisional && spec.may_block {
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
                    deferred = true;
                    self.decision = Decision::Block;
                    self.reason = answer.reason.clone();
                    self.result = answer.result.clone();
                }
                Some(Decision::Continue) => {
                    if let Some(open) = self.open_block.take() {
                        (self.decision, self.reason, self.result) = open.before;
                    }
                }
                _ => {}
            }
        }
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
                    let Value::Object(changes) = value else {
                        continue;
                    };
                    let target = self
                        .payload
                        .entry(field.to_owned())
                        .or_insert_with(|| Value::Object(Map::new()));
                    let Value::Object(target) = target else {
                        continue;
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
                        rewritten.push(field);
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
                }
                Effect::Context(context) => self.context.extend(context.iter().cloned()),
                Effect::Notes(notes) => self.notes.extend(notes.iter().cloned()),
                Effect::Model(model) => self.model = Some(model.to_owned()),
                Effect::Warnings(warnings) => self.warnings.extend(warnings.iter().cloned()),
            }
        }
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
        self.reports.push(run.report);
    }

    /// Logs the dispatch's decisions and builds the outcome.
    /// `given`: how many keys the caller's payload had, when the defaults were filled in.
    /// `redo_cap`: `config/agent.yaml`'s cap on redos in a turn (`None`: no cap).
    fn finish(
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
        outcome
    }
}
