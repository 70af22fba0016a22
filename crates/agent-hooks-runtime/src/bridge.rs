//! The bridges: agent-hooks *inside* an agent. `agent-hooks claude-hook` (and `codex-hook`)
//! gets the agent's hook input, dispatches it as the canonical event through this workspace's
//! hooks, and answers in the agent's format; [`install_agent`] wires every mapped event of the
//! agent's configuration to it. The workspace's own hooks for that agent are skipped while
//! bridged — the agent already runs them — so nothing runs twice. One function per step is
//! shared by every agent; only the translation in and out is the agent's (`dialect/`).

use serde_json::{Map, Value, json};

use crate::config::agent_files::bridge_agent;
use crate::decisions::{Call, Surface, record_unread_call};
use crate::dispatch::DispatchOptions;
use crate::engine::Engine;
use crate::install_record;
use crate::lapse::{self, OnFailure};
use agent_hooks_core::event::Event;
use agent_hooks_core::outcome::Outcome;
use agent_hooks_core::store;
use agent_hooks_core::workspace::Workspace;
pub use agent_hooks_dialects::agent::{Agent, AgentAnswer, UnknownAgent};
use agent_hooks_dialects::claude::BRIDGED;
pub use agent_hooks_dialects::claude::InputError;
use agent_hooks_dialects::home::Bridged;
pub use agent_hooks_dialects::json;

/// Why a bridge call could not be made.
#[derive(Debug, thiserror::Error)]
pub enum BridgeError {
    /// The input is not a Claude Code hook input agent-hooks can dispatch.
    #[error(transparent)]
    Input(#[from] InputError),
    /// `.claude/settings.json` could not be read, locked or written.
    #[error("failed to update {path}: {source}")]
    Io {
        /// The settings file, as shown to the user.
        path: String,
        /// The underlying failure.
        source: std::io::Error,
    },
    /// The agent cannot call HTTP hooks, so it cannot be wired to the sidecar by URL.
    #[error("{0} has no HTTP hooks; wire it with a command (without --http)")]
    NoHttp(Agent),
    /// `.claude/settings.json` exists but is not a JSON object; it is left untouched rather
    /// than overwritten.
    #[error("{path} is not valid JSON ({error}); fix it first (nothing was written)")]
    Corrupt {
        /// The settings file, as shown to the user.
        path: String,
        /// What the parser said.
        error: String,
    },
}

/// Runs one bridge call: translate, dispatch without the workspace's own Claude Code hooks,
/// answer. Keeps the Stop redo count per session in `claude-bridge/` of the runtime's directory.
///
/// This is the whole of `agent-hooks claude-hook`: the caller prints
/// [`AgentAnswer::stdout`] and exits with [`AgentAnswer::exit`].
///
/// ```
/// use agent_hooks_runtime::{Engine, Workspace, bridge};
/// use serde_json::json;
///
/// let dir = tempfile::tempdir()?;
/// let engine = Engine::open(Workspace::new(dir.path()));
/// let input = json!({
///     "hook_event_name": "PreToolUse",
///     "session_id": "s1",
///     "tool_name": "Bash",
///     "tool_input": {"command": "ls"},
/// });
/// let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
/// let answer = rt.block_on(bridge::handle(&engine, &input))?;
/// // No hook objected, so the bridge has no opinion and Claude Code carries on.
/// assert_eq!(answer.stdout, "");
/// assert_eq!(answer.exit, 0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub async fn handle(engine: &Engine, input: &Value) -> Result<AgentAnswer, BridgeError> {
    handle_agent(Agent::ClaudeCode, engine, input).await
}

/// Runs one bridge call for `agent` (its hook input in `input`), answering in its format: the
/// whole of `agent-hooks <agent>-hook` and of the sidecar's `/v1/hooks/<agent>` route.
///
/// # Errors
///
/// [`BridgeError::Input`] when `input` is not a hook input of `agent` that maps to a
/// canonical event.
pub async fn handle_agent(
    agent: Agent,
    engine: &Engine,
    input: &Value,
) -> Result<AgentAnswer, BridgeError> {
    let snapshot = engine.snapshot();
    let bridged = agent.home().read_input(
        input,
        &snapshot.config.agent.tool_aliases,
        snapshot.config.agent.rewrite_permission,
    )?;
    Ok(
        run(agent, engine, bridged, OnFailure::Continue, Surface::Bridge)
            .await
            .answer,
    )
}

