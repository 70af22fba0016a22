//! Dispatch: run the hooks of one event in declaration order and merge what they said.
//!
//! Hooks that may block or rewrite run one after another, each on the payload as rewritten so far;
//! the first block ends the chain — except a provisional one (a skill hook's `_block`), which later
//! hooks of the same source may still lift. Hooks that only observe run concurrently. Every effect
//! is checked against the event's row of the capability table before it counts; every failure is
//! logged and reported, and fails open unless the hook says `on_error: block`.
//!
//! The final input is the checked input: when a hook rewrites the payload after an approved
//! hook that may block has passed it, that hook runs again on the payload as it will be sent
//! ([`Checked`], `docs/protocol.md`).

pub(crate) mod background;
mod merge;
mod run;

use std::borrow::Cow;
use std::sync::{Arc, OnceLock};

use serde_json::{Map, Value};

use self::merge::Merge;
use crate::hook::{Hook, SourceKind};
use crate::snapshot::Snapshot;
use crate::trust::DriftChecker;
use agent_hooks_core::answer::{Answer, Decision};
use agent_hooks_core::diag::{DiagRecord, EventLog};
use agent_hooks_core::event::{Event, complete_payload};
use agent_hooks_core::outcome::{Diagnostic, HookReport, HookStatus, Outcome};
use agent_hooks_core::workspace::Workspace;
use agent_hooks_dialects::{DispatchCache, PayloadView};

/// How one dispatch runs, beyond its event and payload. `DispatchOptions::default()` runs
/// every hook of the event.
#[derive(Debug, Clone, Default)]
pub struct DispatchOptions {
    skip: Option<(SourceKind, Cow<'static, str>)>,
    conversation: Option<Vec<Value>>,
    channel: Option<Value>,
    env: Vec<(String, String)>,
    pub(crate) replay: Option<ReplayMode>,
    agent: Option<&'static str>,
}

/// How `agent-hooks replay` evaluates a policy: as declared, with no trust gate (a candidate
/// policy is not approved yet), no decision log, and only what it was told it may run.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ReplayMode {
    /// Command and HTTP hooks run (`--run-hooks`); otherwise they are skipped.
    pub run_hooks: bool,
    /// LLM judges run (`--judges`); otherwise they are skipped.
    pub judges: bool,
    /// Where judges' answers are kept, by judge and input, so that a rerun asks no model
    /// again.
    pub judge_cache: Option<Arc<std::path::Path>>,
    /// The network command hooks get: none ([`Network::Isolated`]) unless the caller chose
    /// this machine's. A `prefork` hook then runs as a plain spawn, which can be confined.
    ///
    /// [`Network::Isolated`]: agent_hooks_transports::Network::Isolated
    pub network: agent_hooks_transports::Network,
}

impl Default for ReplayMode {
    /// Built-in guards only; were command hooks let run, they would get no network.
    fn default() -> ReplayMode {
        ReplayMode::new(false, false)
    }
}

impl ReplayMode {
    /// Replays with the hooks `run_hooks` and `judges` allow.
    pub fn new(run_hooks: bool, judges: bool) -> ReplayMode {
        ReplayMode {
            run_hooks,
            judges,
            judge_cache: None,
            network: agent_hooks_transports::Network::Isolated,
        }
    }

    /// Gives command hooks `network` (this machine's, where they cannot be confined and the
    /// user said so).
    pub fn network(mut self, network: agent_hooks_transports::Network) -> ReplayMode {
        self.network = network;
        self
    }

    /// Keeps judges' answers in `dir`, one file per judge and input.
    pub fn judge_cache(mut self, dir: impl Into<std::path::PathBuf>) -> ReplayMode {
        self.judge_cache = Some(Arc::from(dir.into().into_boxed_path()));
        self
    }

