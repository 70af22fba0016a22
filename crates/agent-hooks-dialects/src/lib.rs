//! # agent-hooks-dialects
//!
//! Dialects translate between the canonical payload and what one family of hook scripts
//! expects, and between their answers and canonical [`Answer`]s. The dispatcher calls only the
//! methods here; each dialect's field names live in its own module:
//!
//! - [`shell`] and [`skill`]: agent-hooks' own dialect and open-strix skills';
//! - [`claude`] (Claude Code, both ways), [`codex`], [`gemini`], [`cursor`], [`copilot`] and
//!   [`windsurf`]: each agent's
//!   events, hook input and answers, and its bridge's reading and writing;
//! - [`agent`]: the agents agent-hooks protects; [`home`]: the one trait, [`home::AgentHome`],
//!   through which the bridge, the sidecar, `convert` and the installers ask anything that
//!   differs between agents (each agent implements it in its own module; `Agent::home` is the
//!   table from an agent to it);
//! - [`matcher`] decides which payloads a hook runs on, [`read`] how a hook's stdout is read,
//!   and [`verdict`] how an LLM judge's answer is.
//!
//! This crate knows the core's vocabulary and the transports' raw [`Reply`]; it knows nothing
//! of configuration files, trust or dispatch.

#![warn(missing_docs)]
#![cfg_attr(not(test), warn(unused_crate_dependencies))]

pub mod agent;
pub mod claude;
pub mod codex;
pub mod copilot;
pub mod cursor;
pub mod gemini;
pub mod home;
pub mod json;
pub mod matcher;
pub mod read;
pub mod shell;
pub mod skill;
mod table;
pub mod verdict;
pub mod windsurf;

use std::sync::{Arc, OnceLock};

use serde_json::{Map, Value};

pub use matcher::Matcher;

use agent_hooks_core::answer::{Answer, Unusable};
use agent_hooks_core::event::Event;
use agent_hooks_core::workspace::Workspace;
use agent_hooks_transports::Reply;

/// An agent's event names, each with the agent's event and its canonical twin: the table
/// both directions of a dialect translate through.
pub type EventNames<E> = [(&'static str, E, Event)];

/// The event called `name` in `table`.
pub fn named<E: Copy>(table: &EventNames<E>, name: &str) -> Option<E> {
    table
        .iter()
        .find(|(n, _, _)| *n == name)
        .map(|(_, e, _)| *e)
}

/// The name of `event` in `table` (empty if the table lacks it).
pub fn name_of<E: Copy + PartialEq>(table: &EventNames<E>, event: E) -> &'static str {
    table
        .iter()
        .find(|(_, e, _)| *e == event)
        .map_or("", |(n, _, _)| *n)
}

/// The canonical twin of `event` in `table`.
pub fn twin_of<E: Copy + PartialEq>(table: &EventNames<E>, event: E) -> Option<Event> {
    table
        .iter()
        .find(|(_, e, _)| *e == event)
        .map(|(_, _, twin)| *twin)
}

/// The protocol a hook speaks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Dialect {
    /// `config/shell_hooks.yaml`: the decision protocol (`docs/protocol.md`), Claude Code answers
    /// accepted.
    Shell,
    /// `skills/**/hooks.json`: the event-replacement chain (`docs/skill-hooks.md`).
    Skill {
        /// Whether the hook's input carries the conversation so far (read from the transcript).
        include_conversation: bool,
        /// Whether `_block` stops the call (the fork's verb) or is one more field (upstream).
        block: skill::BlockVerb,
    },
    /// `.claude/settings*.json`: Claude Code's hook input and answer rules (`docs/claude-code.md`);
    /// also Codex's hooks, which speak the same protocol.
    Claude {
        /// The agent whose configuration declared the hook (Claude Code or Codex): which events
        /// it has and what its input adds.
        agent: crate::agent::Agent,
        /// The Claude Code event the hook was declared under, which decides the input's shape.
        event: claude::ClaudeEvent,
        /// Tool-name aliases, so matchers such as `Bash` match the host's tools.
        aliases: Arc<claude::ToolAliases>,
        /// The handler's `if` permission rule, when it has one.
        condition: Option<Arc<claude::Condition>>,
        /// `async` / `asyncRewake`: the hook runs in the background and can never block.
        background: Option<crate::claude::Background>,
    },
    /// `.gemini/settings.json`: Gemini CLI's hook input and answer rules.
    Gemini {
        /// The Gemini CLI event the hook was declared under, which decides the input's shape.
        event: gemini::GeminiEvent,
        /// The group's `sequential`: its hooks run one after another; otherwise in parallel.
        sequential: bool,
        /// Tool-name aliases (`bash` ↔ `run_shell_command`).
        aliases: Arc<claude::ToolAliases>,
    },
    /// `.cursor/hooks.json`: Cursor's hook input and answer rules.
    Cursor {
        /// The Cursor event the hook was declared under, which decides the input's shape.
        event: cursor::CursorEvent,
        /// The hook's `loop_limit` on `stop`: how many follow-ups of a turn it may ask for
        /// (`None`: no limit).
        loop_limit: Option<u64>,
    },
    /// `.github/hooks/*.json`: GitHub Copilot's hook input and answer rules.
    Copilot {
        /// The Copilot event the hook was declared under, which decides the input's shape.
        event: copilot::CopilotEvent,
    },
    /// Windsurf's `hooks.json`: Cascade's hook input and exit-status rule.
    Windsurf {
        /// The Cascade event the hook was declared under, which decides the input's shape.
        event: windsurf::WindsurfEvent,
        /// The handler's `show_output`: what it prints is shown to the user.
        show_output: bool,
    },
}

