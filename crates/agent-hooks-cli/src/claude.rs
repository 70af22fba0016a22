//! `agent-hooks claude-hook`, `claude-install` and `claude-uninstall`: the Claude Code bridge
//! from the shell. Claude Code runs `claude-hook` as a command hook; it answers in Claude Code's format.

use std::io::Read;
use std::path::{Path, PathBuf};
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
    // One process per event: `prefork` hooks are run by the workspace's forkers.
    let engine = Engine::open(ws).with_workspace_forkers();
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

/// What the user would type, when it runs this very program; else the absolute path, which
/// a `cargo clean` or a rebuild elsewhere can take away.
fn command_program(exe: PathBuf) -> PathBuf {
    if same_program(&on_path("agent-hooks"), &exe) {
        PathBuf::from("agent-hooks")
    } else {
        eprintln!(
            "agent-hooks claude-install: warning: `agent-hooks` on PATH is not this program, so \
             Claude Code will run {} by its path; if that file goes (cargo clean), the bridge \
             stops. Install it with `cargo install --path crates/agent-hooks-cli` and run \
             claude-install again.",
            exe.display()
        );
        exe
    }
}

pub(crate) fn install(ws: Workspace, http: Option<&str>) -> ExitCode {
    let wiring = match http {
        Some(base) => bridge::Wiring::Http(base.to_owned()),
        None => match std::env::current_exe() {
            Ok(exe) => bridge::Wiring::Command(command_program(exe)),
            Err(e) => {
                eprintln!("agent-hooks claude-install: cannot find this program's path: {e}");
                return ExitCode::FAILURE;
            }
        },
    };
    match bridge::install_wired(&ws, &wiring) {
        Ok(report) => {
            let unreachable = bridge::unreachable_hooks(&Engine::open(ws.clone()));
            if report.added.is_empty() && report.updated.is_empty() {
                println!(
                    "{}: already bridged for every mapped event; nothing changed.",
                    report.path
                );
            } else {
                if !report.added.is_empty() {
                    println!(
                        "{}: Claude Code now runs this workspace's hooks through agent-hooks on {}.",
                        report.path,
                        report.added.join(", ")
                    );
                }
                if !report.updated.is_empty() {
                    let target = match &wiring {
                        bridge::Wiring::Command(program) => program.display().to_string(),
                        bridge::Wiring::Http(base) => base.clone(),
                    };
                    println!(
                        "{}: the bridge entries of {} now run {target}.",
                        report.path,
                        report.updated.join(", "),
                    );
                }
                if !report.already.is_empty() {
                    println!("Already bridged: {}.", report.already.join(", "));
                }
            }
            for hook in unreachable {
                println!(
                    "warning: {hook}: Claude Code never reaches this event through the bridge; the hook does nothing there."
                );
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("agent-hooks claude-install: {e}");
            ExitCode::FAILURE
        }
    }
}

/// `agent-hooks claude-uninstall`: removes the bridge entries, keeping every other setting.
pub(crate) fn uninstall(ws: Workspace) -> ExitCode {
    match bridge::uninstall(&ws) {
        Ok((path, removed)) if removed.is_empty() => {
            println!("{path}: no bridge entries; nothing changed.");
            ExitCode::SUCCESS
        }
        Ok((path, removed)) => {
            println!(
                "{path}: removed the bridge from {}; Claude Code no longer runs this workspace's hooks.",
                removed.join(", ")
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("agent-hooks claude-uninstall: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The first executable file called `name` in a directory of `PATH`.
fn on_path(name: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|p| {
            std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}

/// Whether `found` is the same file as `exe` (symlinks resolved).
fn same_program(found: &Option<PathBuf>, exe: &Path) -> bool {
    let Some(found) = found else { return false };
    match (std::fs::canonicalize(found), std::fs::canonicalize(exe)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}
