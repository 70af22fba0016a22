//! Why a replay could not be made: a transcript that cannot be read or is in no known format,
//! a policy that cannot be copied or checked out. Nothing is replayed then.

use agent_hooks_runtime::audit::AuditError;

/// Why a replay could not be made.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReplayError {
    /// A transcript could not be read, or is in no format replay reads (the file and line
    /// are named).
    #[error(transparent)]
    Transcript(#[from] AuditError),
    /// A directory named no transcript.
    #[error("{0}: no transcripts in it (*.jsonl, or Gemini CLI's session-*.json)")]
    Empty(String),
    /// A policy's git revision could not be written out.
    #[error("--against/--policy {rev}: {why}")]
    Revision {
        /// The revision as named.
        rev: String,
        /// What went wrong.
        why: String,
    },
    /// Command hooks were to run (`--run-hooks`), and this machine cannot take their
    /// network from them.
    #[error(
        "--run-hooks: the command hooks ({hooks}) cannot be confined here, so the replay was not run: {why}. Replay without --run-hooks, or with --run-hooks-unconfined to run them with this machine's network"
    )]
    Unconfinable {
        /// The command hooks, by name.
        hooks: String,
        /// Why they cannot be confined.
        why: String,
    },
    /// The scratch copy could not be made.
    #[error("cannot make the scratch copy: {0}")]
    Scratch(String),
}
