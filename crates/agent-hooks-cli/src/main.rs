//! The `agent-hooks` command: parses arguments and calls the library. Every behaviour lives in
//! the `agent_hooks_runtime` crate; this file only wires stdin, stdout and exit codes.

#![cfg_attr(not(test), warn(unused_crate_dependencies))]
// On glibc Linux the entry point is `startup::main`: std's own start-up costs a one-shot guard
// more than it gives it (see startup.rs). Every other target starts at `main` below.
#![cfg_attr(all(not(test), target_os = "linux", target_env = "gnu"), no_main)]

mod agents;
mod ahp;
mod audit;
mod bundle;
mod convert;
mod explain;
mod fire;
mod forward;
mod guard;
mod log;
mod logging;
mod replay;
mod serve;
mod service;
#[cfg(all(target_os = "linux", target_env = "gnu"))]
mod startup;
mod test;
mod token;

use std::ffi::OsString;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use agent_hooks_runtime::bridge::Agent;
use agent_hooks_runtime::{Engine, Workspace};
use agent_hooks_server::ServeOptions;
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

const ABOUT: &str =
    "A hook runtime for AI agents: run your own hooks at an agent's lifecycle points";
const GUARD_ABOUT: &str =
    "Run a ready-made hook as a command hook (payload on stdin, answer on stdout)";
const GUARD_LONG_ABOUT: &str =
    "Run a ready-made hook as a command hook (payload on stdin, answer on stdout).

The payload names its event in `event`, or in Claude Code's `hook_event_name`.";

#[derive(Debug, Parser)]
#[command(name = "agent-hooks", version, about = ABOUT, long_about = None)]
struct Cli {
    /// The workspace directory (default: $AGENT_HOOKS_WORKSPACE, else the current directory;
    /// `fire` and the `*-hook` bridges look further, as their help says).
    #[arg(long, global = true, value_name = "DIR")]
    workspace: Option<PathBuf>,

    #[command(subcommand)]
    command: Option<Command>,
}

/// The command line of `agent-hooks guard` alone: `Cli` with no other command. A guard runs
/// as a new process on every tool call, and defining the twenty other commands (and copying
/// `--workspace` into each) cost it more than its own work on a short command. Only a
/// successful parse is taken from it; anything else (an error, `--version`) goes to `Cli`,
/// so every message is the full command line's. A test keeps the two definitions equal.
#[derive(Debug, Parser)]
#[command(name = "agent-hooks", version, about = ABOUT, long_about = None)]
struct GuardCli {
    /// The workspace directory (default: $AGENT_HOOKS_WORKSPACE, else the current directory;
    /// `fire` and the `*-hook` bridges look further, as their help says).
    #[arg(long, global = true, value_name = "DIR")]
    workspace: Option<PathBuf>,

    #[command(subcommand)]
    command: GuardOnly,
}

#[derive(Debug, Subcommand)]
enum GuardOnly {
    #[command(about = GUARD_ABOUT, long_about = GUARD_LONG_ABOUT)]
    Guard(GuardArgs),
}

// The arguments of `agent-hooks guard` (its help text is `GUARD_ABOUT`).
#[derive(Debug, Clone, PartialEq, clap::Args)]
struct GuardArgs {
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
}

