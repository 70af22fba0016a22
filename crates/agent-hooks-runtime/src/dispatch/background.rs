//! Claude Code's background hooks (`"async": true`, `"asyncRewake": true` on a command
//! handler). Such a hook is started and the dispatch goes on without it: it can never block,
//! rewrite or stop anything. When it has finished, what it has to say for the model — its
//! `additionalContext` and `systemMessage`, or for `asyncRewake` the stderr (else stdout) of an
//! exit 2 — waits in the session's mailbox, `claude-async/<session>.jsonl` of the runtime's own
//! directory for the workspace (where an agent that can write only the workspace can neither
//! forge a ticket nor a message), and is
//! delivered as context at that session's next dispatch of an event that takes context
//! (Claude Code delivers it "on the next conversation turn").
//!
//! Where the hook runs depends on the process ([`Detach`]): a long-lived host (the sidecar, an
//! embedding agent) runs it as a task of its own runtime; a process that exits after one
//! dispatch (`fire`) hands it to a supervisor process of its own binary
//! (`agent-hooks background-hook <ticket>`), which re-checks the approval, runs the hook in its
//! own process group with the hook's timeout — at which the whole group is killed, as always —
//! posts the answer to the mailbox and exits. No hook process outlives its timeout either way,
//! and an answer nobody could deliver is never dropped silently: failures are logged to
//! `logs/events.jsonl` like any hook's.

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::hook::{Hook, filesystem_safe};
use crate::trust::Pinned;
use agent_hooks_core::answer::Decision;
use agent_hooks_core::diag::{DiagKind, DiagRecord, EventLog};
use agent_hooks_core::event::Event;
use agent_hooks_core::store::{self, FileLock};
use agent_hooks_core::workspace::Workspace;
use agent_hooks_dialects::Dialect;
use agent_hooks_dialects::claude::Background;
use agent_hooks_transports::{Exit, Failure, Reply, TransportSpec};

/// How this process starts background hooks.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) enum Detach {
    /// As tasks of the running async runtime: for processes that outlive the dispatch.
    #[default]
    Task,
    /// Through `<program> --workspace <ws> background-hook <ticket>`: for processes that exit
    /// after one dispatch, whose tasks would die with them.
    Process(PathBuf),
}

/// What a supervisor process needs to run one background hook.
#[derive(Debug, Serialize, Deserialize)]
struct Ticket {
    event: String,
    /// The declaring file as shown, and the approval key: which hook.
    file: String,
    key: String,
    session: String,
    input: String,
}

/// One background run: an approved hook, what it gets, and whose mailbox its answer goes to.
pub(crate) struct Job {
    pub(crate) hook: Arc<Hook>,
    pub(crate) event: Event,
    pub(crate) input: Vec<u8>,
    pub(crate) env: Vec<(String, String)>,
    /// The program the approval pinned.
    pub(crate) program: Option<Pinned>,
    pub(crate) session: String,
}

/// Starts `job` in the background, as `detach` says.
pub(crate) fn start(ws: &Workspace, detach: &Detach, job: Job) -> Result<(), String> {
    let Job {
        hook,
        event,
        input,
        env,
        program,
        session,
    } = job;
    match detach {
        Detach::Task => {
            let ws = ws.clone();
            let hook = hook.clone();
            tokio::spawn(async move {
                run(&ws, &hook, event, input, &env, program.as_ref(), &session).await;
            });
            Ok(())
        }
        Detach::Process(exe) => {
            let Some(key) = hook.approval_key.clone() else {
                return Err("a background hook needs an approval key".to_owned());
            };
            let ticket = Ticket {
                event: event.name().to_owned(),
                file: hook.file_display.to_string(),
                key,
                session,
                input: String::from_utf8_lossy(&input).into_owned(),
            };
            let dir = ws.runtime_dir().join("claude-async/tickets");
            ws.create_runtime_dir()
                .and_then(|_| std::fs::create_dir_all(&dir))
                .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
            let path = dir.join(format!(
                "{}.json",
                agent_hooks_dialects::claude::generate_tool_use_id()
            ));
            let text = serde_json::to_vec(&ticket).map_err(|e| e.to_string())?;
            store::write_atomic(&path, &text)
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            let spawned = std::process::Command::new(exe)
                .arg("--workspace")
                .arg(ws.root())
                .arg("background-hook")
                .arg(&path)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                // Out of the caller's process group: a host that kills `fire`'s group when it
                // is done must not kill the supervisor, which has its own timeout.
                .process_group(0)
                .spawn();
            match spawned {
                Ok(_) => Ok(()),
                Err(e) => {
                    let _ = std::fs::remove_file(&path);
                    Err(format!(
                        "cannot start the supervisor {}: {e}",
                        exe.display()
                    ))
                }
            }
        }
    }
}

