//! Reading YAML with positions: files are parsed into maps of located values, so every error
//! can say file, line and column, and unknown keys can be pointed at rather than ignored.

use std::collections::BTreeMap;

use serde_json::Value;
use serde_saphyr::Spanned;

use super::ConfigError;
use agent_hooks_core::config_error::Location;

/// A YAML mapping whose values remember where they were written.
pub(crate) type LocatedMap = BTreeMap<String, Spanned<Value>>;

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
pub(crate) fn error_at(file: &str, at: &Spanned<Value>, message: impl Into<String>) -> ConfigError {
    ConfigError::located(file, place(at), message)
}

/// Where the value `at` was written.
pub(crate) fn place<T>(at: &Spanned<T>) -> Option<Location> {
    Location::from_parser(at.referenced.line(), at.referenced.column())
}