/// `defer`: each command's arguments are defined only when that command is parsed (or help,
/// completions or the manual need them all), so a one-shot `agent-hooks guard` does not build
/// the definitions of twenty other commands first.
#[derive(Debug, Subcommand)]
#[command(defer = true)]
enum Command {
    /// Show the master switch, the config files, every hook and its health (the default).
    List {
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Run each approved hook once on a sample payload; exits 1 when anything is broken.
    Doctor {
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Turn the master switch on: approved shell and Claude Code hooks run.
    On,
    /// Turn the master switch off: no shell or Claude Code hook runs.
    Off,
    /// Approve a declared command, for every event it is declared on or for one event.
    #[command(
        after_help = "Examples: agent-hooks approve hooks/guard.sh\n          agent-hooks approve guard                           (the hook's name)\n          agent-hooks approve pre_tool_call ./hooks/guard.sh  (one event; paths from the workspace)"
    )]
    Approve {
        /// An optional event (default: every event the command is declared on), then the
        /// declared command: as declared (quote it when it has spaces), with its paths spelt
        /// another way (absolute, ./, from the workspace), or the hook's name.
        #[arg(
            value_name = "[EVENT] COMMAND",
            required = true,
            num_args = 1..,
            allow_hyphen_values = true,
            trailing_var_arg = true
        )]
        words: Vec<String>,
    },
    /// Remove every approval of a command.
    Revoke {
        /// The command exactly as declared (quote it when it has spaces).
        #[arg(
            value_name = "COMMAND",
            required = true,
            num_args = 1..,
            allow_hyphen_values = true,
            trailing_var_arg = true
        )]
        command: Vec<String>,
    },
    /// Show how security_guard reads a shell command: each simple command, the program that
    /// runs after unwrapping, its effects, and every rule that fired or nearly fired.
    #[command(
        after_help = "Uses the workspace's hooks/security_guard.yaml when installed, the defaults otherwise.\n\nExample: agent-hooks explain 'sudo rm -rf /'"
    )]
    Explain {
        /// The shell command, as the agent would run it (quote it).
        command: String,
        /// The directory the command runs in (default: the workspace).
        #[arg(long, value_name = "DIR")]
        cwd: Option<PathBuf>,
        /// Print the explanation as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Install ready-made hooks by name, number (see `agent-hooks help`) or `all`.
    Install {
        /// Leave the master switch as it is.
        #[arg(long)]
        no_enable: bool,
        /// Opt-in rule packs to turn on in security_guard's rules file (`strict,database`).
        #[arg(long, value_name = "PACK,...")]
        pack: Vec<String>,
        #[arg(required = true, value_name = "NAME|NUMBER|all")]
        targets: Vec<String>,
    },
    /// Dispatch one event: the payload (a JSON object) on stdin, the outcome on stdout.
    ///
    /// The workspace is --workspace, else $AGENT_HOOKS_WORKSPACE, else the nearest directory
    /// holding a workspace marker from the current directory up. At a terminal it says what
    /// it is waiting for: type the JSON object, then Ctrl-D.
    #[command(
        after_help = "Example: echo '{\"tool_name\": \"bash\", \"tool_input\": {\"command\": \"ls\"}}' | agent-hooks fire pre_tool_call"
    )]
    Fire {
        /// The canonical event name, e.g. pre_tool_call (see `agent-hooks help`).
        event: String,
        /// Indent the outcome (the default when stdout is a terminal).
        #[arg(long)]
        pretty: bool,
        /// Fail closed: when the policy cannot be fully evaluated, block where the event can
        /// (as `on_failure: block` in config/agent.yaml does).
        #[arg(long)]
        fail_closed: bool,
    },
    /// Run one background (async) hook that `fire` handed over, to its end (internal).
    #[command(hide = true)]
    BackgroundHook {
        /// The ticket `fire` wrote under claude-async/tickets/ of the runtime's directory.
        ticket: PathBuf,
    },
    /// Show recent records of logs/events.jsonl: blocks, asks, rewrites, trust skips, failures.
    #[command(
        after_help = "Examples:\n  agent-hooks log --decision block\n  agent-hooks log --hook guard --follow"
    )]
    Log {
        /// How many of the most recent matching records to show.
        #[arg(short = 'n', long, default_value_t = 20, value_name = "N")]
        last: usize,
        /// Only the records of this hook (its name).
        #[arg(long, value_name = "NAME")]
        hook: Option<String>,
        /// Only the records of this event, e.g. pre_tool_call.
        #[arg(long, value_name = "EVENT")]
        event: Option<String>,
        /// Only the records of this type, e.g. hook_timeout (docs/troubleshooting.md).
        #[arg(long = "type", value_name = "TYPE")]
        kind: Option<String>,
        /// Only hooks' decisions of this kind (skip: kept from running by the trust gate).
        #[arg(long, value_name = "DECISION", value_parser = clap::builder::PossibleValuesParser::new(log::decision_names()))]
        decision: Option<String>,
        /// Print the records as they are (one JSON object a line).
        #[arg(long)]
        json: bool,
        /// Keep printing records as they are appended (Ctrl-C stops).
        #[arg(long, short = 'f')]
        follow: bool,
    },
    /// Prove a session's tool calls were seen by a hook: each call in the transcript matched to
    /// its line in the decision log.
    ///
    /// Reads Claude Code's session JSONL (~/.claude/projects/<project>/<session>.jsonl, with its
    /// subagents' files), Codex's rollout JSONL (~/.codex/sessions/.../rollout-*.jsonl), Gemini
    /// CLI's saved chat (~/.gemini/tmp/<hash>/chats/session-*.json) or open-strix's
    /// logs/events.jsonl.
    /// Names every call no hook saw, or saw with a lapse.
    #[command(
        after_help = "Exit status: 0 every call seen, 1 some call not seen or seen with a lapse, 2 the transcript or log cannot be read.\n\nExample: agent-hooks audit ~/.claude/projects/-home-me-proj/0b4e….jsonl"
    )]
    Audit {
        /// The transcript file(s) of one session (a Codex subagent's rollout is a file of its own).
        #[arg(required = true, value_name = "TRANSCRIPT")]
        transcripts: Vec<PathBuf>,
        /// The decision log to match against (default: the workspace's, as config/agent.yaml
        /// `logs.decisions` names it).
        #[arg(long, value_name = "FILE")]
        log: Option<PathBuf>,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Replay real session transcripts under two policies and report every decision that
    /// would change (the flips).
    ///
    /// Reads Claude Code's session JSONL, Codex's rollout JSONL, Gemini CLI's saved chats and
    /// open-strix's logs/events.jsonl (files, or directories searched). Each policy is
    /// evaluated as declared, in a scratch copy: built-in guards and rule packs run; LLM judges
    /// only with --judges; command and HTTP hooks only with --run-hooks. See docs/replay.md.
    #[command(
        after_help = "Exit status: 0 done, 1 a flip of a --fail-on kind, 2 a transcript or policy cannot be read.\n\nExample: agent-hooks replay ~/.claude/projects/-home-me-proj/ --against HEAD --fail-on block-to-allow"
    )]
    Replay(replay::Request),
    /// Run one hook on one payload (stdin) and explain its answer; the exit status is its verdict.
    ///
    /// The hook is named as `list` shows it, or by its command, URL or builtin:<name>. It runs
    /// as a trial: built-in guards keep no state or records, command hooks get
    /// AGENT_HOOKS_DRY_RUN=1, nothing is logged. A hook the trust gate would refuse (not
    /// approved, changed since approval) is not run unless --run-unapproved says so.
    #[command(
        after_help = "Exit status: 0 continue, 1 block, 2 bad usage, 3 ask, 4 the hook failed (the action would go on), 5 not run: not trusted.\n\nExample, once `agent-hooks install security_guard` has declared it:\n  echo '{\"tool_name\": \"bash\", \"tool_input\": {\"command\": \"rm -rf /\"}}' | agent-hooks test security_guard --event pre_tool_call"
    )]
    Test {
        /// The hook: its name, command, URL or builtin:<name>.
        hook: String,
        /// The event to run it for (default: the payload's "event", else the hook's only event).
        #[arg(long, value_name = "EVENT")]
        event: Option<String>,
        /// Run it even though the trust gate would refuse it. It runs with your privileges:
        /// read it first.
        #[arg(long)]
        run_unapproved: bool,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Run the sidecar (dispatch, self-approve, commands, hot reload) for its owner only.
    ///
    /// By default on a Unix socket that only your uid (or the allow list's) may use; with
    /// --listen on loopback TCP, where every route but GET /v1/health needs the bearer token of
    /// the token file. See docs/sidecar.md. With --tls-cert (or --tokens) it is a team service
    /// instead: any address, TLS, the token store's roles; see docs/deploy.md.
    Serve {
        /// Listen on loopback TCP instead of the socket (port 0 picks a free one; --listen
        /// alone is 127.0.0.1:8787). Callers need the token.
        #[arg(
            long,
            value_name = "IP:PORT",
            num_args = 0..=1,
            default_missing_value = serve::DEFAULT_LISTEN,
            conflicts_with = "socket"
        )]
        listen: Option<String>,
        /// The Unix socket to listen on (default: this workspace's socket in your runtime or
        /// state directory, printed on the ready line).
        #[arg(long, value_name = "PATH")]
        socket: Option<PathBuf>,
        /// Write a new token first (the old one stops working at every running sidecar).
        /// Without --listen: write it and exit.
        #[arg(long, conflicts_with = "socket")]
        rotate_token: bool,
        /// With --listen: accept TCP requests without a token. Any user of this machine can
        /// then approve hooks and turn them off; said at start and in GET /v1/health.
        #[arg(long, requires = "listen", conflicts_with = "rotate_token")]
        insecure_no_token: bool,
        /// Seconds a client may take to send a whole request body (then 408).
        #[arg(long, value_name = "SECS", default_value = "10")]
        body_timeout: f64,
        /// Connections one client (a uid on the socket, an address on TCP) may hold open.
        #[arg(long, value_name = "N", default_value_t = agent_hooks_server::DEFAULT_MAX_CLIENT_CONNECTIONS)]
        max_client_connections: usize,
        /// The host fires pre_startup, post_startup, pre_shutdown and post_shutdown itself:
        /// do not fire them on start and on SIGTERM (also `sidecar.host_lifecycle: true` in
        /// config/agent.yaml).
        #[arg(long)]
        host_lifecycle: bool,
        /// Stop, as on SIGTERM, when the process that started serve dies.
        #[arg(long)]
        exit_with_parent: bool,
        /// Stop, as on SIGTERM, when stdin reaches its end (the host closed its pipe or died).
        #[arg(long)]
        exit_on_stdin_eof: bool,
        /// How log lines are written on stderr: text, or json (one object a line, for a log
        /// collector); default: $AGENT_HOOKS_LOG_FORMAT, else text.
        #[arg(long, value_name = "FORMAT")]
        log_format: Option<logging::Format>,
        #[command(flatten)]
        team: serve::TeamArgs,
    },
    /// Build, sign and verify policy bundles, and make their signing keys.
    #[command(subcommand)]
    Bundle(bundle::Action),
    /// Manage the team service's tokens: add (prints the token once), list, revoke.
    #[command(subcommand)]
    Token(token::Action),
    #[command(about = GUARD_ABOUT, long_about = GUARD_LONG_ABOUT)]
    Guard(GuardArgs),
    /// Serve this workspace as an Agent Hooks Protocol backend on stdio.
    ///
    /// One JSON-RPC message a line on stdin, its answer a line on stdout, until stdin ends:
    /// register it with a harness as a stdio backend (persistent or per event). See
    /// docs/standards.md.
    AhpServe,
    /// The Claude Code bridge: run this workspace's hooks for one Claude Code hook input.
    ///
    /// Reads the input on stdin and answers in Claude Code's format. The workspace is
    /// --workspace, else $AGENT_HOOKS_WORKSPACE, else $CLAUDE_PROJECT_DIR, else the nearest
    /// directory holding a workspace marker from the input's cwd up.
    ClaudeHook(BridgeArgs),
    /// Wire every mapped Claude Code event in .claude/settings.json to `claude-hook`.
    ClaudeInstall {
        /// Wire them as Claude Code HTTP hooks to a running `agent-hooks serve` at this base
        /// URL (e.g. http://127.0.0.1:8377) instead: no process start per event. Alone, the
        /// team service's URL ($AGENT_HOOKS_URL, or url in ~/.config/agent-hooks/service.json).
        #[arg(long, value_name = "URL", num_args = 0..=1, default_missing_value = "")]
        http: Option<String>,
        #[command(flatten)]
        mode: InstallArgs,
    },
    /// Remove the `claude-hook` entries from .claude/settings.json (everything else stays).
    ClaudeUninstall(UninstallArgs),
    /// The Codex bridge: run this workspace's hooks for one Codex hook input.
    ///
    /// Reads the input on stdin and answers in Codex's format (Claude Code's, without the
    /// answers Codex refuses). The workspace is --workspace, else $AGENT_HOOKS_WORKSPACE, else
    /// the nearest directory holding a workspace marker from the input's cwd up.
    CodexHook(BridgeArgs),
    /// Wire every mapped Codex event in .codex/hooks.json to `codex-hook` (the user's own
    /// hooks stay).
    CodexInstall(InstallArgs),
    /// Remove the `codex-hook` entries from .codex/hooks.json (everything else stays).
    CodexUninstall(UninstallArgs),
    /// The Gemini CLI bridge: run this workspace's hooks for one Gemini CLI hook input.
    ///
    /// Reads the input on stdin and answers in Gemini CLI's format. The workspace is
    /// --workspace, else $AGENT_HOOKS_WORKSPACE, else $GEMINI_PROJECT_DIR, else the nearest
    /// directory holding a workspace marker from the input's cwd up.
    GeminiHook(BridgeArgs),
    /// Wire every mapped Gemini CLI event in .gemini/settings.json to `gemini-hook` (the
    /// user's settings and hooks stay).
    GeminiInstall(InstallArgs),
    /// Remove the `gemini-hook` entries from .gemini/settings.json (everything else stays).
    GeminiUninstall(UninstallArgs),
    /// The Cursor bridge: run this workspace's hooks for one Cursor hook input.
    ///
    /// Reads the input on stdin and answers in Cursor's format. The workspace is --workspace,
    /// else $AGENT_HOOKS_WORKSPACE, else the input's first workspace root, else the nearest
    /// directory holding a workspace marker from the input's cwd up.
    CursorHook(BridgeArgs),
    /// Wire every mapped Cursor event in .cursor/hooks.json to `cursor-hook` (the user's own
    /// hooks stay).
    CursorInstall(InstallArgs),
    /// Remove the `cursor-hook` entries from .cursor/hooks.json (everything else stays).
    CursorUninstall(UninstallArgs),
    /// The GitHub Copilot bridge: run this workspace's hooks for one Copilot hook input.
    ///
    /// Reads the input on stdin and answers in Copilot's format. The workspace is
    /// --workspace, else $AGENT_HOOKS_WORKSPACE, else the nearest directory holding a
    /// workspace marker from the input's cwd up.
    CopilotHook(BridgeArgs),
    /// Wire every mapped Copilot event in .github/hooks/agent-hooks.json to `copilot-hook`
    /// (the user's own hooks stay).
    CopilotInstall(InstallArgs),
    /// Remove the `copilot-hook` entries from .github/hooks/agent-hooks.json, restoring the
    /// file as it was before `copilot-install` when nothing else changed in it.
    CopilotUninstall(UninstallArgs),
    /// The Windsurf bridge: run this workspace's hooks for one Cascade hook input.
    ///
    /// Reads the input on stdin and answers as Cascade reads hooks (exit 2 blocks a
    /// pre-hook). The workspace is --workspace, else $AGENT_HOOKS_WORKSPACE, else the nearest
    /// directory holding a workspace marker from the input's cwd up.
    WindsurfHook(BridgeArgs),
    /// Wire every mapped Cascade event in .windsurf/hooks.json to `windsurf-hook` (the user's
    /// own hooks stay).
    WindsurfInstall(InstallArgs),
    /// Remove the `windsurf-hook` entries from .windsurf/hooks.json, restoring the file as it
    /// was before `windsurf-install` when nothing else changed in it.
    WindsurfUninstall(UninstallArgs),
    /// Rewrite one agent's hook configuration as another's (claude, codex, gemini, cursor,
    /// copilot, windsurf, or agent-hooks for this workspace's config/shell_hooks.yaml).
    ///
    /// Prints the target's configuration on stdout; every event, handler or field with no
    /// equivalent is reported on stderr, never dropped.
    Convert {
        /// The agent the configuration is written for.
        #[arg(long, value_name = "AGENT")]
        from: String,
        /// The agent to write it for.
        #[arg(long, value_name = "AGENT")]
        to: String,
        /// The file to read; default: the source agent's project file in the workspace.
        file: Option<PathBuf>,
    },
    /// Print a shell completion script for bash, zsh, fish, elvish or powershell.
    ///
    /// e.g. `agent-hooks completions bash > ~/.local/share/bash-completion/completions/agent-hooks`
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Print the manual page (roff), e.g. `agent-hooks man | man -l -`
    ///
    /// With a command, that command's page (agent-hooks-<command>(1)), e.g.
    /// `agent-hooks man approve | man -l -`.
    Man {
        /// The command whose page to print (default: the page of agent-hooks itself).
        command: Option<String>,
    },
}