/// Runs one bridge call on the agent's raw hook input, as the `<agent>-hook` commands and the
/// sidecar's `/v1/hooks/<agent>` routes do. It always answers in the agent's format: input
/// that cannot be read, or a workspace that was not found (`engine` is then why not), is
/// told to the user in the agent's channel like every other lapse of the policy, and denied
/// under fail-closed — `forced` (a bridge's `--fail-closed`) or `on_failure: block` in the
/// workspace's `config/agent.yaml` (`docs/agents.md`).
///
/// ```
/// use agent_hooks_runtime::{Engine, OnFailure, Workspace, bridge};
/// use agent_hooks_runtime::bridge::Agent;
///
/// let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
/// let answer = rt.block_on(bridge::answer(
///     Agent::ClaudeCode,
///     Err("none here"),
///     b"{",
///     OnFailure::Continue,
///     agent_hooks_runtime::decisions::Surface::Bridge,
/// ));
/// assert_eq!(answer.exit, 0);
/// assert!(answer.stdout.contains("systemMessage"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub async fn answer(
    agent: Agent,
    engine: Result<&Engine, &str>,
    input: &[u8],
    forced: OnFailure,
    surface: Surface,
) -> AgentAnswer {
    answer_read(agent, engine, json::read(input), forced, surface).await
}

/// What one bridge call came to: the agent's answer, and what judged it. A server that counts
/// and traces its routes reads the outcome from here; a bridge process has no use for it.
#[derive(Debug)]
#[non_exhaustive]
pub struct Answered {
    /// What the agent is answered.
    pub answer: AgentAnswer,
    /// What judged the call.
    pub judged: Judged,
}

/// What judged a bridge call. Exhaustive on purpose: a new way of answering an agent must be
/// counted by the server's metrics, and its match fails to compile until it is.
#[derive(Debug)]
#[expect(
    clippy::large_enum_variant,
    reason = "one per call, moved twice: a box would add an allocation to every bridge call"
)]
pub enum Judged {
    /// The input was read into an event and dispatched (or, without a workspace, settled with
    /// no hook run): its outcome after the lapse rule, as the agent was answered. Its payload
    /// holds the tool's input: it is for the decision, the hooks' reports and the lapses.
    Dispatched(Outcome),
    /// The input could not be read, so no hook judged it: the user was told, and it was
    /// denied when `denied` (fail closed).
    Unread {
        /// Whether the call was denied.
        denied: bool,
    },
    /// An event of the agent this runtime has no counterpart for: no policy to evaluate, and
    /// nothing lapsed.
    Unmapped,
}

/// [`answer`], with what judged the call: the sidecar's agent routes count and trace each
/// dispatch from it (`docs/deploy.md`).
pub async fn answer_judged(
    agent: Agent,
    engine: Result<&Engine, &str>,
    input: &[u8],
    forced: OnFailure,
    surface: Surface,
) -> Answered {
    let open = |_: Event| Ok::<(), std::convert::Infallible>(());
    match answer_gated(agent, engine, json::read(input), forced, surface, open).await {
        Ok(answered) => answered,
        Err(never) => match never {},
    }
}

/// [`answer`] for input its caller already read with [`json::read`] (the `<agent>-hook`
/// commands read it once, to find the workspace from its fields as well).
pub async fn answer_read(
    agent: Agent,
    engine: Result<&Engine, &str>,
    read: Result<(Value, json::Repairs), json::Unreadable>,
    forced: OnFailure,
    surface: Surface,
) -> AgentAnswer {
    let open = |_: Event| Ok::<(), std::convert::Infallible>(());
    match answer_gated(agent, engine, read, forced, surface, open).await {
        Ok(answered) => answered.answer,
        Err(never) => match never {},
    }
}

/// A bridge process's call answered by the workspace's running sidecar (`POST
/// /v1/hooks/<agent>?caller=bridge`): the whole answer a `<agent>-hook` process would give —
/// stdout, stderr and exit status — recorded as the bridge's, from the sidecar's loaded
/// configuration instead of a fresh load. `None` when the event would run a hook that is not
/// built in: such a hook gets the calling process's environment and working directory, which
/// only the bridge process has, so the bridge process runs the call itself. With the answer,
/// what judged the call, as [`answer_judged`] says it.
pub async fn answer_forwarded(
    agent: Agent,
    engine: &Engine,
    input: &[u8],
    forced: OnFailure,
) -> Option<Answered> {
    let gate = |event: Event| {
        if runs_only_builtins(engine, agent, event) {
            Ok(())
        } else {
            Err(HandBack)
        }
    };
    answer_gated(
        agent,
        Ok(engine),
        json::read(input),
        forced,
        Surface::Bridge,
        gate,
    )
    .await
    .ok()
}

/// A forwarded call the bridge process must run itself.
struct HandBack;

