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
//! Each decision has one home (`docs/architecture.md` has the full table); the modules are
//! private, so these are file names, not API:
//!
//! - `event.rs` defines the canonical events, their payloads and the capability table — the one
//!   place that says what each event lets hooks do; `Answer::admit` in `answer.rs` is the one
//!   function that applies it to a hook's answer, for the dispatcher and for `doctor` alike.
//! - `config/` reads each source of hooks (`config/shell_hooks.yaml`, skills' `hooks.json`,
//!   `.claude/settings*.json`, `.codex/hooks.json` and `.codex/config.toml`, `.gemini/settings.json`,
//!   `config/agent.yaml`) into hooks and typed settings, with located
//!   errors ([`ConfigError`]). It imports the dialects' name tables; nothing imports it back on
//!   the way from a payload to its outcome.
//! - `dialect/` translates between the canonical payload and what one family of scripts
//!   speaks: `shell`, `skill`, `claude/`, `codex` (Claude Code's protocol with Codex's events),
//!   `gemini`; `agent.rs` names the agents (Claude Code, Codex, Gemini CLI) and what each bridge needs; `matcher` decides which payloads a hook runs on and
//!   `read` how a hook's stdout is read (cap, UTF-8, one JSON object, typed fields).
//! - `transport/` runs a hook (a process in its own group, with a hard timeout; an HTTP POST
//!   behind the SSRF guard; a built-in guard in-process) and returns its raw reply.
//! - `trust.rs` is the gate: master switch, approvals, drift. An approval binds the hook's
//!   whole definition and every file its command names.
//! - `dispatch.rs` orders, chains or parallelises hooks and merges their admitted effects into
//!   an [`Outcome`]; [`Engine`] holds the loaded workspace as a [`Snapshot`] and swaps it whole
//!   on reload. [`DispatchOptions`] narrows one dispatch (the Claude Code bridge skips Claude
//!   Code's own hooks with it).
//! - `command_line.rs` is the one reading of a hook's command line (program and files) that
//!   approval, dispatch, `list` and `doctor` share; `inspect/` judges and tries hooks for
//!   `list` and `doctor`, and [`commands`] is the `/hooks` commands as text; [`bridge`] runs a
//!   workspace inside an agent (Claude Code, Codex, Gemini CLI); `server` is the sidecar; [`guards`] wires the ready-made
//!   guards of `agent-hooks-guards` in (one registry row per guard).
//!
//! Every failure of a hook is visible: in the outcome's per-hook report and in
//! `logs/events.jsonl` (`diag.rs`). Failure is open (the action proceeds) unless a hook says
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
//!   [`TrustError`], [`SwitchError`], [`UnreadableCommand`], [`TicketError`]).
//! - The events: [`Event`], the capability table [`EVENTS`] of [`EventSpec`] rows,
//!   [`complete_payload`], and the typed [`payload`]s for [`Engine::fire`].
//! - What comes back: [`Outcome`] with its [`Decision`], per-hook [`HookReport`]s and
//!   [`ReasonDisplay`].
//! - [`host`]: the helpers an agent loop calls around a tool call and a stop (`call_tool`,
//!   `Turn`).
//! - [`commands`]: the `/hooks` chat commands (`run_line`); [`convert`]: one agent's hook
//!   configuration rewritten as another's; [`guards`]: the ready-made guards,
//!   `install` and the `guard` command; [`bridge`]: the agents' bridges and installers; `server` (feature
//!   `server`, on by default): the sidecar's router and `serve`.
//!
//! The crate's benchmarks time a few internals (the trust gate's hash, a bare POST with the
//! HTTP transport's client) through the `internals` module, compiled only with the feature of
//! that name, which the crate turns on for its own tests and benchmarks; it is not API.

#![warn(missing_docs)]
#![warn(unnameable_types)]
#![cfg_attr(not(test), warn(unused_crate_dependencies))]

pub mod bridge;
pub mod commands;
mod config;
pub mod convert;
mod dispatch;
mod engine;
pub mod guards;
mod hook;
pub mod host;
mod inspect;
#[cfg(feature = "internals")]
pub mod internals;
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
    Diagnostic, HookReport, HookStatus, Outcome, ReasonDisplay, Stop,
};
pub use agent_hooks_core::payload;
pub use agent_hooks_core::wording::kind_of as json_kind;
pub use agent_hooks_core::workspace::{APPROVALS_ENV, WORKSPACE_ENV, Workspace};
pub use agent_hooks_dialects::agent::SourceKind;
pub use agent_hooks_dialects::parse_event;
pub use agent_hooks_transports::command_line::Unreadable as UnreadableCommand;
pub use config::agent::SwitchError;
pub use dispatch::background::TicketError;
pub use dispatch::{DRY_RUN_ENV, DispatchOptions};
pub use engine::{Engine, EngineError};
pub use inspect::health::{HookListing, hook_listing};
pub use snapshot::Snapshot;
pub use trust::TrustError;