/// A canonical event name read for a user, with a "did you mean" that knows the agents'
/// names too: a Claude Code event name (`PreToolUse`, any case) suggests its canonical twin
/// (`pre_tool_call`), where the core's own parse only suggests the nearest canonical name.
///
/// # Errors
///
/// The name is not a canonical event; the error carries the suggestion.
pub fn parse_event(name: &str) -> Result<Event, agent_hooks_core::event::UnknownEvent> {
    name.parse()
        .map_err(|mut unknown: agent_hooks_core::event::UnknownEvent| {
            if let Some((_, _, twin)) = claude::CLAUDE_EVENTS
                .iter()
                .find(|(claude, _, _)| claude.eq_ignore_ascii_case(name))
            {
                unknown.suggestion = Some(twin.name());
            }
            unknown
        })
}

/// The canonical event `name` stands for: a canonical name (`pre_llm_call`), a skill hook's
/// (`pre_prompt`) or any agent's event name (`PreToolUse`, `BeforeTool`), so a host may speak
/// its own dialect. An unknown name's error suggests the nearest canonical one.
///
/// # Errors
///
/// [`UnknownEvent`](agent_hooks_core::event::UnknownEvent) when no dialect has the name.
pub fn event_named(name: &str) -> Result<Event, agent_hooks_core::event::UnknownEvent> {
    name.parse().or_else(|unknown| {
        skill::canonical(name)
            .or_else(|| {
                agent::Agent::ALL
                    .into_iter()
                    .find_map(|agent| agent.home().twin_of(name))
            })
            .ok_or(unknown)
    })
}

/// Work done at most once per dispatch however many hooks need it (the transcript a
/// skill hook's `include_conversation` reads).
#[derive(Debug, Default)]
pub struct DispatchCache {
    /// The conversation skill hooks with `include_conversation` get, read once.
    pub conversation: OnceLock<Value>,
    /// The `tool_use_id` generated for Claude Code hooks when the payload has none, so every
    /// hook of the dispatch sees the same one.
    pub tool_use_id: OnceLock<String>,
    /// The event skill hooks pass from one to the next (their chain replaces it whole).
    pub skill_chain: std::sync::Mutex<Option<skill::Chain>>,
    /// The `session_id` generated for Claude Code hooks when the payload has none (Claude Code
    /// never sends an empty one), shared by every hook of the dispatch.
    pub session_id: OnceLock<String>,
    /// The Claude Code-format transcript built from the chat history for this dispatch, if
    /// there is a chat history.
    pub transcript: OnceLock<Option<String>>,
    /// Variables the host sets for this dispatch's command hooks (its environment at call
    /// time), under each hook's own `env` and the runtime's variables.
    pub host_env: OnceLock<Vec<(String, String)>>,
}

/// The payload as it stands at one point of a dispatch, with the matcher text computed at most
/// once however many hooks look at it.
#[derive(Debug)]
pub struct PayloadView<'a> {
    /// The event being dispatched.
    pub event: Event,
    /// The payload, with every rewrite so far applied.
    pub payload: &'a Map<String, Value>,
    /// The workspace, for paths hooks get (transcript, state).
    pub ws: &'a Workspace,
    /// What this dispatch computes at most once for all its hooks.
    pub cache: &'a DispatchCache,
    match_text: OnceLock<String>,
    /// The dispatcher's copy of the match text, shared by every hook that sees the payload in
    /// this state, so ten matchers on one payload build the text once rather than ten times.
    shared_match_text: Option<&'a OnceLock<String>>,
}

impl<'a> PayloadView<'a> {
    /// A view of `payload` at `event`; `cache` is shared by every hook of the dispatch.
    pub fn new(
        event: Event,
        payload: &'a Map<String, Value>,
        ws: &'a Workspace,
        cache: &'a DispatchCache,
    ) -> Self {
        PayloadView {
            event,
            payload,
            ws,
            cache,
            match_text: OnceLock::new(),
            shared_match_text: None,
        }
    }

