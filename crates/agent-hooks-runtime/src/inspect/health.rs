//! Hook health: why a declared hook will or will not fire. Every hook of every source goes
//! through [`assess_hook`], which checks trust (approval, drift), whether its command can run at
//! all, and whether it can ever fire; `list`, `doctor` and the sidecar all read the result.
//!
//! A hook gets one [`Health`] word — the worst of its [`Finding`]s — plus every finding with the
//! reason first and a fix. Nothing here runs a hook: that is `doctor`'s job. Each group of checks
//! has a file of its own (`trust`, `runnable`, `firing`); `files` reports the configuration
//! files themselves.

use std::path::PathBuf;
use std::sync::Arc;

use serde::Serialize;

use crate::config::{ConfigError, FileState};
use crate::engine::Engine;
use crate::hook::{Hook, SourceKind};
use crate::snapshot::Snapshot;
use crate::trust::DriftChecker;
use agent_hooks_core::event::Event;
use agent_hooks_core::workspace::Workspace;

mod command;
mod files;
mod firing;
mod runnable;
mod trust;

/// Lifts the SSRF guard's address rule for HTTP hooks served on this machine
/// (`docs/configuration.md`).
pub(crate) use agent_hooks_transports::ALLOW_LOCAL_ENV as HTTP_ALLOW_LOCAL_ENV;

/// The one word `list` shows for a hook, from best to worst.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Health {
    /// Approved for every event it is declared for, nothing changed since.
    Approved,
    /// A skill hook: it runs without approval, as in its source.
    NoApprovalNeeded,
    /// Declared, but (some of) its events are not approved: it does not run there.
    NotApproved,
    /// It can never fire: approved only for events it is not declared for, or declared only
    /// for events this host never sends.
    NeverFires,
    /// Approved, but a file it runs changed since: it does not run until re-approved.
    Changed,
    /// Its program or script is missing, not executable, or needs a missing interpreter.
    CannotRun,
    /// Its file no longer parses; the last good version is shown (and still runs).
    ConfigError,
}

impl Health {
    /// The words `list` prints.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Health::Approved => "approved",
            Health::NoApprovalNeeded => "no approval needed",
            Health::NotApproved => "not approved",
            Health::NeverFires => "never fires",
            Health::Changed => "changed since approval",
            Health::CannotRun => "cannot run",
            Health::ConfigError => "config error",
        }
    }

    /// Whether a hook in this state does what its author expects.
    pub(crate) fn is_healthy(self) -> bool {
        matches!(self, Health::Approved | Health::NoApprovalNeeded)
    }
}

/// How much a finding matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Severity {
    /// Worth knowing; nothing is wrong.
    Info,
    /// The hook fires, but something deserves a look.
    Warning,
    /// The hook does not fire (somewhere it is declared), or cannot work.
    Error,
}

/// What a finding is about; stable names for `--json` and the troubleshooting guide.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum FindingCode {
    /// Declared for an event it is not approved for.
    NotApproved,
    /// A file recorded by its approval changed or went away.
    Drift,
    /// Its program or script does not exist.
    NotFound,
    /// Its script lacks the execute bit.
    NotExecutable,
    /// Its script's `#!` interpreter is not installed.
    InterpreterMissing,
    /// A relative path in its command, resolved against the workspace.
    RelativePath,
    /// Approved for an event it is not declared for.
    ApprovedNotDeclared,
    /// Declared for an event the host says it never sends.
    HostNeverSends,
    /// Declared for an event the Claude Code bridge never dispatches, in a bridged workspace.
    ClaudeNeverSends,
    /// Its file has a configuration error.
    ConfigError,
    /// Which files its command runs cannot be determined, so it cannot be approved.
    Unreadable,
    /// A hook that runs without approval (skill hooks).
    NoApprovalNeeded,
    /// A Python hook that runs pre-forked, or could (`prefork: true`).
    Prefork,
}

