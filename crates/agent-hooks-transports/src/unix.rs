//! Process-group signalling: every hook runs as the leader of its own group, so a timeout can
//! take down the hook and everything it forked in one call.

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;

/// Sends `signal` to the process group `pgid`. A group that is already gone is not an error.
pub(crate) fn signal_group(pgid: u32, signal: Signal) {
    let Ok(raw) = i32::try_from(pgid) else {
        return;
    };
    if raw <= 1 {
        // Never signal group 0 (our own) or 1 (init's): a pid we do not own.
        return;
    }
    match killpg(Pid::from_raw(raw), signal) {
        Ok(()) | Err(nix::errno::Errno::ESRCH) => {}
        Err(err) => tracing::warn!(pgid, %err, "cannot signal a hook's process group"),
    }
}

pub(crate) use nix::sys::signal::Signal::{SIGKILL, SIGTERM};
