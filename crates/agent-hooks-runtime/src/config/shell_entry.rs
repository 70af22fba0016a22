//! One entry of `config/shell_hooks.yaml` as written, before it is read into a hook: the
//! typed form both the shell source (`shell.rs`) and its `type: builtin` entries
//! (`builtin.rs`) read, and the string reading they share.

use serde::Deserialize;
use serde_json::Value;
use serde_saphyr::Spanned;

use super::ConfigError;
use super::typed::{Entries, Given, Scalar, Typed};
use super::yaml::error_at;

/// One entry of `hooks:` as written, each value with where it was written. A value of the
/// wrong type is kept as such ([`Typed`]) so the entry can say what it expected, in the order
/// the entry is checked.
#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct Entry {
    pub(super) event: Given<Spanned<Typed<String>>>,
    pub(super) matcher: Given<Spanned<Typed<String>>>,
    pub(super) command: Given<Spanned<Typed<String>>>,
    pub(super) timeout: Given<Spanned<Typed<f64>>>,
    #[serde(rename = "type")]
    pub(super) kind: Given<Spanned<Typed<String>>>,
    pub(super) name: Given<Spanned<Typed<String>>>,
    pub(super) on_error: Given<Spanned<Typed<String>>>,
    pub(super) env: Given<Spanned<Typed<Entries<Typed<Scalar>>>>>,
    /// Read by [`crate::hook::configure_prefork`], which owns its layout.
    pub(super) prefork: Given<Spanned<Value>>,
    pub(super) url: Given<Spanned<Typed<String>>>,
    pub(super) headers: Given<Spanned<Typed<Entries<Typed<Scalar>>>>>,
    pub(super) secret: Given<Spanned<Typed<String>>>,
    pub(super) allowed_env: Given<Spanned<Typed<Vec<String>>>>,
    pub(super) rules: Given<Spanned<Typed<String>>>,
    pub(super) prompt: Given<Spanned<Typed<String>>>,
    pub(super) model: Given<Spanned<Typed<String>>>,
}

/// The string written at `at` under `key`, or an error saying what was found instead.
pub(super) fn string<'a>(
    file: &str,
    key: &str,
    at: &'a Spanned<Typed<String>>,
) -> Result<&'a str, ConfigError> {
    at.value
        .get()
        .map(String::as_str)
        .map_err(|found| error_at(file, at, format!("{key}: expected a string, found {found}")))
}
