//! The engine: one loaded workspace. It holds the current [`Snapshot`] (swapped whole on
//! reload, so a dispatch already running finishes on the configuration it started with), the
//! drift cache, and the event log, and it is what hosts and the CLI call.

use std::sync::{Arc, RwLock};

use serde_json::{Map, Value};

use crate::config::{Config, agent};
use crate::diag::{DiagKind, DiagRecord, EventLog};
use crate::dispatch::{Runtime, Snapshot};
use crate::event::Event;
use crate::outcome::Outcome;
use crate::trust::{self, Approvals, DriftChecker, TrustError};
use crate::workspace::Workspace;

/// Why an engine operation failed.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error(transparent)]
    Switch(#[from] agent::SwitchError),
    #[error(transparent)]
    Trust(#[from] TrustError),
    #[error(
        "\"{command}\" is not declared in any hook configuration; declare it (e.g. in config/shell_hooks.yaml) before approving it"
    )]
    NotDeclared { command: String },
}

/// A loaded workspace, ready to dispatch.
#[derive(Debug)]
pub struct Engine {
    ws: Workspace,
    current: RwLock<Arc<Snapshot>>,
    drift: DriftChecker,
    log: EventLog,
}

impl Engine {
    /// Loads `ws`. Never fails: configuration problems are part of the snapshot (for `list`
    /// and `doctor`) and are logged as `hook_config_error`.
    pub fn open(ws: Workspace) -> Engine {
        let log = EventLog::new(ws.events_log());
        let snapshot = load_snapshot(&ws, &log, None);
        Engine {
            ws,
            current: RwLock::new(Arc::new(snapshot)),
            drift: DriftChecker::default(),
            log,
        }
    }

    pub fn workspace(&self) -> &Workspace {
        &self.ws
    }

    pub fn event_log(&self) -> &EventLog {
        &self.log
    }

    /// The configuration in force now.
    pub fn snapshot(&self) -> Arc<Snapshot> {
        self.current
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Re-reads every source. A file that now fails to parse keeps its previous good hooks.
    pub fn reload(&self) {
        let previous = self.snapshot();
        let next = load_snapshot(&self.ws, &self.log, Some(&previous));
        *self.current.write().unwrap_or_else(|p| p.into_inner()) = Arc::new(next);
    }

    /// Dispatches `event` with `payload` through every source and returns the merged outcome.
    pub async fn dispatch(&self, event: Event, payload: Map<String, Value>) -> Outcome {
        let snapshot = self.snapshot();
        let rt = Runtime {
            ws: &self.ws,
            log: &self.log,
            drift: &self.drift,
        };
        rt.dispatch(&snapshot, event, payload).await
    }

    /// Dispatches a typed payload (see [`crate::payload`]).
    pub async fn fire<P: crate::payload::Payload>(&self, payload: P) -> Outcome {
        self.dispatch(P::EVENT, payload.into_map()).await
    }

    /// Dispatches like [`Engine::dispatch`] but without the hooks of `skip`, which are reported
    /// as skipped with `why` (the Claude Code bridge uses this so Claude Code's own hooks do
    /// not run twice).
    pub async fn dispatch_skipping(
        &self,
        event: Event,
        payload: Map<String, Value>,
        skip: crate::hook::SourceKind,
        why: &str,
    ) -> Outcome {
        let snapshot = self.snapshot();
        let rt = Runtime {
            ws: &self.ws,
            log: &self.log,
            drift: &self.drift,
        };
        rt.dispatch_filtered(&snapshot, event, payload, Some((skip, why)))
            .await
    }

    /// Fires one of the runtime's own lifecycle events (`pre_startup`, `post_startup`,
    /// `pre_shutdown`, `post_shutdown`) with `status`, as a host does when it starts and stops.
    /// Hooks there only observe, so they run concurrently.
    pub async fn lifecycle(&self, event: Event, status: &str) -> Outcome {
        let mut payload = Map::new();
        payload.insert("status".into(), Value::String(status.to_owned()));
        self.dispatch(event, payload).await
    }

    /// Flips the master switch in `config/agent.yaml` and reloads.
    pub fn set_master(&self, enabled: bool) -> Result<(), EngineError> {
        agent::set_master_switch(&self.ws, enabled)?;
        self.reload();
        Ok(())
    }

    /// Approves `command` for `event`, or for every event it is declared for when `event` is
    /// `None`. Returns the events approved.
    pub fn approve(&self, event: Option<Event>, command: &str) -> Result<Vec<Event>, EngineError> {
        let snapshot = self.snapshot();
        let declared: Vec<_> = snapshot.config.hooks_with_key(command).collect();
        let Some(first) = declared.first() else {
            return Err(EngineError::NotDeclared {
                command: command.to_owned(),
            });
        };
        let events: Vec<Event> = match event {
            Some(e) => vec![e],
            None => {
                let mut events: Vec<Event> = declared
                    .iter()
                    .flat_map(|h| h.events.iter().copied())
                    .collect();
                events.sort();
                events.dedup();
                events
            }
        };
        trust::approve(&self.ws, &first.transport, command, &events)?;
        self.reload();
        Ok(events)
    }

    /// Removes every approval of `command`. Returns how many (event, command) pairs went.
    pub fn revoke(&self, command: &str) -> Result<usize, EngineError> {
        let removed = trust::revoke(&self.ws, command)?;
        self.reload();
        Ok(removed)
    }
}

fn load_snapshot(ws: &Workspace, log: &EventLog, previous: Option<&Snapshot>) -> Snapshot {
    let config = Config::load(ws, previous.map(|s| &s.config));
    let approvals = match Approvals::load(ws) {
        Ok(a) => a,
        Err(err) => {
            log.write(
                DiagRecord::new(DiagKind::HookConfigError, err.to_string())
                    .source(err.file.clone()),
            );
            // Keep what was trusted before rather than trusting nothing or everything.
            previous.map(|s| s.approvals.clone()).unwrap_or_default()
        }
    };
    for err in config.errors() {
        log.write(DiagRecord::new(err.kind, err.to_string()).source(err.file.clone()));
    }
    Snapshot::new(config, approvals)
}
