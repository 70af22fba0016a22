//! Reading YAML with positions: files are read into typed structs whose values are
//! [`Spanned`], so every error can say file, line and column, and unknown keys can be pointed
//! at rather than ignored.

use serde_saphyr::Spanned;

use super::ConfigError;
use super::typed::Given;
use agent_hooks_core::config_error::Location;

/// Turns a parser error into a [`ConfigError`] for `file`.
pub(crate) fn parse_error(file: &str, err: &serde_saphyr::Error) -> ConfigError {
    let location = err
        .location()
        .and_then(|l| Location::from_parser(l.line(), l.column()));
    // The parser's Display starts with "error: line L column C: <message>" and then draws a
    // snippet; keep just the message.
    let text = err.to_string();
    let first = text.lines().next().unwrap_or("").trim();
    let first = first.strip_prefix("error:").unwrap_or(first).trim();
    let message = match first.split_once(": ") {
        Some((prefix, rest)) if prefix.starts_with("line ") => rest.to_owned(),
        _ => first.to_owned(),
    };
    ConfigError::located(file, location, format!("invalid YAML: {message}"))
}

/// An error about the value at `at`.
pub(crate) fn error_at<T>(file: &str, at: &Spanned<T>, message: impl Into<String>) -> ConfigError {
    error_here(file, &at.referenced, message)
}

/// Where the value `at` was written.
pub(crate) fn place<T>(at: &Spanned<T>) -> Option<Location> {
    Location::from_parser(at.referenced.line(), at.referenced.column())
}

impl<T> Given<Spanned<T>> {
    /// Where the key's value is written, when the key is there.
    pub(crate) fn written(&self) -> Option<&serde_saphyr::Location> {
        self.0.as_ref().map(|at| &at.referenced)
    }
}

/// An error about what is written at `at`.
pub(crate) fn error_here(
    file: &str,
    at: &serde_saphyr::Location,
    message: impl Into<String>,
) -> ConfigError {
    ConfigError::located(file, Location::from_parser(at.line(), at.column()), message)
}
