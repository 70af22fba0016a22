//! Helpers for a Rust host that drives an agent loop: the tool-call sequence (`pre_tool_call` → the
//! tool, or a hook's synthetic result → `transform_tool_result` → `post_tool_call` with the right
//! `status`) and the turn's stop handling (`redo_count`, `stop_hook_active` and the redo cap,
//! `docs/protocol.md`).
//!
//! ```no_run
//! use agent_hooks_runtime::host::{AskPolicy, Turn, call_tool};
//! use agent_hooks_runtime::{Engine, Workspace};
//! use serde_json::json;
//!
//! # async fn demo() {
//! let engine = Engine::open(Workspace::new("examples/workspace"));
//! let call = call_tool(&engine, "s1", "bash", json!({"command": "ls"}), AskPolicy::Block, |input| async move {
//!     // Run the real tool here with the (possibly rewritten) input.
//!     Ok::<_, String>(json!(format!("ran {}", input["command"])))
//! })
//! .await;
//! println!("the agent sees: {}", call.agent_text());
//!
//! let mut turn = Turn::new(&engine, "s1");
//! loop {
//!     let reply = "All done.";
//!     match turn.stop(reply, &call.tool_names()).await {
//!         agent_hooks_runtime::host::StopVerdict::Stop { .. } => break,
//!         agent_hooks_runtime::host::StopVerdict::Redo { reason } => {
//!             // Feed `reason` to the model as the next instruction and go round again.
//!             let _ = reason;
//!         }
//!     }
//! }
//! # }
//! ```

use std::future::Future;

use serde_json::{Map, Value, json};

use crate::decisions::Surface;
use crate::engine::Engine;
use agent_hooks_core::answer::Decision;
use agent_hooks_core::event::Event;
use agent_hooks_core::outcome::Outcome;

/// What to do when a hook answers `ask` and the host cannot ask its user.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum AskPolicy {
    /// Treat the ask as a block (`docs/protocol.md`: a host with no way to ask blocks).
    Block,
    /// The host asked its user and the user allowed the call.
    Allow,
}

/// How a tool call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ToolStatus {
    /// The tool ran and returned a result.
    Success,
    /// The tool ran and failed; its message is the result.
    Error,
    /// A hook refused the call (or asked, under [`AskPolicy::Block`]); the tool never ran.
    Blocked,
}

impl ToolStatus {
    /// The `status` value `post_tool_call` hooks receive.
    pub fn as_str(self) -> &'static str {
        match self {
            ToolStatus::Success => "success",
            ToolStatus::Error => "error",
            ToolStatus::Blocked => "blocked",
        }
    }
}

/// The result of [`call_tool`].
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ToolCall {
    /// The tool that was called.
    pub tool_name: String,
    /// The input the tool ran with, after hooks' rewrites.
    pub input: Value,
    /// How the call ended.
    pub status: ToolStatus,
    /// The result the agent should see (a hook's synthetic result when blocked).
    pub result: Value,
    /// Set when the call was blocked.
    pub blocked_reason: Option<String>,
    /// Notes hooks appended to the result.
    pub notes: Vec<String>,
    /// Notes for the user, never the model.
    pub warnings: Vec<String>,
    /// Set when a hook asked the agent to stop its turn (Claude Code's `continue: false`): the
    /// host ends the turn after this call, showing the reason to the user. A stop before the
    /// call means the tool did not run.
    pub stop: Option<String>,
    /// Every outcome, in order: pre_tool_call, transform_tool_result (if the tool ran),
    /// post_tool_call.
    pub outcomes: Vec<Outcome>,
}

impl ToolCall {
    /// The text the agent reads: the result (a string as is, anything else as JSON) followed by
    /// the hooks' notes.
    pub fn agent_text(&self) -> String {
        let mut text = match &self.result {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        for note in &self.notes {
            text.push_str("\n\n");
            text.push_str(note);
        }
        text
    }

    /// The call's tool as a one-element list, for [`Turn::stop`]'s `tool_names`.
    pub fn tool_names(&self) -> Vec<String> {
        vec![self.tool_name.clone()]
    }
}

/// A tool's failure: its message, and optionally the kind of error it was (`TimeoutError`,
/// `PermissionError`, ...), which `post_tool_call` hooks get as `error_class` — skill hooks'
/// source runtime sends the exception's class name there.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ToolError {
    /// What went wrong, as the agent and hooks read it.
    pub message: String,
    /// The kind of error; [`ToolError::DEFAULT_CLASS`] when the host gave none.
    pub class: String,
}

