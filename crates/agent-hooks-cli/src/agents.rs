//! `agent-hooks <agent>-hook`, `<agent>-install` and `<agent>-uninstall` (claude, codex,
//! gemini, cursor): the bridges from the shell. The agent runs `<agent>-hook` as a command hook; it answers in the
//! agent's format.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use agent_hooks_runtime::bridge::Agent;
use agent_hooks_runtime::decisions::Surface;
use agent_hooks_runtime::{Engine, OnFailure, Workspace, bridge};
use serde_json::Value;

/// Where a bridge call's workspace is, in this order: `--workspace`, `$AGENT_HOOKS_WORKSPACE`,
/// the agent's project directory (`$CLAUDE_PROJECT_DIR`, `$GEMINI_PROJECT_DIR`), the project
/// the input names (Cursor's first `workspace_roots`), else found from the input's `cwd` (else
/// this process's) up, as git finds `.git` (`docs/agents.md`). `Err` says why none was found,
/// for the message the agent shows.
fn bridge_workspace(agent: Agent, flag: Option<&Path>, input: &Value) -> Result<Workspace, String> {
    let named = |dir: PathBuf, from: &str| {
        let ws = Workspace::new(dir);
        if ws.root().is_dir() {
            Ok(ws)
        } else {
            Err(format!(
                "the workspace {} (from {from}) is not a directory",
                ws.root().display()
            ))
        }
    };
    if let Some(dir) = flag {
        return named(dir.to_path_buf(), "--workspace");
    }
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    if let Some(dir) = var(agent_hooks_runtime::WORKSPACE_ENV) {
        return named(PathBuf::from(dir), "$AGENT_HOOKS_WORKSPACE");
    }
    if let Some(name) = agent.home().project_dir_var()
        && let Some(dir) = var(name)
    {
        return named(PathBuf::from(dir), &format!("${name}"));
    }
    if let Some(root) = agent.home().input_workspace(input)
        && Path::new(root).is_dir()
    {
        return Ok(Workspace::new(PathBuf::from(root)));
    }
    let cwd = input
        .get("cwd")
        .and_then(Value::as_str)
        .map(PathBuf::from)
        .filter(|dir| dir.is_dir())
        .or_else(|| std::env::current_dir().ok());
    let Some(cwd) = cwd else {
        return Err("neither the hook input nor this process names a directory".into());
    };
    match Workspace::discover(&cwd) {
        Some(found) => Ok(found.workspace),
        None => Err(format!(
            "no directory from {} up holds a workspace marker ({}, or .git); run `agent-hooks {}-install` in the project, which names it with --workspace",
            cwd.display(),
            agent_hooks_runtime::workspace::MARKERS.join(", "),
            agent.name()
        )),
    }
}

/// `fire`'s workspace: `--workspace`, else `$AGENT_HOOKS_WORKSPACE`, else found from the
/// current directory up (a marker, else `.git`), else the current directory — with why no
/// workspace was found then, a lapse `fire` tells.
pub(crate) fn fire_workspace(flag: Option<&Path>) -> (Workspace, Option<String>) {
    let named = flag.is_some()
        || std::env::var_os(agent_hooks_runtime::WORKSPACE_ENV).is_some_and(|v| !v.is_empty());
    if named {
        return (Workspace::resolve(flag), None);
    }
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    match Workspace::discover(&cwd) {
        Some(found) => (found.workspace, None),
        None => (
            Workspace::resolve(None),
            Some(format!(
                "no directory from {} up holds a workspace marker ({}, or .git), and neither --workspace nor ${} names one",
                cwd.display(),
                agent_hooks_runtime::workspace::MARKERS.join(", "),
                agent_hooks_runtime::WORKSPACE_ENV
            )),
        ),
    }
}

