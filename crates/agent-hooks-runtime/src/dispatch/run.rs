//! One hook's run within a dispatch: the trust gate, the transport (or the start of a
//! background run), and the reply read by the hook's dialect into a [`HookRun`].

use std::borrow::Cow;
use std::sync::{Arc, OnceLock};
use std::time::Instant;

use serde_json::{Map, Value};

use super::{DRY_RUN_ENV, HookRun, Lapse, Runtime, hook_env, skipped};
use crate::hook::Hook;
use crate::snapshot::Snapshot;
use crate::trust::Verdict;
use agent_hooks_core::answer::{Decision, Unusable};
use agent_hooks_core::diag::{DiagKind, DiagRecord};
use agent_hooks_core::event::Event;
use agent_hooks_core::outcome::{HookReport, HookStatus};
use agent_hooks_dialects::{DispatchCache, PayloadView};
use agent_hooks_transports::builtin::{Call, Guarded};
use agent_hooks_transports::{Failure, Ran, Reply, TransportSpec};

/// A limit a built-in guard reached on this run (`HookStatus::Limit`): never an allow.
enum GuardLimit {
    /// It answered `ask` for what it could not read: why.
    Answered(String),
    /// It ran past its time budget and was abandoned: why.
    OverBudget(String),
}

impl Runtime<'_> {
    /// Runs one matched hook on `payload`: the trust gate, its transport (or the start of a
    /// background run), and its reply read into an answer, every problem recorded.
    pub(super) async fn run_hook(
        &self,
        snapshot: &Snapshot,
        hook: &Arc<Hook>,
        event: Event,
        payload: &Map<String, Value>,
        cache: &DispatchCache,
        match_text: &OnceLock<String>,
    ) -> HookRun {
        let view = PayloadView::new(event, payload, self.ws, cache).sharing_match_text(match_text);
        if let Some(why) = self.replay.as_ref().and_then(|mode| mode.withholds(hook)) {
            return HookRun {
                report: skipped(hook, why),
                answer: None,
                lapse: None,
                fallback: None,
            };
        }
        let (program, lapse) = match self.replay {
            Some(_) => (None, Lapse::None),
            None => self.gate(snapshot, hook, event),
        };
        if let Some((detail, warning)) = lapse.describe(hook, event) {
            return HookRun {
                report: skipped(hook, detail),
                answer: None,
                lapse: Some((detail, warning)),
                fallback: None,
            };
        }

        if hook.dialect.background().is_some() {
            return self.start_background(hook, event, &view, program);
        }
        let started = Instant::now();
        let aliases = snapshot.config.agent.tool_aliases.aliased_in(payload);
        let (ran, limit) = self
            .execute_as(hook, &view, program.as_ref(), &aliases)
            .await;
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

        let (over_budget, answered_limit) = match limit {
            Some(GuardLimit::OverBudget(why)) => (Some(why), None),
            Some(GuardLimit::Answered(why)) => (None, Some(why)),
            None => (None, None),
        };
        let reply = match (ran.result, over_budget) {
            (Ok(reply), _) => reply,
            (Err(_), Some(why)) => {
                self.record(
                    record(DiagKind::HookTimeout, &why).field("timeout_seconds", timeout_seconds),
                );
                return HookRun {
                    report: report(HookStatus::Limit, Some(why)),
                    answer: None,
                    lapse: None,
                    fallback,
                };
            }
            (Err(failure), None) => {
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
        let mut run = self.read_reply(hook, &view, &reply, report, fallback);
        if let Some(why) = answered_limit
            && run.answer.is_some()
        {
            log(DiagKind::HookInvalidOutput, &why);
            run.report.status = HookStatus::Limit;
            run.report.detail = Some(Cow::Owned(why));
        }
        run
    }

    /// Whether the trust gate lets `hook` run at `event`, and the program it pinned: a hook
    /// without an approval key (a built-in guard's own) needs no approval.
    fn gate(
        &self,
        snapshot: &Snapshot,
        hook: &Hook,
        event: Event,
    ) -> (Option<crate::trust::Pinned>, Lapse) {
        if hook.approval_key.is_none() {
            return (None, Lapse::None);
        }
        if !snapshot.master_enabled() {
            return (None, Lapse::MasterOff);
        }
        match self.drift.check(&snapshot.approvals, event, hook) {
            Verdict::Approved(pinned) => (pinned, Lapse::None),
            Verdict::NotApproved => (None, Lapse::NotApproved),
            Verdict::Drifted(why) => {
                self.record(
                    DiagRecord::new(
                        DiagKind::HookDrift,
                        format!("changed since approval, not run: {why}"),
                    )
                    .event(event.name())
                    .hook(&*hook.name, &*hook.file_display),
                );
                (None, Lapse::Drifted(why))
            }
        }
    }

    /// A hook's reply read by its dialect into an answer, or the failure it is reported as.
    fn read_reply(
        &self,
        hook: &Hook,
        view: &PayloadView<'_>,
        reply: &Reply,
        report: impl Fn(HookStatus, Option<String>) -> HookReport,
        fallback: Option<String>,
    ) -> HookRun {
        let event = view.event;
        let record =
            |kind: DiagKind, detail: &str| hook_record(hook, event, view.payload, kind, detail);
        let log = |kind: DiagKind, detail: &str| self.record(record(kind, detail));
        match hook.interpret(view, reply) {
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
        self.execute_as(hook, view, program, &[]).await.0
    }

    /// [`Runtime::execute`], with the payload's aliased tool names for a built-in guard, and
    /// the limit such a guard reached, if it did.
    async fn execute_as(
        &self,
        hook: &Hook,
        view: &PayloadView<'_>,
        program: Option<&crate::trust::Pinned>,
        aliases: &[(String, String)],
    ) -> (Ran, Option<GuardLimit>) {
        if let TransportSpec::Builtin(spec) = &hook.transport {
            // In-process: the guard reads the canonical payload itself, nothing is serialised;
            // the hook's timeout is its time budget.
            let call = Call {
                event: view.event,
                payload: view.payload,
                aliases,
                budget: hook.timeout,
                dry_run: self.dry_run,
                inline: self.replay.is_some(),
            };
            return match spec.run(call).await {
                Ok(Guarded::Answered { reply, limit }) => {
                    (Ok(reply).into(), limit.map(GuardLimit::Answered))
                }
                Ok(Guarded::OverBudget(why)) => (
                    Err(Failure::Timeout(hook.timeout)).into(),
                    Some(GuardLimit::OverBudget(why)),
                ),
                Err(failure) => (Err(failure).into(), None),
            };
        }
        (self.spawn(hook, view, program).await, None)
    }

    /// Runs a hook that is not a built-in guard through its transport.
    async fn spawn(
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
                // The host's variables first: the hook's `env` and the runtime's win over them.
                let mut env: Vec<(String, String)> =
                    view.cache.host_env.get().cloned().unwrap_or_default();
                env.extend(hook_env(self.ws, hook, view.event));
                if self.dry_run {
                    env.push((DRY_RUN_ENV.to_owned(), "1".to_owned()));
                }
                let input = input();
                let mut policy = hook.dialect.run_policy(input.len());
                if let Some(replay) = &self.replay {
                    policy.network = replay.network;
                }
                if spec.ahp {
                    return agent_hooks_transports::ahp::run(
                        spec,
                        &input,
                        &env,
                        hook.timeout,
                        program,
                        policy,
                    )
                    .await
                    .into();
                }
                // A forker's children are its own to start, outside any namespace this
                // process could give them: a confined hook is spawned here instead.
                if let Some(prefork) = &spec.prefork
                    && policy.network == agent_hooks_transports::Network::Host
                {
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
            TransportSpec::Builtin(_) => {
                Err(Failure::Exec("a built-in guard runs in-process".into())).into()
            }
            TransportSpec::Judge(spec) => {
                let input = input();
                match self.replay.as_ref().and_then(|m| m.judge_cache.as_deref()) {
                    Some(cache) => cached_judge(cache, self.ws, hook, spec, &input).await,
                    None => spec.run(&input, hook.timeout).await.into(),
                }
            }
        }
    }
}

/// A judge's answer to `input` from the replay's cache, else from the model, kept for the next
/// replay when it is a usable answer. Keyed by the judge (its model and prompt) and the input,
/// the workspace's root left out: each replay runs in a scratch copy of its own.
async fn cached_judge(
    cache: &std::path::Path,
    ws: &agent_hooks_core::workspace::Workspace,
    hook: &Hook,
    spec: &agent_hooks_transports::judge::JudgeSpec,
    input: &[u8],
) -> Ran {
    use sha2::{Digest, Sha256};
    let mut key = Sha256::new();
    key.update(hook.transport.describe().as_bytes());
    key.update([0]);
    let root = ws.root().to_string_lossy();
    key.update(
        String::from_utf8_lossy(input)
            .replace(&*root, "<workspace>")
            .as_bytes(),
    );
    let hex: String = key.finalize().iter().map(|b| format!("{b:02x}")).collect();
    let path = cache.join(format!("{hex}.answer"));
    if let Ok(answer) = std::fs::read(&path) {
        return Ok(Reply::answered(answer)).into();
    }
    let result = spec.run(input, hook.timeout).await;
    if let Ok(reply) = &result
        && reply.exit == agent_hooks_transports::Exit::Code(0)
        && !reply.stdout_overflow
    {
        let kept = std::fs::create_dir_all(cache)
            .and_then(|()| agent_hooks_core::store::write_atomic(&path, &reply.stdout));
        if let Err(e) = kept {
            tracing::warn!(path = %path.display(), %e, "cannot keep a judge's answer");
        }
    }
    result.into()
}

/// A record about `hook`, in the shape its dialect's readers expect.
pub(super) fn hook_record(
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