    /// Why `hook` does not run under this mode, if it does not.
    fn withholds(&self, hook: &Hook) -> Option<&'static str> {
        use agent_hooks_transports::TransportSpec;
        if hook.dialect.background().is_some() {
            return Some("replay: a background hook cannot change the decision");
        }
        match &hook.transport {
            TransportSpec::Command(_) | TransportSpec::Http(_) if !self.run_hooks => {
                Some("replay: command and HTTP hooks run only with --run-hooks")
            }
            TransportSpec::Judge(_) if !self.judges => {
                Some("replay: LLM judges run only with --judges")
            }
            _ => None,
        }
    }
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

    /// The channel the host is in (open-strix's `current_channel_id`), whose messages make the
    /// conversation's `channel_messages` when the payload names no channel.
    pub fn conversation_channel(mut self, channel: Value) -> Self {
        self.channel = Some(channel);
        self
    }

    /// Variables the host's environment holds now, for the command hooks of this dispatch: a
    /// hook sees them over the environment the runtime started with, under its own `env` and
    /// the runtime's variables (`STATE_DIR`, `HOOK_NAME`, ...).
    pub fn env(mut self, vars: Vec<(String, String)>) -> Self {
        self.env = vars;
        self
    }

    /// Names the agent whose call this is (its bridge knows; a payload may not say), for an
    /// ask shown at the console.
    pub fn agent(mut self, name: &'static str) -> Self {
        self.agent = Some(name);
        self
    }

    /// Evaluates the policy as `agent-hooks replay` does ([`ReplayMode`]).
    pub fn replay(mut self, mode: ReplayMode) -> Self {
        self.replay = Some(mode);
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
    /// A replay ([`ReplayMode`]): no trust gate, and only the hooks it allows.
    pub replay: Option<ReplayMode>,
}

/// Set to `1` in the environment of a hook run as a trial (doctor, `agent-hooks test`): its
/// answer is looked at, not acted on, so a hook that keeps records of its own should not
/// write them.
pub const DRY_RUN_ENV: &str = "AGENT_HOOKS_DRY_RUN";

/// The changes hooks made to the payload in one dispatch, so that the approved hooks that may
/// block and came before a change see the final payload again. Hooks run in declaration order
/// and a concurrent group sees the payload as it was when the group began, so which changes a
/// hook saw follows from its index alone: nothing is recorded per hook, and a dispatch where no
/// hook changes anything (nearly all of them) costs nothing here.
#[derive(Debug, Default)]
struct Checked {
    /// Each change: the hook that made it, and the first hook index that saw it.
    changes: Vec<(usize, usize)>,
}

impl Checked {
    /// Notes that `hooks[writer]` changed the payload, seen from hook `seen_from` on.
    fn changed(&mut self, writer: usize, seen_from: usize) {
        self.changes.push((writer, seen_from));
    }

    /// Whether `hooks[index]` saw an older payload than the final one, not counting its own
    /// change: its own rewrite is what it vouched for.
    fn stale(&self, index: usize) -> bool {
        self.changes
            .iter()
            .any(|&(writer, seen_from)| seen_from > index && writer != index)
    }

    /// The hook whose change made the final payload.
    fn writer(&self) -> Option<usize> {
        self.changes.last().map(|&(writer, _)| writer)
    }
}

/// One hook's run, before it is merged.
struct HookRun {
    report: HookReport,
    answer: Option<Answer>,
    /// A hook the trust gate kept from running says so to the user (`docs/trust.md`, no silent
    /// lapse): why (`master switch off`, `not approved`, `drift`) and the warning.
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
        let hooks = snapshot.hooks_for(event);
        // Built here, in the dispatch's own state, and lent to `start`: a large value returned
        // from a function into an async body is copied on the way.
        let mut merge = Merge::new(event, payload);
        let cache = DispatchCache::default();
        self.start(snapshot, event, hooks.len(), options, &mut merge, &cache);
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

