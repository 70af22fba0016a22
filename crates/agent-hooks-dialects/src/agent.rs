//! The agents whose hooks this runtime speaks, and the list of them. What each one is — its
//! name on the command line (`codex-hook`, `convert --from codex`), its sidecar route, its
//! files, its events — is its home's (`home.rs`), implemented in its module (`claude/`,
//! `codex.rs`, `gemini.rs`, `cursor.rs`) and found through `table.rs`.

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
    /// GitHub Copilot, the CLI and the coding agent (`.github/hooks/*.json`).
    Copilot,
    /// Windsurf's Cascade (`hooks.json` at system, user and workspace level).
    Windsurf,
}

impl Agent {
    /// Every agent, in source order. Its facts and behaviour are its home's
    /// ([`Agent::home`], in `table.rs`).
    pub const ALL: Agents = Agents(&[
        Agent::ClaudeCode,
        Agent::Codex,
        Agent::Gemini,
        Agent::Cursor,
        Agent::Copilot,
        Agent::Windsurf,
    ]);

    /// The agent whose sidecar route a hook URL points at, if it is one of those routes.
    pub fn of_bridge_url(url: &str) -> Option<Agent> {
        // A query (`?on_failure=block`) is the entry's setting, not its route.
        let url = url
            .split(['?', '#'])
            .next()
            .unwrap_or(url)
            .trim_end_matches('/');
        Agent::ALL
            .into_iter()
            .find(|agent| url.ends_with(agent.http_route()))
    }
}

/// Every agent ([`Agent::ALL`]), iterated by value. A list of unfixed length, so adding an
/// agent changes no public type.
#[derive(Debug, Clone, Copy)]
pub struct Agents(&'static [Agent]);

impl Agents {
    /// The agents as a slice.
    pub fn as_slice(self) -> &'static [Agent] {
        self.0
    }

    /// The agents, by value.
    pub fn iter(self) -> std::iter::Copied<std::slice::Iter<'static, Agent>> {
        self.0.iter().copied()
    }
}

impl IntoIterator for Agents {
    type Item = Agent;
    type IntoIter = std::iter::Copied<std::slice::Iter<'static, Agent>>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// What a bridge prints for the agent and how it exits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentAnswer {
    /// One JSON object, or empty for "no opinion".
    pub stdout: String,
    /// The agent's hook log: every lapse and every failed hook (on exit 2, the reason).
    pub stderr: String,
    /// The process exit status: 0, as decisions travel in `stdout`; 2 only to deny an input
    /// no event could be read from (`docs/agents.md`).
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
    Agent::ALL
        .into_iter()
        .map(Agent::name)
        .collect::<Vec<_>>()
        .join(", ")
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
        assert!("vscode".parse::<Agent>().is_err());
    }

    #[test]
    fn a_bridge_url_is_its_route_whatever_its_query() {
        for url in [
            "http://127.0.0.1:8377/v1/hooks/claude-code",
            "http://127.0.0.1:8377/v1/hooks/claude-code/",
            "http://127.0.0.1:8377/v1/hooks/claude-code?on_failure=block",
        ] {
            assert_eq!(Agent::of_bridge_url(url), Some(Agent::ClaudeCode), "{url}");
        }
        assert_eq!(
            Agent::of_bridge_url("http://x/v1/hooks/claude-code-not"),
            None
        );
    }
}

/// Which kind of file declared a hook. Its order is the run order (`docs/configuration.md`): shell
/// hooks, then skill hooks, then Claude Code, Codex, Gemini CLI, Cursor, GitHub Copilot and Windsurf hooks.
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
    /// GitHub Copilot's `.github/hooks/*.json` and `~/.copilot/hooks/*.json`.
    Copilot,
    /// Windsurf's `hooks.json` files (system, user, workspace).
    Windsurf,
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
            SourceKind::Copilot => "GitHub Copilot hook",
            SourceKind::Windsurf => "Windsurf hook",
        }
    }
}
