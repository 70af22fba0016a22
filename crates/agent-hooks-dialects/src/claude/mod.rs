//! The Claude Code dialect (`docs/claude-code.md`), both ways, in one place:
//!
//! - `event`: Claude Code's events and their canonical twins, tool-name
//!   aliases, matchers;
//! - `input`: the canonical payload as Claude Code's hook input, for hooks declared in
//!   `.claude/settings*.json`;
//! - `answer`: a hook's answer parsed once into a typed Claude Code output and read with Claude
//!   Code's rules (the shell dialect maps the same typed output under its own rules);
//! - `reverse`: Claude Code's hook input read into a canonical dispatch and an outcome written
//!   as Claude Code's answer, for the `claude-hook` bridge and `guard --format claude`.
//!
//! A script written for Claude Code runs here unmodified with the same effect, and
//! agent-hooks' own hooks run inside Claude Code through the bridge.

mod answer;
mod condition;
mod event;
mod home;
mod input;
mod reverse;
mod transcript;

pub use answer::{ClaudeOutput, Permission, interpret, judged, require_json_body};
pub use condition::{BadRule, Condition};
pub use event::{
    CLAUDE_EVENTS, CLAUDE_UNMAPPED_EVENTS, ClaudeCode, ClaudeEvent, ClaudeFamily, compile_matcher,
    match_target, tool_names,
};
// Spoken by every agent's home; re-exported where callers first found them.
pub use crate::home::{InputError, RewritePermission, ToolAliases};
pub use home::{CLAUDE_HOOKS_FILE, claude_matcher, read_family_input};
pub use input::{generate_tool_use_id, input};
pub use reverse::{BRIDGED, Sent, answer_with, bridge_log, from_claude, to_claude};

/// A handler's background mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Background {
    /// `"async": true`: its `additionalContext` and `systemMessage` reach the model later.
    Async,
    /// `"asyncRewake": true`: an exit 2 reports its stderr (else stdout) to the model later.
    AsyncRewake,
}

impl Background {
    /// The handler field, as the approval and `list` name it.
    pub fn field(self) -> &'static str {
        match self {
            Background::Async => "async",
            Background::AsyncRewake => "asyncRewake",
        }
    }
}
