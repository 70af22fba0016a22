//! `agent-hooks guard <name>` (a ready-made hook as a command hook) and `agent-hooks install`.
//! Both are thin: the behaviour is in `agent_hooks_runtime::guards`.

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use agent_hooks_runtime::guards::command::{self, Format, Request};
use agent_hooks_runtime::{Engine, Workspace};

/// Runs one guard on stdin. Called outside the async runtime: the guard is synchronous.
pub(crate) fn run(
    ws: Workspace,
    name: String,
    rules: Option<PathBuf>,
    format: Format,
    print_rules: bool,
) -> ExitCode {
    if print_rules {
        return match command::print_rules(&name) {
            Some(text) => {
                print!("{text}");
                ExitCode::SUCCESS
            }
            None => {
                eprintln!(
                    "agent-hooks guard: no ready-made hook \"{name}\" (known: {})",
                    agent_hooks_runtime::guards::names().join(", ")
                );
                ExitCode::from(2)
            }
        };
    }
    let mut input = Vec::new();
    if let Err(e) = std::io::stdin().read_to_end(&mut input) {
        eprintln!("agent-hooks guard {name}: cannot read the payload from stdin: {e}");
        return ExitCode::from(1);
    }
    let mut request = Request::new(name, ws);
    request.rules = rules;
    request.format = format;
    request.state_dir = std::env::var_os("STATE_DIR")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from);
    request.dry_run = std::env::var_os(agent_hooks_runtime::DRY_RUN_ENV).is_some_and(|v| v == "1");
    request.nested =
        std::env::var_os("HOOK_NAME").is_some() && std::env::var_os("HOOK_EVENT").is_some();
    let answer = command::run(&request, &input);
    // One write each: the answer is small, and a hook's stdout is read whole.
    let _ = std::io::stdout().lock().write_all(answer.stdout.as_bytes());
    let _ = std::io::stderr().lock().write_all(answer.stderr.as_bytes());
    ExitCode::from(u8::try_from(answer.exit).unwrap_or(1))
}

pub(crate) async fn install(ws: Workspace, targets: &[String], no_enable: bool) -> ExitCode {
    let engine = Engine::open(ws);
    // The same words `/hooks install` takes, so the flag is read in one place.
    let mut words = targets.to_vec();
    if no_enable {
        words.push("--no-enable".into());
    }
    let out = agent_hooks_runtime::commands::install(&engine, &words).await;
    print!("{}", out.text);
    ExitCode::from(u8::try_from(out.status).unwrap_or(1))
}
