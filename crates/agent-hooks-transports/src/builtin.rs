//! The built-in transport: a ready-made guard (`agent-hooks-guards`) evaluated in this process,
//! with no process spawned. Its answer is the same decision-protocol object a command hook
//! prints, handed back as a [`Reply`] so the shell dialect stays the one interpreter.
//!
//! Each evaluation runs on a thread of its own under a time budget (the hook's `timeout`):
//! past it the thread is abandoned — it ends by itself, every guard being linear in its input,
//! and it dies with the process — and the caller is told, so one slow input never holds the
//! dispatch, nor the sidecar's async threads.
//!
//! Per-session state lives in memory, in a store shared by every dispatch of the workspace and
//! kept across reloads (keyed by the hook's state directory), so an approval or an edit of
//! `config/shell_hooks.yaml` does not make a guard forget the edits it was tracking.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use agent_hooks_guards::{Assessment, Guard, GuardContext};
use serde_json::{Map, Value};

use super::{Failure, Reply};
use agent_hooks_core::event::Event;

/// The prefix of a built-in hook's approval key: `builtin:security_guard`.
pub const APPROVAL_PREFIX: &str = "builtin:";

/// How long the credit-balance lookup of `runtime_footer` may take (issue 8).
const BALANCE_TIMEOUT: Duration = Duration::from_secs(2);

/// A `type: builtin` hook: which guard, its rules file, and the compiled guard with its context.
#[derive(Clone)]
pub struct BuiltinSpec {
    /// The guard's name (`security_guard`).
    pub guard: &'static str,
    /// The rules file, absolute; `None` runs the defaults.
    pub rules: Option<PathBuf>,
    compiled: Arc<Guard>,
    ctx: Arc<Mutex<GuardContext>>,
}

/// Compiled guards by (name, rules text): a guard declared for five events, or reloaded with
/// unchanged rules, compiles its patterns once.
type CompiledCache = HashMap<(&'static str, Option<String>), Arc<Guard>>;

impl std::fmt::Debug for BuiltinSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BuiltinSpec")
            .field("guard", &self.guard)
            .field("rules", &self.rules)
            .finish_non_exhaustive()
    }
}

/// Why a built-in hook could not be set up as written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BuiltinError {
    /// No guard by that name: the entry is unusable.
    #[error("no ready-made hook named \"{name}\" (known: {known})")]
    Unknown {
        /// The name in the entry.
        name: String,
        /// The names that exist, for the message.
        known: String,
    },
    /// The rules file is missing, unreadable or invalid: the guard runs on its defaults.
    #[error("rules {path}: {message}; the hook runs with its default rules until this is fixed")]
    Rules {
        /// The rules file, as written in the entry.
        path: String,
        /// What is wrong with it, located where the file allows.
        message: String,
    },
}

impl BuiltinError {
    /// No guard called `name`, with the names that exist for the message.
    fn unknown(name: &str) -> BuiltinError {
        BuiltinError::Unknown {
            name: name.to_owned(),
            known: agent_hooks_guards::GUARDS
                .iter()
                .map(|g| g.name)
                .collect::<Vec<_>>()
                .join(", "),
        }
    }
}

impl BuiltinSpec {
    /// Compiles guard `name` with the rules at `rules` (absolute). A rules problem still yields
    /// a spec — on the defaults — together with the error to report (fail-open, issue 8).
    /// `state_key` is the hook's `STATE_DIR`, where its per-session state lives, so every hook
    /// of a workspace keeps its own sessions across reloads and processes.
    pub fn load(
        workspace: &Path,
        name: &str,
        rules: Option<PathBuf>,
        state_key: &Path,
    ) -> Result<(BuiltinSpec, Option<BuiltinError>), BuiltinError> {
        let Some(info) = agent_hooks_guards::guard_info(name) else {
            return Err(BuiltinError::unknown(name));
        };
        let (compiled, problem) = compile_shared(info.name, rules.as_deref())?;
        // State on disk under the hook's STATE_DIR, locked per session: a host that runs one
        // process per event (`fire`, the Claude Code bridge) keeps a guard's sessions exactly
        // as a long-running one does.
        let mut ctx = GuardContext::in_dir(workspace, state_key).with_balance(balance_lookup);
        ctx.state = crate::session_state::store_for(workspace, state_key);
        let spec = BuiltinSpec {
            guard: info.name,
            rules,
            compiled,
            ctx: Arc::new(Mutex::new(ctx)),
        };
        Ok((spec, problem))
    }

