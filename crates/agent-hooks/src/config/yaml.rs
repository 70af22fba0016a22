//! Reading YAML with positions: files are parsed into maps of located values, so every error
//! can say file, line and column, and unknown keys can be pointed at rather than ignored.

use std::collections::BTreeMap;

use serde_json::Value;
use serde_saphyr::Spanned;

use super::ConfigError;

/// A YAML mapping whose values remember where they were written.
pub(crate) type LocatedMap = BTreeMap<String, Spanned<Value>>;

/// Turns a parser error into a [`ConfigError`] for `file`.
pub(crate) fn parse_error(file: &str, err: &serde_saphyr::Error) -> ConfigError {
    let (line, column) = err
        .location()
        .map(|l| (l.line(), l.column()))
        .unwrap_or((0, 0));
    // The parser's Display starts with "error: line L column C: <message>" and then draws a
    // snippet; keep just the message.
    let text = err.to_string();
    let first = text.lines().next().unwrap_or("").trim();
    let first = first.strip_prefix("error:").unwrap_or(first).trim();
    let message = match first.split_once(": ") {
        Some((prefix, rest)) if prefix.starts_with("line ") => rest.to_owned(),
        _ => first.to_owned(),
    };
    ConfigError {
        kind: agent_hooks_core::diag::DiagKind::HookConfigError,
        file: file.to_owned(),
        line,
        column,
        message: format!("invalid YAML: {message}"),
    }
}

/// An error about the value at `at`.
pub(crate) fn error_at(file: &str, at: &Spanned<Value>, message: impl Into<String>) -> ConfigError {
    ConfigError {
        kind: agent_hooks_core::diag::DiagKind::HookConfigError,
        file: file.to_owned(),
        line: at.referenced.line(),
        column: at.referenced.column(),
        message: message.into(),
    }
}
