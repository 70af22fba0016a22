//! What the readers of every agent's hooks file share (Claude Code's, Codex's, Gemini CLI's,
//! Cursor's): recognising an agent-hooks bridge among the handlers, reading an event name off
//! the agent's table, and warning about keys a typed section does not declare.

use serde_json::Value;

use super::{ConfigError, FileLoad};
use agent_hooks_core::wording::kind_of as json_kind;
use agent_hooks_dialects::agent::Agent;

/// Whether a command is an agent-hooks bridge (`agent-hooks claude-hook`, `codex-hook`, ...),
/// which the agent runs; running it from here would dispatch the workspace into itself.
pub(crate) fn is_bridge_command(command: &str) -> bool {
    bridge_agent(command).is_some()
}

/// The agent whose bridge `command` runs (`agent-hooks codex-hook` → Codex), if it is one.
pub(crate) fn bridge_agent(command: &str) -> Option<Agent> {
    let words = shell_words::split(command).unwrap_or_default();
    if !words
        .iter()
        .any(|w| w.rsplit('/').next().is_some_and(|b| b == "agent-hooks"))
    {
        return None;
    }
    Agent::ALL
        .into_iter()
        .find(|agent| words.iter().any(|w| w == agent.hook_command()))
}

/// Warns about each key of the object `written` (at `at`) that the struct `T` does not
/// declare, saying why it is ignored (`why`).
pub(super) fn warn_unknown_keys<T: serde::de::DeserializeOwned>(
    load: &mut FileLoad,
    at: &str,
    written: &Value,
    why: &str,
) {
    for key in super::typed::unknown_keys::<T>(written) {
        let warning = ConfigError::whole_file(
            &load.display,
            format!("{at}: unknown key \"{key}\" ({why}); ignored"),
        );
        load.warnings.push(warning);
    }
}

/// The agent's event named `event_name` (`parsed`, read by the caller's dialect) and the list
/// declared under it. An event this host has no twin for, or one the agent does not have, is
/// a warning; a value that is not a list is an error saying what it should list (`what`).
/// Either way the hooks under it are skipped (`None`).
pub(super) fn declared_event<'v, E>(
    load: &mut FileLoad,
    agent: Agent,
    (event_name, value): (&str, &'v Value),
    (parsed, unmapped): (Option<E>, &[&str]),
    what: &str,
) -> Option<(E, &'v [Value])> {
    let Some(event) = parsed else {
        let warning =
            ConfigError::whole_file(&load.display, skipped_event(agent, event_name, unmapped));
        load.warnings.push(warning);
        return None;
    };
    let list = value.as_array();
    if list.is_none() {
        let error = ConfigError::whole_file(
            &load.display,
            format!(
                "hooks.{event_name} must be a list of {what}, found {}",
                json_kind(value)
            ),
        );
        load.errors.push(error);
    }
    Some((event, list?.as_slice()))
}

/// Why the hooks an agent's file declares on `event_name` are skipped: the agent has the event
/// but this host has no twin of it (`unmapped`), or the agent has no such event.
fn skipped_event(agent: Agent, event_name: &str, unmapped: &[&str]) -> String {
    if unmapped.contains(&event_name) {
        format!("{event_name} hooks never fire in this host (it has no such event); skipped")
    } else {
        format!(
            "unknown {} event \"{event_name}\"; its hooks are skipped",
            agent.label()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bridge_commands_are_recognised() {
        assert!(is_bridge_command(
            "/usr/local/bin/agent-hooks claude-hook --workspace \"$CLAUDE_PROJECT_DIR\""
        ));
        assert!(is_bridge_command("agent-hooks claude-hook"));
        assert!(!is_bridge_command("python3 guard.py"));
    }
}
