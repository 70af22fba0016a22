//! A configuration problem with its place: the one error type every reader of configuration
//! files returns, and what `list`, `doctor` and the outcome's diagnostics show.

use std::fmt;

/// A configuration problem, located as precisely as the file allows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    /// The `logs/events.jsonl` type this error is logged as (`hook_config_error` unless the
    /// source has its own, like the skill dialect's `hook_invalid_json`).
    pub kind: crate::diag::DiagKind,
    /// Workspace-relative path of the file.
    pub file: String,
    /// Line of the problem (1-based; 0 when not tied to a place).
    pub line: u64,
    /// Column of the problem (1-based; 0 when not tied to a place).
    pub column: u64,
    /// What is wrong and, where possible, how to fix it (with a "did you mean").
    pub message: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line > 0 {
            write!(
                f,
                "{}:{}:{}: {}",
                self.file, self.line, self.column, self.message
            )
        } else {
            write!(f, "{}: {}", self.file, self.message)
        }
    }
}

impl std::error::Error for ConfigError {}
