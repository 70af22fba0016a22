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
//! Each decision has one home (`docs/architecture.md` has the full table):
//!
//! - [`event`] defines the canonical events, their payloads and the capability table — the one
//!   place that says what each event lets hooks do; [`Answer::admit`] is the one function that
//!   applies it to an answer, for the dispatcher and for `doctor` alike.
//! - `config` reads each source of hooks (`config/shell_hooks.yaml`, skills' `hooks.json`,
//!   `.claude/settings*.json`, `config/agent.yaml`) into [`Hook`]s and typed settings, with
//!   located errors. It imports the dialects' name tables; nothing imports it back on the way
//!   from a payload to its outcome.
//! - [`dialect`] translates between the canonical payload and what one family of scripts
//!   speaks: `shell`, `skill`, `claude/`; `matcher` decides which payloads a hook runs on and
//!   `read` how a hook's stdout is read (cap, UTF-8, one JSON object, typed fields).
//! - [`transport`] runs a hook (a process in its own group, with a hard timeout; an HTTP POST
//!   behind the SSRF guard; a built-in guard in-process) and returns its raw reply.
//! - [`trust`] is the gate: master switch, approvals, drift. An approval binds the hook's whole
//!   definition and every file its command names.
//! - `dispatch` orders, chains or parallelises hooks and merges their admitted effects into an
//!   [`Outcome`]; [`Engine`] holds the loaded workspace as a [`Snapshot`] and swaps it whole on
//!   reload. [`DispatchOptions`] narrows one dispatch (the Claude Code bridge skips Claude
//!   Code's own hooks with it).
//! - [`command_line`] is the one reading of a hook's command line (program and files) that
//!   approval, dispatch, `list` and `doctor` share; [`inspect`] judges and tries hooks for
//!   `list` and `doctor`, and [`commands`] is the `/hooks` commands as text; [`bridge`] runs a
//!   workspace inside Claude Code; `server` is the sidecar; [`guards`] wires the ready-made
//!   guards of `agent-hooks-guards` in.
//!
//! Every failure of a hook is visible: in the outcome's per-hook report and in
//! `logs/events.jsonl` ([`diag`]). Failure is open (the action proceeds) unless a hook says
//! `on_error: block`.

#![warn(missing_docs)]
#![cfg_attr(not(test), warn(unused_crate_dependencies))]

pub mod answer;
mod background;
pub mod bridge;
pub mod command_line;
pub mod commands;
pub mod config;
pub mod diag;
pub mod dialect;
mod dispatch;
mod engine;
pub mod event;
pub mod guards;
pub mod hook;
pub mod host;
pub mod inspect;
pub mod outcome;
pub mod payload;
#[cfg(feature = "server")]
pub mod server;
pub mod store;
pub mod transport;
pub mod trust;
mod wording;
pub mod workspace;

pub use answer::{Answer, Decision};
pub use dispatch::DispatchOptions;
pub use engine::{Engine, EngineError, Snapshot};
pub use event::{Event, EventSpec};
pub use hook::Hook;
pub use outcome::{HookReport, HookStatus, Outcome, ReasonDisplay};
pub use wording::kind_of as json_kind;
pub use workspace::Workspace;