impl ToolError {
    /// The `error_class` of an error whose host named no class.
    pub const DEFAULT_CLASS: &'static str = "Error";

    /// An error of `class` with `message`.
    pub fn new(class: impl Into<String>, message: impl Into<String>) -> ToolError {
        ToolError {
            message: message.into(),
            class: class.into(),
        }
    }
}

impl From<String> for ToolError {
    fn from(message: String) -> ToolError {
        ToolError::new(ToolError::DEFAULT_CLASS, message)
    }
}

impl From<&str> for ToolError {
    fn from(message: &str) -> ToolError {
        ToolError::new(ToolError::DEFAULT_CLASS, message)
    }
}

/// One dispatch with the lapse rule applied (`crate::lapse`): a configuration error or a
/// hook that did not judge the event is in the outcome's warnings, and under
/// `on_failure: block` a call or prompt it concerns is refused.
async fn dispatch(engine: &Engine, event: Event, payload: Map<String, Value>) -> Outcome {
    engine
        .dispatch_recorded(
            Surface::Host,
            None,
            event,
            payload,
            &Default::default(),
            |engine, outcome| {
                crate::lapse::settle(engine, outcome, crate::lapse::OnFailure::Continue, None);
            },
        )
        .await
}

/// Adds `more` to the call's warnings, each once: a lapse that holds for the whole call (a
/// configuration error) is in the outcome of every event of it.
fn tell(warnings: &mut Vec<String>, more: &[String]) {
    for warning in more {
        if !warnings.contains(warning) {
            warnings.push(warning.clone());
        }
    }
}

fn base(session_id: &str) -> Map<String, Value> {
    let mut p = Map::new();
    p.insert("session_id".into(), json!(session_id));
    p
}