    /// Uses `text` as the match-text cache. The caller must give a fresh one whenever the
    /// payload changes.
    pub fn sharing_match_text(mut self, text: &'a OnceLock<String>) -> Self {
        self.shared_match_text = Some(text);
        self
    }

    /// The payload's string values (nested ones too), common fields excluded, joined with newlines:
    /// what shell-hook matchers search (`docs/protocol.md`).
    pub fn match_text(&self) -> &str {
        let cell = self.shared_match_text.unwrap_or(&self.match_text);
        cell.get_or_init(|| matcher::match_text(self.payload))
    }
}

impl Dialect {
    /// Whether the hook's matcher lets it run on this payload (no matcher: always).
    pub fn matches(&self, matcher: Option<&Matcher>, view: &PayloadView<'_>) -> bool {
        if let Dialect::Claude {
            agent,
            event,
            aliases,
            condition,
            ..
        } = self
        {
            // PostToolUse and PostToolUseFailure share post_tool_call; the status tells them apart.
            if agent.claude_family().event_of(view.event, view.payload) != Some(*event) {
                return false;
            }
            if let Some(condition) = condition
                && !condition.allows(*event, view.payload, aliases)
            {
                return false;
            }
            return match (matcher, claude::match_target(*event, view.payload, aliases)) {
                (Some(m), Some(target)) => m.is_match(target),
                _ => true,
            };
        }
        if let Dialect::Gemini { event, aliases, .. } = self {
            if gemini::GeminiEvent::of(view.event, view.payload) != Some(*event) {
                return false;
            }
            return match (matcher, gemini::match_target(*event, view.payload, aliases)) {
                (Some(m), Some(target)) => m.is_match(target),
                _ => true,
            };
        }
        if let Dialect::Cursor { event, .. } = self {
            if !event.fires_on(view.event, view.payload) {
                return false;
            }
            return match (matcher, cursor::match_target(*event, view.payload)) {
                (Some(m), Some(target)) => m.is_match(&target),
                _ => true,
            };
        }
        if let Dialect::Copilot { event } = self {
            if copilot::CopilotEvent::of(view.event, view.payload) != Some(*event) {
                return false;
            }
            return match (matcher, copilot::match_target(*event, view.payload)) {
                (Some(m), Some(target)) => m.is_match(&target),
                _ => true,
            };
        }
        if let Dialect::Windsurf { event, .. } = self {
            // Cascade has no matchers: the event (split by tool) is all that selects.
            return windsurf::WindsurfEvent::of(view.event, view.payload) == Some(*event);
        }
        match matcher {
            None => true,
            Some(m) => m.is_match(view.match_text()),
        }
    }

    /// Whether hooks of this dialect must run one after another at `event` (they may block or
    /// rewrite there), rather than concurrently.
    pub fn chains(&self, event: Event) -> bool {
        match self {
            // Codex starts every matching hook of an event at once.
            Dialect::Claude {
                agent: crate::agent::Agent::Codex,
                ..
            } => false,
            Dialect::Shell
            | Dialect::Claude { .. }
            | Dialect::Cursor { .. }
            | Dialect::Copilot { .. }
            | Dialect::Windsurf { .. } => !event.spec().observe_only,
            // Gemini CLI runs a group in parallel unless it says `sequential`.
            Dialect::Gemini { sequential, .. } => *sequential && !event.spec().observe_only,
            Dialect::Skill { .. } => skill::chains(event),
        }
    }

    /// The bytes written to the hook's stdin. A number a Python host or hook wrote exactly
    /// (`json::read_python_exact`) is written as that number.
    pub fn input(&self, view: &PayloadView<'_>) -> Vec<u8> {
        let bytes = match self {
            // Written by `json::python_dumps`, which writes marked numbers itself.
            Dialect::Skill {
                include_conversation,
                ..
            } => return skill::input(view, *include_conversation),
            Dialect::Shell => shell::input(view),
            Dialect::Claude {
                agent,
                event,
                aliases,
                ..
            } => claude::input(view, agent.claude_family(), *event, aliases),
            Dialect::Gemini { event, aliases, .. } => gemini::input(view, *event, aliases),
            Dialect::Cursor { event, .. } => cursor::input(view, *event),
            Dialect::Copilot { event } => {
                copilot::input(*event, view.payload, &view.ws.root().to_string_lossy())
            }
            Dialect::Windsurf { event, .. } => {
                windsurf::input(*event, view.payload, &view.ws.root().to_string_lossy())
            }
        };
        json::restore_numbers(bytes)
    }