/// Whether every hook a bridged `event` would run (the agent's own skipped) is built in, so
/// that no process is started whose environment would be the sidecar's instead of the agent's.
fn runs_only_builtins(engine: &Engine, agent: Agent, event: Event) -> bool {
    let snapshot = engine.snapshot();
    let also = (event == Event::PostToolCall).then_some(Event::TransformToolResult);
    std::iter::once(event).chain(also).all(|event| {
        snapshot.hooks_for(event).iter().all(|hook| {
            hook.source == agent.source()
                || matches!(
                    hook.transport,
                    agent_hooks_transports::TransportSpec::Builtin(_)
                )
        })
    })
}

/// [`answer_read`] with a `gate` asked once the input is read into an event: its `Err` ends
/// the call unanswered (the gate of [`answer_forwarded`]).
async fn answer_gated<E>(
    agent: Agent,
    engine: Result<&Engine, &str>,
    read: Result<(Value, json::Repairs), json::Unreadable>,
    forced: OnFailure,
    surface: Surface,
    gate: impl FnOnce(Event) -> Result<(), E>,
) -> Result<Answered, E> {
    let mode = match engine {
        Ok(engine) => lapse::mode(engine, forced),
        Err(_) => forced,
    };
    let block = mode == OnFailure::Block;
    let unread = |why: String| {
        let message = format!(
            "agent-hooks could not read {}'s hook input, so no hook judged it: {why}{}{}",
            agent.label(),
            match engine {
                Ok(_) => String::new(),
                Err(missing) => format!("; nor find a workspace: {missing}"),
            },
            if block { "; denied (fail closed)" } else { "" }
        );
        Answered {
            answer: agent.home().unread_answer(&message, block),
            judged: Judged::Unread { denied: block },
        }
    };
    // A call that could not be read is still a line of the decision log, so `audit` can
    // place it (when there is a workspace to keep the log in).
    let record = |value: Option<&Value>, why: &str| {
        if let Ok(engine) = engine {
            record_unread_call(engine.workspace(), surface, agent, value, why);
        }
    };
    let (value, repairs) = match read {
        Ok(read) => read,
        Err(e) => {
            record(None, &e.to_string());
            return Ok(unread(e.to_string()));
        }
    };
    let (aliases, rewrite) = match engine {
        Ok(engine) => {
            let snapshot = engine.snapshot();
            (
                snapshot.config.agent.tool_aliases.clone(),
                snapshot.config.agent.rewrite_permission,
            )
        }
        Err(_) => (std::sync::Arc::default(), Default::default()),
    };
    let bridged = match agent.home().read_input(&value, &aliases, rewrite) {
        Ok(bridged) => bridged,
        // An event of the agent this runtime has no counterpart for has no policy to
        // evaluate: nothing lapsed, and the agent goes on.
        Err(e @ InputError::Unmapped { .. }) => {
            return Ok(Answered {
                answer: AgentAnswer {
                    stdout: agent.home().no_opinion().to_owned(),
                    stderr: format!("agent-hooks {}: {e}", agent.hook_command()),
                    exit: 0,
                },
                judged: Judged::Unmapped,
            });
        }
        Err(e) => {
            record(Some(&value), &e.to_string());
            return Ok(unread(e.to_string()));
        }
    };
    gate(bridged.event)?;
    let mut answered = match engine {
        Ok(engine) => run(agent, engine, bridged, forced, surface).await,
        Err(why) => {
            let mut outcome = Outcome::unchanged(bridged.event, bridged.payload);
            outcome.add_lapse(lapse::no_workspace(why));
            for lapse in bridged.lapses {
                outcome.add_lapse(lapse);
            }
            if block {
                outcome.fail_closed();
            }
            Answered {
                answer: (bridged.answer)(&outcome),
                judged: Judged::Dispatched(outcome),
            }
        }
    };
    let answer = &mut answered.answer;
    if let Some(repairs) = repairs.describe() {
        if !answer.stderr.is_empty() {
            answer.stderr.push('\n');
        }
        answer.stderr.push_str(&format!(
            "agent-hooks: the input was read as its agent reads it: {repairs}"
        ));
    }
    Ok(answered)
}

/// A deny of an input whose event is not known, said in `agent`'s JSON alone (an HTTP
/// hook has no exit status to say it with): what [`answer`] says with exit 2.
pub fn http_deny(agent: Agent, message: &str) -> String {
    agent.home().deny_any(message).to_string()
}

