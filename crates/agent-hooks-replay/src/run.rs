//! Replaying sessions: each session is a task of its own (sessions run in parallel, a
//! session's events in order), and each of its events is dispatched under both policies at
//! once. Guards keep per-session state keyed by the session's id, in each policy's scratch
//! copy, so sessions do not see each other's and the live workspace sees none.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use agent_hooks_runtime::audit::Session;
use agent_hooks_runtime::{DispatchOptions, HookStatus, Network, Outcome, ReplayMode};

use crate::compare::{FlipKind, Verdict};
use crate::events;
use crate::policy::Loaded;
use crate::report::{EventReport, SessionReport};

/// What the hooks of one session did, to be merged into the report.
#[derive(Debug, Default)]
pub(crate) struct Tally {
    pub ran: BTreeMap<String, usize>,
    pub withheld: BTreeMap<String, String>,
    /// Command hooks that ran with no network.
    pub confined: BTreeSet<String>,
    /// Command hooks that ran with this machine's network.
    pub unconfined: BTreeSet<String>,
}

impl Tally {
    fn note(&mut self, outcome: &Outcome, loaded: &Loaded, network: Network) {
        for hook in &outcome.hooks {
            match (hook.status, hook.detail.as_deref()) {
                (HookStatus::Skipped, Some(why)) if why.starts_with("replay:") => {
                    self.withheld
                        .entry(hook.hook.to_string())
                        .or_insert_with(|| why.trim_start_matches("replay: ").to_owned());
                }
                (HookStatus::Skipped, _) => {}
                _ => {
                    *self.ran.entry(hook.hook.to_string()).or_default() += 1;
                    if loaded.commands.contains(&*hook.hook) {
                        match network {
                            Network::Isolated => &mut self.confined,
                            Network::Host => &mut self.unconfined,
                        }
                        .insert(hook.hook.to_string());
                    }
                }
            }
        }
    }

    pub(crate) fn merge(&mut self, other: Tally) {
        for (hook, n) in other.ran {
            *self.ran.entry(hook).or_default() += n;
        }
        for (hook, why) in other.withheld {
            self.withheld.entry(hook).or_insert(why);
        }
        self.confined.extend(other.confined);
        self.unconfined.extend(other.unconfined);
    }
}

/// Replays `sessions` (each with its agent) under `policy` and `against`.
pub(crate) async fn sessions(
    sessions: Vec<(&'static str, Session)>,
    policy: Arc<Loaded>,
    against: Arc<Loaded>,
    mode: ReplayMode,
) -> (Vec<SessionReport>, Tally) {
    let network = mode.network;
    let options = Arc::new(DispatchOptions::default().replay(mode));
    let mut tasks = tokio::task::JoinSet::new();
    for (index, (agent, session)) in sessions.into_iter().enumerate() {
        let (policy, against, options) = (policy.clone(), against.clone(), options.clone());
        tasks.spawn(async move {
            let (report, tally) = one(agent, &session, &policy, &against, &options, network).await;
            (index, report, tally)
        });
    }
    let mut done = Vec::new();
    let mut tally = Tally::default();
    while let Some(joined) = tasks.join_next().await {
        match joined {
            Ok((index, report, one)) => {
                tally.merge(one);
                done.push((index, report));
            }
            // A session's task panicked: a bug, not something to hide in the report.
            Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
            Err(_) => {}
        }
    }
    done.sort_by_key(|(index, _)| *index);
    (done.into_iter().map(|(_, r)| r).collect(), tally)
}

/// Replays one session.
async fn one(
    agent: &'static str,
    session: &Session,
    policy: &Loaded,
    against: &Loaded,
    options: &DispatchOptions,
    network: Network,
) -> (SessionReport, Tally) {
    let mut tally = Tally::default();
    let mut reports = Vec::new();
    for replayed in events::of_session(agent, session) {
        let (before, after) = match replayed.event {
            Some((event, payload)) => {
                let (b, a) = tokio::join!(
                    against
                        .engine
                        .dispatch_with(event, payload.clone(), options),
                    policy.engine.dispatch_with(event, payload, options),
                );
                tally.note(&b, against, network);
                tally.note(&a, policy, network);
                (Some((event, Verdict::of(&b))), Some(Verdict::of(&a)))
            }
            None => (None, None),
        };
        let flip = match (&before, &after) {
            (Some((_, b)), Some(a)) => FlipKind::between(b, a),
            _ => None,
        };
        reports.push(EventReport {
            step: replayed.step,
            event: before.as_ref().map(|(event, _)| event.name()),
            tool_name: replayed.tool_name,
            input: replayed.input,
            place: replayed.place,
            timestamp: replayed.timestamp,
            subagent: replayed.subagent,
            before: before.map(|(_, v)| v),
            after,
            flip,
        });
    }
    (
        SessionReport {
            agent,
            id: session.id.clone(),
            events: reports,
        },
        tally,
    )
}
