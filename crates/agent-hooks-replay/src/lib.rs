//! # agent-hooks-replay
//!
//! `agent-hooks replay`: a policy change tried on real sessions before it ships. Session
//! transcripts (read by the runtime's transcript readers, `agent_hooks_runtime::audit`) are
//! turned into the canonical events they were (`events.rs`), each event is dispatched under
//! two policies at once, each in a scratch copy of its own (`policy.rs`), sessions in
//! parallel (`run.rs`), and the verdicts are compared (`compare.rs`) into a [`Report`] of
//! flips, for a terminal, for CI as JSON (`report.rs`), and as one self-contained HTML page
//! (`html.rs`).
//!
//! Safe by default: replay evaluates each policy as declared (a candidate policy is not
//! approved yet, so the trust gate is not consulted, and the live approvals, state and logs
//! are neither read nor written), runs built-in guards and rule packs, LLM judges only when
//! asked, and command and HTTP hooks only when asked; then they run in the scratch copy,
//! command hooks with no network (`confine.rs`), HTTP hooks behind the SSRF guard as always.

#![warn(missing_docs)]

mod compare;
mod confine;
mod error;
mod events;
mod html;
mod policy;
mod report;
mod run;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use agent_hooks_runtime::ReplayMode;
use agent_hooks_runtime::audit::{self, AuditError};

pub use compare::{FLIP_KINDS, FlipKind, Verdict};
pub use confine::HookNetwork;
pub use error::ReplayError;
pub use html::render as render_html;
pub use policy::PolicySpec;
pub use report::{EventReport, Report, SessionReport};

/// What to replay, and how.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ReplayOptions {
    /// Transcript files, or directories to search for them.
    pub transcripts: Vec<PathBuf>,
    /// The workspace (a revision names one of its git history).
    pub workspace: PathBuf,
    /// The policy under test.
    pub policy: PolicySpec,
    /// The baseline.
    pub against: PolicySpec,
    /// Which hooks besides built-in guards run.
    pub mode: ReplayMode,
    /// The network command hooks get, when they run.
    pub hook_network: HookNetwork,
}

impl ReplayOptions {
    /// Replays `transcripts` under `policy` against `against`, with built-in guards only.
    pub fn new(
        transcripts: Vec<PathBuf>,
        workspace: PathBuf,
        policy: PolicySpec,
        against: PolicySpec,
    ) -> ReplayOptions {
        ReplayOptions {
            transcripts,
            workspace,
            policy,
            against,
            mode: ReplayMode::default(),
            hook_network: HookNetwork::default(),
        }
    }

    /// Gives command hooks, when they run, this machine's network instead of none
    /// ([`HookNetwork::Unconfined`]).
    pub fn hook_network(mut self, network: HookNetwork) -> ReplayOptions {
        self.hook_network = network;
        self
    }

    /// Runs command and HTTP hooks (`run_hooks`) and LLM judges (`judges`) too.
    pub fn running(mut self, run_hooks: bool, judges: bool) -> ReplayOptions {
        let cache = self.mode.judge_cache.take();
        self.mode = ReplayMode::new(run_hooks, judges);
        self.mode.judge_cache = cache;
        self
    }

    /// Keeps judges' answers in `dir` (by judge and input), so that a rerun asks no model.
    pub fn judge_cache(mut self, dir: PathBuf) -> ReplayOptions {
        self.mode = self.mode.judge_cache(dir);
        self
    }
}

/// Replays the sessions of `options.transcripts` under both policies.
///
/// # Errors
///
/// [`ReplayError`] when a transcript cannot be read or is in no known format, a policy
/// cannot be copied or checked out, or command hooks are to run confined and cannot be.
/// Nothing is replayed then.
pub async fn replay(options: &ReplayOptions) -> Result<Report, ReplayError> {
    let started = Instant::now();
    let mut report = Report::default();
    let mut sessions = Vec::new();
    // Files are read and parsed on the blocking pool, all at once, and taken in order.
    let reads: Vec<_> = transcript_files(&options.transcripts)?
        .into_iter()
        .map(|file| {
            let path = file.display().to_string();
            (
                path,
                tokio::task::spawn_blocking(move || audit::read(&file)),
            )
        })
        .collect();
    for (path, read) in reads {
        let transcript = match read.await {
            Ok(read) => read?,
            // A reader panicked: a bug, not something to hide in the report.
            Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
            Err(e) => {
                let source = std::io::Error::other(e.to_string());
                return Err(AuditError::Io { path, source }.into());
            }
        };
        let agent = transcript.agent;
        for (kind, n) in transcript.unknown {
            *report
                .unknown
                .entry(format!("{agent}: {kind}"))
                .or_default() += n;
        }
        for (kind, n) in transcript.ignored {
            *report
                .ignored
                .entry(format!("{agent}: {kind}"))
                .or_default() += n;
        }
        report.transcripts.extend(transcript.files);
        sessions.extend(transcript.sessions.into_iter().map(|s| (agent, s)));
    }
    let policy = Arc::new(policy::Loaded::open(&options.policy, &options.workspace)?);
    let against = Arc::new(policy::Loaded::open(&options.against, &options.workspace)?);
    report.policy = policy.label.clone();
    report.against = against.label.clone();
    let commands: std::collections::BTreeSet<&str> = policy
        .commands
        .iter()
        .chain(&against.commands)
        .map(String::as_str)
        .collect();
    let commands: Vec<&str> = commands.into_iter().collect();
    let network = confine::network(
        options.mode.run_hooks,
        options.hook_network,
        &commands,
        agent_hooks_runtime::netns::probe,
    )?;
    let mode = options.mode.clone().network(network);
    let (sessions, tally) = run::sessions(sessions, policy, against, mode).await;
    report.sessions = sessions;
    report.ran = tally.ran;
    report.withheld = tally.withheld;
    report.confined = tally.confined;
    report.unconfined = tally.unconfined;
    report.elapsed = started.elapsed();
    Ok(report)
}

/// The transcript files `paths` name: files as they are, directories searched (a Claude Code
/// subagent's file is read with its session, so `subagents/` directories are passed over).
fn transcript_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, ReplayError> {
    let mut files = Vec::new();
    for path in paths {
        if !path.is_dir() {
            files.push(path.clone());
            continue;
        }
        let before = files.len();
        search(path, &mut files).map_err(|source| AuditError::Io {
            path: path.display().to_string(),
            source,
        })?;
        if files.len() == before {
            return Err(ReplayError::Empty(path.display().to_string()));
        }
    }
    Ok(files)
}

fn search(dir: &Path, files: &mut Vec<PathBuf>) -> std::io::Result<()> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .collect();
    entries.sort();
    for path in entries {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if path.is_dir() {
            if name != "subagents" {
                search(&path, files)?;
            }
        } else if name.ends_with(".jsonl")
            || (name.starts_with("session-") && name.ends_with(".json"))
        {
            files.push(path);
        }
    }
    Ok(())
}
