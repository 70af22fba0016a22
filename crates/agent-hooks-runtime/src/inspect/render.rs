//! The text layout `list` and `doctor` share: the header with the master switch, the
//! configuration files, one block per hook (health word, reason, fix, what it is), and the
//! entries that failed to load. Both commands lay out the same [`super::health`] report.

use super::health::{self, FileReport, Finding, FindingCode, Health, HookHealth, Report, Severity};
use super::style::{Style, Tone, field, wrap_into};

/// Width of the labels under a hook (`events:`, `matcher:`, ...).
pub(crate) const LABEL: usize = 8;
/// Indent of the lines under a hook.
pub(crate) const INDENT: usize = 4;

/// The first lines of `list` and `doctor`: the workspace and the master switch.
pub(crate) fn header(out: &mut String, report: &Report, command: &str, style: Style) {
    out.push_str(&format!(
        "agent-hooks {command}: {}\n",
        report.workspace.display()
    ));
    let switch = if report.master_enabled {
        format!(
            "{} (approved shell and Claude Code hooks run)",
            style.paint(Tone::Good, "ON")
        )
    } else {
        format!(
            "{} (no shell or Claude Code hook runs; /hooks on turns them on)",
            style.paint(Tone::Warn, "OFF")
        )
    };
    let mut line = String::new();
    wrap_into(&mut line, "Master switch: ", 2, &switch);
    out.push_str(&line);
    let mut mode = report.on_failure.describe().to_owned();
    if !report.bridges_fail_closed.is_empty() {
        mode.push_str(&format!(
            "; the bridge of {} fails closed (--fail-closed)",
            report.bridges_fail_closed.join(", ")
        ));
    }
    let mut line = String::new();
    wrap_into(&mut line, "On failure: ", 2, &mode);
    out.push_str(&line);
    if report.http_allow_local {
        field(
            out,
            0,
            "Note:",
            0,
            &format!(
                "{}=1 is set: HTTP hooks may reach this machine",
                health::HTTP_ALLOW_LOCAL_ENV
            ),
        );
    }
    if let Some((path, outside)) = &report.approvals {
        let place = if *outside {
            format!(
                "{} (outside the workspace: {})",
                path.display(),
                agent_hooks_core::workspace::APPROVALS_ENV
            )
        } else {
            format!(
                "{} (in the workspace; set {} to keep them where the agent cannot write)",
                path.display(),
                agent_hooks_core::workspace::APPROVALS_ENV
            )
        };
        field(out, 0, "Approvals:", 0, &place);
    }
    if let Some(events) = &report.host_events {
        let names: Vec<&str> = events.iter().map(|e| e.name()).collect();
        field(out, 0, "Host sends:", 0, &names.join(", "));
    }
}

/// The configuration files: found, missing, broken (with file:line:column), and warnings.
pub(crate) fn files_section(out: &mut String, files: &[FileReport], style: Style) {
    out.push_str("\nConfig files\n");
    let width = files
        .iter()
        .map(|f| f.file.chars().count())
        .max()
        .unwrap_or(0)
        + 1;
    for file in files {
        let (tone, state) = match file.state {
            "loaded" => (Tone::Good, "loaded".to_owned()),
            "missing" => (Tone::Dim, "not found (nothing configured)".to_owned()),
            "broken_kept_previous" => (
                Tone::Bad,
                "config error (the last good hooks still run)".to_owned(),
            ),
            _ => (
                Tone::Bad,
                match file.source {
                    "settings" => "config error (the master switch stays off)",
                    "approvals" => "config error (no approval is honoured)",
                    _ => "config error (none of its hooks run)",
                }
                .to_owned(),
            ),
        };
        let count = match (file.count, file.source) {
            (Some(n), "approvals") => format!(", {n} approval{}", plural(n)),
            (Some(n), _) => {
                format!(", {n} hook{}", plural(n))
            }
            _ => String::new(),
        };
        let entry_errors = if file.state == "loaded" && !file.errors.is_empty() {
            format!(
                ", {} entry error{}",
                file.errors.len(),
                plural(file.errors.len())
            )
        } else {
            String::new()
        };
        let bridge = match file.bridge.len() {
            0 => String::new(),
            n => {
                let agent = agent_hooks_dialects::agent::Agent::ALL
                    .into_iter()
                    .find(|a| super::health::source_name(a.source()) == file.source)
                    .map_or("agent", |a| a.label());
                format!(", the {agent} bridge on {n} event{}", plural(n))
            }
        };
        out.push_str(&format!(
            "  {}{:<width$}{}{count}{bridge}{entry_errors}\n",
            style.mark(tone),
            file.file,
            style.paint(tone, &state)
        ));
        if file.state != "loaded" {
            for err in &file.errors {
                field(out, INDENT, "error:", LABEL, &err.text);
            }
        }
        for warning in &file.warnings {
            field(out, INDENT, "warning:", LABEL, &warning.text);
        }
    }
}