// The arguments of an agent's bridge (`claude-hook`, ...).
#[derive(Debug, Clone, Copy, PartialEq, clap::Args)]
struct BridgeArgs {
    /// Fail closed: when the policy cannot be fully evaluated (a configuration error, no
    /// workspace, unreadable input, a hook that failed or was not trusted), deny the action
    /// where the event can block. Holds even when config/agent.yaml does not load.
    #[arg(long)]
    fail_closed: bool,
}

// The arguments of an agent's installer (`claude-install`, ...).
#[derive(Debug, Clone, Copy, PartialEq, clap::Args)]
struct InstallArgs {
    /// Install the bridge to fail closed (`<agent>-hook --fail-closed`): a lapse of the
    /// policy at an event that can block denies the action.
    #[arg(long)]
    fail_closed: bool,
    /// Install even though the file is your user-wide configuration of the agent (the
    /// workspace is your home directory, or the file resolves into the agent's user
    /// directory): the bridge then applies to every project. Refused without it.
    #[arg(long)]
    user: bool,
}

// The arguments of an agent's uninstaller (`claude-uninstall`, ...).
#[derive(Debug, Clone, Copy, PartialEq, clap::Args)]
struct UninstallArgs {
    /// Uninstall even though the file is your user-wide configuration of the agent (see
    /// `<agent>-install --user`). Refused without it.
    #[arg(long)]
    user: bool,
}