impl FindingCode {
    /// The health a finding of this kind gives its hook when it is an error.
    fn health(self) -> Option<Health> {
        match self {
            FindingCode::NotApproved => Some(Health::NotApproved),
            FindingCode::Drift => Some(Health::Changed),
            FindingCode::NotFound
            | FindingCode::NotExecutable
            | FindingCode::InterpreterMissing
            | FindingCode::Unreadable => Some(Health::CannotRun),
            FindingCode::ApprovedNotDeclared | FindingCode::HostNeverSends => {
                Some(Health::NeverFires)
            }
            FindingCode::ConfigError => Some(Health::ConfigError),
            FindingCode::RelativePath
            | FindingCode::NoApprovalNeeded
            | FindingCode::Prefork
            | FindingCode::ClaudeNeverSends => None,
        }
    }
}

/// One thing `list` has to say about a hook: the reason, then how to fix it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Finding {
    /// What the finding is about.
    pub code: FindingCode,
    /// How much it matters.
    pub severity: Severity,
    /// The event it concerns, when it concerns one.
    pub event: Option<Event>,
    /// The reason, for a human.
    pub message: String,
    /// What to do about it, when there is something to do.
    pub fix: Option<String>,
}

impl Finding {
    pub(crate) fn new(
        code: FindingCode,
        severity: Severity,
        message: impl Into<String>,
    ) -> Finding {
        Finding {
            code,
            severity,
            event: None,
            message: message.into(),
            fix: None,
        }
    }

    pub(crate) fn fix(mut self, fix: impl Into<String>) -> Finding {
        self.fix = Some(fix.into());
        self
    }

    fn event(mut self, event: Event) -> Finding {
        self.event = Some(event);
        self
    }
}

/// Everything `list` says about one hook.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct HookHealth {
    /// The hook itself, for callers that go on to run it (`doctor`).
    #[serde(skip)]
    pub hook: Arc<Hook>,
    /// The hook's name.
    pub name: String,
    /// `shell_hooks`, `skill` or `claude_code`.
    pub source: &'static str,
    /// The declaring file, workspace-relative.
    pub file: String,
    /// Line of the entry in its file (1-based; 0 when unknown).
    pub line: u64,
    /// The events it is declared for.
    pub events: Vec<Event>,
    /// Its matcher pattern, as written.
    pub matcher: Option<String>,
    /// `command` (later `http`, `builtin`).
    pub transport: &'static str,
    /// The command line or URL, as written.
    pub run: String,
    /// The dialect it speaks, as `list` names it (`decision protocol`, ...).
    pub dialect: &'static str,
    /// The string approvals key on; `None` for hooks that need no approval.
    pub approval_key: Option<String>,
    /// Declared events whose approval holds (no drift).
    pub approved_events: Vec<Event>,
    /// The worst of its findings, as one word.
    pub health: Health,
    /// The reason for `health`, when it is not plain good news.
    pub why: Option<String>,
    /// How to fix what `why` says, when there is a fix.
    pub fix: Option<String>,
    /// Everything found about it, errors and otherwise.
    pub findings: Vec<Finding>,
}

impl HookHealth {
    /// Whether `doctor` may run this hook: it is trusted and its program can start.
    pub(crate) fn runnable(&self) -> bool {
        !self.findings.iter().any(|f| {
            f.severity == Severity::Error
                && matches!(
                    f.code,
                    FindingCode::Drift
                        | FindingCode::NotFound
                        | FindingCode::NotExecutable
                        | FindingCode::InterpreterMissing
                        | FindingCode::Unreadable
                )
        })
    }

    /// The events `doctor` runs this hook for: declared and trusted.
    pub(crate) fn events_to_run(&self) -> Vec<Event> {
        if self.approval_key.is_none() {
            self.events.clone()
        } else {
            self.approved_events.clone()
        }
    }

    /// How many findings are errors.
    pub(crate) fn errors(&self) -> usize {
        self.count(Severity::Error)
    }

    /// How many findings are warnings.
    pub(crate) fn warnings(&self) -> usize {
        self.count(Severity::Warning)
    }

    fn count(&self, severity: Severity) -> usize {
        self.findings
            .iter()
            .filter(|f| f.severity == severity)
            .count()
    }
}