    /// A spec around an already compiled guard and its context (the `guard` command gives
    /// state in `STATE_DIR` rather than memory).
    pub fn with_context(guard: Guard, rules: Option<PathBuf>, ctx: GuardContext) -> BuiltinSpec {
        BuiltinSpec {
            guard: guard.name(),
            rules,
            compiled: Arc::new(guard),
            ctx: Arc::new(Mutex::new(ctx)),
        }
    }

    /// The approval key: `builtin:<name>`.
    pub fn approval_key(&self) -> String {
        format!("{APPROVAL_PREFIX}{}", self.guard)
    }

    /// Files an approval pins: the rules file, which decides what the guard does.
    pub fn files(&self) -> Vec<PathBuf> {
        self.rules.iter().filter(|p| p.is_file()).cloned().collect()
    }

    /// Evaluates the guard on `call.payload` for `call.event`, on a thread of its own, within
    /// `call.budget`. With `dry_run` (doctor, `agent-hooks test`) it runs on a throwaway
    /// context: the answer is the same, but neither its state nor its records are touched.
    pub async fn run(&self, call: Call<'_>) -> Result<Guarded, Failure> {
        let mut payload = call.payload.clone();
        if !call.aliases.is_empty() {
            let aliases = call
                .aliases
                .iter()
                .map(|(host, canonical)| (host.clone(), Value::String(canonical.clone())))
                .collect();
            payload.insert(
                agent_hooks_guards::TOOL_ALIASES_KEY.to_owned(),
                Value::Object(aliases),
            );
        }
        let payload = Value::Object(payload);
        let (event, dry_run) = (call.event, call.dry_run);
        // Inline, nothing waits on the answer but the caller itself (a replay): the hand-off
        // to a guard thread and its timer would cost more than most evaluations.
        // runtime_footer's balance lookup waits on the runtime, which a runtime's own thread
        // cannot do: it keeps its thread.
        if call.inline && self.guard != "runtime_footer" {
            let (assessment, lost) = self.evaluate(event, &payload, dry_run);
            if let Some(lost) = lost {
                return Err(Failure::Exec(format!(
                    "built-in guard {}: {lost}; its per-session state is unknown",
                    self.guard
                )));
            }
            return Ok(Guarded::Answered {
                reply: answer_reply(&assessment.answer),
                limit: assessment.limit,
            });
        }
        let spec = self.clone();
        let (send, answer) = tokio::sync::oneshot::channel();
        // The balance lookup waits on this runtime (its HTTP client lives there).
        let runtime = tokio::runtime::Handle::try_current().ok();
        workers::run(Box::new(move || {
            let _entered = runtime.as_ref().map(tokio::runtime::Handle::enter);
            let _ = send.send(spec.evaluate(event, &payload, dry_run));
        }))
        .map_err(|e| Failure::Exec(format!("built-in guard {}: cannot start: {e}", self.guard)))?;
        match tokio::time::timeout(call.budget, answer).await {
            // Its session state could not be read or kept: the answer may miss what the
            // session did, so the run is a failure the lapse rule tells (or denies on).
            Ok(Ok((_, Some(lost)))) => Err(Failure::Exec(format!(
                "built-in guard {}: {lost}; its per-session state is unknown",
                self.guard
            ))),
            Ok(Ok((assessment, None))) => Ok(Guarded::Answered {
                reply: answer_reply(&assessment.answer),
                limit: assessment.limit,
            }),
            // The thread ended without an answer: the guard panicked past its own catch.
            Ok(Err(_)) => Err(Failure::Exec(format!(
                "built-in guard {} stopped without an answer",
                self.guard
            ))),
            Err(_) => Ok(Guarded::OverBudget(format!(
                "built-in guard {} ran past its time budget of {} s on this input and was abandoned",
                self.guard,
                call.budget.as_secs_f64()
            ))),
        }
    }

    /// The guard's answer, synchronously: what `run` does on its thread; with why its session
    /// state could not be reached, if it could not.
    fn evaluate(
        &self,
        event: Event,
        payload: &Value,
        dry_run: bool,
    ) -> (Assessment, Option<String>) {
        let mut ctx = self.ctx.lock().unwrap_or_else(|p| p.into_inner());
        if dry_run {
            let mut trial =
                GuardContext::dry_run(ctx.workspace.clone()).with_balance(balance_lookup);
            drop(ctx);
            return (
                self.compiled.assess(event.name(), payload, &mut trial),
                None,
            );
        }
        let assessment = self.compiled.assess(event.name(), payload, &mut ctx);
        (assessment, ctx.state.take_failure())
    }
}