/// Dispatches an input read into `bridged` without the workspace's own hooks of `agent`,
/// applies the lapse rule, and answers. The outcome goes back with the answer: moved, not
/// copied, so a bridge process that drops it pays nothing for it.
async fn run(
    agent: Agent,
    engine: &Engine,
    bridged: Bridged,
    forced: OnFailure,
    surface: Surface,
) -> Answered {
    let Bridged {
        event,
        mut payload,
        answer,
        mut lapses,
    } = bridged;
    agent
        .home()
        .carry_response(engine.workspace(), event, &mut payload);
    let mut counter = RedoCounter::new(agent, engine.workspace(), &payload);
    let mut redo_count = 0;
    if event == Event::OnStop {
        redo_count = counter.current(&payload);
        payload.insert("redo_count".into(), json!(redo_count));
        if let Some(lost) = counter.store.take_failure() {
            lapses.push(agent_hooks_core::outcome::Lapse::new(
                agent_hooks_core::outcome::LapseKind::HookFailed,
                format!(
                    "{lost}; this session's redo count is unknown, so the redo cap may not hold"
                ),
            ));
        }
    }
    let call = Call::of(event, &payload);
    // After a tool ran, this host first lets `transform_tool_result` hooks append notes to the
    // result (host::call_tool does the same); the agents have one event for both.
    let succeeded = payload.get("status").and_then(Value::as_str) == Some("success");
    let transformed = if event == Event::PostToolCall && succeeded {
        let mut p = Map::new();
        for key in ["session_id", "cwd", "tool_name", "tool_result"] {
            if let Some(v) = payload.get(key) {
                p.insert(key.into(), v.clone());
            }
        }
        Some(
            engine
                .dispatch_with(
                    Event::TransformToolResult,
                    p,
                    &DispatchOptions::default().skip_source(agent.source(), BRIDGED),
                )
                .await,
        )
    } else {
        None
    };
    let mut outcome = engine
        .dispatch_with(
            event,
            payload,
            &DispatchOptions::default()
                .skip_source(agent.source(), BRIDGED)
                .agent(agent.name()),
        )
        .await;
    if let Some(transformed) = transformed {
        outcome.absorb_observations(transformed);
    }
    if event == Event::OnSessionStart {
        // Every guard the trust gate keeps from running, said once as the session starts.
        for lapse in engine.lapses(Some(agent.source())) {
            if !outcome.warnings.contains(&lapse) {
                outcome.warnings.push(lapse);
            }
        }
    }
    for lapse in lapses {
        outcome.add_lapse(lapse);
    }
    lapse::settle(engine, &mut outcome, forced, Some(agent.source()));
    // Recorded as answered: after the lapse rule, which may have turned it into a deny.
    if let Some(call) = &call {
        engine.record_decision(surface, Some(agent), call, &outcome);
    }
    crate::decisions::tell_watch(Some(agent), &outcome);
    if event == Event::OnStop {
        counter.record(redo_count, outcome.is_blocked());
    }
    Answered {
        answer: answer(&outcome),
        judged: Judged::Dispatched(outcome),
    }
}

/// Claude Code says only `stop_hook_active`; the redo cap needs a count, kept per session in
/// the session store (`state/<agent>-bridge/` as files, or the service's shared store). A load
/// holds the session until the record, so Stop events of one session handled by overlapping
/// processes or replicas count every redo once.
struct RedoCounter {
    store: Box<dyn agent_hooks_guards::StateStore>,
    session: Option<String>,
}

/// The key of the redo count in the session store.
const REDO_KEY: &str = "redo";

/// How long a turn's redo count is kept: a turn lasts minutes; an abandoned one expires.
const REDO_TTL: std::time::Duration = std::time::Duration::from_secs(24 * 3600);

impl RedoCounter {
    fn new(agent: Agent, ws: &Workspace, payload: &Map<String, Value>) -> RedoCounter {
        let session = payload
            .get("session_id")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_owned);
        // Kept in the runtime's own directory, named by the agent alone in Redis: replicas
        // serving one policy from different paths share a session's count.
        let name = format!("{}-bridge", agent.name());
        let dir = ws.runtime_dir().join(&name);
        RedoCounter {
            store: agent_hooks_transports::session_state::store_named(&name, &dir),
            session,
        }
    }

    fn current(&mut self, payload: &Map<String, Value>) -> u64 {
        // Loaded (and so locked) even when the flag says a new turn: the record that follows
        // must not interleave with another process's.
        let stored = match &self.session {
            Some(session) => self
                .store
                .load(REDO_KEY, session, std::time::SystemTime::now())
                .and_then(|v| v.as_u64()),
            None => None,
        };
        let active = payload
            .get("stop_hook_active")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        if !active {
            return 0;
        }
        stored.unwrap_or(1).max(1)
    }

    /// Stores the count the next Stop of this turn starts from. It counts on from what this
    /// call was given, never from the store: a Stop with `stop_hook_active` false starts a new
    /// turn, whatever an interrupted earlier turn left behind.
    fn record(&mut self, redo_count: u64, blocked: bool) {
        let Some(session) = &self.session else { return };
        let next = if blocked {
            json!(redo_count + 1)
        } else {
            Value::Null
        };
        let now = std::time::SystemTime::now();
        if self
            .store
            .save(REDO_KEY, session, &next, REDO_TTL, now)
            .is_err()
        {
            self.store.release();
        }
    }
}

