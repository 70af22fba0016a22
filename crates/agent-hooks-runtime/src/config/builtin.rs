//! `type: builtin` entries of `config/shell_hooks.yaml`: a ready-made guard by `name`, with an
//! optional `rules` file. A rules file that cannot be used is a located configuration error,
//! yet the hook still loads and runs on its defaults (fail-open, issue 8).

use super::ConfigError;
use super::shell_entry::{Entry, string};
use super::yaml::{error_at, error_here};
use crate::hook::filesystem_safe;
use agent_hooks_core::workspace::Workspace;
use agent_hooks_transports::BuiltinSpec;
use agent_hooks_transports::builtin::BuiltinError;

/// Reads one `type: builtin` entry. `Err` drops the entry (no or an unknown `name`); a rules
/// problem comes back beside the spec, to be reported while the hook runs on its defaults.
pub(super) fn entry(
    ws: &Workspace,
    file: &str,
    index: usize,
    entry: &Entry,
    warnings: &mut Vec<ConfigError>,
    missing_name: impl FnOnce() -> ConfigError,
) -> Result<(BuiltinSpec, Option<ConfigError>), ConfigError> {
    // Keys that mean nothing to a built-in hook.
    let not_for_builtin = [
        ("command", entry.command.written()),
        ("url", entry.url.written()),
        ("headers", entry.headers.written()),
        ("secret", entry.secret.written()),
        ("allowed_env", entry.allowed_env.written()),
        ("env", entry.env.written()),
    ];
    for (key, at) in not_for_builtin {
        if let Some(at) = at {
            warnings.push(error_here(
                file,
                at,
                format!(
                    "hook #{}: \"{key}\" is not used by type: builtin; ignored",
                    index + 1
                ),
            ));
        }
    }
    let name_at = entry.name.0.as_ref().ok_or_else(missing_name)?;
    let name = string(file, "name", name_at)?;
    let rules = match &entry.rules.0 {
        None => None,
        Some(at) => match at.value.get() {
            Ok(path) if !path.trim().is_empty() => Some((ws.resolve_path(path), at)),
            found => {
                return Err(error_at(
                    file,
                    at,
                    format!(
                        "rules: expected a file path, found {}",
                        found.err().unwrap_or("a string")
                    ),
                ));
            }
        },
    };
    let state_key = ws.state_dir().join(filesystem_safe(name));
    let (spec, problem) = BuiltinSpec::load(
        ws.root(),
        name,
        rules.as_ref().map(|(p, _)| p.clone()),
        &state_key,
    )
    .map_err(|e| error_at(file, name_at, e.to_string()))?;
    let problem = problem.map(|e| {
        let message = match &e {
            BuiltinError::Rules { message, .. } => format!(
                "rules {}: {message}; the hook runs with its default rules until this is fixed",
                rules
                    .as_ref()
                    .map(|(p, _)| ws.display(p).into_owned())
                    .unwrap_or_default()
            ),
            BuiltinError::Unknown { .. } => e.to_string(),
        };
        match &rules {
            Some((_, at)) => error_at(file, at, message),
            None => error_at(file, name_at, message),
        }
    });
    Ok((spec, problem))
}