/// The threads guards are evaluated on. Plain threads rather than the runtime's blocking pool:
/// an abandoned evaluation must not hold up the runtime's shutdown (a process that answers one
/// event exits at once, and its threads with it). A thread that finished its evaluation waits a
/// while for the next one, since starting a thread costs more than most evaluations.
mod workers {
    use std::sync::Mutex;
    use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
    use std::time::Duration;

    /// One evaluation, answering on its own channel.
    pub(super) type Job = Box<dyn FnOnce() + Send>;

    /// How many idle threads wait for work, at most.
    const MAX_IDLE: usize = 8;
    /// How long an idle thread waits for work before it ends.
    const IDLE_FOR: Duration = Duration::from_secs(30);

    /// The idle threads, each by a number and the sender of its work.
    static IDLE: Mutex<Vec<(u64, Sender<Job>)>> = Mutex::new(Vec::new());
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

    /// Runs `job` on an idle thread, or on a new one.
    pub(super) fn run(mut job: Job) -> std::io::Result<()> {
        loop {
            let idle = IDLE.lock().unwrap_or_else(|p| p.into_inner()).pop();
            match idle {
                Some((_, worker)) => match worker.send(job) {
                    Ok(()) => return Ok(()),
                    // That thread ended meanwhile: the job comes back for the next one.
                    Err(returned) => job = returned.0,
                },
                None => break,
            }
        }
        let id = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        std::thread::Builder::new()
            .name("agent-hooks guard".into())
            .spawn(move || work(id, job))
            .map(drop)
    }

    fn work(id: u64, mut job: Job) {
        let (sender, work) = channel::<Job>();
        loop {
            job();
            {
                let mut idle = IDLE.lock().unwrap_or_else(|p| p.into_inner());
                if idle.len() >= MAX_IDLE {
                    return;
                }
                idle.push((id, sender.clone()));
            }
            job = match next(id, &work) {
                Some(next) => next,
                None => return,
            };
        }
    }

    /// The next job, or `None` when none came in time and this thread is no longer offered.
    fn next(id: u64, work: &Receiver<Job>) -> Option<Job> {
        match work.recv_timeout(IDLE_FOR) {
            Ok(job) => Some(job),
            Err(RecvTimeoutError::Disconnected) => None,
            Err(RecvTimeoutError::Timeout) => {
                let mut idle = IDLE.lock().unwrap_or_else(|p| p.into_inner());
                match idle.iter().position(|(offered, _)| *offered == id) {
                    Some(at) => {
                        idle.swap_remove(at);
                        None
                    }
                    // Taken just now: its job is on the way.
                    None => {
                        drop(idle);
                        work.recv().ok()
                    }
                }
            }
        }
    }
}

/// One evaluation of a built-in guard.
#[derive(Debug, Clone, Copy)]
pub struct Call<'a> {
    /// The event.
    pub event: Event,
    /// The canonical payload.
    pub payload: &'a Map<String, Value>,
    /// The payload's tool names that the workspace aliases (host name, canonical name), so the
    /// guard treats an aliased tool as the tool it stands for (`claude_hooks.tool_aliases`).
    pub aliases: &'a [(String, String)],
    /// How long the guard may take: past it, the evaluation is abandoned.
    pub budget: Duration,
    /// A trial run: no state or records written.
    pub dry_run: bool,
    /// Evaluate on the caller's thread, with no time budget (a replay, which only the user
    /// waits on).
    pub inline: bool,
}

/// What a built-in guard's evaluation came to.
#[derive(Debug)]
pub enum Guarded {
    /// The guard answered, as the reply of a command that printed it and exited 0.
    Answered {
        /// The answer.
        reply: Reply,
        /// Set when the answer (an `ask`) stands for a limit of the guard's own: why.
        limit: Option<String>,
    },
    /// The guard ran past its budget and was abandoned: why, for the user.
    OverBudget(String),
}

