//! The engine: one loaded workspace. It holds the current [`Snapshot`] (swapped whole on
//! reload, so a dispatch already running finishes on the configuration it started with), the
//! drift cache, and the event log, and it is what hosts and the CLI call.

use std::path::PathBuf;
use std::sync::{Arc, RwLock};

use serde_json::{Map, Value};

use crate::config::{Config, agent};
use crate::dispatch::{DispatchOptions, Lapse, Runtime};
use crate::snapshot::Snapshot;
use crate::trust::{self, Approvals, DriftChecker, TrustError};
use agent_hooks_core::diag::{DiagKind, DiagRecord, EventLog};
use agent_hooks_core::event::Event;
use agent_hooks_core::outcome::Outcome;
use agent_hooks_core::workspace::Workspace;

/// Why an engine operation failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EngineError {
    /// `config/agent.yaml` could not be read or rewritten to flip the master switch.
    #[error(transparent)]
    Switch(#[from] agent::SwitchError),
    /// The approvals file could not be read, locked or written.
    #[error(transparent)]
    Trust(#[from] TrustError),
    /// An approval named a command that no loaded configuration declares; approving it would
    /// trust something the user never wired up.
    #[error(
        "\"{command}\" is not declared in any hook configuration; declare it (e.g. in config/shell_hooks.yaml) before approving it"
    )]
    NotDeclared {
        /// The command (or URL) as the caller gave it.
        command: String,
    },
    /// Nothing declared is spelt that way, but one declared command or hook name is close.
    #[error("\"{command}\" is not declared in any hook configuration (did you mean \"{near}\"?)")]
    NotDeclaredNear {
        /// The spelling as the caller gave it.
        command: String,
        /// The nearest declared command (approval key) or hook name.
        near: String,
    },
    /// The spelling names more than one declared command (a hook name shared by two entries,
    /// a path declared with different arguments): approving one of them must be said.
    #[error("\"{spelling}\" names {} declared commands; approve one of them by its command: {}", .keys.len(), .keys.join(", "))]
    Ambiguous {
        /// The spelling as the caller gave it.
        spelling: String,
        /// The declared commands (approval keys) it names.
        keys: Vec<String>,
    },
    /// The command is declared, but not for the event the approval names; approving it there
    /// would record an approval that never lets it run.
    #[error(
        "\"{command}\" is not declared on {event}; it is declared on {declared}: approve it without an event, or for one of those"
    )]
    NotDeclaredFor {
        /// The command (or URL) as the caller gave it.
        command: String,
        /// The event the approval named.
        event: Event,
        /// The events it is declared on, comma-separated.
        declared: String,
    },
    /// An entry declares the command, but the entry did not load (an HTTP hook whose URL the
    /// SSRF guard refuses, a bad key): approving it would not make it run.
    #[error("\"{command}\" is declared, but its entry did not load: {error}")]
    NotLoaded {
        /// The command (or URL) as the caller gave it.
        command: String,
        /// The load error of the entry (`file:line:column: message`).
        error: String,
    },
}