/// Whether a hook handler in `agent`'s configuration runs `agent`'s bridge, as a command or
/// over HTTP.
fn is_bridge_handler(agent: Agent, handler: &Value) -> bool {
    let field = |k: &str| handler.get(k).and_then(Value::as_str);
    // Copilot names its command `bash` (or `command`).
    ["command", "bash"]
        .into_iter()
        .any(|k| field(k).is_some_and(|c| bridge_agent(c) == Some(agent)))
        || field("url").is_some_and(|url| Agent::of_bridge_url(url) == Some(agent))
}

/// The bridge entries `agent`'s hooks file in `ws` holds (none when it is missing or does
/// not parse): what `list`, `doctor` and the Claude Code loader read of an installation.
fn installed_bridge_handlers(ws: &Workspace, agent: Agent) -> Vec<Value> {
    let Ok(Some(text)) = store::read_optional(&ws.root().join(agent.config_file())) else {
        return Vec::new();
    };
    let Ok(doc) = agent.home().parse_config(&text) else {
        return Vec::new();
    };
    let Some(Value::Object(hooks)) = doc.get("hooks") else {
        return Vec::new();
    };
    hooks
        .values()
        .filter_map(Value::as_array)
        .flat_map(|list| {
            let mut list = list.clone();
            handlers_mut(agent, &mut list)
                .into_iter()
                .map(|h| h.clone())
                .collect::<Vec<_>>()
        })
        .filter(|h| is_bridge_handler(agent, h))
        .collect()
}

/// Whether `.claude/settings.json` wires some event to the bridge (so Claude Code runs this
/// workspace's hooks).
pub(crate) fn is_installed(ws: &Workspace) -> bool {
    !installed_bridge_handlers(ws, Agent::ClaudeCode).is_empty()
}

/// The mode an HTTP bridge's route URL asks for with its query: `?on_failure=block` is a
/// command bridge's `--fail-closed` (it holds even when `config/agent.yaml` does not load).
pub fn route_mode(query: Option<&str>) -> OnFailure {
    if query.is_some_and(|q| q.split('&').any(|pair| pair == "on_failure=block")) {
        OnFailure::Block
    } else {
        OnFailure::Continue
    }
}

/// Whether a route's query (`caller=bridge`) says a `<agent>-hook` process forwarded the call
/// and wants [`answer_forwarded`]'s whole answer.
pub fn forwarded_by_bridge(query: Option<&str>) -> bool {
    query.is_some_and(|q| q.split('&').any(|pair| pair == "caller=bridge"))
}

/// The agents whose installed bridge entries in this workspace fail closed — a command's
/// `--fail-closed`, an HTTP hook's `?on_failure=block` — for `list` and `doctor`.
pub fn installed_fail_closed(ws: &Workspace) -> Vec<Agent> {
    Agent::ALL
        .into_iter()
        .filter(|&agent| {
            installed_bridge_handlers(ws, agent).iter().any(|h| {
                let line = h.get("command").or_else(|| h.get("bash"));
                let command = line.and_then(Value::as_str).is_some_and(|c| {
                    shell_words::split(c)
                        .unwrap_or_default()
                        .iter()
                        .any(|w| w == "--fail-closed")
                });
                let url = h
                    .get("url")
                    .and_then(Value::as_str)
                    .and_then(|u| u.split_once('?'))
                    .is_some_and(|(_, query)| route_mode(Some(query)) == OnFailure::Block);
                command || url
            })
        })
        .collect()
}

/// The workspace's hooks (other than `agent`'s own) on events `agent`'s bridge never
/// dispatches, as `name (event, ...)`: they do nothing inside that agent.
pub fn unreachable_hooks(engine: &Engine, agent: Agent) -> Vec<String> {
    engine
        .snapshot()
        .config
        .hooks
        .iter()
        .filter(|h| h.source != agent.source())
        .filter_map(|h| {
            let events: Vec<&str> = h
                .events
                .iter()
                .filter(|e| !agent.reaches(**e))
                .map(|e| e.name())
                .collect();
            (!events.is_empty()).then(|| format!("{} ({})", h.name, events.join(", ")))
        })
        .collect()
}

