//! The agents whose hooks this runtime speaks, and the facts about each that more than one
//! module needs: the name used on the command line (`codex-hook`, `convert --from codex`), the
//! sidecar route that answers in its format, and which source its hooks load as. Each agent's
//! event table lives with its dialect (`dialect/claude/event.rs`, `dialect/codex.rs`,
//! `dialect/gemini.rs`, `dialect/cursor.rs`).

use std::fmt;
use std::str::FromStr;

/// An agent (host) with its own hook dialect.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Agent {
    /// Anthropic's Claude Code (`.claude/settings*.json`).
    ClaudeCode,
    /// OpenAI's Codex CLI (`.codex/hooks.json`, `[hooks]` in `.codex/config.toml`), which
    /// speaks Claude Code's hook protocol with its own set of events.
    Codex,
    /// Google's Gemini CLI (`.gemini/settings.json`).
    Gemini,
    /// Cursor's agent (`.cursor/hooks.json`).
    Cursor,
}

impl Agent {
    /// Every agent, in source order.
    pub const ALL: [Agent; 4] = [
        Agent::ClaudeCode,
        Agent::Codex,
        Agent::Gemini,
        Agent::Cursor,
    ];

    /// The agent's short name: `claude`, `codex` — the prefix of its bridge commands
    /// (`codex-hook`) and the value of `convert --from`.
    pub fn name(self) -> &'static str {
        match self {
            Agent::ClaudeCode => "claude",
            Agent::Codex => "codex",
            Agent::Gemini => "gemini",
            Agent::Cursor => "cursor",
        }
    }

    /// How messages and docs name the agent.
    pub fn label(self) -> &'static str {
        match self {
            Agent::ClaudeCode => "Claude Code",
            Agent::Codex => "Codex",
            Agent::Gemini => "Gemini CLI",
            Agent::Cursor => "Cursor",
        }
    }

    /// The sidecar route that answers this agent's hook input in its own format.
    pub fn http_route(self) -> &'static str {
        match self {
            Agent::ClaudeCode => "/v1/hooks/claude-code",
            Agent::Codex => "/v1/hooks/codex",
            Agent::Gemini => "/v1/hooks/gemini",
            Agent::Cursor => "/v1/hooks/cursor",
        }
    }

    /// The agent whose sidecar route a hook URL points at, if it is one of those routes.
    pub fn of_bridge_url(url: &str) -> Option<Agent> {
        let url = url.trim_end_matches('/');
        Agent::ALL
            .into_iter()
            .find(|agent| url.ends_with(agent.http_route()))
    }

    /// The subcommand the agent runs as its bridge hook (`claude-hook`, `codex-hook`).
    pub fn hook_command(self) -> &'static str {
        match self {
            Agent::ClaudeCode => "claude-hook",
            Agent::Codex => "codex-hook",
            Agent::Gemini => "gemini-hook",
            Agent::Cursor => "cursor-hook",
        }
    }

    /// Which source the hooks declared in this agent's own configuration load as.
    pub fn source(self) -> SourceKind {
        match self {
            Agent::ClaudeCode => SourceKind::ClaudeCode,
            Agent::Codex => SourceKind::Codex,
            Agent::Gemini => SourceKind::Gemini,
            Agent::Cursor => SourceKind::Cursor,
        }
    }

    /// The agent's project file of hooks, relative to the workspace: what its installer
    /// writes and what `convert` reads by default.
    pub fn config_file(self) -> &'static str {
        match self {
            Agent::ClaudeCode => ".claude/settings.json",
            Agent::Codex => ".codex/hooks.json",
            Agent::Gemini => ".gemini/settings.json",
            Agent::Cursor => ".cursor/hooks.json",
        }
    }

    /// Whether the agent itself can call an HTTP hook (and so its installer has `--http`).
    pub fn has_http_hooks(self) -> bool {
        matches!(self, Agent::ClaudeCode)
    }
}

/// What a bridge prints for the agent and how it exits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentAnswer {
    /// One JSON object, or empty for "no opinion".
    pub stdout: String,
    /// Shown by the agent in its verbose mode only.
    pub stderr: String,
    /// The process exit status; always 0, as decisions travel in `stdout`.
    pub exit: i32,
}

impl fmt::Display for Agent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

/// A name that is not an agent's.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown agent \"{0}\" (expected one of: {names})", names = agent_names())]
pub struct UnknownAgent(pub String);

fn agent_names() -> String {
    Agent::ALL.map(Agent::name).join(", ")
}

impl FromStr for Agent {
    type Err = UnknownAgent;

    fn from_str(name: &str) -> Result<Agent, UnknownAgent> {
        Agent::ALL
            .into_iter()
            .find(|a| a.name() == name)
            .ok_or_else(|| UnknownAgent(name.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_back_and_routes_are_distinct() {
        for agent in Agent::ALL {
            assert_eq!(agent.name().parse::<Agent>(), Ok(agent));
            assert_eq!(
                Agent::ALL
                    .iter()
                    .filter(|a| a.http_route() == agent.http_route())
                    .count(),
                1
            );
        }
        assert!("copilot".parse::<Agent>().is_err());
    }
}

/// Which kind of file declared a hook. Its order is the run order of SPEC §5: shell hooks,
/// then skill hooks, then Claude Code, Codex, Gemini CLI and Cursor hooks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SourceKind {
    /// `config/shell_hooks.yaml`.
    ShellHooks,
    /// A skill's `hooks.json`.
    Skill,
    /// Claude Code's `settings.json` files.
    ClaudeCode,
    /// Codex's `.codex/hooks.json` and the `[hooks]` of `.codex/config.toml`.
    Codex,
    /// Gemini CLI's `.gemini/settings.json`.
    Gemini,
    /// Cursor's `.cursor/hooks.json`.
    Cursor,
}

impl SourceKind {
    /// How messages name a hook of this kind ("shell hook", ...).
    pub fn label(self) -> &'static str {
        match self {
            SourceKind::ShellHooks => "shell hook",
            SourceKind::Skill => "skill hook",
            SourceKind::ClaudeCode => "Claude Code hook",
            SourceKind::Codex => "Codex hook",
            SourceKind::Gemini => "Gemini CLI hook",
            SourceKind::Cursor => "Cursor hook",
        }
    }
}