/// Runs one tool call through the hooks. `run` is the host's tool; it gets the rewritten
/// input and returns the tool's result or an error (a message, or a [`ToolError`] naming its
/// class). It is not called when a hook blocks.
///
/// Dispatches `pre_tool_call`, then (when the tool ran) `transform_tool_result`, then always
/// `post_tool_call` with the matching `status`, so observers also see blocked calls. An `ask`
/// is resolved by `on_ask`: a host that asked its user beforehand passes
/// [`AskPolicy::Allow`].
///
/// `post_tool_call` carries what skill hooks' source runtime sends: on success the result and
/// `duration_seconds`; on an error `error` and `error_class`; on a block `block_reason`. Only a
/// call that succeeded can have its result replaced by a `post_tool_call` hook.
///
/// ```
/// use agent_hooks_runtime::host::{AskPolicy, ToolStatus, call_tool};
/// use agent_hooks_runtime::{Engine, Workspace};
/// use serde_json::json;
///
/// let dir = tempfile::tempdir()?;
/// let engine = Engine::open(Workspace::new(dir.path()));
/// let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
/// let call = rt.block_on(call_tool(
///     &engine,
///     "session-1",
///     "echo",
///     json!({"text": "hi"}),
///     AskPolicy::Block,
///     |input| async move { Ok::<_, String>(input["text"].clone()) },
/// ));
/// // No hooks in this workspace: the tool ran with its input untouched.
/// assert_eq!(call.status, ToolStatus::Success);
/// assert_eq!(call.agent_text(), "hi");
/// assert_eq!(call.outcomes.len(), 3);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub async fn call_tool<F, Fut, E>(
    engine: &Engine,
    session_id: &str,
    tool_name: &str,
    input: Value,
    on_ask: AskPolicy,
    run: F,
) -> ToolCall
where
    F: FnOnce(Value) -> Fut,
    Fut: Future<Output = Result<Value, E>>,
    E: Into<ToolError>,
{
    let mut outcomes = Vec::new();
    let mut warnings = Vec::new();

    let mut pre = base(session_id);
    pre.insert("tool_name".into(), json!(tool_name));
    pre.insert("tool_input".into(), input.clone());
    let before = dispatch(engine, Event::PreToolCall, pre).await;
    let input = before.payload.get("tool_input").cloned().unwrap_or(input);
    tell(&mut warnings, &before.warnings);
    let mut stop = before.stop.as_ref().map(|s| s.reason.clone());
    let refused = stop.is_some()
        || match before.decision {
            Decision::Block => true,
            Decision::Ask => on_ask == AskPolicy::Block,
            Decision::Continue => false,
        };
    // Context for the model about this call goes next to its result, as Claude Code places a
    // PreToolUse hook's additionalContext.
    let mut notes = before.context.clone();
    let ran = if refused {
        Ran::refused(&before, stop.as_ref())
    } else {
        Ran::run(run, input.clone()).await
    };
    outcomes.push(before);

    if ran.status != ToolStatus::Blocked {
        let mut transform = base(session_id);
        transform.insert("tool_name".into(), json!(tool_name));
        transform.insert("tool_result".into(), ran.result.clone());
        // Part of the call's post-tool line in the decision log, as for the bridges: told,
        // not recorded on its own.
        let mut t = engine.dispatch(Event::TransformToolResult, transform).await;
        crate::lapse::settle(engine, &mut t, crate::lapse::OnFailure::Continue, None);
        notes.extend(t.notes.iter().cloned());
        tell(&mut warnings, &t.warnings);
        stop = stop.or_else(|| t.stop.as_ref().map(|s| s.reason.clone()));
        outcomes.push(t);
    }

    let post = ran.post_payload(session_id, tool_name, &input);
    let after = dispatch(engine, Event::PostToolCall, post).await;
    let Ran {
        status,
        mut result,
        blocked_reason,
        ..
    } = ran;
    if status == ToolStatus::Success
        && let Some(replaced) = after.payload.get("tool_result")
    {
        result = replaced.clone();
    }
    notes.extend(after.notes.iter().cloned());
    tell(&mut warnings, &after.warnings);
    stop = stop.or_else(|| after.stop.as_ref().map(|s| s.reason.clone()));
    outcomes.push(after);

    ToolCall {
        tool_name: tool_name.to_owned(),
        input,
        status,
        result,
        blocked_reason,
        notes,
        warnings,
        stop,
        outcomes,
    }
}

/// How the tool step of a call ended: what `post_tool_call` reports and the agent sees.
struct Ran {
    status: ToolStatus,
    result: Value,
    error: Option<ToolError>,
    blocked_reason: Option<String>,
    /// How long the tool took, when it succeeded.
    duration: Option<std::time::Duration>,
}

impl Ran {
    /// The tool did not run: `before` (with its `stop`) refused it.
    fn refused(before: &Outcome, stop: Option<&String>) -> Ran {
        let reason = before
            .reason
            .clone()
            .or_else(|| stop.cloned())
            .unwrap_or_default();
        let shown = before
            .result
            .clone()
            .unwrap_or_else(|| json!(format!("[blocked by a hook] {reason}")));
        Ran {
            status: ToolStatus::Blocked,
            result: shown,
            error: None,
            blocked_reason: Some(reason),
            duration: None,
        }
    }

    /// Runs the host's tool on `input`.
    async fn run<F, Fut, E>(run: F, input: Value) -> Ran
    where
        F: FnOnce(Value) -> Fut,
        Fut: Future<Output = Result<Value, E>>,
        E: Into<ToolError>,
    {
        let started = std::time::Instant::now();
        let (status, result, error, duration) = match run(input).await {
            Ok(result) => (ToolStatus::Success, result, None, Some(started.elapsed())),
            Err(error) => {
                let error: ToolError = error.into();
                (ToolStatus::Error, json!(error.message), Some(error), None)
            }
        };
        Ran {
            status,
            result,
            error,
            blocked_reason: None,
            duration,
        }
    }

