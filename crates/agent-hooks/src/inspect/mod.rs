//! Inspection: what `list` and `doctor` say about a workspace. [`health`] judges every hook
//! without running it (trust, whether its command can start, whether it can ever fire);
//! [`doctor`] runs each trusted hook once on a synthetic payload; `render` lays both out as the
//! text a user reads, one layout for the two.

pub(crate) mod doctor;
pub(crate) mod health;
pub(crate) mod render;
