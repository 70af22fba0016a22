//! The Claude Code dialect (SPEC §7), both ways, in one place:
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
mod input;
mod reverse;
mod transcript;

pub(crate) use answer::{ClaudeOutput, Permission, interpret, judged, require_json_body};
pub(crate) use condition::{Condition, glob_regex};
pub(crate) use event::{
    CLAUDE_EVENTS, CLAUDE_UNMAPPED_EVENTS, ClaudeEvent, ToolAliases, compile_matcher, event_for,
    match_target, reachable_from, reachable_from_claude,
};
pub(crate) use input::{generate_tool_use_id, input};
pub use reverse::InputError;
pub(crate) use reverse::{
    BRIDGED, RewritePermission, Sent, answer_with, bridge_log, from_claude, to_claude,
};
