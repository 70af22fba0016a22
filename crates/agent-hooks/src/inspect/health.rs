//! Hook health: why a declared hook will or will not fire. Every hook of every source goes
//! through [`assess_hook`], which checks trust (approval, drift), whether its command can run at
//! all, and whether it can ever fire; `list`, `doctor` and the sidecar all read the result.
//!
//! A hook gets one [`Health`] word — the worst of its [`Finding`]s — plus every finding with the
//! reason first and a fix. Nothing here runs a hook: that is `doctor`'s job.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Arc;

use serde::Serialize;

use crate::config::{ConfigError, FileLoad, FileState};
use crate::engine::Engine;
use crate::hook::{Hook, SourceKind};
use crate::snapshot::Snapshot;
use crate::trust::quote;
use crate::trust::{Approvals, DriftChecker, Verdict};
use agent_hooks_core::event::Event;
use agent_hooks_core::workspace::Workspace;
use agent_hooks_transports::TransportSpec;
use agent_hooks_transports::command_line;

/// Lifts the SSRF guard's address rule for HTTP hooks served on this machine (SPEC §5a).
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
            file: e.file.clone(),
            line: e.line,
            column: e.column,
            message: e.message.clone(),
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
        files: file_reports(ws, snapshot),
        hooks,
    }
}

fn file_reports(ws: &Workspace, snapshot: &Snapshot) -> Vec<FileReport> {
    let config = &snapshot.config;
    let mut files = Vec::new();

    let agent_path = ws.agent_yaml();
    let mut agent = FileReport::new(
        ws.display(&agent_path).into_owned(),
        "settings",
        if config.agent.error.is_some() {
            "broken"
        } else if agent_path.exists() {
            "loaded"
        } else {
            "missing"
        },
    );
    agent
        .errors
        .extend(config.agent.error.iter().map(Into::into));
    files.push(agent);

    for load in &config.files {
        files.push(hooks_file_report(load));
    }

    let approvals_path = ws.approvals_json();
    let display = ws.display(&approvals_path).into_owned();
    let mut approvals = match Approvals::load(ws) {
        Ok(list) => {
            let mut report = FileReport::new(
                display,
                "approvals",
                if approvals_path.exists() {
                    "loaded"
                } else {
                    "missing"
                },
            );
            report.count = Some(list.approvals.len());
            report
        }
        Err(err) => {
            let mut report = FileReport::new(display, "approvals", "broken");
            report.errors.push((&err).into());
            report
        }
    };
    let orphans: BTreeSet<&str> = snapshot
        .approvals
        .approvals
        .iter()
        .map(|a| a.command.as_str())
        .filter(|command| config.hooks_with_key(command).next().is_none())
        .collect();
    for command in orphans {
        approvals.warnings.push(ConfigErrorReport {
            file: approvals.file.clone(),
            line: 0,
            column: 0,
            message: format!(
                "approval of \"{command}\", which no hook declares any more (harmless; /hooks revoke {command} removes it)"
            ),
            text: format!(
                "{}: approval of \"{command}\", which no hook declares any more",
                approvals.file
            ),
        });
    }
    files.push(approvals);
    files
}

fn hooks_file_report(load: &FileLoad) -> FileReport {
    let mut report = FileReport::new(
        load.display.clone(),
        source_name(load.source),
        file_state_name(load.state),
    );
    if load.state != FileState::Missing {
        report.count = Some(load.hooks.len());
    }
    report.errors = load.errors.iter().map(Into::into).collect();
    report.warnings = load.warnings.iter().map(Into::into).collect();
    report.bridge = load.bridge.clone();
    report
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
    }
}

fn file_state_name(state: FileState) -> &'static str {
    match state {
        FileState::Missing => "missing",
        FileState::Loaded => "loaded",
        FileState::Broken => "broken",
        FileState::BrokenKeptPrevious => "broken_kept_previous",
    }
}