/// What [`install_agent`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstallReport {
    /// The settings file written, as shown to the user.
    pub path: String,
    /// The agent's events newly wired to the bridge.
    pub added: Vec<&'static str>,
    /// The agent's events that already had a bridge entry.
    pub already: Vec<&'static str>,
    /// The agent's events whose bridge entry ran another program (a binary since moved or
    /// removed, say), now rewritten to run this one.
    pub updated: Vec<&'static str>,
    /// The agent's events left unbridged because the agent runs no hook of the wiring's kind
    /// there (an HTTP hook on Claude Code's SessionStart), each with why.
    pub left_out: Vec<(&'static str, &'static str)>,
}

/// The environment variable an HTTP bridge entry takes the sidecar's token from (Claude Code
/// fills `$AGENT_HOOKS_TOKEN` into the `Authorization` header, as `allowedEnvVars` lets it).
pub const HTTP_TOKEN_ENV: &str = "AGENT_HOOKS_TOKEN";

/// What a bridge entry in the agent's configuration runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Wiring {
    /// A command hook: `<agent-hooks> <agent>-hook`, one process per event.
    Command(std::path::PathBuf),
    /// An HTTP hook POSTing to `agent-hooks serve --listen`'s route for the agent at this base
    /// URL (`http://127.0.0.1:PORT`): no process start per event, built-in state in one
    /// process. It sends the sidecar's token from [`HTTP_TOKEN_ENV`] in the agent's
    /// environment. Only for agents that have HTTP hooks ([`Agent::has_http_hooks`]).
    Http(String),
}

/// The handlers listed under one event of `agent`'s configuration: inside matcher groups, or
/// (Cursor) the list itself.
fn handlers_mut(agent: Agent, list: &mut [Value]) -> Vec<&mut Value> {
    if !agent.home().hooks_file().grouped {
        return list.iter_mut().collect();
    }
    list.iter_mut()
        .filter_map(|g| g.get_mut("hooks").and_then(Value::as_array_mut))
        .flatten()
        .collect()
}

/// Writes bridge entries for every mapped event into `.claude/settings.json`, wired as
/// `wiring` says. See [`install_agent`].
///
/// # Errors
///
/// As [`install_agent`].
pub fn install_wired(ws: &Workspace, wiring: &Wiring) -> Result<InstallReport, BridgeError> {
    install_agent(ws, Agent::ClaudeCode, wiring)
}

/// Reads `path` as a JSON object for editing: missing or empty is an empty object; anything
/// else that is not an object is refused, so a file the user must fix is never overwritten.
fn read_settings(path: &std::path::Path, display: &str) -> Result<Map<String, Value>, BridgeError> {
    let io = |source| BridgeError::Io {
        path: display.to_owned(),
        source,
    };
    let corrupt = |error: String| BridgeError::Corrupt {
        path: display.to_owned(),
        error,
    };
    match store::read_optional(path).map_err(io)? {
        None => Ok(Map::new()),
        Some(text) if text.trim().is_empty() => Ok(Map::new()),
        Some(text) => match serde_json::from_str::<Value>(&text) {
            Ok(Value::Object(map)) => Ok(map),
            Ok(_) => Err(corrupt("the top level is not an object".into())),
            // Gemini CLI allows comments; a rewrite would drop them, so they are not read past.
            Err(e) if agent_hooks_dialects::gemini::strip_comments(&text) != text => Err(corrupt(
                format!("{e}: it has comments, which rewriting it would drop; take them out first"),
            )),
            Err(e) => Err(corrupt(e.to_string())),
        },
    }
}

fn write_settings(
    path: &std::path::Path,
    display: &str,
    doc: Map<String, Value>,
) -> Result<(), BridgeError> {
    let io = |source| BridgeError::Io {
        path: display.to_owned(),
        source,
    };
    let mut text = serde_json::to_string_pretty(&Value::Object(doc))
        .map_err(|e| io(std::io::Error::other(e)))?;
    text.push('\n');
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(io)?;
    }
    store::write_atomic(path, text.as_bytes()).map_err(io)
}

/// Writes bridge entries for every mapped event of `agent` into its project configuration
/// (`.claude/settings.json`, `.codex/hooks.json`), wired as `wiring` says, merging with what is
/// there (other settings and the user's own hooks are kept; running it twice changes nothing).
///
/// # Errors
///
/// [`BridgeError::Corrupt`] when the file is not a JSON object, [`BridgeError::NoHttp`] for an
/// HTTP wiring of an agent without HTTP hooks, and [`BridgeError::Io`] when the file cannot be
/// read or written.
pub fn install_agent(
    ws: &Workspace,
    agent: Agent,
    wiring: &Wiring,
) -> Result<InstallReport, BridgeError> {
    install_agent_with(ws, agent, wiring, OnFailure::Continue)
}

