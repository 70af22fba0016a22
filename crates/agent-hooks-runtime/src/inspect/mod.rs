//! Inspection: what `list` and `doctor` say about a workspace. [`health`] judges every hook
//! without running it (trust, whether its command can start, whether it can ever fire);
//! [`doctor`] runs each trusted hook once on a synthetic payload; `render` lays both out as the
//! text a user reads, one layout for the two. [`trial`] runs one hook on a payload the user
//! gives (`agent-hooks test`) and explains its answer. [`listing`] is the health of every hook as
//! a host reads it (the sidecar's `GET /v1/hooks`).

pub(crate) mod doctor;
pub(crate) mod health;
pub(crate) mod listing;
pub(crate) mod render;
pub(crate) mod style;
pub(crate) mod trial;
