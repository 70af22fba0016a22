//! Whether a hook's transport can start it at all, and whether a Python hook would start
//! faster pre-forked.

use super::{Finding, FindingCode, Severity};
use crate::hook::Hook;
use agent_hooks_transports::TransportSpec;
use agent_hooks_transports::command_line;

/// Whether the transport can start the hook at all.
pub(super) fn runnability(hook: &Hook) -> Vec<Finding> {
    match &hook.transport {
        TransportSpec::Command(spec) => match command_line::read(spec, &hook.env) {
            Ok(reading) => {
                let mut findings = super::command::inspect(&reading, &spec.cwd);
                findings.extend(prefork_note(hook, spec));
                findings
            }
            Err(unreadable) => {
                // A hook that needs approval cannot get one; a skill hook still runs.
                let severity = if hook.approval_key.is_some() {
                    Severity::Error
                } else {
                    Severity::Warning
                };
                vec![
                    Finding::new(FindingCode::Unreadable, severity, unreadable.to_string())
                        .fix("write the script's path out in the command (no variables it sets itself, no $(...))"),
                ]
            }
        },
        // Reachability is `doctor`'s to find out; the URL passed the SSRF guard at load.
        TransportSpec::Http(_) | TransportSpec::Judge(_) => Vec::new(),
        // Compiled in; a bad rules file is a config error, and the guard runs its defaults.
        TransportSpec::Builtin(_) => Vec::new(),
    }
}

/// Whether a Python hook runs pre-forked, or could: most of its time per call is a fresh
/// interpreter starting and importing, which `prefork: true` pays once.
fn prefork_note(hook: &Hook, spec: &agent_hooks_transports::CommandSpec) -> Option<Finding> {
    if spec.prefork.is_some() {
        return Some(Finding::new(
            FindingCode::Prefork,
            Severity::Info,
            "runs pre-forked (prefork): each call is a forked child of an interpreter that has the script compiled and its imports loaded",
        ));
    }
    if hook.dialect.background().is_some() || command_line::python_call(spec, &hook.env).is_err() {
        return None;
    }
    Some(
        Finding::new(
            FindingCode::Prefork,
            Severity::Info,
            "could run pre-forked: a Python script started by a fresh interpreter per call; add `prefork: true` to fork it from a warm one (docs/writing-hooks.md)",
        )
        .fix("add prefork: true to the hook, then approve it again"),
    )
}