pub(crate) fn has_entry_errors(files: &[FileReport]) -> bool {
    files
        .iter()
        .any(|f| f.state == "loaded" && !f.errors.is_empty())
}

/// Entries that failed to load from a file that otherwise did: one "config error" row each, in
/// the hooks list where the user looks for the hook.
pub(crate) fn entry_errors(out: &mut String, files: &[FileReport], style: Style) {
    for file in files.iter().filter(|f| f.state == "loaded") {
        for err in &file.errors {
            let place = if err.line > 0 {
                format!("{}:{}", err.file, err.line)
            } else {
                err.file.clone()
            };
            out.push_str(&format!(
                "\n  {}entry at {place}: {}\n",
                style.mark(Tone::Bad),
                style.paint(Tone::Bad, Health::ConfigError.as_str())
            ));
            field(out, INDENT, "why:", LABEL, &err.text);
            field(
                out,
                INDENT,
                "fix:",
                LABEL,
                "correct the entry; the hook it declares is not loaded and never runs until then",
            );
        }
    }
}

pub(crate) fn tone_of(health: Health) -> Tone {
    match health {
        Health::Approved | Health::NoApprovalNeeded => Tone::Good,
        Health::NotApproved | Health::NeverFires => Tone::Warn,
        Health::Changed | Health::CannotRun | Health::ConfigError => Tone::Bad,
    }
}

/// The reason for the health word and its fix.
pub(crate) fn reasons(out: &mut String, hook: &HookHealth) {
    if let Some(why) = &hook.why {
        field(out, INDENT, "why:", LABEL, why);
    }
    if let Some(fix) = &hook.fix {
        field(out, INDENT, "fix:", LABEL, fix);
    }
}

/// What the hook is: events, matcher, what it runs, where it is declared.
pub(crate) fn facts(out: &mut String, hook: &HookHealth) {
    let events: Vec<&str> = hook.events.iter().map(|e| e.name()).collect();
    field(out, INDENT, "events:", LABEL, &events.join(", "));
    if let Some(matcher) = &hook.matcher {
        field(out, INDENT, "matcher:", LABEL, matcher);
    }
    field(
        out,
        INDENT,
        "runs:",
        LABEL,
        &format!("{} ({}, {})", hook.run, hook.transport, hook.dialect),
    );
    let place = if hook.line > 0 {
        format!("{}:{}", hook.file, hook.line)
    } else {
        hook.file.clone()
    };
    field(out, INDENT, "from:", LABEL, &place);
}

/// Findings besides the one the health word already gave.
pub(crate) fn other_findings(out: &mut String, hook: &HookHealth) {
    for finding in &hook.findings {
        if Some(&finding.message) == hook.why.as_ref()
            || finding.code == FindingCode::NoApprovalNeeded
        {
            continue;
        }
        finding_line(out, finding);
    }
}

fn finding_line(out: &mut String, finding: &Finding) {
    let label = match finding.severity {
        Severity::Error => "also:",
        Severity::Warning => "warning:",
        Severity::Info => "note:",
    };
    let text = match &finding.fix {
        Some(fix) if finding.severity != Severity::Info => {
            format!("{} (fix: {fix})", finding.message)
        }
        _ => finding.message.clone(),
    };
    field(out, INDENT, label, LABEL, &text);
}

pub(crate) fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}