/// [`install_agent`], with the mode the installed bridge runs in: a command bridge always
/// names this workspace by its absolute path (`--workspace`), so it finds it from whatever
/// directory the agent starts it in; with [`OnFailure::Block`] it also says `--fail-closed`,
/// which holds even when `config/agent.yaml` does not load (`docs/agents.md`); an HTTP
/// bridge says it with `?on_failure=block` in the route's URL.
///
/// # Errors
///
/// As [`install_agent`].
pub fn install_agent_with(
    ws: &Workspace,
    agent: Agent,
    wiring: &Wiring,
    mode: OnFailure,
) -> Result<InstallReport, BridgeError> {
    let path = ws.root().join(agent.config_file());
    let display = ws.display(&path).into_owned();
    let io = |source| BridgeError::Io {
        path: display.clone(),
        source,
    };
    let home = agent.home();
    let file = home.hooks_file();
    let handler = match wiring {
        Wiring::Command(exe) => home.bridge_handler(format!(
            "{} --workspace {} {}{}",
            shell_words::quote(&exe.to_string_lossy()),
            shell_words::quote(&ws.root().to_string_lossy()),
            agent.hook_command(),
            if mode == OnFailure::Block {
                " --fail-closed"
            } else {
                ""
            }
        )),
        Wiring::Http(_) if !agent.has_http_hooks() => return Err(BridgeError::NoHttp(agent)),
        // The sidecar's token comes from the agent's environment, filled in by the agent at
        // each request: written here, it would sit in a file of the workspace that the agent
        // reads and writes, and that is often committed.
        Wiring::Http(base) => json!({
            "type": "http",
            // The route's `--fail-closed`: it holds even when config/agent.yaml does not load.
            "url": format!(
                "{}{}{}",
                base.trim_end_matches('/'),
                agent.http_route(),
                if mode == OnFailure::Block {
                    "?on_failure=block"
                } else {
                    ""
                }
            ),
            "timeout": 120,
            "headers": {"Authorization": format!("Bearer ${HTTP_TOKEN_ENV}")},
            "allowedEnvVars": [HTTP_TOKEN_ENV],
        }),
    };
    // A symlinked file is edited where it points, and stays a symlink.
    let path = install_record::write_target(&path);
    // Before anything is created, what uninstall puts back.
    let before = install_record::Before::capture(ws, &path);
    let dir = path.parent().unwrap_or(ws.root());
    std::fs::create_dir_all(dir).map_err(io)?;
    let _lock = install_record::DirLock::acquire(dir).map_err(io)?;
    let mut doc = read_settings(&path, &display)?;
    let hooks = doc
        .entry("hooks")
        .or_insert_with(|| Value::Object(Map::new()));
    let Value::Object(hooks) = hooks else {
        return Err(BridgeError::Corrupt {
            path: display,
            error: "\"hooks\" is not an object".into(),
        });
    };
    let mut report = InstallReport {
        path: display.clone(),
        added: Vec::new(),
        already: Vec::new(),
        updated: Vec::new(),
        left_out: Vec::new(),
    };
    let mut dropped = false;
    for name in home.bridged_events() {
        if let (Wiring::Http(_), Some(why)) = (wiring, home.no_http_on(name)) {
            // An HTTP entry written there by an earlier install never ran: it goes.
            let before = hooks.get(name).cloned();
            if let Some(Value::Array(groups)) = hooks.get_mut(name) {
                for group in groups.iter_mut() {
                    if let Some(Value::Array(list)) = group.get_mut("hooks") {
                        list.retain(|h| !(is_bridge_handler(agent, h) && h["type"] == "http"));
                    }
                }
                groups.retain(|g| {
                    g.get("hooks")
                        .and_then(Value::as_array)
                        .is_none_or(|l| !l.is_empty())
                });
                if groups.is_empty() {
                    hooks.remove(name);
                }
            }
            dropped |= hooks.get(name) != before.as_ref();
            report.left_out.push((name, why));
            continue;
        }
        let groups = hooks
            .entry(name)
            .or_insert_with(|| Value::Array(Vec::new()));
        let Value::Array(groups) = groups else {
            continue;
        };
        let mut present = false;
        let mut rewritten = false;
        for entry in handlers_mut(agent, groups) {
            if is_bridge_handler(agent, entry) {
                present = true;
                if *entry != handler {
                    *entry = handler.clone();
                    rewritten = true;
                }
            }
        }
        if rewritten {
            report.updated.push(name);
            continue;
        }
        if present {
            report.already.push(name);
            continue;
        }
        if !file.grouped {
            groups.push(handler.clone());
        } else {
            let mut group = Map::new();
            if let Some(matcher) = home.bridge_matcher(name) {
                group.insert("matcher".into(), json!(matcher));
            }
            group.insert("hooks".into(), json!([handler.clone()]));
            groups.push(Value::Object(group));
        }
        report.added.push(name);
    }
    if let Some(version) = file.version
        && !doc.contains_key("version")
    {
        doc.insert("version".into(), json!(version));
    }
    if !report.added.is_empty() || !report.updated.is_empty() || dropped {
        let fresh = report.already.is_empty() && report.updated.is_empty() && !dropped;
        before.keep(ws, agent, fresh);
        write_settings(&path, &display, doc)?;
    }
    Ok(report)
}