/// The health of one hook. Every source's hooks come through here: trust is read from the
/// hook's `approval_key`, runnability from its transport, firing from its events.
pub(crate) fn assess_hook(ctx: &Context<'_>, hook: &Arc<Hook>) -> HookHealth {
    let mut findings = Vec::new();
    let approved_events = trust_findings(ctx, hook, &mut findings);
    findings.extend(runnability(hook));
    findings.extend(firing(ctx, hook));
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

/// Approval and drift of each declared event; returns the events whose approval holds.
fn trust_findings(ctx: &Context<'_>, hook: &Hook, findings: &mut Vec<Finding>) -> Vec<Event> {
    let Some(key) = &hook.approval_key else {
        findings.push(Finding::new(
            FindingCode::NoApprovalNeeded,
            Severity::Info,
            format!("no approval needed ({})", hook.source.label()),
        ));
        return Vec::new();
    };
    let approvals = &ctx.snapshot.approvals;
    let mut approved = Vec::new();
    let mut missing = Vec::new();
    for &event in &hook.events {
        match ctx.drift.check(approvals, event, hook) {
            Verdict::Approved(_) => approved.push(event),
            Verdict::NotApproved => missing.push(event),
            Verdict::Drifted(why) => findings.push(
                Finding::new(
                    FindingCode::Drift,
                    Severity::Error,
                    format!("changed since approval: {why}; it does not run"),
                )
                .event(event)
                .fix(format!(
                    "review the change, then: /hooks approve {}",
                    quote(key)
                )),
            ),
        }
    }
    // Approvals of this command for events no hook with this command is declared for.
    let declared: BTreeSet<&str> = ctx
        .snapshot
        .config
        .hooks_with_key(key)
        .flat_map(|h| h.events.iter().map(|e| e.name()))
        .collect();
    let stray: Vec<&str> = approvals
        .events_of(key)
        .filter(|e| !declared.contains(e))
        .collect();
    if !missing.is_empty() {
        let names = names(&missing);
        if approved.is_empty() && !stray.is_empty() {
            findings.push(
                Finding::new(
                    FindingCode::ApprovedNotDeclared,
                    Severity::Error,
                    format!(
                        "approved for {}, but declared for {names}: it never fires",
                        stray.join(", ")
                    ),
                )
                .fix(format!(
                    "re-approve it for the event it is declared for: /hooks approve {}",
                    quote(key)
                )),
            );
        } else {
            let mut finding = Finding::new(
                FindingCode::NotApproved,
                Severity::Error,
                format!("not approved for {names}: it does not run there"),
            )
            .fix(format!("/hooks approve {}", quote(key)));
            if missing.len() == 1 {
                finding = finding.event(missing[0]);
            }
            findings.push(finding);
        }
    } else if !stray.is_empty() {
        findings.push(
            Finding::new(
                FindingCode::ApprovedNotDeclared,
                Severity::Warning,
                format!(
                    "also approved for {}, which it is not declared for (that approval is unused)",
                    stray.join(", ")
                ),
            )
            .fix(format!(
                "/hooks revoke {k}, then /hooks approve {k}",
                k = quote(key)
            )),
        );
    }
    approved
}

/// Whether the host sends the hook's events at all.
fn firing(ctx: &Context<'_>, hook: &Hook) -> Vec<Finding> {
    let mut findings = unreachable_from_claude(ctx.ws, hook);
    let Some(sent) = &ctx.host_events else {
        return findings;
    };
    let unsent: Vec<Event> = hook
        .events
        .iter()
        .copied()
        .filter(|e| !sent.contains(e))
        .collect();
    if unsent.is_empty() {
        return Vec::new();
    }
    let severity = if unsent.len() == hook.events.len() {
        Severity::Error
    } else {
        Severity::Warning
    };
    findings.push(
        Finding::new(
            FindingCode::HostNeverSends,
            severity,
            format!(
                "declared for {}, which this host never sends (config/agent.yaml shell_hooks.host_events)",
                names(&unsent)
            ),
        )
        .fix("declare the hook for an event the host sends, or add the event to host_events if the host does send it"),
    );
    findings
}

/// In a workspace bridged into Claude Code, a hook on an event the bridge never dispatches
/// (`pre_llm_call`, `on_completion_claim`, ...) does nothing there: say so.
fn unreachable_from_claude(ws: &crate::Workspace, hook: &Hook) -> Vec<Finding> {
    if hook.source == crate::hook::SourceKind::ClaudeCode || !crate::bridge::is_installed(ws) {
        return Vec::new();
    }
    let unreachable: Vec<Event> = hook
        .events
        .iter()
        .copied()
        .filter(|e| !agent_hooks_dialects::agent::Agent::ClaudeCode.reaches(*e))
        .collect();
    if unreachable.is_empty() {
        return Vec::new();
    }
    vec![
        Finding::new(
            FindingCode::ClaudeNeverSends,
            Severity::Warning,
            format!(
                "declared for {}, which the Claude Code bridge never dispatches (docs/claude-code.md)",
                names(&unreachable)
            ),
        )
        .fix("in Claude Code, use an event the bridge maps (pre_tool_call, on_stop, ...)"),
    ]
}

/// Whether the transport can start the hook at all.
fn runnability(hook: &Hook) -> Vec<Finding> {
    match &hook.transport {
        TransportSpec::Command(spec) => match command_line::read(spec, &hook.env) {
            Ok(reading) => {
                let mut findings = super::command::inspect(&reading, &spec.cwd);
                findings.extend(prefork_note(hook, spec));
                findings
            }
            Err(unreadable) => {
                // A hook that needs approval cannot get one; a skill hook still runs.
                let severity = if hook.approval_key.is_some() {
                    Severity::Error
                } else {
                    Severity::Warning
                };
                vec![
                    Finding::new(FindingCode::Unreadable, severity, unreadable.to_string())
                        .fix("write the script's path out in the command (no variables it sets itself, no $(...))"),
                ]
            }
        },
        // Reachability is `doctor`'s to find out; the URL passed the SSRF guard at load.
        TransportSpec::Http(_) | TransportSpec::Judge(_) => Vec::new(),
        // Compiled in; a bad rules file is a config error, and the guard runs its defaults.
        TransportSpec::Builtin(_) => Vec::new(),
    }
}

/// Whether a Python hook runs pre-forked, or could: most of its time per call is a fresh
/// interpreter starting and importing, which `prefork: true` pays once.
fn prefork_note(hook: &Hook, spec: &agent_hooks_transports::CommandSpec) -> Option<Finding> {
    if spec.prefork.is_some() {
        return Some(Finding::new(
            FindingCode::Prefork,
            Severity::Info,
            "runs pre-forked (prefork): each call is a forked child of an interpreter that has the script compiled and its imports loaded",
        ));
    }
    if hook.dialect.background().is_some() || command_line::python_call(spec, &hook.env).is_err() {
        return None;
    }
    Some(
        Finding::new(
            FindingCode::Prefork,
            Severity::Info,
            "could run pre-forked: a Python script started by a fresh interpreter per call; add `prefork: true` to fork it from a warm one (docs/writing-hooks.md)",
        )
        .fix("add prefork: true to the hook, then approve it again"),
    )
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
