//! A hook as the dispatcher sees it, whatever file declared it: where it came from, the events
//! it is wired to, how to run it (transport), how to talk to it (dialect), and how it is trusted.

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crate::answer::{Answer, Unusable};
use crate::dialect::matcher::Matcher;
use crate::dialect::verdict::Verdict;
use crate::dialect::{Dialect, PayloadView};
use crate::event::Event;
use crate::transport::{Reply, TransportSpec};

/// Which kind of file declared a hook. Its order is the run order of SPEC §5: shell hooks,
/// then skill hooks, then Claude Code, Codex, Gemini CLI and Cursor hooks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SourceKind {
    /// `config/shell_hooks.yaml`.
    ShellHooks,
    /// A skill's `hooks.json`.
    Skill,
    /// Claude Code's `settings.json` files.
    ClaudeCode,
    /// Codex's `.codex/hooks.json` and the `[hooks]` of `.codex/config.toml`.
    Codex,
    /// Gemini CLI's `.gemini/settings.json`.
    Gemini,
    /// Cursor's `.cursor/hooks.json`.
    Cursor,
}

impl SourceKind {
    /// How messages name a hook of this kind ("shell hook", ...).
    pub fn label(self) -> &'static str {
        match self {
            SourceKind::ShellHooks => "shell hook",
            SourceKind::Skill => "skill hook",
            SourceKind::ClaudeCode => "Claude Code hook",
            SourceKind::Codex => "Codex hook",
            SourceKind::Gemini => "Gemini CLI hook",
            SourceKind::Cursor => "Cursor hook",
        }
    }
}

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
                crate::dialect::claude::require_json_body(reply)?;
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

/// Makes a hook name safe as one path component under `state/`.
pub(crate) fn filesystem_safe(name: &str) -> String {
    let mut out: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    out = out.trim_matches(|c| c == '.' || c == '_').to_owned();
    if out.len() > 100 {
        out.truncate(100);
    }
    if out.is_empty() {
        out.push_str("hook");
    }
    out
}
