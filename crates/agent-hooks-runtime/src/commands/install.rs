//! `install [--no-enable] [--pack P,Q] <name|number|all>...` as text: what `guards::install`
//! did, one line per step and guard, then notes on the whole.

use std::fmt::Write as _;

use super::CommandOutput;
use crate::engine::Engine;
use crate::guards::{
    ApprovedStep, DeclaredStep, DoctorStep, DryRun, InstallError, InstallReport, Master, RulesStep,
};

/// `/hooks install [--no-enable] [--pack P,Q] ...`; `agent-hooks install` prints the same.
pub(super) async fn run(engine: &Engine, words: &[String]) -> CommandOutput {
    let usage = || CommandOutput {
        text: format!(
            "usage: /hooks install [--no-enable] [--pack PACK,...] <name|number|all>...\n\nReady-made hooks:\n{}",
            crate::guards::numbered_list()
        ),
        status: 2,
    };
    let mut enable = true;
    let mut packs = Vec::new();
    let mut targets = Vec::new();
    let mut rest = words.iter();
    while let Some(word) = rest.next() {
        if word == "--no-enable" {
            enable = false;
        } else if let Some(list) = word.strip_prefix("--pack=") {
            packs.push(list.to_owned());
        } else if word == "--pack" {
            match rest.next() {
                Some(list) => packs.push(list.clone()),
                None => return usage(),
            }
        } else {
            targets.push(word.clone());
        }
    }
    if targets.is_empty() {
        return usage();
    }
    match crate::guards::install(engine, &targets, enable, &packs).await {
        Ok(report) => CommandOutput {
            text: render(&report),
            status: i32::from(report.problems > 0),
        },
        Err(e @ (InstallError::Unknown { .. } | InstallError::Pack { .. })) => CommandOutput {
            text: format!("error: {e}\n"),
            status: 2,
        },
        Err(e) => CommandOutput {
            text: format!("error: {e}\n"),
            status: 1,
        },
    }
}

/// The report as text: per guard, a line per step; then the notes.
fn render(report: &InstallReport) -> String {
    let mut text = String::new();
    for steps in &report.guards {
        let mut lines = vec![
            match &steps.rules {
                RulesStep::Kept { path, edited } => format!(
                    "rules: {path} is already there{}; kept as it is",
                    if *edited { " (edited)" } else { "" }
                ),
                RulesStep::Wrote { path } => {
                    format!("rules: wrote the defaults to {path} (edit it to tune the guard)")
                }
                RulesStep::Enabled {
                    path,
                    packs,
                    wrote_defaults,
                } => format!(
                    "rules: {}{path} turns on the packs {} (enable: in that file)",
                    if *wrote_defaults {
                        "wrote the defaults; "
                    } else {
                        ""
                    },
                    packs.join(", ")
                ),
            },
            match &steps.declared {
                DeclaredStep::Already => {
                    "declared: already, for all its events, in config/shell_hooks.yaml".to_owned()
                }
                DeclaredStep::Added(events) => format!(
                    "declared: type: builtin in config/shell_hooks.yaml for {}",
                    events
                        .iter()
                        .map(|(event, matcher)| if *matcher {
                            format!("{event} (with a matcher)")
                        } else {
                            (*event).to_owned()
                        })
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            },
            match &steps.approved {
                ApprovedStep::Already { key } => format!("approved: already ({key})"),
                ApprovedStep::Approved { key, events } => format!(
                    "approved: {key} for {}",
                    events
                        .iter()
                        .map(|e| e.name())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            },
            match &steps.doctor {
                DoctorStep::Usable { runs, slowest_ms } => format!(
                    "doctor: ran it on {runs} event{}; every answer usable (slowest {slowest_ms:.1} ms)",
                    if *runs == 1 { "" } else { "s" }
                ),
                DoctorStep::Problems { count, why } => format!(
                    "doctor: {count} problem{}: {} (run `agent-hooks doctor` for details)",
                    if *count == 1 { "" } else { "s" },
                    why.join("; ")
                ),
            },
        ];
        match &steps.dry_run {
            Some(DryRun::NotRun { why }) => lines.push(format!("dry run: not run ({why})")),
            Some(DryRun::Answered {
                event,
                shown,
                answer,
            }) => lines.push(format!("dry run: {event} ({shown}) → {}", effect(answer))),
            None => {}
        }
        let _ = writeln!(text, "{}:", steps.guard);
        for line in lines {
            let _ = writeln!(text, "  {line}");
        }
    }
    for error in &report.config_errors {
        let _ = writeln!(text, "config error: {error}");
    }
    match report.master {
        Master::AlreadyOn => {}
        Master::TurnedOn => text.push_str(
            "Master switch: turned on, so the hooks run now (`install --no-enable` leaves it off).\n",
        ),
        Master::LeftOff => text.push_str(
            "Note: the master switch is off, so nothing runs until `agent-hooks on` (/hooks on).\n",
        ),
    }
    if !report.changed {
        text.push_str("Everything was already installed; nothing changed.\n");
    }
    text
}

/// One line on what an answer does.
fn effect(answer: &serde_json::Value) -> String {
    let text = |key: &str| answer.get(key).and_then(serde_json::Value::as_str);
    let one_line = |s: &str| {
        let s = s
            .split('\n')
            .filter(|l| !l.trim().is_empty())
            .collect::<Vec<_>>()
            .join(" ⏎ ");
        match s.char_indices().nth(100) {
            Some((at, _)) => format!("{}…", &s[..at]),
            None => s,
        }
    };
    let mut parts = Vec::new();
    if let Some(decision) = text("decision").filter(|d| *d == "block" || *d == "ask") {
        parts.push(format!(
            "{decision}: {}",
            one_line(text("reason").unwrap_or(""))
        ));
    }
    for field in ["response", "notification", "message"] {
        if let Some(value) = text(field) {
            parts.push(format!("rewrites {field}: {}", one_line(value)));
        }
    }
    if let Some(input) = answer.get("tool_input") {
        parts.push(format!("rewrites tool_input: {input}"));
    }
    for (field, says) in [
        ("context", "adds context"),
        ("note", "notes"),
        ("add_warning", "warns"),
    ] {
        if let Some(value) = text(field) {
            parts.push(format!("{says}: {}", one_line(value)));
        }
    }
    if parts.is_empty() {
        "no effect".into()
    } else {
        parts.join("; ")
    }
}
