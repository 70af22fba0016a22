//! `agent-hooks claude-hook` and `agent-hooks claude-install`: the Claude Code bridge from the
//! shell. Claude Code runs `claude-hook` as a command hook; it answers in Claude Code's format.

use std::io::Read;
use std::path::Path;
use std::process::ExitCode;

use agent_hooks::{Engine, Workspace, bridge};
use serde_json::Value;

/// The workspace of a bridge call: `--workspace`, else Claude Code's project directory, else the
/// usual resolution.
pub(crate) fn workspace(flag: Option<&Path>) -> Workspace {
    match (flag, std::env::var_os("CLAUDE_PROJECT_DIR")) {
        (Some(dir), _) => Workspace::new(dir),
        (None, Some(dir)) if !dir.is_empty() => Workspace::new(std::path::PathBuf::from(dir)),
        _ => Workspace::resolve(None),
    }
}

pub(crate) async fn hook(ws: Workspace) -> ExitCode {
    let mut input = Vec::new();
    if let Err(e) = std::io::stdin().read_to_end(&mut input) {
        eprintln!("agent-hooks claude-hook: cannot read the hook input: {e}");
        return ExitCode::from(1);
    }
    let input: Value = match serde_json::from_slice(&input) {
        Ok(v) => v,
        Err(e) => {
            // Exit 1 is a non-blocking error for Claude Code: the action proceeds, the user sees it.
            eprintln!("agent-hooks claude-hook: the hook input is not JSON: {e}");
            return ExitCode::from(1);
        }
    };
    let engine = Engine::open(ws);
    match bridge::handle(&engine, &input).await {
        Ok(answer) => {
            if !answer.stdout.is_empty() {
                println!("{}", answer.stdout);
            }
            if !answer.stderr.is_empty() {
                eprintln!("{}", answer.stderr);
            }
            ExitCode::from(u8::try_from(answer.exit).unwrap_or(1))
        }
        Err(e) => {
            eprintln!("agent-hooks claude-hook: {e}");
            ExitCode::from(1)
        }
    }
}

pub(crate) fn install(ws: Workspace) -> ExitCode {
    let exe = match std::env::current_exe() {
        Ok(exe) => exe,
        Err(e) => {
            eprintln!("agent-hooks claude-install: cannot find this program's path: {e}");
            return ExitCode::FAILURE;
        }
    };
    match bridge::install(&ws, &exe) {
        Ok(report) => {
            if report.added.is_empty() {
                println!(
                    "{}: already bridged for every mapped event; nothing changed.",
                    report.path
                );
            } else {
                println!(
                    "{}: Claude Code now runs this workspace's hooks through agent-hooks on {}.",
                    report.path,
                    report.added.join(", ")
                );
                if !report.already.is_empty() {
                    println!("Already bridged: {}.", report.already.join(", "));
                }
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("agent-hooks claude-install: {e}");
            ExitCode::FAILURE
        }
    }
}
