//! `agent-hooks audit <transcript>...`: matches a session's tool calls to the decision log and
//! names those no hook saw. Exit 0 when every call was seen with nothing lapsed, 1 when not, 2
//! when a transcript or the log cannot be read.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use agent_hooks_runtime::Workspace;
use agent_hooks_runtime::audit;

pub(crate) fn run(
    ws: &Workspace,
    transcripts: &[PathBuf],
    log: Option<&Path>,
    json: bool,
) -> ExitCode {
    let log = match log {
        Some(path) => path.to_path_buf(),
        None => match audit::default_log(ws) {
            Ok(path) => path,
            Err(e) => {
                eprintln!("agent-hooks audit: {e}");
                return ExitCode::from(2);
            }
        },
    };
    let report = match audit::audit(transcripts, &log) {
        Ok(report) => report,
        Err(e) => {
            eprintln!("agent-hooks audit: {e}");
            return ExitCode::from(2);
        }
    };
    if json {
        println!("{}", report.to_json());
    } else {
        print!("{}", report.render());
    }
    if report.is_complete() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
