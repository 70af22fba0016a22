//! The process's entry point on glibc Linux, in place of the standard library's (`#![no_main]`
//! in main.rs). Every other target has the ordinary `fn main` in main.rs and std's own
//! start-up, which on Unix does by itself all that this module keeps (below): it ignores
//! SIGPIPE and resets it for the processes it spawns, opens closed standard streams on
//! `/dev/null`, exits 101 after a panic of `main` and flushes standard output at exit. It is
//! also handed `argc` and `argv` there, which is how `std::env::args` gets the command line
//! from C libraries other than glibc.
//!
//! `agent-hooks guard` is started anew for every tool call an agent makes, and std's start-up
//! cost a tenth of a millisecond of it: to report a stack overflow by name, it reads
//! `/proc/self/maps` (through `pthread_getattr_np`) to find the main thread's stack guard, and
//! installs an alternate signal stack with SIGSEGV and SIGBUS handlers. This entry point
//! keeps everything else std's start-up and exit do that the program relies on:
//!
//! - SIGPIPE is ignored. A hook that exits without reading its stdin, or an agent that
//!   closes the pipe it reads an answer from, must give a write `EPIPE`, not kill the
//!   runtime. Child processes still start with SIGPIPE at its default: std's process
//!   spawning resets it, as it does under std's own start-up.
//! - Standard input, output and error that the parent left closed are opened on
//!   `/dev/null`, so that no file opened later takes their numbers.
//! - A panic is caught here and the process exits with 101, after the panic hook's message.
//! - Standard output is flushed before the process exits.
//!
//! What is lost: a stack overflow is a plain SIGSEGV (the process dies of it either way, but
//! without std's "has overflowed its stack" line), and a panic on the main thread names it
//! `<unnamed>` rather than `main`.
//!
//! The command-line arguments: std never sees this `main`'s `argc` and `argv`. It reads them
//! in an `.init_array` function, to which glibc (alone: a non-standard extension, hence this
//! module only there) passes them before any `main` runs. Should that ever stop, `args_os`
//! would be empty: the arguments it holds are counted against `argc`, and a mismatch is an
//! error (exit 2) rather than a run with no arguments.

use std::ffi::c_int;
use std::process::ExitCode;

/// The C entry point: prepares the process as std would, runs `super::run` on the command
/// line, and turns its `ExitCode` into the exit status.
#[cfg(not(test))]
#[unsafe(no_mangle)]
extern "C" fn main(argc: c_int, _argv: *const *const std::ffi::c_char) -> c_int {
    use std::io::Write;
    prepare();
    let args: Vec<_> = std::env::args_os().collect();
    if let Err(message) = all_arguments_read(argc, args.len()) {
        eprintln!("agent-hooks: {message}");
        return 2;
    }
    let code = std::panic::catch_unwind(|| super::run(args)).unwrap_or(ExitCode::from(101));
    // std flushes standard output when `main` returns; nothing else does without it.
    let _ = std::io::stdout().flush();
    status(code)
}

/// `pow`, the one function of the C math library (libm.so) that this binary calls (tokio's
/// multi-threaded scheduler does, for a moving average). Defined here, the call resolves at
/// link time and libm.so is not loaded at all: loading that one more shared library cost
/// each start about 0.07 ms (its files mapped, its pages touched, its symbols looked up).
/// The `libm` crate's implementation (a port of musl's). A shared library loaded later that
/// calls `pow` (none here does) would get this one too: a correct `pow` as well. Like the
/// rest of this module it is defined on glibc Linux alone; elsewhere `pow` is the C
/// library's, linked as usual.
#[unsafe(no_mangle)]
extern "C" fn pow(x: f64, y: f64) -> f64 {
    libm::pow(x, y)
}

/// Whether std holds as many arguments as the C runtime passed (`argc`), or the message to
/// exit with: std reads them from glibc before `main`, and nothing else would tell the
/// program that it is running without them.
fn all_arguments_read(argc: c_int, read: usize) -> Result<(), String> {
    if usize::try_from(argc).is_ok_and(|argc| argc == read) {
        return Ok(());
    }
    Err(format!(
        "cannot read the command line: the C library passed {argc} arguments and the \
         standard library holds {read} (it reads them itself only on glibc, before `main`)"
    ))
}

/// What std's start-up does that this program needs (see the module's comment).
#[cfg(not(test))]
fn prepare() {
    // SAFETY: ignoring a signal installs no handler code, and this runs before any thread
    // is started.
    let _ = unsafe {
        nix::sys::signal::signal(
            nix::sys::signal::Signal::SIGPIPE,
            nix::sys::signal::SigHandler::SigIgn,
        )
    };
    reopen_closed_standard_streams();
}

/// Opens `/dev/null` on each of fds 0, 1 and 2 that is closed: `open` returns the lowest free
/// number, so a result above 2 means all three are open (that one is closed again).
#[cfg(not(test))]
fn reopen_closed_standard_streams() {
    use std::os::fd::{AsRawFd, IntoRawFd};
    for _ in 0..3 {
        let Ok(null) = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open("/dev/null")
        else {
            return;
        };
        if null.as_raw_fd() > 2 {
            return;
        }
        // A standard stream is inherited by programs this one runs, as std's would be.
        let _ = nix::fcntl::fcntl(
            &null,
            nix::fcntl::FcntlArg::F_SETFD(nix::fcntl::FdFlag::empty()),
        );
        let _ = null.into_raw_fd();
    }
}

/// The exit status an `ExitCode` stands for. On Unix every `ExitCode` is made from a `u8`
/// (`SUCCESS` and `FAILURE` are 0 and 1), and std offers no stable way to read it back but
/// comparison.
fn status(code: ExitCode) -> c_int {
    (0..=u8::MAX)
        .find(|&n| ExitCode::from(n) == code)
        .map_or(1, c_int::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pow_is_the_power_function() {
        // `f64::powf` calls the `pow` above, in this test binary as in the program.
        assert_eq!(2f64.powf(10.0), 1024.0);
        assert_eq!(pow(9.0, 0.5), 3.0);
        assert!((0.9f64.powf(3.0) - 0.729).abs() < 1e-12);
        assert!(pow(-1.0, 0.5).is_nan());
    }

    #[test]
    fn the_arguments_are_counted_against_argc() {
        assert_eq!(all_arguments_read(0, 0), Ok(()));
        assert_eq!(all_arguments_read(3, 3), Ok(()));
        let lost = all_arguments_read(3, 0).expect_err("no arguments read");
        assert!(
            lost.contains("passed 3 arguments") && lost.contains("holds 0"),
            "{lost}"
        );
        assert!(all_arguments_read(-1, 0).is_err());
    }

    #[test]
    fn an_exit_code_is_its_status() {
        assert_eq!(status(ExitCode::SUCCESS), 0);
        assert_eq!(status(ExitCode::FAILURE), 1);
        for n in [2, 3, 5, 101, 255] {
            assert_eq!(status(ExitCode::from(n)), c_int::from(n));
        }
    }
}