/// `agent-hooks <agent>-hook`: one hook input on stdin, the answer in the agent's format on
/// stdout, its log on stderr, and the exit status the agent reads (`docs/agents.md`). It
/// always answers: input that cannot be read and a workspace that cannot be found are told
/// to the user like every other lapse, and denied with `--fail-closed`.
pub(crate) async fn hook(agent: Agent, flag: Option<&Path>, mode: OnFailure) -> ExitCode {
    let mut input = Vec::new();
    if let Err(e) = std::io::stdin().read_to_end(&mut input) {
        let block = mode == OnFailure::Block;
        let answer = agent.home().unread_answer(
            &format!(
                "agent-hooks could not read {}'s hook input, so no hook judged it: {e}",
                agent.label()
            ),
            block,
        );
        return emit(&answer);
    }
    // A team's policy service, when one is configured, answers instead of this machine.
    if let Some(answer) = crate::service::hook(agent, &input, mode).await {
        return emit(&answer);
    }
    // Read once: the workspace is found from the input's own fields, then the bridge
    // dispatches the same value.
    let read = bridge::json::read(&input);
    let located = read.as_ref().map_or(&Value::Null, |(value, _)| value);
    let answer = match bridge_workspace(agent, flag, located) {
        Ok(ws) => {
            // A sidecar serving this workspace has its configuration loaded already.
            let (served, note) = crate::forward::through_sidecar(agent, ws.root(), &input, mode);
            if let Some(answer) = served {
                return emit(&answer);
            }
            // One process per event: `prefork` hooks are run by the workspace's forkers.
            let engine = Engine::open(ws).with_workspace_forkers();
            let mut answer =
                bridge::answer_read(agent, Ok(&engine), read, mode, Surface::Bridge).await;
            if let Some(note) = note {
                if !answer.stderr.is_empty() {
                    answer.stderr.push('\n');
                }
                answer.stderr.push_str(&note);
            }
            answer
        }
        Err(why) => bridge::answer_read(agent, Err(&why), read, mode, Surface::Bridge).await,
    };
    emit(&answer)
}

/// Prints a bridge's answer and ends with its exit status.
fn emit(answer: &agent_hooks_runtime::bridge::AgentAnswer) -> ExitCode {
    if !answer.stdout.is_empty() {
        println!("{}", answer.stdout);
    }
    if !answer.stderr.is_empty() {
        eprintln!("{}", answer.stderr);
    }
    ExitCode::from(u8::try_from(answer.exit).unwrap_or(1))
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
             stops. Install it with `cargo install --locked --path crates/agent-hooks-cli` and run \
             {name}-install again.",
            exe.display(),
            name = agent.name(),
            label = agent.label(),
        );
        exe
    }
}

pub(crate) fn install(
    ws: Workspace,
    agent: Agent,
    http: Option<&str>,
    mode: OnFailure,
    user: bool,
) -> ExitCode {
    let me = format!("{}-install", agent.name());
    if !user_level_allowed(&ws, agent, &me, user) {
        return ExitCode::FAILURE;
    }
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
    if http.is_some() && std::env::var_os(bridge::HTTP_TOKEN_ENV).is_none_or(|v| v.is_empty()) {
        // The installed hooks send the token from the agent's environment: without it every
        // call is refused, and the agent shows that as an error while the action goes on.
        eprintln!(
            "agent-hooks {me}: note: ${var} is not set here; start {label} with it, e.g. {var}=\"$(cat <state dir>/sidecar.token)\" (docs/sidecar.md), or the sidecar refuses its calls",
            var = bridge::HTTP_TOKEN_ENV,
            label = agent.label(),
        );
    }
    match bridge::install_agent_with(&ws, agent, &wiring, mode) {
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
            for (event, why) in &report.left_out {
                println!(
                    "Not bridged: {event} ({why}); the workspace's hooks on it do not run from {label} over HTTP. Install without --http to bridge it with a command.",
                    label = agent.label()
                );
            }
            println!(
                "On failure: {}.",
                agent_hooks_runtime::lapse::mode(&Engine::open(ws.clone()), mode).describe()
            );
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
pub(crate) fn uninstall(ws: Workspace, agent: Agent, user: bool) -> ExitCode {
    if !user_level_allowed(&ws, agent, &format!("{}-uninstall", agent.name()), user) {
        return ExitCode::FAILURE;
    }
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

/// Whether `me` may edit `agent`'s file of `ws`: always for a project's file; for the user's
/// own configuration only with `--user`, and said either way, since it reaches every project.
fn user_level_allowed(ws: &Workspace, agent: Agent, me: &str, user: bool) -> bool {
    let Some(why) = bridge::user_level(ws, agent) else {
        return true;
    };
    if user {
        eprintln!("agent-hooks {me}: note: {why}; going ahead, as --user says.");
        return true;
    }
    eprintln!(
        "agent-hooks {me}: refused: {why}; the change would reach every project of yours. \
         Run it in the project (or name it with --workspace <project>), or add --user to \
         change the user-wide configuration. Nothing was written."
    );
    false
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
