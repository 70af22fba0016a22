//! Configuration files that are not what they seem, loaded through a real engine on real
//! files: a FIFO, a device, a huge file, a file caught mid-write. They read the per-file load
//! state, which is not public, so they live in the crate (beside the modules, since they
//! cross configuration and trust); the rest of the hostile-input tests are in
//! `tests/hardening/`.

mod files;
mod mid_write;
