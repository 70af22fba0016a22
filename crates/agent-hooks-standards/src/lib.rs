//! agent-hooks spoken through the agent hook standards.
//!
//! [`interceptor::EngineInterceptor`] is the engine as an AGENT-HOOKS-0.1 interceptor
//! (`responsibleai/agent-hooks`, MIT): a conforming host registers it on its emitter and each
//! interception point runs the workspace's hooks for the matching canonical event
//! ([`mapping`] says which, and how an outcome becomes a verdict). The sidecar serves the same
//! at `POST /v1/standards/agent-hooks/intercept` ([`interceptor::respond_json`]).
//! `docs/standards.md` has the mapping and what differs.

#![warn(missing_docs)]

pub mod interceptor;
pub mod mapping;

/// The AGENT-HOOKS-0.1 SDK this crate speaks, re-exported so a host builds its emitter from
/// the same release.
pub use agent_hooks_sdk as sdk;
