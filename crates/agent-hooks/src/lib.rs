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
//!                                          │
//! host payload ──▶ dispatch ──▶ matcher ─▶ trust gate ─▶ dialect.input ─▶ transport.run
//!                     ▲                                                      │
//!                     └── merge (capability table) ◀── dialect.interpret ◀───┘
//!                                  │
//!                               Outcome { decision, payload, context, notes, warnings, hooks }
//! ```
//!
//! - [`event`] defines the canonical events, their payloads and the capability table — the one
//!   place that says what each event lets hooks do.
//! - [`config`] reads each source of hooks (`config/shell_hooks.yaml`, ...) into [`Hook`]s,
//!   with located errors.
//! - [`dialect`] translates between the canonical payload and what one family of scripts speaks.
//! - [`transport`] runs a hook (a process in its own group, with a hard timeout) and returns its
//!   raw answer.
//! - [`trust`] is the gate: master switch, approvals, drift.
//! - `dispatch` orders, chains or parallelises hooks and merges their answers into an
//!   [`Outcome`]; [`Engine`] holds a loaded workspace and swaps configurations on reload.
//!
//! Every failure of a hook is visible: in the outcome's per-hook report and in
//! `logs/events.jsonl` ([`diag`]). Failure is open (the action proceeds) unless a hook says
//! `on_error: block`.

#![warn(missing_docs)]
#![cfg_attr(not(test), warn(unused_crate_dependencies))]

pub mod answer;
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
