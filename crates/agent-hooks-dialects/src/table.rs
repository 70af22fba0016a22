//! The one table from an agent to its home: whatever an agent-specific caller asks of an
//! agent goes through [`Agent::home`], one row per agent. Adding an agent is its module (with
//! its [`AgentHome`]) and a row in each `match` below; the compiler lists the ones to fill.

use agent_hooks_core::event::Event;

use crate::agent::{Agent, SourceKind};
use crate::claude::{ClaudeCode, ClaudeFamily};
use crate::codex::Codex;
use crate::copilot::Copilot;
use crate::cursor::Cursor;
use crate::gemini::Gemini;
use crate::home::AgentHome;
use crate::windsurf::Windsurf;

impl Agent {
    /// Everything about this agent that only its module knows.
    pub fn home(self) -> &'static dyn AgentHome {
        match self {
            Agent::ClaudeCode => &ClaudeCode,
            Agent::Codex => &Codex,
            Agent::Gemini => &Gemini,
            Agent::Cursor => &Cursor,
            Agent::Copilot => &Copilot,
            Agent::Windsurf => &Windsurf,
        }
    }

    /// How the Claude Code dialect reads and writes for this agent: Codex's events for Codex,
    /// Claude Code's own for every other (Gemini CLI and Cursor hooks have dialects of their
    /// own and come here only when declared in Claude Code's format).
    pub fn claude_family(self) -> &'static dyn ClaudeFamily {
        match self {
            Agent::Codex => &Codex,
            Agent::ClaudeCode
            | Agent::Gemini
            | Agent::Cursor
            | Agent::Copilot
            | Agent::Windsurf => &ClaudeCode,
        }
    }

    /// Whether this agent's bridge ever dispatches `event`: the twins of the agent's mapped
    /// events, and `transform_tool_result`, which runs with its post-tool event. Hooks on any
    /// other event never run inside that agent.
    pub fn reaches(self, event: Event) -> bool {
        event == Event::TransformToolResult || self.home().events().iter().any(|(_, e)| *e == event)
    }

    /// The agent's short name: `claude`, `codex` — the prefix of its bridge commands
    /// (`codex-hook`) and the value of `convert --from`.
    pub fn name(self) -> &'static str {
        self.home().name()
    }

    /// How messages and docs name the agent.
    pub fn label(self) -> &'static str {
        self.home().label()
    }

    /// The sidecar route that answers this agent's hook input in its own format.
    pub fn http_route(self) -> &'static str {
        self.home().http_route()
    }

    /// The subcommand the agent runs as its bridge hook (`claude-hook`, `codex-hook`).
    pub fn hook_command(self) -> &'static str {
        self.home().hook_command()
    }

    /// Which source the hooks declared in this agent's own configuration load as.
    pub fn source(self) -> SourceKind {
        self.home().source()
    }

    /// The agent's project file of hooks, relative to the workspace: what its installer
    /// writes and what `convert` reads by default.
    pub fn config_file(self) -> &'static str {
        self.home().config_file()
    }

    /// Whether the agent itself can call an HTTP hook (and so its installer has `--http`).
    pub fn has_http_hooks(self) -> bool {
        self.home().has_http_hooks()
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;

    /// What a fifth agent takes: a variant of [`Agent`] (and of [`SourceKind`], whose order is
    /// the run order), a row in [`Agent::ALL`], a module with its event table and an
    /// [`AgentHome`], and its row in [`Agent::home`] (and in [`Agent::claude_family`]). This
    /// test then holds it to what every caller relies on.
    #[test]
    fn every_agent_has_a_home_with_its_own_names_and_events_that_round_trip() {
        let mut seen = BTreeSet::new();
        for agent in Agent::ALL {
            let home = agent.home();
            for fact in [
                home.name(),
                home.hook_command(),
                home.http_route(),
                home.config_file(),
            ] {
                assert!(seen.insert(fact), "{agent}: {fact} is another agent's too");
            }
            assert_eq!(home.name().parse::<Agent>(), Ok(agent));
            assert_eq!(home.hook_command(), format!("{}-hook", home.name()));
            assert_eq!(agent.source(), home.source());
            let events = home.events();
            assert!(!events.is_empty(), "{agent} has no events");
            for (name, event) in &events {
                assert_eq!(home.twin_of(name), Some(*event), "{agent}: {name}");
                assert!(agent.reaches(*event), "{agent}: {name}");
                assert!(
                    !home.unmapped_events().contains(name),
                    "{agent}: {name} is both mapped and unmapped"
                );
            }
            let names: BTreeSet<&str> = events.iter().map(|(name, _)| *name).collect();
            assert_eq!(names.len(), events.len(), "{agent} names an event twice");
            assert_eq!(home.twin_of("no such event"), None);
        }
        let sources: BTreeSet<SourceKind> = Agent::ALL.into_iter().map(Agent::source).collect();
        assert_eq!(sources.len(), Agent::ALL.as_slice().len());
    }

    #[test]
    fn an_agents_hooks_file_decides_its_bridge_entry() {
        for agent in Agent::ALL {
            let home = agent.home();
            let handler = home.bridge_handler("agent-hooks x-hook".into());
            let keys = home.handler_keys();
            assert_eq!(handler[keys.command[0]], "agent-hooks x-hook", "{agent}");
            let file = home.hooks_file();
            assert_eq!(handler.get("type").is_some(), file.typed, "{agent}");
            let timeout = keys.timeout.and_then(|key| handler.get(key));
            if let Some(timeout) = timeout.and_then(serde_json::Value::as_f64) {
                assert_eq!(file.timeout_unit.to_secs(timeout), 120.0, "{agent}");
            }
        }
    }
}