        let mut checked = Checked::default();
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
                if merge.absorb(self, hook, run) {
                    checked.changed(i, i + 1);
                    if hook.approval_key.is_none() {
                        merge.unvetted_rewrite(hook);
                    }
                }
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
                self.run_observers(
                    snapshot,
                    event,
                    (hooks, i..end),
                    &matched,
                    (&mut merge, &mut checked),
                    &cache,
                    &mut match_text,
                )
                .await;
                i = end;
            }
        }
        if merge.decision != Decision::Block && !checked.changes.is_empty() {
            self.recheck(snapshot, event, hooks, (&checked, skip), &mut merge, &cache)
                .await;
        }
        merge.settle_open_block(self);
        let mut outcome = merge.finish(
            self.log_decisions.then_some(self.log),
            completed.then_some(given),
            snapshot.config.agent.redo_cap,
        );
        outcome.diagnostics =
            std::mem::take(&mut *self.seen.lock().unwrap_or_else(|p| p.into_inner()));
        // An ask goes to the console's operator when the workspace says so; never from a
        // trial, a replay or a dispatch that is itself one hook of another.
        if let Some(route) = &snapshot.config.agent.ask
            && outcome.decision == Decision::Ask
            && !self.dry_run
            && self.log_decisions
            && self.replay.is_none()
        {
            crate::pending_ask::route(self.ws, route, options.agent, &mut outcome).await;
        }
        outcome
    }

    /// Readies the outcome before any hook runs (with what background hooks of the session
    /// left for it), and the dispatch's cache (with the host's conversation, if given).
    fn start(
        &self,
        snapshot: &Snapshot,
        event: Event,
        hooks: usize,
        options: &DispatchOptions,
        merge: &mut Merge,
        cache: &DispatchCache,
    ) {
        // What background hooks of this session left since its last event that takes context.
        if snapshot.has_background() && event.spec().context {
            let session = merge
                .payload
                .get("session_id")
                .and_then(Value::as_str)
                .unwrap_or("");
            merge.context = crate::dispatch::background::take(self.ws, session);
        }
        merge.reports.reserve_exact(hooks);
        if !options.env.is_empty() {
            let _ = cache.host_env.set(options.env.clone());
        }
        if let Some(messages) = &options.conversation {
            let _ = cache
                .conversation
                .set(agent_hooks_dialects::skill::host_conversation(
                    &merge.payload,
                    messages.clone(),
                    options.channel.clone(),
                ));
        }
    }

    /// Runs the matched hooks of `group` (hooks that only observe) concurrently on the payload
    /// as it stands, and merges their runs in declaration order.
    #[expect(
        clippy::too_many_arguments,
        reason = "the dispatch's state, lent for one group"
    )]
    async fn run_observers(
        &self,
        snapshot: &Snapshot,
        event: Event,
        (hooks, range): (&[Arc<Hook>], std::ops::Range<usize>),
        matched: &[bool],
        (merge, checked): (&mut Merge, &mut Checked),
        cache: &DispatchCache,
        match_text: &mut OnceLock<String>,
    ) {
        let group = &hooks[range.clone()];
        let payload = &merge.payload;
        let text = &*match_text;
        let runs = futures::future::join_all(
            group
                .iter()
                .zip(matched)
                .filter(|(_, m)| **m)
                .map(|(hook, _)| self.run_hook(snapshot, hook, event, payload, cache, text)),
        )
        .await;
        if runs.iter().any(|run| run.answer.is_some()) {
            *match_text = OnceLock::new();
        }
        let mut runs = runs.into_iter();
        // Every hook of the group saw the payload as it was before any of them changed it.
        let seen_from = range.end;
        for ((index, hook), matched) in range.zip(group).zip(matched) {
            match matched.then(|| runs.next()).flatten() {
                Some(run) => {
                    if merge.absorb(self, hook, run) {
                        checked.changed(index, seen_from);
                        if hook.approval_key.is_none() {
                            merge.unvetted_rewrite(hook);
                        }
                    }
                }
                None => merge.reports.push(skipped(hook, "no match")),
            }
        }
    }

    /// Runs again, on the final payload, every approved hook that may block and passed an
    /// older one (ran and let it through, or was left out by its matcher), in their order; the
    /// first block ends it.
    async fn recheck(
        &self,
        snapshot: &Snapshot,
        event: Event,
        hooks: &[Arc<Hook>],
        (checked, skip): (&Checked, Option<(SourceKind, &Cow<'static, str>)>),
        merge: &mut Merge,
        cache: &DispatchCache,
    ) {
        let Some(writer) = checked.writer().map(|index| hooks[index].name.clone()) else {
            return;
        };
        if !event.spec().may_block {
            return;
        }
        let match_text = OnceLock::new();
        for (index, hook) in hooks.iter().enumerate() {
            let approved_blocker = hook.approval_key.is_some()
                && hook.dialect.background().is_none()
                && skip.is_none_or(|(source, _)| hook.source != source);
            if !approved_blocker || !checked.stale(index) {
                continue;
            }
            // A matcher that no longer matches says the hook would not run on this payload.
            if !self.matches(hook, event, &merge.payload, cache, &match_text) {
                continue;
            }
            let run = self
                .run_hook(snapshot, hook, event, &merge.payload, cache, &match_text)
                .await;
            // A hook the trust gate keeps from running is no approved check: its lapse is
            // told as any other, and it is not waited for.
            if let Some((_, warning)) = &run.lapse {
                merge.lapsed(warning.clone());
                continue;
            }
            if merge.rechecked(self, hook, run, &writer) {
                break;
            }
        }
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
}

/// The environment a command hook gets on top of the runtime's (`docs/configuration.md`).
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
            Lapse::NotApproved => match crate::trust::unapprovable(hook) {
                Some(why) => (
                    "not approved",
                    format!("it is not approved for {event}, and cannot be as written: {why}"),
                    "rewrite its command so that the files it runs are known before it runs (docs/trust.md)".to_owned(),
                ),
                None => (
                    "not approved",
                    format!("it is not approved for {event}"),
                    approve,
                ),
            },
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
