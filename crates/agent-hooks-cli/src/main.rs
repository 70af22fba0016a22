//! The `agent-hooks` command: parses arguments and calls the library. Every behaviour lives in
//! the `agent_hooks` crate; this file only wires stdin, stdout and exit codes.

mod fire;

use std::path::PathBuf;
use std::process::ExitCode;

use agent_hooks::{Engine, Workspace};
use clap::{Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(
    name = "agent-hooks",
    version,
    about = "A hook runtime for AI agents",
    disable_help_subcommand = true
)]
struct Cli {
    /// The workspace directory (default: $AGENT_HOOKS_WORKSPACE, else the current directory).
    #[arg(long, global = true, value_name = "DIR")]
    workspace: Option<PathBuf>,

    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Dispatch one event: the payload (a JSON object) on stdin, the outcome on stdout.
    Fire {
        /// The canonical event name, e.g. pre_tool_call.
        event: String,
    },
    /// The /hooks commands: list, on, off, doctor, approve, revoke, help.
    #[command(external_subcommand)]
    Hooks(Vec<String>),
}

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("AGENT_HOOKS_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .with_writer(std::io::stderr)
        .init();
    let cli = Cli::parse();
    let ws = Workspace::resolve(cli.workspace.as_deref());
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("agent-hooks: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    runtime.block_on(async move {
        match cli.command {
            Some(Command::Fire { event }) => fire::run(ws, &event).await,
            Some(Command::Hooks(args)) => hooks(ws, &args).await,
            None => hooks(ws, &[]).await,
        }
    })
}

async fn hooks(ws: Workspace, args: &[String]) -> ExitCode {
    let engine = Engine::open(ws);
    let out = agent_hooks::commands::run(&engine, args).await;
    print!("{}", out.text);
    ExitCode::from(u8::try_from(out.status).unwrap_or(1))
}