    /// Reads a completed run's raw reply into canonical effects.
    pub fn interpret(&self, view: &PayloadView<'_>, reply: &Reply) -> Result<Answer, Unusable> {
        match self {
            Dialect::Shell => shell::interpret(view.event, reply),
            Dialect::Skill { block, .. } => skill::interpret(view, reply, *block),
            Dialect::Claude { agent, event, .. } => {
                let mut answer = claude::interpret(*event, reply)?;
                agent.claude_family().follow_answer(*event, &mut answer);
                Ok(answer)
            }
            Dialect::Gemini { event, .. } => gemini::interpret(*event, view, reply),
            Dialect::Cursor { event, loop_limit } => {
                let mut answer = cursor::interpret(*event, reply)?;
                cursor::hold_loop_limit(*event, *loop_limit, view.payload, &mut answer);
                Ok(answer)
            }
            Dialect::Copilot { event } => copilot::interpret(*event, reply),
            Dialect::Windsurf { event, show_output } => {
                windsurf::interpret(*event, *show_output, reply)
            }
        }
    }

    /// Reads an LLM judge's verdict into canonical effects, with this dialect's rules for
    /// `ok: false` (`continue_on_block`: Claude Code's handler field).
    pub fn judged(
        &self,
        view: &PayloadView<'_>,
        verdict: &verdict::Verdict,
        continue_on_block: bool,
    ) -> Answer {
        match self {
            Dialect::Claude { event, .. } => claude::judged(*event, verdict, continue_on_block),
            Dialect::Shell
            | Dialect::Skill { .. }
            | Dialect::Gemini { .. }
            | Dialect::Cursor { .. }
            | Dialect::Copilot { .. }
            | Dialect::Windsurf { .. } => verdict::shell_answer(view.event, verdict),
        }
    }

    /// The name this dialect's scripts know `event` by (`HOOK_EVENT`).
    pub fn event_name(&self, event: Event) -> &'static str {
        match self {
            Dialect::Shell => event.name(),
            Dialect::Claude { event, .. } => event.name(),
            Dialect::Gemini { event, .. } => event.name(),
            Dialect::Cursor { event, .. } => event.name(),
            Dialect::Copilot { event } => event.name(),
            Dialect::Windsurf { event, .. } => event.name(),
            Dialect::Skill { .. } => skill::skill_name(event).unwrap_or(event.name()),
        }
    }

    /// What a command hook of this dialect may do beyond the common rules, for an input of
    /// `input_len` bytes. Skill hooks echo their event back, so their answer may be as large as
    /// the input plus [`skill::ANSWER_HEADROOM`]; and their source runtime lets a hook start a
    /// sidecar that outlives it.
    pub fn run_policy(&self, input_len: usize) -> agent_hooks_transports::RunPolicy {
        match self {
            Dialect::Skill { .. } => agent_hooks_transports::RunPolicy {
                stdout_cap: input_len.saturating_add(skill::ANSWER_HEADROOM),
                leave_background: true,
                ..agent_hooks_transports::RunPolicy::default()
            },
            Dialect::Shell
            | Dialect::Claude { .. }
            | Dialect::Gemini { .. }
            | Dialect::Cursor { .. }
            | Dialect::Copilot { .. }
            | Dialect::Windsurf { .. } => agent_hooks_transports::RunPolicy::default(),
        }
    }

    /// Gives a record about one of this dialect's hooks the shape its readers expect: skill
    /// hooks' records use their source runtime's field names.
    pub fn shape_record(
        &self,
        record: agent_hooks_core::diag::DiagRecord,
        event: Event,
        payload: &Map<String, Value>,
    ) -> agent_hooks_core::diag::DiagRecord {
        match self {
            Dialect::Skill { .. } => skill::shape_record(record, event, payload),
            Dialect::Shell
            | Dialect::Claude { .. }
            | Dialect::Gemini { .. }
            | Dialect::Cursor { .. }
            | Dialect::Copilot { .. }
            | Dialect::Windsurf { .. } => record,
        }
    }

    /// Whether hooks of this dialect run in the background (Claude Code's `async`).
    pub fn background(&self) -> Option<crate::claude::Background> {
        match self {
            Dialect::Claude { background, .. } => *background,
            Dialect::Shell
            | Dialect::Skill { .. }
            | Dialect::Gemini { .. }
            | Dialect::Cursor { .. }
            | Dialect::Copilot { .. }
            | Dialect::Windsurf { .. } => None,
        }
    }

    /// How `list` and `doctor` name the dialect.
    pub fn label(&self) -> &'static str {
        match self {
            Dialect::Shell => "decision protocol",
            Dialect::Claude { agent, .. } => agent.label(),
            Dialect::Gemini { .. } => crate::agent::Agent::Gemini.label(),
            Dialect::Cursor { .. } => crate::agent::Agent::Cursor.label(),
            Dialect::Copilot { .. } => crate::agent::Agent::Copilot.label(),
            Dialect::Windsurf { .. } => crate::agent::Agent::Windsurf.label(),
            Dialect::Skill { .. } => "skill event replacement",
        }
    }
}