/// One configuration file as `list` shows it.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct FileReport {
    /// The file, workspace-relative.
    pub file: String,
    /// `settings`, `approvals`, or the source kind of a hooks file.
    pub source: &'static str,
    /// `loaded`, `missing`, `broken` or `broken_kept_previous`.
    pub state: &'static str,
    /// Hooks loaded from it (hook files) or approvals in it (the allowlist); `None` otherwise.
    pub count: Option<usize>,
    /// Problems that stopped (part of) the file from loading.
    pub errors: Vec<ConfigErrorReport>,
    /// Problems that did not, such as unknown keys.
    pub warnings: Vec<ConfigErrorReport>,
    /// Claude Code events this file wires to the agent-hooks bridge (`claude-install`); left
    /// out when none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub bridge: Vec<String>,
}

impl FileReport {
    fn new(file: String, source: &'static str, state: &'static str) -> FileReport {
        FileReport {
            file,
            source,
            state,
            count: None,
            errors: Vec::new(),
            warnings: Vec::new(),
            bridge: Vec::new(),
        }
    }
}

/// A located configuration problem.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct ConfigErrorReport {
    /// The file, workspace-relative.
    pub file: String,
    /// 0 when the problem is not tied to a place in the file.
    pub line: u64,
    /// Column of the problem (1-based; 0 when not tied to a place).
    pub column: u64,
    /// What is wrong and, where possible, the fix.
    pub message: String,
    /// `file:line:column: message`.
    pub text: String,
}

impl From<&ConfigError> for ConfigErrorReport {
    fn from(e: &ConfigError) -> Self {
        ConfigErrorReport {
            file: e.file().to_owned(),
            line: e.location().map_or(0, |l| l.line()),
            column: e.location().map_or(0, |l| l.column()),
            message: e.message().to_owned(),
            text: e.to_string(),
        }
    }
}

/// The health of a whole workspace: what `list` prints.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Report {
    /// The workspace root.
    pub workspace: PathBuf,
    /// Whether the master switch is on; when off, no approved hook runs.
    pub master_enabled: bool,
    /// `AGENT_HOOKS_HTTP_ALLOW_LOCAL=1` is set: HTTP hooks may reach this machine.
    pub http_allow_local: bool,
    /// The events the host says it sends (`shell_hooks.host_events`); `None`: every event.
    pub host_events: Option<Vec<Event>>,
    /// Where approvals live, and whether that is outside the workspace
    /// (`AGENT_HOOKS_APPROVALS`); `None` where the report does not say (doctor's header).
    pub approvals: Option<(PathBuf, bool)>,
    /// Every configuration file the engine reads, present or not.
    pub files: Vec<FileReport>,
    /// Every declared hook, in run order.
    pub hooks: Vec<HookHealth>,
    /// What a lapse of the policy comes to: `on_failure` in `config/agent.yaml`.
    pub on_failure: agent_hooks_core::outcome::OnFailure,
    /// The agents whose installed bridge says `--fail-closed`, whatever `on_failure` says.
    pub bridges_fail_closed: Vec<&'static str>,
}

impl Report {
    /// Every configuration error of every file.
    pub(crate) fn config_errors(&self) -> impl Iterator<Item = &ConfigErrorReport> {
        self.files.iter().flat_map(|f| f.errors.iter())
    }
}

/// What [`assess_hook`] needs to know about the workspace.
#[derive(Debug)]
pub(crate) struct Context<'a> {
    /// The workspace, for resolving relative paths.
    pub ws: &'a Workspace,
    /// The configuration and approvals to judge.
    pub snapshot: &'a Snapshot,
    /// The drift cache to check approvals with.
    pub drift: &'a DriftChecker,
    /// The events the host says it sends; `None`: every event.
    pub host_events: Option<Vec<Event>>,
}

/// The health of everything `engine` has loaded.
pub(crate) fn assess_engine(engine: &Engine) -> Report {
    let snapshot = engine.snapshot();
    // A fresh checker: list and doctor re-hash every recorded file rather than trust a cache.
    let drift = DriftChecker::default();
    assess(engine.workspace(), &snapshot, &drift)
}

