//! # agent-hooks-transports
//!
//! Transports run a hook and return its raw answer, knowing nothing of what it means. The
//! command transport spawns a process; each further transport (HTTP, built-in) is one module
//! beside it returning the same [`Reply`]:
//!
//! - [`command`]: a process in its own group, with a hard timeout and capped output, and
//!   [`netns`]: that process with no network, for `agent-hooks replay`;
//! - [`prefork`]: a Python hook served by a warm forker;
//! - [`http`]: a POST behind the [`ssrf`] guard;
//! - [`judge`]: an LLM judge (`type: prompt` / `type: agent`) and its read-only tools;
//! - [`builtin`]: a ready-made guard of `agent-hooks-guards`, in-process;
//! - [`command_line`]: the one reading of a hook's command line (its program and files) that
//!   approval, dispatch and inspection share; [`pinned`]: the program an approval pins;
//!   [`sealed`]: the verified copies a command runs from.
//!
//! This crate knows the core's events and payloads and nothing of dialects, configuration or
//! trust decisions: the runtime hands it what the trust gate verified.

#![warn(missing_docs)]
#![cfg_attr(not(test), warn(unused_crate_dependencies))]

pub mod ahp;
pub mod builtin;
pub mod command;
pub mod command_line;
pub mod http;
pub mod judge;
pub mod netns;
pub mod pinned;
pub mod prefork;
pub mod sealed;
pub mod session_state;
pub mod ssrf;
mod unix;

use std::time::Duration;

pub use builtin::BuiltinSpec;
pub use command::{CommandSpec, RunPolicy};
pub use http::HttpSpec;
pub use judge::{JudgeEndpoint, JudgeSpec, Provider};
pub use netns::Network;
pub use ssrf::{ALLOW_LOCAL_ENV, allow_local_enabled};

/// How a hook is run.
#[derive(Debug, Clone)]
pub enum TransportSpec {
    /// Spawn a process in its own group (`command:`).
    Command(CommandSpec),
    /// POST to a URL, behind the SSRF guard (`docs/configuration.md`).
    Http(HttpSpec),
    /// A ready-made guard evaluated in this process (`type: builtin`).
    Builtin(BuiltinSpec),
    /// A prompt judged by a chat model (`type: prompt`), or by a subagent with read-only
    /// tools (`type: agent`).
    Judge(JudgeSpec),
}

impl TransportSpec {
    /// What `list` shows as the hook's transport.
    pub fn describe(&self) -> String {
        match self {
            TransportSpec::Command(spec) => spec.line.clone(),
            TransportSpec::Http(spec) => format!("POST {}", spec.url),
            TransportSpec::Builtin(spec) => match &spec.rules {
                Some(rules) => format!("builtin {} (rules: {})", spec.guard, rules.display()),
                None => format!("builtin {}", spec.guard),
            },
            TransportSpec::Judge(spec) => format!(
                "{} {} ({}): {}",
                if spec.is_agent() {
                    "LLM agent"
                } else {
                    "LLM judge"
                },
                spec.model(),
                spec.endpoint.describe(),
                agent_hooks_core::wording::preview(&spec.prompt, 80)
            ),
        }
    }

    /// The transport's name in `list --json` (`command`, `http`, `builtin`, `prompt`,
    /// `agent`).
    pub fn kind(&self) -> &'static str {
        match self {
            TransportSpec::Command(spec) if spec.ahp => "ahp",
            TransportSpec::Command(_) => "command",
            TransportSpec::Http(_) => "http",
            TransportSpec::Builtin(_) => "builtin",
            TransportSpec::Judge(spec) if spec.is_agent() => "agent",
            TransportSpec::Judge(_) => "prompt",
        }
    }
}

/// How a hook process ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// It exited with this status.
    Code(i32),
    /// A signal ended it (including the runtime's kill on timeout).
    Signal(i32),
}

impl std::fmt::Display for Exit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Exit::Code(c) => write!(f, "exit status {c}"),
            Exit::Signal(s) => write!(f, "killed by signal {s}"),
        }
    }
}

/// The raw answer of a hook that ran to completion.
#[derive(Debug, Clone)]
pub struct Reply {
    /// What it wrote to stdout, up to [`STDOUT_CAP`] bytes (for HTTP: the response body).
    pub stdout: Vec<u8>,
    /// Stdout went past the cap; what is kept is its beginning, and it is not a usable answer.
    pub stdout_overflow: bool,
    /// What it wrote to stderr, up to [`STDERR_CAP`] bytes.
    pub stderr: Vec<u8>,
    /// How it ended (an HTTP hook's 2xx counts as exit status 0).
    pub exit: Exit,
    /// Processes the hook left behind held its output open and were killed.
    pub left_behind: Option<String>,
}

impl Reply {
    /// The reply of a hook that answered `stdout` and succeeded (an HTTP 2xx, an in-process
    /// guard): nothing on stderr, exit 0.
    pub fn answered(stdout: Vec<u8>) -> Reply {
        Reply {
            stdout,
            stdout_overflow: false,
            stderr: Vec::new(),
            exit: Exit::Code(0),
            left_behind: None,
        }
    }

    /// The reply of a process that wrote `stdout` and `stderr` and exited with `code` (what
    /// a dialect's tests read).
    pub fn exited(stdout: &str, code: i32, stderr: &str) -> Reply {
        Reply {
            stderr: stderr.as_bytes().to_vec(),
            exit: Exit::Code(code),
            ..Reply::answered(stdout.as_bytes().to_vec())
        }
    }
}

/// What running a hook came to: its reply or failure, and — for a `prefork` hook that ran as a
/// plain spawn because no forker could take it — why, for the outcome's warnings and the log.
#[derive(Debug)]
pub struct Ran {
    /// The hook's reply, or why there is none.
    pub result: Result<Reply, Failure>,
    /// Set when a `prefork` hook fell back to a plain spawn.
    pub fallback: Option<String>,
}

impl From<Result<Reply, Failure>> for Ran {
    fn from(result: Result<Reply, Failure>) -> Ran {
        Ran {
            result,
            fallback: None,
        }
    }
}

/// A hook that could not be run to completion.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// The program or script does not exist.
    NotFound(String),
    /// It exists but cannot be executed (no execute bit, no `#!` line, ...).
    NotExecutable(String),
    /// Any other reason it could not start or be talked to.
    Exec(String),
    /// It ran past its timeout and was killed.
    Timeout(Duration),
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::NotFound(what) => write!(f, "not found: {what}"),
            Failure::NotExecutable(what) => write!(f, "not executable: {what}"),
            Failure::Exec(what) => f.write_str(what),
            Failure::Timeout(t) => write!(f, "timed out after {} s", t.as_secs_f64()),
        }
    }
}

/// Stdout is read up to this many bytes; the rest is drained and dropped (`docs/protocol.md`).
pub const STDOUT_CAP: usize = 1024 * 1024;
/// Stderr is read up to this many bytes.
pub const STDERR_CAP: usize = 64 * 1024;