/// A loaded workspace, ready to dispatch.
///
/// This is the embedding API: a host opens one engine per workspace and calls
/// [`dispatch`](Engine::dispatch) (or the typed [`fire`](Engine::fire)) at each lifecycle point.
/// The engine is `Send + Sync`; share it behind an `Arc` and dispatch from as many tasks as
/// needed. [`reload`](Engine::reload) swaps the configuration atomically, so it may run while
/// dispatches are in flight.
///
/// # Example
///
/// A workspace with one shell hook that blocks every `rm`:
///
/// ```
/// use agent_hooks_runtime::{Decision, Engine, Event, Workspace};
/// use serde_json::json;
///
/// let dir = tempfile::tempdir()?;
/// std::fs::create_dir_all(dir.path().join("config"))?;
/// std::fs::write(
///     dir.path().join("config/shell_hooks.yaml"),
///     r#"hooks:
///   - name: no-rm
///     event: pre_tool_call
///     matcher: "rm "
///     command: "echo '{\"decision\": \"block\", \"reason\": \"no rm here\"}'"
/// "#,
/// )?;
/// let engine = Engine::open(Workspace::new(dir.path()));
///
/// // Shell hooks run only with the master switch on and their command approved.
/// engine.set_master(true)?;
/// let command = r#"echo '{"decision": "block", "reason": "no rm here"}'"#;
/// assert_eq!(engine.approve(None, command)?, vec![Event::PreToolCall]);
///
/// let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
/// let outcome = rt.block_on(engine.dispatch(
///     Event::PreToolCall,
///     json!({"tool_name": "shell", "tool_input": {"command": "rm -rf build"}})
///         .as_object()
///         .cloned()
///         .unwrap_or_default(),
/// ));
/// assert_eq!(outcome.decision, Decision::Block);
/// assert_eq!(outcome.reason.as_deref(), Some("no rm here"));
/// assert_eq!(outcome.blocked_by(), Some("no-rm"));
///
/// // The matcher misses, so the hook is not even spawned.
/// let outcome = rt.block_on(engine.dispatch(
///     Event::PreToolCall,
///     json!({"tool_name": "shell", "tool_input": {"command": "ls"}})
///         .as_object()
///         .cloned()
///         .unwrap_or_default(),
/// ));
/// assert_eq!(outcome.decision, Decision::Continue);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct Engine {
    ws: Workspace,
    current: RwLock<Arc<Snapshot>>,
    drift: DriftChecker,
    log: EventLog,
    detach: crate::dispatch::background::Detach,
    prefork: agent_hooks_transports::prefork::Pool,
}

impl Engine {
    /// Loads `ws`. Never fails: configuration problems are part of the snapshot (for `list`
    /// and `doctor`) and are logged as `hook_config_error`.
    ///
    /// Missing files are fine (an empty workspace has no hooks), and nothing is written until a
    /// dispatch logs something or an approval is stored — except a copy of a
    /// `config/shell_hooks.yaml` that loaded, in the runtime's own directory, which keeps its hooks
    /// in force should a later process find the file empty or half-written. Opening reads every source once; call
    /// [`reload`](Engine::reload) to pick up later edits.
    pub fn open(ws: Workspace) -> Engine {
        let config = Config::load(&ws, None);
        let log = EventLog::configured(&ws, &config.agent.events_log);
        let snapshot = snapshot_of(&ws, &log, config, None);
        let drift = DriftChecker::new(ws.root());
        Engine {
            ws,
            current: RwLock::new(Arc::new(snapshot)),
            drift,
            log,
            detach: crate::dispatch::background::Detach::default(),
            prefork: agent_hooks_transports::prefork::Pool::default(),
        }
    }

    /// For a process that exits after its dispatch (`fire`): background (async) hooks are
    /// handed to `program background-hook <ticket>`, a supervisor of their own, rather than run
    /// as tasks that would die with this process. `program` is the `agent-hooks` binary.
    pub fn with_background_process(mut self, program: PathBuf) -> Engine {
        self.detach = crate::dispatch::background::Detach::Process(program);
        self
    }

    /// For a process that exits after its dispatch (`fire`, the bridges): `prefork` hooks are
    /// run by forkers that serve the workspace over Unix sockets under `state/` and outlive
    /// this process, so the next process finds them warm, rather than by forkers that would
    /// die with it. Each exits when its script or the approvals change, or when idle.
    pub fn with_workspace_forkers(mut self) -> Engine {
        self.prefork = agent_hooks_transports::prefork::Pool::new(
            agent_hooks_transports::prefork::Home::Workspace,
        );
        self
    }

    /// The forkers of this engine's `prefork` hooks (doctor tries hooks with them).
    pub(crate) fn forkers(&self) -> &agent_hooks_transports::prefork::Pool {
        &self.prefork
    }

    /// Runs the background hook of the ticket at `path` to its end, as the supervisor process
    /// that [`with_background_process`](Engine::with_background_process) starts.
    ///
    /// # Errors
    ///
    /// Why the ticket's hook could not be run (also logged when it concerns the hook).
    pub async fn run_background_ticket(
        &self,
        path: &std::path::Path,
    ) -> Result<(), crate::dispatch::background::TicketError> {
        let snapshot = self.snapshot();
        crate::dispatch::background::run_ticket(&self.ws, &snapshot, &self.drift, path).await
    }

    /// The workspace this engine was opened on.
    pub fn workspace(&self) -> &Workspace {
        &self.ws
    }

    /// The `logs/events.jsonl` writer that dispatches log to; hosts may add their own records.
    pub(crate) fn event_log(&self) -> &EventLog {
        &self.log
    }