/// The health of every file and hook of `snapshot`.
pub(crate) fn assess(ws: &Workspace, snapshot: &Snapshot, drift: &DriftChecker) -> Report {
    let host_events = snapshot.config.agent.host_events.clone();
    let ctx = Context {
        ws,
        snapshot,
        drift,
        host_events: host_events.clone(),
    };
    let hooks = snapshot
        .config
        .hooks
        .iter()
        .map(|hook| assess_hook(&ctx, hook))
        .collect();
    Report {
        workspace: ws.root().to_path_buf(),
        master_enabled: snapshot.config.master_enabled,
        http_allow_local: agent_hooks_transports::allow_local_enabled(),
        host_events,
        approvals: Some((ws.approvals_json(), ws.approvals_outside())),
        files: files::file_reports(ws, snapshot),
        hooks,
        on_failure: snapshot.config.agent.on_failure,
        bridges_fail_closed: crate::bridge::installed_fail_closed(ws)
            .into_iter()
            .map(|agent| agent.label())
            .collect(),
    }
}

/// The stable name of a source kind in `--json`.
pub(crate) fn source_name(kind: SourceKind) -> &'static str {
    match kind {
        SourceKind::ShellHooks => "shell_hooks",
        SourceKind::Skill => "skill",
        SourceKind::ClaudeCode => "claude_code",
        SourceKind::Codex => "codex",
        SourceKind::Gemini => "gemini",
        SourceKind::Cursor => "cursor",
        SourceKind::Copilot => "copilot",
        SourceKind::Windsurf => "windsurf",
    }
}

/// The health of one hook. Every source's hooks come through here: trust is read from the
/// hook's `approval_key`, runnability from its transport, firing from its events.
pub(crate) fn assess_hook(ctx: &Context<'_>, hook: &Arc<Hook>) -> HookHealth {
    let mut findings = Vec::new();
    let approved_events = trust::trust_findings(ctx, hook, &mut findings);
    findings.extend(runnable::runnability(hook));
    findings.extend(firing::firing(ctx, hook));
    if let Some(load) = ctx
        .snapshot
        .config
        .files
        .iter()
        .find(|f| f.path == hook.file && f.state == FileState::BrokenKeptPrevious)
    {
        let why = load
            .errors
            .first()
            .map(ToString::to_string)
            .unwrap_or_else(|| format!("{} no longer parses", load.display));
        findings.push(
            Finding::new(
                FindingCode::ConfigError,
                Severity::Error,
                format!("{why}; the last good version of this hook still runs"),
            )
            .fix(format!("fix {} (list shows where)", load.display)),
        );
    }

    let worst = findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .filter_map(|f| f.code.health().map(|h| (h, f)))
        .max_by_key(|(h, _)| *h);
    let (health, why, fix) = match worst {
        Some((health, finding)) => (health, Some(finding.message.clone()), finding.fix.clone()),
        None if hook.approval_key.is_none() => (Health::NoApprovalNeeded, None, None),
        None => (Health::Approved, None, None),
    };
    HookHealth {
        name: hook.name.to_string(),
        source: source_name(hook.source),
        file: hook.file_display.to_string(),
        line: hook.line,
        events: hook.events.clone(),
        matcher: hook.matcher.as_ref().map(|m| m.pattern.clone()),
        transport: hook.transport.kind(),
        run: hook.transport.describe(),
        dialect: hook.dialect.label(),
        approval_key: hook.approval_key.clone(),
        approved_events,
        health,
        why,
        fix,
        findings,
        hook: Arc::clone(hook),
    }
}

fn names(events: &[Event]) -> String {
    events
        .iter()
        .map(|e| e.name())
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn health_order_puts_worst_last() {
        assert!(Health::ConfigError > Health::CannotRun);
        assert!(Health::CannotRun > Health::Changed);
        assert!(Health::Changed > Health::NeverFires);
        assert!(Health::NeverFires > Health::NotApproved);
        assert!(Health::NotApproved > Health::NoApprovalNeeded);
    }
}
