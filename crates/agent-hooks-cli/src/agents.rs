//! `agent-hooks <agent>-hook`, `<agent>-install` and `<agent>-uninstall` (claude, codex,
//! gemini, cursor): the bridges from the shell. The agent runs `<agent>-hook` as a command hook; it answers in the
//! agent's format.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use agent_hooks::bridge::Agent;
use agent_hooks::{Engine, Workspace, bridge};
use serde_json::Value;

/// The workspace of a bridge call: `--workspace`, else the agent's project directory, else the
/// usual resolution.
pub(crate) fn workspace(agent: Agent, flag: Option<&Path>) -> Workspace {
    let project = agent.home().project_dir_var().and_then(std::env::var_os);
    match (flag, project) {
        (Some(dir), _) => Workspace::new(dir),
        (None, Some(dir)) if !dir.is_empty() => Workspace::new(std::path::PathBuf::from(dir)),
        _ => Workspace::resolve(None),
    }
}

/// Whether the user named the workspace (`--workspace`, `AGENT_HOOKS_WORKSPACE`, the agent's
/// project variable), so the hook input's own idea of it does not apply.
pub(crate) fn named(agent: Agent, flag: Option<&Path>) -> bool {
    let set = |var: &str| std::env::var_os(var).is_some_and(|v| !v.is_empty());
    flag.is_some()
        || set(agent_hooks::WORKSPACE_ENV)
        || agent.home().project_dir_var().is_some_and(set)
}

/// The workspace a hook input names, for an agent that does not run its hooks from the
/// project (Cursor runs them from the directory of `hooks.json`).
fn input_workspace(agent: Agent, input: &Value) -> Option<Workspace> {
    let root = agent.home().input_workspace(input)?;
    Path::new(root)
        .is_dir()
        .then(|| Workspace::new(PathBuf::from(root)))
}

pub(crate) async fn hook(ws: Workspace, agent: Agent, named: bool) -> ExitCode {
    let me = agent.hook_command();
    let mut input = Vec::new();
    if let Err(e) = std::io::stdin().read_to_end(&mut input) {
        eprintln!("agent-hooks {me}: cannot read the hook input: {e}");
        unread(&ws, agent, &format!("cannot read the hook input: {e}"));
        return ExitCode::from(1);
    }
    let input: Value = match serde_json::from_slice(&input) {
        Ok(v) => v,
        Err(e) => {
            // Exit 1 is a non-blocking error for every agent: the action proceeds, the user sees it.
            eprintln!("agent-hooks {me}: the hook input is not JSON: {e}");
            unread(&ws, agent, &format!("the hook input is not JSON: {e}"));
            return ExitCode::from(1);
        }
    };
    let ws = match input_workspace(agent, &input) {
        Some(from_input) if !named => from_input,
        _ => ws,
    };
    // One process per event: `prefork` hooks are run by the workspace's forkers.
    let engine = Engine::open(ws).with_workspace_forkers();
    match bridge::handle_agent(agent, &engine, &input).await {
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
            eprintln!("agent-hooks {me}: {e}");
            ExitCode::from(1)
        }
    }
}

/// Records a bridge call that failed before its input could be dispatched in the workspace's
/// decision log, for `audit`.
fn unread(ws: &Workspace, agent: Agent, why: &str) {
    agent_hooks::decisions::record_unread_call(
        ws,
        agent_hooks::decisions::Surface::Bridge,
        agent,
        None,
        why,
    );
}

/// What the user would type, when it runs this very program; else the absolute path, which
/// a `cargo clean` or a rebuild elsewhere can take away.
fn command_program(agent: Agent, exe: PathBuf) -> PathBuf {
    if same_program(&on_path("agent-hooks"), &exe) {
        PathBuf::from("agent-hooks")
    } else {
        eprintln!(
            "agent-hooks {name}-install: warning: `agent-hooks` on PATH is not this program, so \
             {label} will run {} by its path; if that file goes (cargo clean), the bridge \
             stops. Install it with `cargo install --path crates/agent-hooks-cli` and run \
             {name}-install again.",
            exe.display(),
            name = agent.name(),
            label = agent.label(),
        );
        exe
    }
}

pub(crate) fn install(ws: Workspace, agent: Agent, http: Option<&str>) -> ExitCode {
    let me = format!("{}-install", agent.name());
    let wiring = match http {
        Some(base) => bridge::Wiring::Http(base.to_owned()),
        None => match std::env::current_exe() {
            Ok(exe) => bridge::Wiring::Command(command_program(agent, exe)),
            Err(e) => {
                eprintln!("agent-hooks {me}: cannot find this program's path: {e}");
                return ExitCode::FAILURE;
            }
        },
    };
    match bridge::install_agent(&ws, agent, &wiring) {
        Ok(report) => {
            let unreachable = bridge::unreachable_hooks(&Engine::open(ws.clone()), agent);
            if report.added.is_empty() && report.updated.is_empty() {
                println!(
                    "{}: already bridged for every mapped event; nothing changed.",
                    report.path
                );
            } else {
                if !report.added.is_empty() {
                    println!(
                        "{}: {} now runs this workspace's hooks through agent-hooks on {}.",
                        report.path,
                        agent.label(),
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
                    "warning: {hook}: {} never reaches this event through the bridge; the hook does nothing there.",
                    agent.label()
                );
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("agent-hooks {me}: {e}");
            ExitCode::FAILURE
        }
    }
}

/// `agent-hooks <agent>-uninstall`: removes the bridge entries, keeping every other setting.
pub(crate) fn uninstall(ws: Workspace, agent: Agent) -> ExitCode {
    match bridge::uninstall_agent(&ws, agent) {
        Ok((path, removed)) if removed.is_empty() => {
            println!("{path}: no bridge entries; nothing changed.");
            ExitCode::SUCCESS
        }
        Ok((path, removed)) => {
            println!(
                "{path}: removed the bridge from {}; {} no longer runs this workspace's hooks.",
                removed.join(", "),
                agent.label()
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("agent-hooks {}-uninstall: {e}", agent.name());
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
