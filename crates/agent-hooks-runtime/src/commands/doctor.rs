//! `/hooks doctor`: lays out [`crate::inspect::doctor`]'s findings — per hook its health, then each run
//! (time, exit status, what it answered, the effect it would have) with the problem first.
//! Exits 1 when anything is broken, so it can gate a CI job.

use super::CommandOutput;
use crate::engine::Engine;
use crate::inspect::doctor::{self, DoctorReport, HookCheck, JUDGE_NOT_CALLED, RunCheck};
use crate::inspect::health::{FileReport, Report};
use crate::inspect::render::{
    INDENT, LABEL, entry_errors, facts, files_section, header, other_findings, plural, reasons,
    tone_of,
};
use crate::inspect::style::{Style, Tone, field, wrap_into};

pub(crate) async fn run(
    engine: &Engine,
    json: bool,
    style: Style,
    progress: &mut (dyn FnMut(doctor::Progress<'_>) + Send),
) -> CommandOutput {
    let report = doctor::run_with_progress(engine, progress).await;
    let status = if report.ok { 0 } else { 1 };
    if json {
        return CommandOutput {
            text: super::to_json(&report),
            status,
        };
    }
    let mut text = String::new();
    header(&mut text, &header_view(&report), "doctor", style);
    if !report.master_enabled {
        field(
            &mut text,
            0,
            "Note:",
            0,
            "approved hooks are run here to check them, but the agent runs none until /hooks on",
        );
    }
    files_section(&mut text, &report.files, style);
    text.push_str("\nHooks\n");
    if report.hooks.is_empty() {
        text.push_str("  (none declared; nothing to run)\n");
    }
    for check in &report.hooks {
        hook_block(&mut text, check, style);
    }
    entry_errors(&mut text, &report.files, style);
    text.push('\n');
    verdict(&mut text, &report, style);
    CommandOutput { text, status }
}

/// The parts of the report the shared header reads.
fn header_view(report: &DoctorReport) -> Report {
    Report {
        workspace: report.workspace.clone(),
        master_enabled: report.master_enabled,
        http_allow_local: report.http_allow_local,
        host_events: report.host_events.clone(),
        approvals: None,
        files: Vec::<FileReport>::new(),
        hooks: Vec::new(),
        on_failure: report.on_failure,
        bridges_fail_closed: report.bridges_fail_closed.clone(),
    }
}

/// The word doctor gives a hook: its health when that is bad, else how its runs went.
fn word(check: &HookCheck) -> (Tone, String) {
    let health = check.health.health;
    if !health.is_healthy() {
        let suffix = if check.ran { "" } else { ", not run" };
        return (tone_of(health), format!("{}{suffix}", health.as_str()));
    }
    if check.not_run.as_deref() == Some(JUDGE_NOT_CALLED) {
        (Tone::Good, "ok, not called".into())
    } else if check.runs.iter().any(RunCheck::is_broken) {
        (Tone::Bad, "failed".into())
    } else if check.runs.iter().any(|r| r.slow) {
        (Tone::Warn, "ok, but slow".into())
    } else if check.warnings() > 0 {
        (Tone::Warn, "ok, with warnings".into())
    } else {
        (Tone::Good, "ok".into())
    }
}

fn hook_block(out: &mut String, check: &HookCheck, style: Style) {
    let (tone, word) = word(check);
    out.push_str(&format!(
        "\n  {}{}: {}\n",
        style.mark(tone),
        check.health.name,
        style.paint(tone, &word)
    ));
    reasons(out, &check.health);
    if let Some(first) = check
        .runs
        .iter()
        .find_map(|r| r.problem.as_ref().map(|p| (r, p)))
        && check.health.why.is_none()
    {
        field(
            out,
            INDENT,
            "why:",
            LABEL,
            &format!("{}: {}", first.0.event, first.1),
        );
    }
    if let Some(not_run) = &check.not_run {
        if check.ran {
            field(out, INDENT, "also:", LABEL, not_run);
        } else if not_run == JUDGE_NOT_CALLED {
            field(out, INDENT, "note:", LABEL, not_run);
        }
    }
    facts(out, &check.health);
    other_findings(out, &check.health);
    for run in &check.runs {
        run_block(out, run, check);
    }
}

/// One run: the problem first, then time, exit, answer, effect and the raw evidence.
fn run_block(out: &mut String, run: &RunCheck, check: &HookCheck) {
    let time = if run.ms >= 1000.0 {
        format!("{:.1} s", run.ms / 1000.0)
    } else {
        format!("{:.1} ms", run.ms)
    };
    let exit = match (run.exit_code, run.signal) {
        (Some(code), _) => format!("exit {code}"),
        (None, Some(sig)) => format!("killed by signal {sig}"),
        (None, None) => run.result.to_owned(),
    };
    let answered = run.answer.describe(&check.health.hook.dialect);
    let mut head = String::new();
    wrap_into(
        &mut head,
        &format!("{:INDENT$}{}: ", "", run.event),
        INDENT + 2,
        &format!("ran in {time}, {exit}, answered {answered}"),
    );
    out.push_str(&head);
    let sub = INDENT + 2;
    if let Some(problem) = &run.problem {
        field(out, sub, "problem:", LABEL, problem);
    }
    field(out, sub, "effect:", LABEL, &run.effect);
    for warning in &run.warnings {
        field(out, sub, "warning:", LABEL, warning);
    }
    for note in &run.notes {
        field(out, sub, "note:", LABEL, note);
    }
    if (run.is_broken() || run.answer != doctor::AnswerKind::Nothing)
        && let Some(stdout) = &run.stdout
    {
        field(out, sub, "stdout:", LABEL, stdout);
    }
    if let Some(stderr) = &run.stderr {
        field(out, sub, "stderr:", LABEL, stderr);
    }
}

/// The last line: OK or BROKEN, naming what is broken.
fn verdict(out: &mut String, report: &DoctorReport, style: Style) {
    let ran = report.hooks.iter().filter(|c| c.ran).count();
    let warnings = format!("{} warning{}", report.warnings, plural(report.warnings));
    let line = if report.ok {
        format!(
            "{}: {ran} hook{} ran, nothing is broken; {warnings}.",
            style.paint(Tone::Good, "OK"),
            plural(ran)
        )
    } else {
        let mut broken: Vec<String> = report
            .hooks
            .iter()
            .filter(|c| c.problems() > 0)
            .map(|c| c.health.name.clone())
            .collect();
        let config_errors: usize = report.files.iter().map(|f| f.errors.len()).sum();
        if config_errors > 0 {
            broken.push(format!(
                "{config_errors} config error{}",
                plural(config_errors)
            ));
        }
        format!(
            "{}: {} problem{} ({}); {warnings}.",
            style.paint(Tone::Bad, "BROKEN"),
            report.problems,
            plural(report.problems),
            broken.join(", ")
        )
    };
    wrap_into(out, "", 0, &line);
}