/// Why installing (or uninstalling) `agent`'s bridge in `ws` would edit the user's own
/// configuration, read in every project, rather than this project's: the workspace is the
/// home directory, or the agent's file there resolves (through symlinks) into the agent's
/// user directory (`~/.claude/`, ...). `None` for a project's file. The installers refuse such
/// a target unless told `--user`.
pub fn user_level(ws: &Workspace, agent: Agent) -> Option<String> {
    install_record::user_level(ws, agent, &ws.root().join(agent.config_file()))
}

/// Removes every bridge entry of Claude Code from `.claude/settings.json`. See
/// [`uninstall_agent`].
///
/// # Errors
///
/// As [`uninstall_agent`].
pub fn uninstall(ws: &Workspace) -> Result<(String, Vec<String>), BridgeError> {
    uninstall_agent(ws, Agent::ClaudeCode)
}

/// Removes every bridge entry of `agent` (a command that runs `agent-hooks <agent>-hook`, or
/// an HTTP hook to its sidecar route) from its project configuration, with the groups and
/// event lists it leaves empty; everything else is kept. Returns the file as shown to the user
/// and the events that had an entry (none: the file is not touched).
///
/// # Errors
///
/// [`BridgeError::Io`] when the file cannot be read, locked or written;
/// [`BridgeError::Corrupt`] when it is not a JSON object.
pub fn uninstall_agent(ws: &Workspace, agent: Agent) -> Result<(String, Vec<String>), BridgeError> {
    let path = ws.root().join(agent.config_file());
    let display = ws.display(&path).into_owned();
    let path = install_record::write_target(&path);
    if !path.exists() {
        return Ok((display, Vec::new()));
    }
    let io = |source| BridgeError::Io {
        path: display.clone(),
        source,
    };
    let _lock = install_record::DirLock::acquire(path.parent().unwrap_or(ws.root())).map_err(io)?;
    let mut doc = read_settings(&path, &display)?;
    let mut removed = Vec::new();
    let grouped = agent.home().hooks_file().grouped;
    if let Some(Value::Object(hooks)) = doc.get_mut("hooks") {
        for (event, groups) in hooks.iter_mut() {
            let Value::Array(groups) = groups else {
                continue;
            };
            let before = groups.len();
            let mut had = false;
            if !grouped {
                // Cursor lists its handlers directly under the event.
                groups.retain(|h| !is_bridge_handler(agent, h));
            }
            for group in groups.iter_mut().filter(|_| grouped) {
                if let Some(Value::Array(entries)) = group.get_mut("hooks") {
                    let n = entries.len();
                    entries.retain(|h| !is_bridge_handler(agent, h));
                    had |= entries.len() != n;
                }
            }
            groups.retain(|g| {
                g.get("hooks")
                    .and_then(Value::as_array)
                    .is_none_or(|entries| !entries.is_empty())
            });
            if had || groups.len() != before {
                removed.push(event.clone());
            }
        }
        hooks.retain(|_, groups| groups.as_array().is_none_or(|g| !g.is_empty()));
    }
    if !removed.is_empty() {
        // Nothing but the bridge changed since it was installed: the file as it was, exactly.
        match install_record::restore(ws, agent, &path, &doc) {
            Some(restored) => restored.map_err(io)?,
            None => {
                // No record (an install by an earlier version, or a file edited since): the
                // bridge goes, and so does the `"hooks": {}` it would leave behind.
                if doc
                    .get("hooks")
                    .and_then(Value::as_object)
                    .is_some_and(Map::is_empty)
                {
                    doc.remove("hooks");
                }
                write_settings(&path, &display, doc)?
            }
        }
    }
    Ok((display, removed))
}