impl BridgeArgs {
    fn mode(self) -> agent_hooks_runtime::OnFailure {
        if self.fail_closed {
            agent_hooks_runtime::OnFailure::Block
        } else {
            agent_hooks_runtime::OnFailure::Continue
        }
    }
}

impl InstallArgs {
    fn mode(self) -> agent_hooks_runtime::OnFailure {
        BridgeArgs {
            fail_closed: self.fail_closed,
        }
        .mode()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, clap::ValueEnum)]
enum GuardFormat {
    /// The decision protocol (what a shell hook prints).
    Protocol,
    /// Claude Code's hook output.
    Claude,
}

impl From<GuardFormat> for agent_hooks_runtime::guards::command::Format {
    fn from(format: GuardFormat) -> Self {
        match format {
            GuardFormat::Protocol => Self::Protocol,
            GuardFormat::Claude => Self::Claude,
        }
    }
}

/// The entry point on every target but glibc Linux, with std's start-up (see startup.rs).
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn main() -> ExitCode {
    run(std::env::args_os().collect())
}

/// Writes a generated document to stdout. A reader that stopped early (a closed pipe) is not a
/// failure; any other write error is reported under the command's name.
fn print_all(command: &str, bytes: &[u8]) -> ExitCode {
    use std::io::Write as _;
    let mut out = std::io::stdout().lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("agent-hooks {command}: cannot write to stdout: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The program on its command line, called by `main` or on glibc Linux `startup::main` (a
/// test build has the test harness's `main`).
#[cfg_attr(test, allow(dead_code))]
fn run(args: Vec<OsString>) -> ExitCode {
    let cli = parse(args);
    let log_format = match &cli.command {
        Some(Command::Serve { log_format, .. }) => *log_format,
        _ => None,
    };
    // The commands started anew for each event build the subscriber only if they log.
    let per_event = match &cli.command {
        Some(Command::Guard(_) | Command::Fire { .. }) => true,
        Some(command) => bridge_agent(command).is_some(),
        None => false,
    };
    logging::init(per_event, logging::format(log_format));
    let command = cli.command.unwrap_or(Command::List { json: false });
    match command {
        Command::Completions { shell } => {
            // Generated into memory first: clap_complete panics when its writer fails, and a
            // reader that closes the pipe early (`| head`) is not an error of ours.
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut definition(), "agent-hooks", &mut script);
            print_all("completions", &script)
        }
        Command::Token(action) => token::run(action),
        Command::Bundle(action) => bundle::run(action),
        Command::Man { command } => man(command.as_deref()),
        // A bridge finds its workspace from the hook input, and answers in its agent's format
        // whatever happens, a missing workspace included.
        command if bridge_agent(&command).is_some() => match bridge_agent(&command) {
            Some((agent, args)) => {
                block_on(agents::hook(agent, cli.workspace.as_deref(), args.mode()))
            }
            None => ExitCode::FAILURE,
        },
        command => match workspace(&command, cli.workspace.as_deref()) {
            Ok(ws) => match command {
                Command::Fire {
                    event,
                    pretty,
                    fail_closed,
                } => {
                    if std::io::stdin().is_terminal() {
                        // As `cat` would, it waits for stdin; at a terminal that looks like a
                        // hang unless it says what it is waiting for.
                        eprintln!(
                            "agent-hooks fire: reading the {event} payload, one JSON object, \
                             from stdin; type it and end with Ctrl-D (or pipe it in: \
                             echo '{{...}}' | agent-hooks fire {event})"
                        );
                    }
                    block_on(fire::run(
                        ws,
                        &event,
                        pretty || std::io::stdout().is_terminal(),
                        BridgeArgs { fail_closed }.mode(),
                        agents::fire_workspace(cli.workspace.as_deref()).1,
                    ))
                }
                command => dispatch(command, ws),
            },
            Err(code) => code,
        },
    }
}

/// `agent-hooks man [COMMAND]`: the page of agent-hooks, or of one of its commands — each page
/// the main one lists as agent-hooks-<command>(1).
fn man(command: Option<&str>) -> ExitCode {
    let mut top = definition();
    top.build();
    let page = match command {
        None => top,
        Some(name) => match top.find_subcommand(name) {
            Some(sub) => {
                // A process that prints one page and exits: the name may live to the end.
                let name: &'static str =
                    Box::leak(format!("agent-hooks-{}", sub.get_name()).into_boxed_str());
                sub.clone()
                    .name(name)
                    .display_name(name)
                    .bin_name(format!("agent-hooks {}", sub.get_name()))
            }
            None => {
                let names: Vec<&str> = top.get_subcommands().map(|c| c.get_name()).collect();
                eprintln!(
                    "agent-hooks man: no command \"{name}\"{}; the commands: {}",
                    agent_hooks_runtime::did_you_mean(agent_hooks_runtime::nearest(
                        name,
                        names.iter().copied(),
                        |d, _| d <= 2
                    )),
                    names.join(", ")
                );
                return ExitCode::from(2);
            }
        },
    };
    let mut out = Vec::new();
    match clap_mangen::Man::new(page).render(&mut out) {
        Ok(()) => print_all("man", &out),
        Err(e) => {
            eprintln!("agent-hooks man: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The agent whose bridge `command` is (`claude-hook`, `codex-hook`, ...), with its
/// arguments, if it is one.
fn bridge_agent(command: &Command) -> Option<(Agent, BridgeArgs)> {
    match command {
        Command::ClaudeHook(args) => Some((Agent::ClaudeCode, *args)),
        Command::CodexHook(args) => Some((Agent::Codex, *args)),
        Command::GeminiHook(args) => Some((Agent::Gemini, *args)),
        Command::CursorHook(args) => Some((Agent::Cursor, *args)),
        Command::CopilotHook(args) => Some((Agent::Copilot, *args)),
        Command::WindsurfHook(args) => Some((Agent::Windsurf, *args)),
        _ => None,
    }
}

/// The workspace `command` works on (`flag` is `--workspace`), or the exit status to end with
/// when it is not a directory. `fire` finds it from the current directory up, as git finds
/// `.git`, when neither `--workspace` nor `$AGENT_HOOKS_WORKSPACE` names it.
fn workspace(command: &Command, flag: Option<&Path>) -> Result<Workspace, ExitCode> {
    let ws = match command {
        Command::Fire { .. } => agents::fire_workspace(flag).0,
        _ => Workspace::resolve(flag),
    };
    // Every command works on an existing workspace: a mistyped --workspace must not create
    // config files somewhere new, nor report a healthy empty workspace.
    if ws.root().is_dir() {
        return Ok(ws);
    }
    eprintln!(
        "agent-hooks: the workspace {} is not a directory (from {})",
        ws.root().display(),
        match flag {
            Some(_) => "--workspace",
            None => "$AGENT_HOOKS_WORKSPACE",
        }
    );
    Err(ExitCode::from(2))
}

/// Runs `command` on `ws`.
fn dispatch(command: Command, ws: Workspace) -> ExitCode {
    match command {
        Command::Serve {
            listen,
            socket,
            rotate_token,
            insecure_no_token,
            body_timeout,
            max_client_connections,
            host_lifecycle,
            exit_with_parent,
            exit_on_stdin_eof,
            log_format: _,
            team,
        } => {
            let mut options = ServeOptions::default();
            options.host_lifecycle = host_lifecycle;
            options.exit_with_parent = exit_with_parent;
            options.exit_on_stdin_eof = exit_on_stdin_eof;
            options.max_client_connections = max_client_connections;
            let place = serve::Place {
                listen,
                socket,
                rotate_token,
                insecure_no_token,
                body_timeout,
                team,
            };
            serve::run(ws, place, options)
        }
        // Answered by `run`, which knows how its workspace was found.
        Command::Fire { .. } => ExitCode::FAILURE,
        Command::AhpServe => match tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
        {
            Ok(rt) => ahp::serve(ws, &rt),
            Err(e) => {
                eprintln!("agent-hooks: cannot start the async runtime: {e}");
                ExitCode::FAILURE
            }
        },
        Command::BackgroundHook { ticket } => block_on(fire::background(ws, &ticket)),
        // Answered by `run` before a workspace is resolved.
        Command::ClaudeHook(_)
        | Command::CodexHook(_)
        | Command::GeminiHook(_)
        | Command::CursorHook(_)
        | Command::CopilotHook(_)
        | Command::WindsurfHook(_) => ExitCode::FAILURE,
        Command::Test {
            hook,
            event,
            run_unapproved,
            json,
        } => block_on(test::run(ws, &hook, event.as_deref(), run_unapproved, json)),
        Command::ClaudeInstall { http, mode } => match service::http_base(http) {
            Ok(http) => agents::install(
                ws,
                Agent::ClaudeCode,
                http.as_deref(),
                mode.mode(),
                mode.user,
            ),
            Err(e) => {
                eprintln!("agent-hooks claude-install: {e}");
                ExitCode::from(2)
            }
        },
        Command::ClaudeUninstall(args) => agents::uninstall(ws, Agent::ClaudeCode, args.user),
        Command::Convert { from, to, file } => convert::run(&ws, &from, &to, file.as_deref()),
        Command::CodexInstall(mode) => {
            agents::install(ws, Agent::Codex, None, mode.mode(), mode.user)
        }
        Command::CodexUninstall(args) => agents::uninstall(ws, Agent::Codex, args.user),
        Command::GeminiInstall(mode) => {
            agents::install(ws, Agent::Gemini, None, mode.mode(), mode.user)
        }
        Command::GeminiUninstall(args) => agents::uninstall(ws, Agent::Gemini, args.user),
        Command::CursorInstall(mode) => {
            agents::install(ws, Agent::Cursor, None, mode.mode(), mode.user)
        }
        Command::CursorUninstall(args) => agents::uninstall(ws, Agent::Cursor, args.user),
        Command::CopilotInstall(mode) => {
            agents::install(ws, Agent::Copilot, None, mode.mode(), mode.user)
        }
        Command::CopilotUninstall(args) => agents::uninstall(ws, Agent::Copilot, args.user),
        Command::WindsurfInstall(mode) => {
            agents::install(ws, Agent::Windsurf, None, mode.mode(), mode.user)
        }
        Command::WindsurfUninstall(args) => agents::uninstall(ws, Agent::Windsurf, args.user),
        // A guard is synchronous and runs on every tool call: no async runtime to start.
        Command::Guard(GuardArgs {
            name,
            rules,
            format,
            print_rules,
        }) => guard::run(ws, name, rules, format.into(), print_rules),
        Command::Install {
            mut targets,
            no_enable,
            pack,
        } => {
            // Passed on as the words `/hooks install` takes.
            targets.extend(pack.into_iter().map(|p| format!("--pack={p}")));
            block_on(guard::install(ws, &targets, no_enable))
        }
        Command::Explain { command, cwd, json } => {
            explain::run(&ws, &command, cwd.as_deref(), json)
        }
        Command::Log {
            last,
            hook,
            event,
            kind,
            decision,
            json,
            follow,
        } => log::run(
            &ws,
            &log::Query {
                last,
                hook,
                event,
                kind,
                decision,
                json,
                follow,
            },
        ),
        Command::Audit {
            transcripts,
            log,
            json,
        } => audit::run(&ws, &transcripts, log.as_deref(), json),
        Command::Replay(request) => replay::run(&ws, request),
        Command::List { json } => block_on(hooks(ws, words("list", json), json)),
        Command::Doctor { json } => block_on(doctor(ws, json)),
        Command::On => block_on(hooks(ws, vec!["on".into()], false)),
        Command::Off => block_on(hooks(ws, vec!["off".into()], false)),
        Command::Approve { words } => with_verb(ws, "approve", words),
        Command::Revoke { command } => with_verb(ws, "revoke", command),
        // Answered by `run` before a workspace is resolved.
        Command::Completions { .. }
        | Command::Man { .. }
        | Command::Token(_)
        | Command::Bundle(_) => ExitCode::SUCCESS,
    }
}

/// `approve` / `revoke` with their words, as the library's `/hooks` command takes them.
fn with_verb(ws: Workspace, verb: &str, words: Vec<String>) -> ExitCode {
    let mut args = vec![verb.to_owned()];
    args.extend(words);
    block_on(hooks(ws, args, false))
}

/// Parses the command line, or exits with clap's message (usage errors, help, version).
fn parse(args: Vec<OsString>) -> Cli {
    if let Some(cli) = parse_guard(&args).or_else(|| parse_bridge(&args)) {
        return cli;
    }
    // `help` is clap's own subcommand, which takes no --help of its own.
    if let [_, help, flag] = args.as_slice()
        && help == "help"
        && (flag == "--help" || flag == "-h")
    {
        let mut top = definition();
        top.build();
        if let Some(help) = top.find_subcommand_mut("help") {
            let text = help.render_long_help().to_string();
            std::process::exit(match print_all("help", text.as_bytes()) {
                code if code == ExitCode::SUCCESS => 0,
                _ => 1,
            });
        }
    }
    let matches = match parser(&args).try_get_matches_from(args) {
        Ok(matches) => matches,
        Err(e) => best_first(e).exit(),
    };
    match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    }
}

/// The parser's error with its suggestions nearest first: it lists them worst first
/// ("similar subcommands exist: 'serve', 'approve'" for `aprove`).
fn best_first(mut e: clap::Error) -> clap::Error {
    use clap::error::{ContextKind, ContextValue};
    let pairs = [
        (
            ContextKind::InvalidSubcommand,
            ContextKind::SuggestedSubcommand,
        ),
        (ContextKind::InvalidArg, ContextKind::SuggestedArg),
        (ContextKind::InvalidValue, ContextKind::SuggestedValue),
    ];
    for (given, suggested) in pairs {
        let Some(ContextValue::String(typed)) = e.get(given).cloned() else {
            continue;
        };
        let Some(ContextValue::Strings(names)) = e.get(suggested).cloned() else {
            continue;
        };
        let typed = typed.trim_start_matches('-');
        let ranked: Vec<String> = agent_hooks_runtime::ranked(
            typed,
            names.iter().map(|n| n.trim_start_matches('-')),
            |_, _| true,
        )
        .into_iter()
        .filter_map(|bare| names.iter().find(|n| n.trim_start_matches('-') == bare))
        .cloned()
        .collect();
        e.insert(suggested, ContextValue::Strings(ranked));
    }
    e
}

/// `agent-hooks guard ...` parsed with `GuardCli`, when it parses there; `None` sends the
/// command line to the full definition.
fn parse_guard(args: &[OsString]) -> Option<Cli> {
    if !args.iter().skip(1).any(|arg| arg == "guard") {
        return None;
    }
    let GuardCli {
        workspace,
        command: GuardOnly::Guard(guard),
    } = GuardCli::try_parse_from(args).ok()?;
    Some(Cli {
        workspace,
        command: Some(Command::Guard(guard)),
    })
}

/// The bridge command a word of the command line names (`claude-hook`, ...), if it names one.
fn bridge_named(word: &str) -> Option<fn(BridgeArgs) -> Command> {
    Some(match word {
        "claude-hook" => Command::ClaudeHook,
        "codex-hook" => Command::CodexHook,
        "gemini-hook" => Command::GeminiHook,
        "cursor-hook" => Command::CursorHook,
        "copilot-hook" => Command::CopilotHook,
        "windsurf-hook" => Command::WindsurfHook,
        _ => return None,
    })
}

/// An agent's bridge command line (`[--workspace DIR] claude-hook [--fail-closed]`, as the
/// installers write it), read without clap. A bridge is a new process for every event of an
/// agent, and building the definition of every other command to parse its two words cost it
/// more than some of its own work. Only a plain, valid line is taken here; anything else
/// (help, a repeated or doubtful flag, a value that looks like a flag) goes to `Cli`, so every
/// message is the full command line's. A test keeps the two readings equal.
fn parse_bridge(args: &[OsString]) -> Option<Cli> {
    let mut workspace = None;
    let mut bridge = None;
    let mut fail_closed = false;
    let mut words = args.iter().skip(1);
    while let Some(word) = words.next() {
        let word = word.to_str()?;
        if word == "--workspace" {
            let dir = words.next()?;
            if workspace.is_some() || dir.is_empty() || dir.as_encoded_bytes().starts_with(b"-") {
                return None;
            }
            workspace = Some(PathBuf::from(dir));
        } else if let Some(dir) = word.strip_prefix("--workspace=") {
            if workspace.is_some() || dir.is_empty() {
                return None;
            }
            workspace = Some(PathBuf::from(dir));
        } else if word == "--fail-closed" && bridge.is_some() && !fail_closed {
            fail_closed = true;
        } else if bridge.is_none()
            && let Some(command) = bridge_named(word)
        {
            bridge = Some(command);
        } else {
            return None;
        }
    }
    Some(Cli {
        workspace,
        command: Some(bridge?(BridgeArgs { fail_closed })),
    })
}

/// The definition a command line is parsed with: the help texts list the ready-made hooks and
/// the events, which are written out only when help may be shown (any `help`, `-h` or
/// `--help` word), since one-shot commands such as `fire` have no use for them.
fn parser(args: &[OsString]) -> clap::Command {
    let may_show_help = args
        .iter()
        .skip(1)
        .any(|arg| arg == "help" || arg == "-h" || arg == "--help");
    if may_show_help {
        definition()
    } else {
        Cli::command()
    }
}

/// The command line's definition, with the ready-made hooks and the events after the list of
/// commands (they are data of the library, so they are added here rather than in attributes).
fn definition() -> clap::Command {
    let mut after = String::from("Ready-made hooks (agent-hooks install <name|number>):\n");
    after.push_str(&agent_hooks_runtime::guards::numbered_list());
    after.push_str("\nEvents:\n");
    for spec in agent_hooks_runtime::EVENTS {
        after.push_str(&format!("  {:<22} {}\n", spec.name, spec.fires));
    }
    after.push_str(
        "\nEach command answers --help. Guide: docs/README.md (writing hooks, protocol, \
         troubleshooting).",
    );
    Cli::command()
        .after_long_help(after)
        .after_help("Run `agent-hooks help` for the ready-made hooks and the events.")
}

/// `list` / `doctor` with their `--json` flag, as the library takes them.
fn words(command: &str, json: bool) -> Vec<String> {
    let mut args = vec![command.to_owned()];
    if json {
        args.push("--json".to_owned());
    }
    args
}

/// Runs a one-shot command on a single-threaded runtime: `fire` and the workspace commands wait
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

/// The workspace commands: the library's text (the one a host shows for `/hooks ...`) with
/// the commands it suggests spelt as they are typed in a shell (`agent-hooks approve ...`).
async fn hooks(ws: Workspace, args: Vec<String>, json: bool) -> ExitCode {
    let engine = Engine::open(ws);
    // Colour and symbols only on a terminal (and never with NO_COLOR); pipes get plain text.
    let style = agent_hooks_runtime::commands::Style::for_terminal(std::io::stdout().is_terminal());
    let out = agent_hooks_runtime::commands::run_styled(&engine, &args, style).await;
    print_output(&out.text, json);
    ExitCode::from(u8::try_from(out.status).unwrap_or(1))
}

/// `doctor`: as the other workspace commands, with a progress line on stderr while hooks run
/// when stderr is a terminal (a slow hook otherwise looks like a hang).
async fn doctor(ws: Workspace, json: bool) -> ExitCode {
    let engine = Engine::open(ws);
    let style = agent_hooks_runtime::commands::Style::for_terminal(std::io::stdout().is_terminal());
    let on_terminal = std::io::stderr().is_terminal();
    let mut shown = false;
    let mut progress = |p: agent_hooks_runtime::commands::DoctorProgress<'_>| {
        if on_terminal {
            // \r and "erase line": each step replaces the last.
            eprint!("\r\x1b[Kchecking hook {}/{}: {}", p.index, p.total, p.hook);
            shown = true;
        }
    };
    let out = agent_hooks_runtime::commands::run_doctor(&engine, json, style, &mut progress).await;
    if shown {
        eprint!("\r\x1b[K");
    }
    print_output(&out.text, json);
    ExitCode::from(u8::try_from(out.status).unwrap_or(1))
}

/// Prints a command's text: JSON as it is, text with its suggested commands spelt for a shell.
pub(crate) fn print_output(text: &str, json: bool) {
    if json {
        print!("{text}");
    } else {
        print!("{}", shell_spelling(text));
    }
}

/// Replaces the chat prefix `/hooks ` by `agent-hooks ` where it starts a command: at the start
/// of a line or after a space, quote, backtick or parenthesis (never inside a path such as
/// `.claude/hooks/x`).
fn shell_spelling(text: &str) -> String {
    const CHAT: &str = "/hooks ";
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(CHAT) {
        let before = rest[..at].chars().next_back();
        let starts_command =
            before.is_none_or(|c| c.is_whitespace() || matches!(c, '`' | '"' | '\'' | '('));
        out.push_str(&rest[..at]);
        out.push_str(if starts_command { "agent-hooks " } else { CHAT });
        rest = &rest[at + CHAT.len()..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chat_commands_are_spelt_for_the_shell() {
        assert_eq!(
            shell_spelling("fix: /hooks approve /ws/hooks/a.sh\nrun `/hooks on` (or /hooks off)"),
            "fix: agent-hooks approve /ws/hooks/a.sh\nrun `agent-hooks on` (or agent-hooks off)"
        );
        assert_eq!(shell_spelling("/hooks list"), "agent-hooks list");
        assert_eq!(shell_spelling("in .claude/hooks x"), "in .claude/hooks x");
    }

    #[test]
    fn the_command_line_definition_is_consistent() {
        definition().debug_assert();
        GuardCli::command().debug_assert();
    }

    fn args(line: &str) -> Vec<OsString> {
        line.split(' ').map(OsString::from).collect()
    }

    #[test]
    fn a_guard_command_line_parses_as_the_full_one_does() {
        for line in [
            "agent-hooks guard security_guard",
            "agent-hooks --workspace /ws guard security_guard",
            "agent-hooks --workspace=/ws guard pii_redactor --format claude",
            "agent-hooks guard security_guard --workspace /ws --rules r.yaml",
            "agent-hooks guard --print-rules security_guard",
            "agent-hooks guard -- --odd-name",
        ] {
            let guard = parse_guard(&args(line)).expect(line);
            let full = Cli::try_parse_from(args(line)).expect(line);
            assert_eq!(format!("{guard:?}"), format!("{full:?}"), "{line}");
            assert!(matches!(guard.command, Some(Command::Guard(_))), "{line}");
        }
        // Anything else is left to the full definition, which parses it or explains why not.
        for line in [
            "agent-hooks guard",
            "agent-hooks guard a b",
            "agent-hooks guard a --format yaml",
            "agent-hooks guard a --bogus",
            "agent-hooks guard --version",
            "agent-hooks --workspace guard list",
            "agent-hooks approve pre_tool_call guard",
            "agent-hooks list",
        ] {
            assert!(parse_guard(&args(line)).is_none(), "{line}");
        }
        let approve = Cli::try_parse_from(args("agent-hooks approve pre_tool_call guard"));
        assert!(matches!(
            approve.map(|cli| cli.command),
            Ok(Some(Command::Approve { .. }))
        ));
    }

    #[test]
    fn a_bridge_command_line_parses_as_the_full_one_does() {
        for line in [
            "agent-hooks claude-hook",
            "agent-hooks codex-hook --fail-closed",
            "agent-hooks --workspace /ws gemini-hook",
            "agent-hooks --workspace=/ws cursor-hook --fail-closed",
            "agent-hooks copilot-hook --workspace /ws",
            "agent-hooks windsurf-hook --fail-closed --workspace=/w s",
        ] {
            let line_args: Vec<OsString> = match line.split_once("=/w s") {
                // A directory with a space in it, as one word.
                Some((head, _)) => {
                    let mut words = args(head);
                    let last = words.pop().expect("a word");
                    words.push(OsString::from(format!(
                        "{}=/w s",
                        last.to_str().expect("text")
                    )));
                    words
                }
                None => args(line),
            };
            let bridge = parse_bridge(&line_args).expect(line);
            let full = Cli::try_parse_from(&line_args).expect(line);
            assert_eq!(format!("{bridge:?}"), format!("{full:?}"), "{line}");
            assert!(bridge_agent(bridge.command.as_ref().expect(line)).is_some());
        }
        // Anything else is left to the full definition, which parses it or explains why not.
        for line in [
            "agent-hooks claude-hook --help",
            "agent-hooks claude-hook -h",
            "agent-hooks claude-hook --fail-closed --fail-closed",
            "agent-hooks --fail-closed claude-hook",
            "agent-hooks claude-hook codex-hook",
            "agent-hooks claude-hook --bogus",
            "agent-hooks claude-hook extra",
            "agent-hooks --workspace --fail-closed claude-hook",
            "agent-hooks --workspace /a --workspace /b claude-hook",
            "agent-hooks --workspace= claude-hook",
            "agent-hooks --workspace /ws",
            "agent-hooks claude-install",
            "agent-hooks help claude-hook",
            "agent-hooks",
        ] {
            assert!(parse_bridge(&args(line)).is_none(), "{line}");
        }
    }

    /// The help `guard` shows, as each definition has it.
    fn guard_help(mut command: clap::Command) -> (String, String) {
        command.build();
        let guard = command
            .find_subcommand_mut("guard")
            .expect("a guard command");
        (
            guard.render_help().to_string(),
            guard.render_long_help().to_string(),
        )
    }

    #[test]
    fn the_guard_command_line_is_defined_as_in_the_full_one() {
        let (short, long) = guard_help(definition());
        assert!(long.contains("hook_event_name") && long.contains("--print-rules"));
        assert!(short.contains("Usage: agent-hooks guard [OPTIONS] <NAME>"));
        assert_eq!(guard_help(GuardCli::command()), (short, long));
    }
}
