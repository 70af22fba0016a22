//! A configuration problem with its place: the one error type every reader of configuration
//! files returns, and what `list`, `doctor` and the outcome's diagnostics show.

use std::fmt;

use crate::diag::DiagKind;

/// A configuration problem, located as precisely as the file allows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    kind: DiagKind,
    file: String,
    location: Option<Location>,
    message: String,
}

/// Where in a file a problem is: 1-based line and column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Location {
    line: u64,
    column: u64,
}

impl Location {
    /// The place at `line` and `column` (both 1-based).
    pub fn new(line: u64, column: u64) -> Location {
        Location { line, column }
    }

    /// The place a parser reports, which says line 0 when it has none.
    pub fn from_parser(line: u64, column: u64) -> Option<Location> {
        (line > 0).then_some(Location { line, column })
    }

    /// The line (1-based).
    pub fn line(&self) -> u64 {
        self.line
    }

    /// The column (1-based).
    pub fn column(&self) -> u64 {
        self.column
    }
}

impl ConfigError {
    /// A problem of the file `file` (workspace-relative) as a whole, not tied to a place.
    pub fn whole_file(file: impl Into<String>, message: impl Into<String>) -> ConfigError {
        ConfigError {
            kind: DiagKind::HookConfigError,
            file: file.into(),
            location: None,
            message: message.into(),
        }
    }

    /// A problem at `location` in the file `file` (workspace-relative); `None` is the whole
    /// file.
    pub fn located(
        file: impl Into<String>,
        location: Option<Location>,
        message: impl Into<String>,
    ) -> ConfigError {
        ConfigError {
            location,
            ..ConfigError::whole_file(file, message)
        }
    }

    /// The same problem logged as `kind` rather than `hook_config_error` (a source with its
    /// own record type, like the skill dialect's `hook_invalid_json`).
    pub fn with_kind(self, kind: DiagKind) -> ConfigError {
        ConfigError { kind, ..self }
    }

    /// The same problem at the same place, its message rewritten by `rewrite` (to add a hint).
    pub fn map_message(self, rewrite: impl FnOnce(String) -> String) -> ConfigError {
        ConfigError {
            message: rewrite(self.message),
            ..self
        }
    }

    /// The `logs/events.jsonl` type this error is logged as.
    pub fn kind(&self) -> DiagKind {
        self.kind
    }

    /// Workspace-relative path of the file.
    pub fn file(&self) -> &str {
        &self.file
    }

    /// Where in the file the problem is; `None` when it concerns the file as a whole.
    pub fn location(&self) -> Option<Location> {
        self.location
    }

    /// What is wrong and, where possible, how to fix it (with a "did you mean").
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.location {
            Some(Location { line, column }) => {
                write!(f, "{}:{line}:{column}: {}", self.file, self.message)
            }
            None => write!(f, "{}: {}", self.file, self.message),
        }
    }
}

impl std::error::Error for ConfigError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_located_error_shows_line_and_column() {
        let error = ConfigError::located("a.yaml", Some(Location::new(3, 7)), "bad");
        assert_eq!(error.to_string(), "a.yaml:3:7: bad");
    }

    #[test]
    fn a_whole_file_error_shows_the_file_only() {
        assert_eq!(
            ConfigError::whole_file("a.json", "bad").to_string(),
            "a.json: bad"
        );
        let error = ConfigError::located("a.json", Location::from_parser(0, 0), "bad");
        assert_eq!(error.location(), None);
    }
}
