//! Remote approval of `ask` (`ask: {via: console}` in `config/agent.yaml`): the dispatching
//! process keeps the ask in the state store, waits for the operator's answer at the console (or
//! the timeout), and turns the outcome into that answer, saying who decided and why.

use std::time::{Duration, SystemTime};

use serde_json::Value;

use crate::config::ask::AskRoute;
use agent_hooks_core::answer::Decision;
use agent_hooks_core::outcome::{HookStatus, Lapse, LapseKind, Outcome, ReasonDisplay};
use agent_hooks_core::workspace::Workspace;
use agent_hooks_transports::session_state::asks::{self, AskStore};

pub use agent_hooks_transports::session_state::asks::{
    Answered, AskAnswer, AskDecision, AskWatch, PendingAsk,
};

/// The store of `ws`'s pending asks: files in the runtime's own directory for the workspace,
/// or the shared store of `serve --state`.
fn store(ws: &Workspace) -> AskStore {
    AskStore::open("asks", &ws.runtime_dir().join("asks"))
}

/// The asks of `ws` waiting for an operator, oldest first.
///
/// # Errors
///
/// When the store cannot be read.
pub fn pending(ws: &Workspace) -> Result<Vec<PendingAsk>, String> {
    store(ws).pending()
}

/// Calls `changed` whenever an ask of `ws` is put or answered, by any process, until the
/// watch is dropped.
///
/// # Errors
///
/// When the store cannot be watched.
pub fn watch(ws: &Workspace, changed: impl Fn() + Send + 'static) -> Result<AskWatch, String> {
    store(ws).watch(changed)
}

/// An operator's answer to ask `id` of `ws`, `note` reaching the agent with it. Only `allow`
/// and `deny` are an operator's to give.
///
/// # Errors
///
/// When the store cannot be read or written.
pub fn answer(
    ws: &Workspace,
    id: &str,
    decision: AskDecision,
    note: &str,
) -> Result<Answered, String> {
    if decision == AskDecision::Ask {
        return Err("an operator answers allow or deny".to_owned());
    }
    store(ws).answer(
        id,
        &AskAnswer {
            decision,
            note: note.trim().to_owned(),
            by: "operator".to_owned(),
            time: asks::epoch_secs(SystemTime::now()),
        },
    )
}

/// How long an ask's webhook may take to take the post.
const WEBHOOK_TIMEOUT: Duration = Duration::from_secs(10);

/// Sends the ask of `outcome` to the console (and its webhook) and waits for its answer (off
/// the async threads), then makes the outcome that answer. A store that cannot be reached
/// leaves the ask to the agent's own prompt, as a lapse the user is told of (a deny under
/// `on_failure: block`).
pub(crate) async fn route(
    ws: &Workspace,
    route: &AskRoute,
    agent: Option<&str>,
    outcome: &mut Outcome,
) {
    let (timeout, on_timeout) = (route.timeout, route.on_timeout);
    let waited = async {
        let mut ask = ask_of(outcome, timeout)?;
        if let Some(agent) = agent {
            ask.agent = Some(agent.to_owned());
        }
        let store = store(ws);
        let put = (store.clone(), ask.clone());
        blocking(move || put.0.put(&put.1)).await?;
        let id = ask.id.clone();
        let wait = blocking(move || match store.wait(&id, timeout)? {
            Some(answer) => Ok(answer),
            None => timed_out(&store, &id, timeout, on_timeout),
        });
        // The webhook is posted while the ask already waits: a slow receiver takes nothing
        // from the operator's time.
        let (posted, answer) = futures::join!(post_webhook(route.webhook.as_deref(), &ask), wait);
        answer.map(|answer| (answer, posted))
    }
    .await;
    match waited {
        Ok((answer, posted)) => {
            apply(outcome, &answer);
            if let Err(why) = posted {
                outcome.warnings.push(why);
            }
        }
        Err(why) => {
            let mut lapse = Lapse::new(
                LapseKind::HookFailed,
                format!(
                    "the ask could not be sent to the console ({why}); the agent's own prompt asks instead"
                ),
            );
            lapse.hook = asking_hooks(outcome).into_iter().next();
            outcome.add_lapse(lapse);
        }
    }
}

/// Runs `work` off the async threads when there are any (the store blocks), else here.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, String> + Send + 'static,
) -> Result<T, String> {
    match tokio::runtime::Handle::try_current() {
        Ok(_) => tokio::task::spawn_blocking(work)
            .await
            .unwrap_or_else(|e| Err(format!("the wait for the operator failed: {e}"))),
        Err(_) => work(),
    }
}

