//! A hook as the dispatcher sees it, whatever file declared it: where it came from, the events
//! it is wired to, how to run it (transport), how to talk to it (dialect), and how it is trusted.

pub(crate) use agent_hooks_core::store::filesystem_safe;
pub(crate) use agent_hooks_dialects::agent::SourceKind;
use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use agent_hooks_core::answer::{Answer, Unusable};
use agent_hooks_core::event::Event;
use agent_hooks_dialects::matcher::Matcher;
use agent_hooks_dialects::verdict::Verdict;
use agent_hooks_dialects::{Dialect, PayloadView};
use agent_hooks_transports::{Reply, TransportSpec};

/// What happens when a hook fails (cannot start, exits non-zero, times out, answers garbage).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum OnError {
    /// Fail open: the action proceeds, and the failure is logged and reported.
    #[default]
    Continue,
    /// Fail closed: the failure blocks the action with a reason naming the hook.
    Block,
}

/// One declared hook.
#[derive(Debug, Clone)]
pub(crate) struct Hook {
    /// Shown in list, outcomes and logs. Shared, so that each dispatch's reports copy a
    /// pointer rather than the text.
    pub name: Arc<str>,
    /// Which kind of file declared it; decides run order.
    pub source: SourceKind,
    /// The declaring file, absolute.
    pub file: PathBuf,
    /// The declaring file as shown to users (workspace-relative); shared like `name`.
    pub file_display: Arc<str>,
    /// Line of the entry in its file (1-based; 0 when unknown).
    pub line: u64,
    /// The events it runs at.
    pub events: Vec<Event>,
    /// Narrows which payloads run the hook; `None` runs it on every payload of its events.
    pub matcher: Option<Matcher>,
    /// How to run it.
    pub transport: TransportSpec,
    /// How to talk to it.
    pub dialect: Dialect,
    /// Hard limit on one run, at most [`MAX_TIMEOUT_SECS`].
    pub timeout: Duration,
    /// Whether a failure fails open or closed.
    pub on_error: OnError,
    /// Extra environment for the hook process.
    pub env: Vec<(String, String)>,
    /// The string approvals are keyed on (the command, or the URL); `None` for hooks that need
    /// no approval (skill hooks).
    pub approval_key: Option<String>,
    /// Where the hook may keep state (`STATE_DIR`).
    pub state_dir: PathBuf,
}

impl Hook {
    /// Whether the hook is wired to `event`.
    pub(crate) fn handles(&self, event: Event) -> bool {
        self.events.contains(&event)
    }

    /// Reads a completed run's raw reply into canonical effects: a judge's text as a verdict,
    /// anything else as its dialect reads stdout.
    pub(crate) fn interpret(
        &self,
        view: &PayloadView<'_>,
        reply: &Reply,
    ) -> Result<Answer, Unusable> {
        match &self.transport {
            TransportSpec::Judge(spec) => Verdict::read(reply).map(|mut verdict| {
                // Agent hooks do not read `impossible` (Claude Code's reference).
                verdict.impossible &= !spec.is_agent();
                self.dialect.judged(view, &verdict, spec.continue_on_block)
            }),
            // Claude Code reads an HTTP hook's body more strictly than a command's stdout.
            TransportSpec::Http(_) if matches!(self.dialect, Dialect::Claude { .. }) => {
                agent_hooks_dialects::claude::require_json_body(reply)?;
                self.dialect.interpret(view, reply)
            }
            _ => self.dialect.interpret(view, reply),
        }
    }
}

impl fmt::Display for Hook {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({}:{})", self.name, self.file_display, self.line)
    }
}

/// The default, the ceiling, and the clamping of hook timeouts.
pub(crate) const MAX_TIMEOUT_SECS: f64 = 120.0;

/// Turns `prefork` on for `hook` as its configuration's `value` says, or says why it cannot be.
pub(crate) fn configure_prefork(hook: &mut Hook, value: &Value) -> Result<(), String> {
    let Some(prefork) = agent_hooks_transports::prefork::Prefork::from_config(value)? else {
        return Ok(());
    };
    if hook.dialect.background().is_some() {
        return Err("prefork: an async hook cannot be pre-forked (drop one of the two)".into());
    }
    let agent_hooks_transports::TransportSpec::Command(spec) = &mut hook.transport else {
        return Err("prefork: only a command hook can be pre-forked".into());
    };
    agent_hooks_transports::command_line::python_call(spec, &hook.env).map_err(|why| {
        format!("prefork: the command must be a Python interpreter and a script (python3 hooks/x.py): {why}")
    })?;
    spec.prefork = Some(prefork);
    Ok(())
}
