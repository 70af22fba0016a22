//! agent-hooks spoken through the agent hook standards.
//!
//! [`interceptor::EngineInterceptor`] is the engine as an AGENT-HOOKS-0.1 interceptor
//! (`responsibleai/agent-hooks`, MIT): a conforming host registers it on its emitter and each
//! interception point runs the workspace's hooks for the matching canonical event
//! ([`mapping`] says which, and how an outcome becomes a verdict). The sidecar serves the same
//! at `POST /v1/standards/agent-hooks/intercept` ([`interceptor::respond_json`]).
//! [`host::StandardsHost`] is a Rust agent loop's side of the same standard: the SDK's emitter,
//! one call per point.
//!
//! [`ahp::Backend`] is the engine as an Agent Hooks Protocol backend
//! (`agenthooksprotocol/agent-hooks-protocol`, Apache-2.0), served on stdio by
//! `agent-hooks ahp-serve` and by the sidecar at `POST /v1/standards/ahp`.
//! `docs/standards.md` has the mappings and what differs.

#![warn(missing_docs)]

pub mod ahp;
pub mod host;
pub mod interceptor;
pub mod mapping;
mod run;

/// The AGENT-HOOKS-0.1 SDK this crate speaks, re-exported so a host builds its emitter from
/// the same release.
pub use agent_hooks_sdk as sdk;