/// [`compile`], shared: the same name and rules text give the same compiled guard.
fn compile_shared(
    name: &'static str,
    rules: Option<&Path>,
) -> Result<(Arc<Guard>, Option<BuiltinError>), BuiltinError> {
    static CACHE: OnceLock<Mutex<CompiledCache>> = OnceLock::new();
    let text = rules.and_then(|p| agent_hooks_core::store::read_optional(p).ok().flatten());
    let key = (name, text);
    let cache = CACHE.get_or_init(Mutex::default);
    if let Some(guard) = cache.lock().unwrap_or_else(|p| p.into_inner()).get(&key) {
        return Ok((Arc::clone(guard), None));
    }
    let (guard, problem) = compile(name, rules)?;
    let guard = Arc::new(guard);
    if problem.is_none() {
        let mut cache = cache.lock().unwrap_or_else(|p| p.into_inner());
        // Edited rules leave old entries behind; a bound keeps a long-lived host small.
        if cache.len() >= 64 {
            cache.clear();
        }
        cache.insert(key, Arc::clone(&guard));
    }
    Ok((guard, problem))
}

/// Compiles a guard, falling back to its defaults when the rules cannot be used (the problem
/// is returned beside the guard). Fails only for an unknown name.
pub fn compile(
    name: &str,
    rules: Option<&Path>,
) -> Result<(Guard, Option<BuiltinError>), BuiltinError> {
    let problem = |message: String| BuiltinError::Rules {
        path: rules.map(|p| p.display().to_string()).unwrap_or_default(),
        message,
    };
    let text = match rules.map(agent_hooks_core::store::read_optional) {
        None => None,
        Some(Ok(Some(text))) => Some(text),
        Some(Ok(None)) => return defaults(name, Some(problem("cannot read: not found".into()))),
        Some(Err(e)) => return defaults(name, Some(problem(format!("cannot read: {e}")))),
    };
    match Guard::new(name, text.as_deref()) {
        Ok(guard) => Ok((guard, None)),
        Err(e) => defaults(name, Some(problem(e.to_string()))),
    }
}

fn defaults(
    name: &str,
    problem: Option<BuiltinError>,
) -> Result<(Guard, Option<BuiltinError>), BuiltinError> {
    Guard::with_defaults(name)
        .map(|guard| (guard, problem))
        .map_err(|_| BuiltinError::unknown(name))
}

/// A guard answer as the reply of a command that printed it and exited 0 (`{}` prints nothing).
pub fn answer_reply(answer: &Value) -> Reply {
    let stdout = match answer {
        Value::Object(map) if map.is_empty() => Vec::new(),
        other => serde_json::to_vec(other).unwrap_or_default(),
    };
    Reply::answered(stdout)
}

/// `runtime_footer`'s credit balance: a GET of `url` through the HTTP hooks' client (the same
/// SSRF guard), 2 s at most, the body's text; `None` on any failure. Blocking: called from the
/// guard's own thread in-process, or from the `guard` command, outside any runtime.
pub fn balance_lookup(url: &str) -> Option<String> {
    let fetch = async {
        let client = super::http::HttpClient::shared().ok()?;
        let url = client.guard().check_url(url).ok()?;
        let response = client
            .reqwest()
            .get(url)
            .timeout(BALANCE_TIMEOUT)
            .send()
            .await
            .ok()?;
        if !response.status().is_success() {
            return None;
        }
        let text = response.text().await.ok()?;
        let text = text.trim();
        (!text.is_empty() && text.len() <= 64).then(|| text.to_owned())
    };
    let bounded = async { tokio::time::timeout(BALANCE_TIMEOUT, fetch).await.ok()? };
    match tokio::runtime::Handle::try_current() {
        // On a guard's thread of a runtime (`run` enters it there), wait on that runtime.
        Ok(handle) => handle.block_on(bounded),
        Err(_) => {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .ok()?;
            rt.block_on(bounded)
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc::channel;

    #[test]
    fn every_job_runs_once_whether_on_a_new_thread_or_an_idle_one() {
        let (done, finished) = channel();
        // Rounds from several threads at once, so idle threads are taken and offered
        // concurrently; each job answers once.
        let senders: Vec<_> = (0..4)
            .map(|round| {
                let done = done.clone();
                std::thread::spawn(move || {
                    for i in 0..50 {
                        let done = done.clone();
                        super::workers::run(Box::new(move || {
                            let _ = done.send(round * 1000 + i);
                        }))
                        .expect("a guard thread starts");
                    }
                })
            })
            .collect();
        for sender in senders {
            sender.join().expect("the submitting thread ends");
        }
        drop(done);
        let mut seen: Vec<i32> = finished.iter().collect();
        seen.sort_unstable();
        let expected: Vec<i32> = (0..4)
            .flat_map(|round| (0..50).map(move |i| round * 1000 + i))
            .collect();
        assert_eq!(seen, expected);
    }
}