    /// The `post_tool_call` payload: what skill hooks' source runtime sends for this ending.
    fn post_payload(&self, session_id: &str, tool_name: &str, input: &Value) -> Map<String, Value> {
        let mut post = base(session_id);
        post.insert("tool_name".into(), json!(tool_name));
        post.insert("tool_input".into(), input.clone());
        post.insert("tool_result".into(), self.result.clone());
        post.insert("status".into(), json!(self.status.as_str()));
        if let Some(error) = &self.error {
            post.insert("error".into(), json!(error.message));
            post.insert("error_class".into(), json!(error.class));
        }
        if let Some(reason) = &self.blocked_reason {
            post.insert("block_reason".into(), json!(reason));
        }
        if let Some(duration) = self.duration {
            // Microseconds, as the source runtime rounds it.
            let seconds = (duration.as_secs_f64() * 1e6).round() / 1e6;
            post.insert("duration_seconds".into(), json!(seconds));
        }
        post
    }
}

/// What the stop hooks decided.
///
/// Exhaustive on purpose: a turn either ends or is done again, and a host's loop must handle
/// both; a wildcard arm would have no right behaviour to fall back on.
#[derive(Debug, Clone, PartialEq)]
pub enum StopVerdict {
    /// The turn ends. `warnings` include the redo-cap notice when hooks were overruled.
    Stop {
        /// Messages for the user, never the model; a hook's request to stop the agent
        /// (Claude Code's `continue: false`) comes first, with its reason.
        warnings: Vec<String>,
    },
    /// A hook refused the stop: give `reason` to the model as its next instruction.
    Redo {
        /// The blocking hook's reason.
        reason: String,
    },
}

/// One turn of a session: counts the redos hooks force so `redo_count`, `stop_hook_active` and
/// the redo cap are right without the host keeping score.
#[derive(Debug)]
pub struct Turn<'e> {
    engine: &'e Engine,
    session_id: String,
    redo_count: u64,
}

impl<'e> Turn<'e> {
    /// Starts a turn of `session_id` with no redos yet. Make a new `Turn` for each user turn.
    pub fn new(engine: &'e Engine, session_id: impl Into<String>) -> Turn<'e> {
        Turn {
            engine,
            session_id: session_id.into(),
            redo_count: 0,
        }
    }

    /// How many redos hooks have forced in this turn.
    pub fn redo_count(&self) -> u64 {
        self.redo_count
    }

    /// Fires `on_stop` for the turn's final `response`. On [`StopVerdict::Redo`] the host should
    /// run the model again with the reason and call `stop` again on the same `Turn`; after the redo
    /// cap (`shell_hooks.redo_cap` in `config/agent.yaml`, default
    /// [`REDO_CAP`](agent_hooks_core::event::REDO_CAP)) a block is overruled and the turn stops
    /// with a warning.
    pub async fn stop(&mut self, response: &str, tool_names: &[String]) -> StopVerdict {
        let mut p = base(&self.session_id);
        p.insert("response".into(), json!(response));
        p.insert("tool_names".into(), json!(tool_names));
        self.decide(Event::OnStop, p).await
    }

    /// Fires `on_completion_claim` when the agent says `goal` is done. Shares the redo count
    /// and cap with [`stop`](Turn::stop).
    pub async fn completion_claim(
        &mut self,
        goal: &str,
        summary: &str,
        response: &str,
        tool_names: &[String],
    ) -> StopVerdict {
        let mut p = base(&self.session_id);
        p.insert("goal".into(), json!(goal));
        p.insert("summary".into(), json!(summary));
        p.insert("response".into(), json!(response));
        p.insert("tool_names".into(), json!(tool_names));
        self.decide(Event::OnCompletionClaim, p).await
    }

    async fn decide(&mut self, event: Event, mut payload: Map<String, Value>) -> StopVerdict {
        payload.insert("redo_count".into(), json!(self.redo_count));
        payload.insert("stop_hook_active".into(), json!(self.redo_count > 0));
        let outcome = dispatch(self.engine, event, payload).await;
        if let Some(stop) = outcome.stop {
            // A hook asked the agent to stop altogether: that wins over a redo.
            let mut warnings = vec![stop.reason];
            warnings.extend(outcome.warnings);
            return StopVerdict::Stop { warnings };
        }
        // The dispatch already overrules a block at the cap; this only counts honoured ones.
        if outcome.is_blocked() {
            self.redo_count += 1;
            StopVerdict::Redo {
                reason: outcome.reason.unwrap_or_default(),
            }
        } else {
            StopVerdict::Stop {
                warnings: outcome.warnings,
            }
        }
    }
}
