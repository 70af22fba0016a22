//! `type: builtin` entries of `config/shell_hooks.yaml`: a ready-made guard by `name`, with an
//! optional `rules` file. A rules file that cannot be used is a located configuration error,
//! yet the hook still loads and runs on its defaults (fail-open, issue 8).

use serde_json::Value;

use super::ConfigError;
use super::yaml::{LocatedMap, error_at};
use crate::hook::filesystem_safe;
use agent_hooks_core::wording::kind_of;
use agent_hooks_core::workspace::Workspace;
use agent_hooks_transports::BuiltinSpec;
use agent_hooks_transports::builtin::BuiltinError;

/// Keys that mean nothing to a built-in hook.
const NOT_FOR_BUILTIN: &[&str] = &["command", "url", "headers", "secret", "allowed_env", "env"];

/// Reads one `type: builtin` entry. `Err` drops the entry (no or an unknown `name`); a rules
/// problem comes back beside the spec, to be reported while the hook runs on its defaults.
pub(super) fn entry(
    ws: &Workspace,
    file: &str,
    index: usize,
    map: &LocatedMap,
    warnings: &mut Vec<ConfigError>,
    missing_name: impl FnOnce() -> ConfigError,
) -> Result<(BuiltinSpec, Option<ConfigError>), ConfigError> {
    for key in NOT_FOR_BUILTIN {
        if let Some(at) = map.get(*key) {
            warnings.push(error_at(
                file,
                at,
                format!(
                    "hook #{}: \"{key}\" is not used by type: builtin; ignored",
                    index + 1
                ),
            ));
        }
    }
    let name_at = map.get("name").ok_or_else(missing_name)?;
    let Value::String(name) = &name_at.value else {
        return Err(error_at(
            file,
            name_at,
            format!("name: expected a string, found {}", kind_of(&name_at.value)),
        ));
    };
    let rules = match map.get("rules") {
        None => None,
        Some(at) => match &at.value {
            Value::String(path) if !path.trim().is_empty() => Some((ws.resolve_path(path), at)),
            other => {
                return Err(error_at(
                    file,
                    at,
                    format!("rules: expected a file path, found {}", kind_of(other)),
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
