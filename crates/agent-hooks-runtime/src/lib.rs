//! # agent-hooks
//!
//! A hook runtime for AI agents. A host (the agent) calls [`Engine::dispatch`] at fixed points
//! of its lifecycle — the [`Event`]s — and agent-hooks runs the user's hooks for that point:
//! small programs that get one JSON object on stdin and may answer with one JSON object to
//! block the action, rewrite it, inject context into the model's prompt, or warn the user.
//!
//! ## How data flows
//!
//! ```text
//! workspace files ──config──▶ Hook { source, events, matcher, transport, dialect, trust }
//!                                   │ (built once per load into the engine's Snapshot)
//!                                   ▼
//! host payload ──▶ Engine ──▶ dispatch ──▶ dialect.matches ─▶ trust gate ─▶ dialect.input
//!                                 ▲                                              │
//!                                 │                                       transport.run
//!                                 │                                              │
//!                                 └── merge ◀── Answer::admit(EventSpec) ◀── dialect.interpret
//!                                       │
//!                                    Outcome { decision, payload, context, notes, warnings, hooks }
//! ```
//!
//! Each decision has one home (`docs/architecture.md` has the full table). The library is
//! split by layer into crates, each depending only on those below it:
//!
//! - `agent-hooks-core`: the canonical events, their payloads and the capability table — the
//!   one place that says what each event lets hooks do — and `Answer::admit`, the one function
//!   that applies it to a hook's answer; the outcome, diagnostics, [`ConfigError`], the store.
//! - `agent-hooks-transports`: running a hook (a process in its own group with a hard timeout,
//!   a pre-forked Python script, an HTTP POST behind the SSRF guard, an LLM judge, a built-in
//!   guard in-process), and the one reading of a hook's command line (program and files).
//! - `agent-hooks-dialects`: translating between the canonical payload and what one family of
//!   scripts speaks (`shell`, `skill`, Claude Code, Codex, Gemini CLI, Cursor), and the agents
//!   themselves, one table from an agent to its module.
//! - this crate, whose modules are private (so these are file names, not API): `config/` reads
//!   each source of hooks (`config/shell_hooks.yaml`, skills' `hooks.json`,
//!   `.claude/settings*.json`, `.codex/hooks.json` and `.codex/config.toml`,
//!   `.gemini/settings.json`, `.cursor/hooks.json`, `config/agent.yaml`) into hooks and typed
//!   settings with located errors; `trust.rs` is the gate (master switch, approvals, drift: an
//!   approval binds the hook's whole definition and every file its command names);
//!   `dispatch.rs` orders, chains or parallelises hooks and merges their admitted effects into
//!   an [`Outcome`]; [`Engine`] holds the loaded workspace as a [`Snapshot`] and swaps it whole
//!   on reload; [`DispatchOptions`] narrows one dispatch (the Claude Code bridge skips Claude
//!   Code's own hooks with it); `inspect/` judges and tries hooks for `list` and `doctor`;
//!   [`commands`] is the `/hooks` commands as text; [`bridge`] runs a workspace inside an
//!   agent; [`guards`] wires the ready-made guards of `agent-hooks-guards` in.
//! - `agent-hooks-server`: the sidecar, on this crate's public API.
//!
//! Every failure of a hook is visible: in the outcome's per-hook report and in
//! `logs/events.jsonl`. Failure is open (the action proceeds) unless a hook says
//! `on_error: block`.
//!
//! ## The public surface
//!
//! What a host needs, and nothing it does not: the internals above (configuration records,
//! transports, the SSRF guard, the trust gate's records and hashes, file stores) can change
//! without breaking an embedding. `#![warn(unnameable_types)]` keeps an internal type from
//! leaking through a public signature.
//!
//! - The engine: [`Engine`] (open, dispatch, fire, reload, approve, revoke, the master switch),
//!   [`Snapshot`] (the configuration in force: its errors, hook counts, approval keys),
//!   [`DispatchOptions`], [`Workspace`], and their errors ([`EngineError`], [`ConfigError`],
//!   [`TrustError`], [`SwitchError`], [`UnreadableCommand`], [`TicketError`]);
//!   [`hook_listing`], every declared hook as the sidecar's `GET /v1/hooks` shows it.
//! - The events: [`Event`], the capability table [`EVENTS`] of [`EventSpec`] rows,
//!   [`complete_payload`], [`parse_event`], and the typed [`payload`]s for [`Engine::fire`].
//! - What comes back: [`Outcome`] with its [`Decision`], per-hook [`HookReport`]s and
//!   [`ReasonDisplay`].
//! - [`host`]: the helpers an agent loop calls around a tool call and a stop (`call_tool`,
//!   `Turn`).
//! - [`commands`]: the `/hooks` chat commands (`run_line`); [`convert`]: one agent's hook
//!   configuration rewritten as another's; [`guards`]: the ready-made guards,
//!   `install` and the `guard` command; [`bridge`]: the agents' bridges and installers. The
//!   sidecar's router and `serve` are the `agent-hooks-server` crate.
//! - [`decisions`]: the decision log, one line per tool call from every surface, and
//!   [`Engine::dispatch_recorded`]; [`audit`]: a session transcript matched to it.
//!
//! The crate's benchmarks time a few internals (the trust gate's hash, a bare POST with the
//! HTTP transport's client) through the `internals` module, compiled only with the feature of
//! that name, which the crate turns on for its own tests and benchmarks; it is not API.