    /// The file the event log is written to: `logs/events.jsonl` unless `logs.events` in
    /// `config/agent.yaml` names another; `None` when that setting turns the log off.
    pub fn event_log_path(&self) -> Option<&std::path::Path> {
        self.log.path()
    }

    /// The file `hook_decision` records are written to: the runtime's own
    /// `hook-decisions.jsonl` for the workspace, or the file `logs.events` names; `None` when
    /// that setting turns the log off.
    pub fn hook_decision_log_path(&self) -> Option<&std::path::Path> {
        self.log.decisions_path()
    }

    /// The configuration in force now. The returned snapshot stays valid (and unchanged) across
    /// later reloads, which makes it the thing to inspect for `list`-style views.
    pub fn snapshot(&self) -> Arc<Snapshot> {
        self.current
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Re-reads every source and the approvals. A file that now fails to parse keeps its
    /// previous good hooks (and the error is logged), so a typo while editing never disarms a
    /// guard. Dispatches already running finish on the snapshot they started with.
    pub fn reload(&self) {
        let previous = self.snapshot();
        let next = load_snapshot(&self.ws, &self.log, Some(&previous));
        *self.current.write().unwrap_or_else(|p| p.into_inner()) = Arc::new(next);
        // A forker holds one approved script as it was: what changed is loaded afresh.
        self.prefork.clear();
    }

    /// Dispatches `event` with `payload` through every source and returns the merged outcome.
    ///
    /// `payload` holds the event's fields (see [`EventSpec::fields`](crate::EventSpec)); missing
    /// documented fields are filled with defaults before hooks see them. Hooks run in source
    /// order (shell, skill, Claude Code); a block stops the chain. This never returns an error:
    /// a hook that fails, times out or answers garbage is reported in [`Outcome::hooks`] and
    /// logged, and the action proceeds unless that hook says `on_error: block`.
    pub async fn dispatch(&self, event: Event, payload: Map<String, Value>) -> Outcome {
        self.dispatch_with(event, payload, &DispatchOptions::default())
            .await
    }

    /// Dispatches like [`Engine::dispatch`], run as `options` say (e.g. without one source's
    /// hooks).
    pub async fn dispatch_with(
        &self,
        event: Event,
        payload: Map<String, Value>,
        options: &DispatchOptions,
    ) -> Outcome {
        let snapshot = self.snapshot();
        let rt = Runtime {
            ws: &self.ws,
            log: &self.log,
            drift: &self.drift,
            seen: Default::default(),
            detach: &self.detach,
            prefork: &self.prefork,
            dry_run: false,
            log_decisions: options.replay.is_none(),
            replay: options.replay.clone(),
        };
        rt.dispatch(&snapshot, event, payload, options).await
    }

    /// Dispatches a typed payload (see [`crate::payload`]): the event comes from the payload's
    /// type, so a host cannot pair an event with the wrong fields.
    ///
    /// ```no_run
    /// # async fn demo(engine: &agent_hooks_runtime::Engine) {
    /// use agent_hooks_runtime::payload::PreToolCall;
    /// let outcome = engine
    ///     .fire(PreToolCall::new("bash", serde_json::json!({"command": "ls -la"})))
    ///     .await;
    /// if outcome.is_blocked() {
    ///     println!("refused: {}", outcome.reason.unwrap_or_default());
    /// }
    /// # }
    /// ```
    pub async fn fire<P: agent_hooks_core::payload::Payload>(&self, payload: P) -> Outcome {
        self.dispatch(P::EVENT, payload.into_map()).await
    }

    /// One warning for each declared hook the trust gate keeps from running (master switch off,
    /// not approved, changed since approval), naming the hook, the reason and the fix; hooks of
    /// `skip` are left out. Bridges show these when a session starts, so a guard that stopped
    /// running says so even before an event reaches it.
    pub fn lapses(&self, skip: Option<crate::hook::SourceKind>) -> Vec<String> {
        let snapshot = self.snapshot();
        let mut warnings = Vec::new();
        for hook in &snapshot.config.hooks {
            if hook.approval_key.is_none() || Some(hook.source) == skip {
                continue;
            }
            let lapse = hook.events.iter().find_map(|&event| {
                let lapse = if !snapshot.config.master_enabled {
                    Lapse::MasterOff
                } else {
                    match self.drift.check(&snapshot.approvals, event, hook) {
                        trust::Verdict::Approved(_) => Lapse::None,
                        trust::Verdict::NotApproved => Lapse::NotApproved,
                        trust::Verdict::Drifted(why) => Lapse::Drifted(why),
                    }
                };
                lapse.describe(hook, event).map(|(_, warning)| warning)
            });
            warnings.extend(lapse);
        }
        warnings
    }

    /// Fires one of the runtime's own lifecycle events (`pre_startup`, `post_startup`,
    /// `pre_shutdown`, `post_shutdown`) with `status`, as a host does when it starts and stops.
    /// Hooks there only observe: shell and Claude Code hooks run concurrently, skill hooks one
    /// after another, as their source runtime runs them.
    pub async fn lifecycle(&self, event: Event, status: &str) -> Outcome {
        let mut payload = Map::new();
        payload.insert("status".into(), Value::String(status.to_owned()));
        self.dispatch(event, payload).await
    }

    /// Flips the master switch (`shell_hooks.enabled` in `config/agent.yaml`, off unless the
    /// file says `true`) and reloads. With the switch off, every hook that needs approval is
    /// skipped, whatever its approvals; the rest of the file is left as the user wrote it.
    ///
    /// # Errors
    ///
    /// [`EngineError::Switch`] when `config/agent.yaml` cannot be read, parsed or written.
    pub fn set_master(&self, enabled: bool) -> Result<(), EngineError> {
        agent::set_master_switch(&self.ws, enabled)?;
        self.reload();
        Ok(())
    }

    /// Approves `command` for `event`, or for every event it is declared for when `event` is
    /// `None`. Returns the events approved.
    ///
    /// `command` is the hook's approval key exactly as declared (the command line, the URL of
    /// an HTTP hook, or `builtin:<name>`). The approval binds the definition of every hook
    /// declared with that key (argv, env, matcher, timeout, on_error, dialect, and the
    /// transport's own settings), the program as resolved with the hook's environment, and the
    /// SHA-256 of every file the command names (as `command_line.rs` reads it); any later change is
    /// drift and skips the hook until it is approved again.
    ///
    /// # Errors
    ///
    /// [`EngineError::NotDeclared`] when no loaded hook has that key, and
    /// [`EngineError::Trust`] when the approvals file cannot be updated, when which files the
    /// command runs cannot be determined, or when a file it names does not exist.
    pub fn approve(&self, event: Option<Event>, command: &str) -> Result<Vec<Event>, EngineError> {
        let snapshot = self.snapshot();
        let declared: Vec<_> = snapshot.config.hooks_with_key(command).collect();
        if declared.is_empty() {
            // An entry that names the command but did not load is not "undeclared".
            if let Some(error) = snapshot
                .config
                .errors()
                .find(|e| e.message().contains(command) || names_at(&self.ws, e, command))
            {
                return Err(EngineError::NotLoaded {
                    command: command.to_owned(),
                    error: error.to_string(),
                });
            }
            return Err(EngineError::NotDeclared {
                command: command.to_owned(),
            });
        }
        let mut declared_on: Vec<Event> = declared
            .iter()
            .flat_map(|h| h.events.iter().copied())
            .collect();
        declared_on.sort();
        declared_on.dedup();
        let events: Vec<Event> = match event {
            Some(e) if declared_on.contains(&e) => vec![e],
            Some(e) => {
                return Err(EngineError::NotDeclaredFor {
                    command: command.to_owned(),
                    event: e,
                    declared: declared_on
                        .iter()
                        .map(|e| e.name())
                        .collect::<Vec<_>>()
                        .join(", "),
                });
            }
            None => declared_on,
        };
        let hooks: Vec<&crate::hook::Hook> = declared.iter().map(|h| h.as_ref()).collect();
        trust::approve(&self.ws, &hooks, command, &events)?;
        self.reload();
        Ok(events)
    }

    /// The declared command (approval key) that `spelling` names, for a user who types it: the
    /// command exactly as declared; the same command with its paths spelt another way
    /// (absolute, `./`, relative to the workspace: the same file decides); or a hook's `name`.
    /// A spelling that names one declared command gives it, whichever way it was written.
    ///
    /// # Errors
    ///
    /// [`EngineError::Ambiguous`] when it names more than one declared command,
    /// [`EngineError::NotDeclaredNear`] when none but one is close (did you mean), and
    /// [`EngineError::NotDeclared`] otherwise.
    pub fn approval_key(&self, spelling: &str) -> Result<String, EngineError> {
        let snapshot = self.snapshot();
        let hooks = &snapshot.config.hooks;
        if snapshot.config.hooks_with_key(spelling).next().is_some() {
            return Ok(spelling.to_owned());
        }
        let mut keys: Vec<String> = Vec::new();
        let mut add = |key: &str| {
            if !keys.iter().any(|k| k == key) {
                keys.push(key.to_owned());
            }
        };
        for hook in hooks.iter() {
            let Some(key) = hook.approval_key.as_deref() else {
                continue;
            };
            if &*hook.name == spelling || self.same_command(key, spelling) {
                add(key);
            }
        }
        match keys.len() {
            1 => Ok(keys.remove(0)),
            0 => {
                let names = hooks
                    .iter()
                    .filter(|h| h.approval_key.is_some())
                    .flat_map(|h| [h.approval_key.as_deref().unwrap_or_default(), &*h.name]);
                let near = agent_hooks_core::wording::nearest(spelling, names, |d, candidate| {
                    d <= 2.max(candidate.len() / 4)
                });
                Err(match near {
                    Some(near) => EngineError::NotDeclaredNear {
                        command: spelling.to_owned(),
                        near: near.to_owned(),
                    },
                    None => EngineError::NotDeclared {
                        command: spelling.to_owned(),
                    },
                })
            }
            _ => Err(EngineError::Ambiguous {
                spelling: spelling.to_owned(),
                keys,
            }),
        }
    }

    /// Whether `spelling` is the command `key` with some of its paths written another way:
    /// word for word equal, or both words paths of one existing file.
    fn same_command(&self, key: &str, spelling: &str) -> bool {
        let (Ok(declared), Ok(given)) = (shell_words::split(key), shell_words::split(spelling))
        else {
            return false;
        };
        let path_like = |w: &str| w.contains('/');
        let file = |w: &str| std::fs::canonicalize(self.ws.resolve_path(w)).ok();
        declared.len() == given.len()
            && declared.iter().zip(&given).all(|(d, g)| {
                d == g || (path_like(d) && path_like(g) && file(d).is_some() && file(d) == file(g))
            })
    }

    /// Removes every approval of `command`. Returns how many (event, command) pairs went; zero
    /// is not an error.
    ///
    /// # Errors
    ///
    /// [`EngineError::Trust`] when the approvals file cannot be updated.
    pub fn revoke(&self, command: &str) -> Result<usize, EngineError> {
        let removed = trust::revoke(&self.ws, command)?;
        self.reload();
        Ok(removed)
    }
}

/// Whether the line an error points at names `command` (a refused URL's error names the reason,
/// not the URL).
fn names_at(ws: &Workspace, error: &crate::config::ConfigError, command: &str) -> bool {
    let Some(location) = error.location() else {
        return false;
    };
    let Some(index) = (location.line() as usize).checked_sub(1) else {
        return false;
    };
    std::fs::read_to_string(ws.root().join(error.file()))
        .ok()
        .and_then(|text| text.lines().nth(index).map(|l| l.contains(command)))
        .unwrap_or(false)
}

fn load_snapshot(ws: &Workspace, log: &EventLog, previous: Option<&Snapshot>) -> Snapshot {
    let config = Config::load(ws, previous.map(|s| &s.config));
    snapshot_of(ws, log, config, previous)
}

/// The snapshot of `config` with the approvals, logging what is broken (once per change).
fn snapshot_of(
    ws: &Workspace,
    log: &EventLog,
    config: Config,
    previous: Option<&Snapshot>,
) -> Snapshot {
    let mut broken: Vec<BrokenFile> = Vec::new();
    let approvals = match Approvals::load(ws) {
        Ok(a) => a,
        Err(err) => {
            broken.push(unreadable_trust_file(ws, &err));
            // Keep what was trusted before rather than trusting nothing or everything.
            previous.map(|s| s.approvals.clone()).unwrap_or_default()
        }
    };
    let (trust, trust_error) = crate::trust::TrustSettings::load(ws);
    if let Some(err) = &trust_error {
        broken.push(unreadable_trust_file(ws, err));
    }
    if let Some(err) = &config.agent.error {
        broken.push(BrokenFile::new(
            ws,
            err.file(),
            vec![DiagRecord::new(err.kind(), err.to_string()).source(err.file().to_owned())],
        ));
    }
    for file in config.files.iter().filter(|f| !f.errors.is_empty()) {
        let records = file
            .errors
            .iter()
            .map(|err| {
                let record =
                    DiagRecord::new(err.kind(), err.to_string()).source(err.file().to_owned());
                // Skill files are logged the way their source runtime logs them.
                if file.source == crate::hook::SourceKind::Skill {
                    record.open_strix(None, None)
                } else {
                    record
                }
            })
            .collect();
        broken.push(BrokenFile::new(ws, &file.display, records));
    }
    log_once_per_change(ws, log, broken);
    Snapshot::new(config, approvals).with_trust((trust, trust_error))
}

/// A configuration file with problems, and what to log about it.
struct BrokenFile {
    /// The file as shown (workspace-relative).
    display: String,
    /// Its identity and modification time, and its problems, hashed: a new fingerprint is a
    /// change worth logging. (Never its content: the file may be a FIFO or a device.)
    fingerprint: String,
    records: Vec<DiagRecord>,
}

impl BrokenFile {
    fn new(ws: &Workspace, display: &str, records: Vec<DiagRecord>) -> BrokenFile {
        use sha2::{Digest, Sha256};
        use std::os::unix::fs::MetadataExt;
        let mut hash = Sha256::new();
        if let Ok(meta) = std::fs::metadata(ws.root().join(display)) {
            for n in [
                meta.dev(),
                meta.ino(),
                meta.size(),
                meta.mtime() as u64,
                meta.mtime_nsec() as u64,
            ] {
                hash.update(n.to_le_bytes());
            }
        }
        for record in &records {
            hash.update([0]);
            hash.update(record.detail.as_bytes());
        }
        BrokenFile {
            display: display.to_owned(),
            fingerprint: format!("{:x}", hash.finalize()),
            records,
        }
    }
}

/// Where the fingerprints of the broken files already logged are kept, across processes: a
/// file of the runtime's own directory for the workspace, never the host's `state/`.
const LOGGED_CONFIG_ERRORS: &str = "logged-config-errors.json";

/// A trust file (the approvals, or the trust settings beside them) that did not load, as the
/// reload logs it once.
fn unreadable_trust_file(ws: &Workspace, err: &crate::config::ConfigError) -> BrokenFile {
    BrokenFile::new(
        ws,
        err.file(),
        vec![
            DiagRecord::new(DiagKind::HookConfigError, err.to_string())
                .source(err.file().to_owned()),
        ],
    )
}

/// Logs each broken file's problems once per change of that file, not at every load: every
/// `fire` and `list` opens the workspace, and the sidecar reloads on every file change. The
/// fingerprints logged are kept in the runtime's own directory; a file that is fixed is
/// forgotten, so breaking it again is logged again.
fn log_once_per_change(ws: &Workspace, log: &EventLog, broken: Vec<BrokenFile>) {
    let store = ws.runtime_dir().join(LOGGED_CONFIG_ERRORS);
    if broken.is_empty() && !store.exists() {
        return;
    }
    // Without the lock two processes may both log a change once; nothing is lost either way.
    let _lock = agent_hooks_core::store::FileLock::acquire(ws, &store).ok();
    let logged: std::collections::BTreeMap<String, String> =
        match agent_hooks_core::store::read_optional(&store) {
            Ok(Some(text)) => serde_json::from_str(&text).unwrap_or_default(),
            _ => Default::default(),
        };
    let mut now = std::collections::BTreeMap::new();
    for file in broken {
        if logged.get(&file.display) != Some(&file.fingerprint) {
            for record in file.records {
                log.write(record);
            }
        }
        now.insert(file.display, file.fingerprint);
    }
    if now == logged {
        return;
    }
    let written = if now.is_empty() {
        std::fs::remove_file(&store)
    } else {
        serde_json::to_vec_pretty(&now)
            .map_err(std::io::Error::other)
            .and_then(|bytes| agent_hooks_core::store::write_atomic(&store, &bytes))
    };
    if let Err(err) = written {
        tracing::warn!(path = %store.display(), %err, "cannot record the configuration errors logged");
    }
}
