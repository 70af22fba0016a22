//! `agent-hooks replay <transcript|dir>... --against <policy>`: a policy change tried on real
//! sessions. Prints the summary (or `--json`), writes `--html`, and exits 1 when a flip of a
//! `--fail-on` kind happened, 2 when the replay could not be made.

use std::path::PathBuf;
use std::process::ExitCode;

use agent_hooks_replay::{FLIP_KINDS, FlipKind, PolicySpec, ReplayOptions};
use agent_hooks_runtime::Workspace;

/// What `replay` was asked for.
#[derive(Debug)]
pub(crate) struct Request {
    pub transcripts: Vec<PathBuf>,
    pub policy: Option<String>,
    pub against: String,
    pub json: bool,
    pub html: Option<PathBuf>,
    pub fail_on: Vec<String>,
    pub run_hooks: bool,
    pub judges: bool,
}

pub(crate) fn run(ws: &Workspace, request: Request) -> ExitCode {
    let fail_on = match fail_kinds(&request.fail_on) {
        Ok(kinds) => kinds,
        Err(message) => {
            eprintln!("agent-hooks replay: {message}");
            return ExitCode::from(2);
        }
    };
    let policy = match &request.policy {
        Some(text) => PolicySpec::parse(text),
        None => PolicySpec::Dir(ws.root().to_path_buf()),
    };
    let options = ReplayOptions::new(
        request.transcripts,
        ws.root().to_path_buf(),
        policy,
        PolicySpec::parse(&request.against),
    )
    .running(request.run_hooks, request.judges);
    // Sessions replay in parallel: one worker a core.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build();
    let report = match runtime {
        Ok(rt) => rt.block_on(agent_hooks_replay::replay(&options)),
        Err(e) => {
            eprintln!("agent-hooks replay: cannot start the async runtime: {e}");
            return ExitCode::from(2);
        }
    };
    let report = match report {
        Ok(report) => report,
        Err(e) => {
            eprintln!("agent-hooks replay: {e}");
            return ExitCode::from(2);
        }
    };
    if let Some(path) = &request.html
        && let Err(e) = std::fs::write(path, agent_hooks_replay::render_html(&report))
    {
        eprintln!("agent-hooks replay: cannot write {}: {e}", path.display());
        return ExitCode::from(2);
    }
    if request.json {
        println!("{}", report.to_json());
    } else {
        print!("{}", report.render());
    }
    let failed: Vec<String> = fail_on
        .iter()
        .map(|k| (k.as_str(), report.count(*k)))
        .filter(|(_, n)| *n > 0)
        .map(|(k, n)| format!("{n} {k}"))
        .collect();
    if failed.is_empty() {
        ExitCode::SUCCESS
    } else {
        eprintln!(
            "agent-hooks replay: --fail-on: {} flip{}",
            failed.join(", "),
            if failed.len() == 1 && failed[0].starts_with("1 ") {
                ""
            } else {
                "s"
            }
        );
        ExitCode::from(1)
    }
}

/// The kinds `--fail-on` names (each value may list several, comma-separated; `any` is all).
fn fail_kinds(values: &[String]) -> Result<Vec<FlipKind>, String> {
    let mut kinds = Vec::new();
    for name in values.iter().flat_map(|v| v.split(',')).map(str::trim) {
        if name == "any" {
            kinds.extend(FLIP_KINDS);
            continue;
        }
        match FlipKind::parse(name) {
            Some(kind) => kinds.push(kind),
            None => {
                return Err(format!(
                    "--fail-on: no flip kind \"{name}\" (kinds: any, {})",
                    FLIP_KINDS
                        .iter()
                        .map(|k| k.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
        }
    }
    Ok(kinds)
}
