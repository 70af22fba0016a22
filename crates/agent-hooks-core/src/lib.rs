//! # agent-hooks-core
//!
//! The vocabulary every other crate of agent-hooks speaks, and nothing that decides policy or
//! names an agent:
//!
//! - [`event`]: the canonical events, their payload fields, and the capability table — the one
//!   place that says what each event lets hooks do;
//! - [`payload`]: typed payloads for Rust hosts;
//! - [`answer`]: what a hook said in canonical terms, and [`answer::Answer::admit`], the one
//!   function that applies the capability table to it;
//! - [`outcome`]: the result of one dispatch, with one report per hook;
//! - [`diag`]: the records of `logs/events.jsonl`; [`config_error`]: a located configuration
//!   problem;
//! - [`store`]: crash-safe, concurrency-safe writes of the files the runtime owns;
//!   [`workspace`]: where a workspace keeps what;
//! - [`wording`]: the words every error message shares; [`glob`]: path globs.
//!
//! The dependency graph of the crates is the architecture (`docs/architecture.md`): this crate
//! imports none of the others, so a core type cannot reach into a dialect, a transport or the
//! runtime.

#![warn(missing_docs)]
#![cfg_attr(not(test), warn(unused_crate_dependencies))]

pub mod answer;
pub mod config_error;
pub mod diag;
pub mod event;
pub mod glob;
pub mod outcome;
pub mod payload;
pub mod store;
pub mod wording;
pub mod workspace;

pub use answer::Decision;
pub use config_error::ConfigError;
pub use event::{Event, EventSpec};
pub use outcome::Outcome;
pub use workspace::Workspace;
