//! The `agent-hooks` command: parses arguments and calls the library. Every behaviour lives in
//! the `agent_hooks` crate; this file only wires stdin, stdout and exit codes.

#![cfg_attr(not(test), warn(unused_crate_dependencies))]

mod claude;
mod fire;
mod guard;
mod serve;

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use agent_hooks::{Engine, Workspace};
use clap::{Parser, Subcommand};
use tracing_subscriber::filter::Targets;
use tracing_subscriber::prelude::*;

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
    /// Run the loopback HTTP sidecar (dispatch, self-approve, /hooks commands, hot reload).
    Serve {
        /// Loopback address to listen on (port 0 picks a free one).
        #[arg(long, default_value = serve::DEFAULT_LISTEN, value_name = "IP:PORT")]
        listen: String,
    },
    /// Claude Code bridge: read a Claude Code hook input on stdin, run this workspace's hooks,
    /// answer in Claude Code's format (workspace: --workspace, else $CLAUDE_PROJECT_DIR).
    ClaudeHook,
    /// Wire every mapped Claude Code event in .claude/settings.json to `claude-hook`.
    ClaudeInstall,
    /// Run a ready-made hook as a command hook: one payload on stdin (`event`, or Claude Code's
    /// `hook_event_name`), its answer on stdout.
    Guard {
        /// The ready-made hook (see `agent-hooks help`).
        name: String,
        /// The rules file (YAML); default: the built-in rules.
        #[arg(long, value_name = "FILE")]
        rules: Option<PathBuf>,
        /// Answer in the decision protocol (default) or in Claude Code's format.
        #[arg(long, value_enum, default_value_t = GuardFormat::Protocol)]
        format: GuardFormat,
        /// Print the default rules file and exit.
        #[arg(long)]
        print_rules: bool,
    },
    /// Install ready-made hooks by name, number (see `help`) or `all`; turns the master switch
    /// on and shows each one's answer to a sample event.
    Install {
        /// Leave the master switch as it is.
        #[arg(long)]
        no_enable: bool,
        #[arg(required = true, value_name = "NAME|NUMBER|all")]
        targets: Vec<String>,
    },
    /// The /hooks commands: list, on, off, doctor, approve, revoke, help.
    #[command(external_subcommand)]
    Hooks(Vec<String>),
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum GuardFormat {
    /// The decision protocol (what a shell hook prints).
    Protocol,
    /// Claude Code's hook output.
    Claude,
}

impl From<GuardFormat> for agent_hooks::guards::command::Format {
    fn from(format: GuardFormat) -> Self {
        match format {
            GuardFormat::Protocol => Self::Protocol,
            GuardFormat::Claude => Self::Claude,
        }
    }
}

fn main() -> ExitCode {
    // `target=level` directives (`warn`, `agent_hooks=debug`). A plain target filter rather
    // than an EnvFilter: the latter's regex machinery makes every regex in the process,
    // the guards' rules included, build a full DFA, which `agent-hooks guard` pays per call.
    let filter = std::env::var("AGENT_HOOKS_LOG")
        .ok()
        .and_then(|directives| directives.parse::<Targets>().ok())
        .unwrap_or_else(|| Targets::new().with_default(tracing::Level::WARN));
    tracing_subscriber::registry()
        .with(
            tracing_subscriber::fmt::layer()
                .with_writer(std::io::stderr)
                .with_filter(filter),
        )
        .init();
    let cli = Cli::parse();
    let ws = Workspace::resolve(cli.workspace.as_deref());
    match cli.command {
        Some(Command::Serve { listen }) => serve::run(ws, &listen),
        Some(Command::Fire { event }) => block_on(fire::run(ws, &event)),
        Some(Command::ClaudeHook) => {
            block_on(claude::hook(claude::workspace(cli.workspace.as_deref())))
        }
        Some(Command::ClaudeInstall) => claude::install(ws),
        // A guard is synchronous and runs on every tool call: no async runtime to start.
        Some(Command::Guard {
            name,
            rules,
            format,
            print_rules,
        }) => guard::run(ws, name, rules, format.into(), print_rules),
        Some(Command::Install { targets, no_enable }) => {
            block_on(guard::install(ws, &targets, no_enable))
        }
        Some(Command::Hooks(args)) => block_on(hooks(ws, &args)),
        None => block_on(hooks(ws, &[])),
    }
}

/// Runs a one-shot command on a single-threaded runtime: `fire` and the `/hooks` commands wait
/// on a few processes at most, and a small runtime keeps their start-up and memory low.
fn block_on(future: impl std::future::Future<Output = ExitCode>) -> ExitCode {
    match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt.block_on(future),
        Err(e) => {
            eprintln!("agent-hooks: cannot start the async runtime: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn hooks(ws: Workspace, args: &[String]) -> ExitCode {
    let engine = Engine::open(ws);
    // Colour and symbols only on a terminal (and never with NO_COLOR); pipes get plain text,
    // the same text a host gets from `commands::run_line`.
    let style = agent_hooks::commands::Style::for_terminal(std::io::stdout().is_terminal());
    let out = agent_hooks::commands::run_styled(&engine, args, style).await;
    print!("{}", out.text);
    ExitCode::from(u8::try_from(out.status).unwrap_or(1))
}
