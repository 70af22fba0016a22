//! The one table from an agent to its home: what an agent-specific caller asks of an agent
//! that only that agent's module knows is answered here, one row per agent. Adding an agent
//! is its module and a row in each `match` below (the compiler lists the ones to fill).

use agent_hooks_core::event::Event;

use crate::agent::Agent;
use crate::claude::{CLAUDE_EVENTS, ClaudeCode, ClaudeFamily};
use crate::codex::{CODEX_EVENTS, Codex};
use crate::cursor::CURSOR_EVENTS;
use crate::gemini::GEMINI_EVENTS;

impl Agent {
    /// How the Claude Code dialect reads and writes for this agent: Codex's events for Codex,
    /// Claude Code's own for every other (Gemini CLI and Cursor hooks have dialects of their
    /// own and come here only when declared in Claude Code's format).
    pub fn claude_family(self) -> &'static dyn ClaudeFamily {
        match self {
            Agent::Codex => &Codex,
            Agent::ClaudeCode | Agent::Gemini | Agent::Cursor => &ClaudeCode,
        }
    }

    /// Whether this agent's bridge ever dispatches `event`: the twins of the agent's mapped
    /// events, and `transform_tool_result`, which runs with its post-tool event. Hooks on any
    /// other event never run inside that agent.
    pub fn reaches(self, event: Event) -> bool {
        event == Event::TransformToolResult
            || match self {
                Agent::ClaudeCode => CLAUDE_EVENTS.iter().any(|(_, _, e)| *e == event),
                Agent::Codex => CODEX_EVENTS.iter().any(|c| c.canonical() == event),
                Agent::Gemini => GEMINI_EVENTS.iter().any(|(_, _, e)| *e == event),
                Agent::Cursor => CURSOR_EVENTS.iter().any(|(_, _, e)| *e == event),
            }
    }
}
