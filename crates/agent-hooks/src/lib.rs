//! agent-hooks