#![warn(missing_docs)]
#![warn(unnameable_types)]
#![cfg_attr(not(test), warn(unused_crate_dependencies))]

pub mod audit;
pub mod bridge;
pub mod commands;
mod config;
pub mod convert;
pub mod decisions;
mod dispatch;
mod engine;
pub mod guards;
mod hook;
pub mod host;
mod inspect;
mod install_record;
#[cfg(feature = "internals")]
pub mod internals;
pub mod lapse;
pub mod pending_ask;
mod snapshot;
#[cfg(test)]
mod tests;
mod trust;

pub use agent_hooks_core::answer::Decision;
pub use agent_hooks_core::config_error::ConfigError;
pub use agent_hooks_core::diag::LoggedDecision;
pub use agent_hooks_core::event::{
    COMMON_FIELDS, EVENTS, Event, EventSpec, Field, FieldKind, REDO_CAP, RewriteRule, UnknownEvent,
    complete_payload,
};
pub use agent_hooks_core::outcome::{
    Diagnostic, HookReport, HookStatus, Lapse, LapseKind, OnFailure, Outcome, ReasonDisplay, Stop,
};
pub use agent_hooks_core::payload;
pub use agent_hooks_core::wording::kind_of as json_kind;
pub use agent_hooks_core::wording::{did_you_mean, nearest, ranked};
pub use agent_hooks_core::workspace::{APPROVALS_ENV, WORKSPACE_ENV, Workspace};
/// Where a workspace keeps what, and how one is found ([`Workspace::discover`]).
pub mod workspace {
    pub use agent_hooks_core::workspace::{
        Found, MARKERS, STATE_DIR_ENV, user_state_dir, workspace_id,
    };
}
pub use agent_hooks_dialects::agent::SourceKind;
pub use agent_hooks_dialects::parse_event;
pub use agent_hooks_dialects::skill::canonical as skill_event;
pub use agent_hooks_transports::command_line::Unreadable as UnreadableCommand;
pub use agent_hooks_transports::netns::{self, Network};
pub use config::agent::SwitchError;
pub use dispatch::background::TicketError;
pub use dispatch::{DRY_RUN_ENV, DispatchOptions, ReplayMode};
pub use engine::{Engine, EngineError};
pub use inspect::listing::{HookListing, hook_listing};
pub use snapshot::Snapshot;
pub use trust::{ApprovedFileText, TrustError, approved_file_texts};
