//! What `list` says about each configuration file: loaded, missing or broken, the errors and
//! warnings of each, and approvals that no hook declares any more.

use std::collections::BTreeSet;

use super::{ConfigErrorReport, FileReport, source_name};
use crate::config::{FileLoad, FileState};
use crate::snapshot::Snapshot;
use crate::trust::Approvals;
use agent_hooks_core::workspace::Workspace;

pub(super) fn file_reports(ws: &Workspace, snapshot: &Snapshot) -> Vec<FileReport> {
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

fn file_state_name(state: FileState) -> &'static str {
    match state {
        FileState::Missing => "missing",
        FileState::Loaded => "loaded",
        FileState::Broken => "broken",
        FileState::BrokenKeptPrevious => "broken_kept_previous",
    }
}