/// Why the hook of a background-hook ticket could not be run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TicketError {
    /// The ticket file could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Read {
        /// The ticket file.
        path: PathBuf,
        /// The underlying failure.
        source: std::io::Error,
    },
    /// The file is not a ticket `fire` wrote.
    #[error("{} is not a background-hook ticket: {source}", path.display())]
    NotATicket {
        /// The ticket file.
        path: PathBuf,
        /// What does not parse.
        source: serde_json::Error,
    },
    /// The ticket names an event this runtime does not know.
    #[error(transparent)]
    Event(#[from] agent_hooks_core::event::UnknownEvent),
    /// The configuration no longer declares the hook for the event.
    #[error("the background hook \"{key}\" of {file} is no longer declared for {event}")]
    NoLongerDeclared {
        /// The hook's approval key.
        key: String,
        /// The file that declared it.
        file: String,
        /// The event it was started for.
        event: Event,
    },
    /// The hook, or the master switch, is no longer approved as it was (also logged).
    #[error("not run: it is no longer approved as it was when it was started")]
    NoLongerApproved,
}

/// Runs the hook of the ticket at `path` (a supervisor process's whole job) and removes it.
/// The hook must still be declared and approved as it was.
pub(crate) async fn run_ticket(
    ws: &Workspace,
    snapshot: &crate::snapshot::Snapshot,
    drift: &crate::trust::DriftChecker,
    path: &Path,
) -> Result<(), TicketError> {
    let text = std::fs::read(path).map_err(|source| TicketError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let _ = std::fs::remove_file(path);
    let ticket: Ticket =
        serde_json::from_slice(&text).map_err(|source| TicketError::NotATicket {
            path: path.to_path_buf(),
            source,
        })?;
    let event: Event = ticket.event.parse()?;
    let Some(hook) = snapshot.hooks_for(event).iter().find(|h| {
        *h.file_display == *ticket.file && h.approval_key.as_deref() == Some(&ticket.key)
    }) else {
        return Err(TicketError::NoLongerDeclared {
            key: ticket.key,
            file: ticket.file,
            event,
        });
    };
    let log = EventLog::configured(
        ws,
        &crate::config::agent::AgentSettings::load(ws).events_log,
    );
    let program = match drift.check(&snapshot.approvals, event, hook) {
        crate::trust::Verdict::Approved(program) if snapshot.master_enabled() => program,
        _ => {
            let error = TicketError::NoLongerApproved;
            log.write(record(hook, event, DiagKind::HookDrift, &error.to_string()));
            return Err(error);
        }
    };
    let env = crate::dispatch::hook_env(ws, hook, event);
    run(
        ws,
        hook,
        event,
        ticket.input.into_bytes(),
        &env,
        program.as_ref(),
        &ticket.session,
    )
    .await;
    Ok(())
}

/// Runs the hook to the end (or its timeout), then posts what it said to the mailbox and logs
/// what went wrong.
async fn run(
    ws: &Workspace,
    hook: &Hook,
    event: Event,
    input: Vec<u8>,
    env: &[(String, String)],
    program: Option<&Pinned>,
    session: &str,
) {
    let log = EventLog::configured(
        ws,
        &crate::config::agent::AgentSettings::load(ws).events_log,
    );
    let TransportSpec::Command(spec) = &hook.transport else {
        return;
    };
    let policy = hook.dialect.run_policy(input.len());
    let result = spec
        .run(input.into(), env, hook.timeout, program, policy)
        .await;
    let (texts, records) = settle(hook, event, result);
    for (kind, detail) in records {
        log.write(record(hook, event, kind, &detail));
    }
    if texts.is_empty() {
        return;
    }
    if let Err(e) = post(ws, session, &hook.name, &texts) {
        log.write(record(
            hook,
            event,
            DiagKind::HookExecError,
            &format!("its answer could not be kept for the next event: {e}"),
        ));
    }
}

/// What a finished background hook has for the model, and what to log.
fn settle(
    hook: &Hook,
    event: Event,
    result: Result<Reply, Failure>,
) -> (Vec<String>, Vec<(DiagKind, String)>) {
    let Dialect::Claude {
        event: claude,
        background,
        ..
    } = &hook.dialect
    else {
        return (Vec::new(), Vec::new());
    };
    let reply = match result {
        Ok(reply) => reply,
        Err(Failure::Timeout(t)) => {
            return (
                Vec::new(),
                vec![(
                    DiagKind::HookTimeout,
                    format!(
                        "background hook timed out after {} s; its group was killed",
                        t.as_secs_f64()
                    ),
                )],
            );
        }
        Err(failure) => {
            return (
                Vec::new(),
                vec![(DiagKind::HookExecError, failure.to_string())],
            );
        }
    };
    let mut records = Vec::new();
    let stderr = String::from_utf8_lossy(&reply.stderr).trim().to_owned();
    if *background == Some(Background::AsyncRewake) && reply.exit == Exit::Code(2) {
        let stdout = String::from_utf8_lossy(&reply.stdout).trim().to_owned();
        let text = if stderr.is_empty() { stdout } else { stderr };
        return (
            vec![format!(
                "background hook \"{}\" reported: {text}",
                hook.name
            )],
            records,
        );
    }
    if !stderr.is_empty() {
        records.push((DiagKind::HookStderr, stderr));
    }
    match agent_hooks_dialects::claude::interpret(*claude, &reply) {
        Ok(answer) => {
            records.extend(answer.problems.iter().cloned());
            if matches!(answer.decision, Some(Decision::Block | Decision::Ask))
                || answer.stop.is_some()
                || !answer.rewrites.is_empty()
            {
                records.push((
                    DiagKind::HookInvalidOutput,
                    format!(
                        "a background (async) hook cannot block, rewrite or stop anything on {event}; only its additionalContext and systemMessage are delivered"
                    ),
                ));
            }
            let texts = answer
                .context
                .into_iter()
                .chain(answer.notes)
                .chain(answer.warnings)
                .collect();
            (texts, records)
        }
        Err(unusable) => {
            records.push((unusable.kind, unusable.detail));
            (Vec::new(), records)
        }
    }
}

fn record(hook: &Hook, event: Event, kind: DiagKind, detail: &str) -> DiagRecord {
    DiagRecord::new(kind, detail)
        .event(event.name())
        .hook(&*hook.name, &*hook.file_display)
}

/// The mailbox of `session` (the host's `session_id`; empty when it sends none).
fn mailbox(ws: &Workspace, session: &str) -> PathBuf {
    let name = if session.is_empty() {
        "_no_session".to_owned()
    } else {
        filesystem_safe(session)
    };
    ws.runtime_dir()
        .join("claude-async")
        .join(format!("{name}.jsonl"))
}

/// Appends `texts` from `hook` to the session's mailbox.
fn post(ws: &Workspace, session: &str, hook: &str, texts: &[String]) -> std::io::Result<()> {
    let path = mailbox(ws, session);
    let _lock = FileLock::acquire(ws, &path)?;
    let mut contents = store::read_optional(&path)?.unwrap_or_default();
    for text in texts {
        let mut line = Map::new();
        line.insert("hook".into(), Value::String(hook.to_owned()));
        line.insert("text".into(), Value::String(text.clone()));
        contents.push_str(&Value::Object(line).to_string());
        contents.push('\n');
    }
    store::write_atomic(&path, contents.as_bytes())
}

/// Takes what background hooks left for `session`, oldest first, emptying the mailbox.
pub(crate) fn take(ws: &Workspace, session: &str) -> Vec<String> {
    let path = mailbox(ws, session);
    if !path.exists() {
        return Vec::new();
    }
    let Ok(_lock) = FileLock::acquire(ws, &path) else {
        return Vec::new();
    };
    let Ok(Some(contents)) = store::read_optional(&path) else {
        return Vec::new();
    };
    if std::fs::remove_file(&path).is_err() {
        // Left in place, it would be delivered again at every event.
        return Vec::new();
    }
    contents
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter_map(|v| v.get("text").and_then(Value::as_str).map(str::to_owned))
        .collect()
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use serde_json::json;

    use crate::{Engine, Event, Workspace};

    /// A long-lived host (the sidecar, an embedding agent) runs background hooks as tasks of
    /// its own runtime, and the next turn of the session gets what they said.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_long_lived_host_runs_async_hooks_as_tasks_and_delivers_their_context() {
        let dir = tempfile::tempdir().expect("a workspace");
        let root = dir.path().canonicalize().expect("canonical");
        let write = |rel: &str, text: &str| {
            let path = root.join(rel);
            std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
            std::fs::write(path, text).expect("write");
        };
        write("config/agent.yaml", "shell_hooks:\n  enabled: true\n");
        let command = "echo '{\"systemMessage\": \"lint clean\"}'";
        write(
            ".claude/settings.json",
            &json!({"hooks": {"PostToolUse": [{"hooks": [
                {"type": "command", "command": command, "async": true}]}]}})
            .to_string(),
        );
        let engine = Engine::open(Workspace::new(&root));
        engine.approve(None, command).expect("approve");
        let payload = |v: serde_json::Value| v.as_object().cloned().expect("an object");
        let outcome = engine
            .dispatch(
                Event::PostToolCall,
                payload(
                    json!({"tool_name": "bash", "tool_input": {}, "tool_result": "",
                               "status": "success", "session_id": "s1"}),
                ),
            )
            .await;
        assert_eq!(outcome.hooks[0].status.as_str(), "ok");
        let mailbox = Workspace::new(&root)
            .runtime_dir()
            .join("claude-async/s1.jsonl");
        for _ in 0..200 {
            if mailbox.exists() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let next = engine
            .dispatch(
                Event::OnUserMessage,
                payload(json!({"message": "next", "session_id": "s1"})),
            )
            .await;
        assert_eq!(next.context, vec!["lint clean".to_owned()]);
    }
}