/// POSTs the ask to `ask.webhook` through the HTTP hooks' client and SSRF guard. Says why it
/// was not delivered, for the user: the ask still waits at the console.
async fn post_webhook(url: Option<&str>, ask: &PendingAsk) -> Result<(), String> {
    let Some(url) = url else {
        return Ok(());
    };
    let undelivered = |why: String| {
        format!(
            "the ask's webhook {url} was not delivered ({why}); the ask waited at the console only"
        )
    };
    if tokio::runtime::Handle::try_current().is_err() {
        return Err(undelivered("no async runtime to post it from".to_owned()));
    }
    let spec = agent_hooks_transports::http::HttpSpec::new(url, Vec::new(), None)
        .map_err(|e| undelivered(e.to_string()))?;
    let body = serde_json::json!({
        "type": "agent_hooks.ask",
        "text": format!(
            "{} asks about {}: {} (answer at the agent-hooks console's Pending page)",
            ask.hooks.join(", "),
            ask.tool.as_deref().unwrap_or(&ask.event),
            ask.reason.as_deref().unwrap_or("no reason given"),
        ),
        "ask": ask,
    });
    spec.run(body.to_string().into_bytes(), WEBHOOK_TIMEOUT)
        .await
        .map(drop)
        .map_err(|e| undelivered(e.to_string()))
}

/// The timeout answers, unless an operator answered in the very moment it ran out: exactly one
/// of them stands.
fn timed_out(
    store: &AskStore,
    id: &str,
    timeout: Duration,
    on_timeout: AskDecision,
) -> Result<AskAnswer, String> {
    let verb = match on_timeout {
        AskDecision::Deny => "denied",
        AskDecision::Allow => "allowed",
        AskDecision::Ask => "left to the agent's own prompt",
    };
    let answer = AskAnswer {
        decision: on_timeout,
        note: format!(
            "no operator answered within {}; {verb} by on_timeout",
            seconds(timeout)
        ),
        by: "on_timeout".to_owned(),
        time: asks::epoch_secs(SystemTime::now()),
    };
    match store.answer(id, &answer)? {
        Answered::Now => Ok(answer),
        Answered::Already(first) => Ok(first),
        Answered::Unknown => Err("the pending ask was gone from the store".to_owned()),
    }
}

fn seconds(wait: Duration) -> String {
    format!("{}s", wait.as_secs())
}

/// The hooks that asked: those whose report says they blocked or asked, or hit a limit.
fn asking_hooks(outcome: &Outcome) -> Vec<String> {
    outcome
        .hooks
        .iter()
        .filter(|h| matches!(h.status, HookStatus::Blocked | HookStatus::Limit))
        .map(|h| h.hook.to_string())
        .collect()
}

fn ask_of(outcome: &Outcome, timeout: Duration) -> Result<PendingAsk, String> {
    let now = asks::epoch_secs(SystemTime::now());
    let text = |name: &str| {
        outcome
            .payload
            .get(name)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
    };
    Ok(PendingAsk {
        id: asks::new_id()?,
        time: now,
        deadline: now + timeout.as_secs_f64(),
        agent: text("agent"),
        session: text("session_id"),
        event: outcome.event.name().to_owned(),
        tool: text("tool_name"),
        tool_input: outcome.payload.get("tool_input").cloned(),
        hooks: asking_hooks(outcome),
        reason: outcome.reason.clone(),
    })
}

/// The outcome as the answer makes it: the operator's deny with their note as the reason the
/// agent reads; an allow that says who allowed; a timeout that says it timed out.
fn apply(outcome: &mut Outcome, answer: &AskAnswer) {
    let asked = outcome.reason.clone().unwrap_or_default();
    let note = answer.note.trim();
    let told = match (answer.by.as_str(), note.is_empty()) {
        ("operator", true) => format!("an operator answered {} at the console", verb(answer)),
        ("operator", false) => {
            format!(
                "an operator answered {} at the console: {note}",
                verb(answer)
            )
        }
        _ => note.to_owned(),
    };
    match answer.decision {
        AskDecision::Deny => {
            let reason = if asked.is_empty() {
                told
            } else {
                format!("{told} (the hook asked: {asked})")
            };
            outcome.decision = Decision::Block;
            outcome.display = Some(ReasonDisplay::of(&reason));
            outcome.reason = Some(reason);
        }
        AskDecision::Allow => {
            outcome.decision = Decision::Continue;
            outcome.reason = None;
            outcome.display = None;
            outcome.warnings.push(told);
        }
        AskDecision::Ask => {
            let reason = if asked.is_empty() {
                told
            } else {
                format!("{asked} ({told})")
            };
            outcome.display = Some(ReasonDisplay::of(&reason));
            outcome.reason = Some(reason);
        }
    }
}

fn verb(answer: &AskAnswer) -> &'static str {
    match answer.decision {
        AskDecision::Allow => "allow",
        AskDecision::Deny => "deny",
        AskDecision::Ask => "ask",
    }
}
