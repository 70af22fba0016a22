//! Taking a command hook's network away: between fork and exec its process enters a user and a
//! network namespace of its own (`unshare(CLONE_NEWUSER | CLONE_NEWNET)`), whose only
//! interface is a loopback of its own, so nothing it connects to lies outside it. Its user and
//! group map to themselves, so what it writes keeps its owner. `agent-hooks replay` asks for
//! it ([`Network::Isolated`]); live hooks never get it.
//!
//! The steps between fork and exec only make system calls (no allocation: another thread of the
//! runtime may have held the allocator's lock at the fork), and a step that fails is written to
//! a pipe as its step and errno, so the parent can say which and why.

use std::ffi::CStr;
use std::fmt;
use std::io::{self, Read};
use std::os::fd::{AsRawFd, OwnedFd, RawFd};

/// The network a command hook's process gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Network {
    /// This machine's: every live hook.
    #[default]
    Host,
    /// None: a network namespace of its own, holding only its loopback (up), in a user
    /// namespace mapping its user and group to themselves.
    Isolated,
}

/// How an isolated hook is confined, as reports name it.
pub const MECHANISM: &str =
    "a user + network namespace of its own (unshare CLONE_NEWUSER|CLONE_NEWNET, loopback only)";

/// A step of entering the namespaces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// `unshare(CLONE_NEWUSER | CLONE_NEWNET)`.
    Unshare,
    /// Writing `deny` to `/proc/self/setgroups` (required before an unprivileged gid map).
    Setgroups,
    /// Writing `/proc/self/uid_map`.
    UidMap,
    /// Writing `/proc/self/gid_map`.
    GidMap,
    /// Bringing the namespace's loopback up.
    Loopback,
}

impl Step {
    const ALL: [Step; 5] = [
        Step::Unshare,
        Step::Setgroups,
        Step::UidMap,
        Step::GidMap,
        Step::Loopback,
    ];

    fn describe(self) -> &'static str {
        match self {
            Step::Unshare => "unshare(CLONE_NEWUSER|CLONE_NEWNET)",
            Step::Setgroups => "writing /proc/self/setgroups",
            Step::UidMap => "writing /proc/self/uid_map",
            Step::GidMap => "writing /proc/self/gid_map",
            Step::Loopback => "bringing the loopback up",
        }
    }
}

/// Why a process cannot be confined on this machine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unavailable {
    /// The step that failed.
    pub step: Step,
    /// Its errno.
    pub errno: i32,
    /// What the kernel's settings say about it, when they say something.
    pub cause: Option<String>,
}

impl fmt::Display for Unavailable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} failed: {}",
            self.step.describe(),
            io::Error::from_raw_os_error(self.errno)
        )?;
        match &self.cause {
            Some(cause) => write!(f, " ({cause})"),
            None => Ok(()),
        }
    }
}

/// The kernel settings that decide whether an unprivileged process may make a user namespace,
/// as read from `/proc/sys` (`None`: this kernel has no such setting).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Knobs {
    /// `kernel.unprivileged_userns_clone` (Debian's and older Ubuntu's kernels).
    pub unprivileged_userns_clone: Option<String>,
    /// `user.max_user_namespaces`, as this process's user namespace sees it.
    pub max_user_namespaces: Option<String>,
    /// `kernel.apparmor_restrict_unprivileged_userns` (Ubuntu 23.10 and later).
    pub apparmor_restrict_unprivileged_userns: Option<String>,
}

impl Knobs {
    /// The settings of this machine.
    pub fn read() -> Knobs {
        let read = |name: &str| {
            std::fs::read_to_string(format!("/proc/sys/{name}"))
                .ok()
                .map(|v| v.trim().to_owned())
        };
        Knobs {
            unprivileged_userns_clone: read("kernel/unprivileged_userns_clone"),
            max_user_namespaces: read("user/max_user_namespaces"),
            apparmor_restrict_unprivileged_userns: read(
                "kernel/apparmor_restrict_unprivileged_userns",
            ),
        }
    }
}

/// What made `step` fail with `errno`, as far as `knobs` tell; `None` when they tell nothing.
pub fn explain(step: Step, errno: i32, knobs: &Knobs) -> Option<String> {
    let is = |v: &Option<String>, want: &str| v.as_deref() == Some(want);
    match (step, errno) {
        (Step::Unshare, libc::ENOSPC | libc::EUSERS) if is(&knobs.max_user_namespaces, "0") => {
            Some("user namespaces are disabled: user.max_user_namespaces = 0".to_owned())
        }
        (Step::Unshare, libc::ENOSPC | libc::EUSERS) => {
            Some("the limit of user namespaces (user.max_user_namespaces) is reached".to_owned())
        }
        (Step::Unshare, libc::EPERM) if is(&knobs.unprivileged_userns_clone, "0") => Some(
            "unprivileged user namespaces are disabled: kernel.unprivileged_userns_clone = 0"
                .to_owned(),
        ),
        (Step::Unshare, libc::EPERM) => Some(
            "creating namespaces is forbidden here: a seccomp filter (a container's default profile) or a security module refuses it"
                .to_owned(),
        ),
        (Step::Unshare, libc::EINVAL) => {
            Some("this kernel is built without user or network namespaces".to_owned())
        }
        (Step::UidMap | Step::GidMap | Step::Setgroups, libc::EPERM | libc::EACCES)
            if is(&knobs.apparmor_restrict_unprivileged_userns, "1") =>
        {
            Some(
                "AppArmor restricts unprivileged user namespaces: kernel.apparmor_restrict_unprivileged_userns = 1"
                    .to_owned(),
            )
        }
        _ => None,
    }
}

/// Whether a process can be confined on this machine: a child is forked that enters the
/// namespaces as a confined hook would, and exits.
///
/// # Errors
///
/// [`Unavailable`] with the step that failed, its errno and what the kernel's settings say.
pub fn probe() -> Result<(), Unavailable> {
    let unavailable = |step, errno| Unavailable {
        step,
        errno,
        cause: explain(step, errno, &Knobs::read()),
    };
    let entry = Entry::new().map_err(|e| unavailable(Step::Unshare, os_errno(&e)))?;
    // SAFETY: the child makes system calls only (`Entry::enter`, `_exit`): nothing that
    // another thread of this process may have left locked at the fork.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(unavailable(Step::Unshare, last_errno()));
    }
    if pid == 0 {
        let code = match entry.enter() {
            Ok(()) => 0,
            Err(_) => 1,
        };
        // SAFETY: ends the forked child without running this process's exit handlers.
        unsafe { libc::_exit(code) };
    }
    let mut status = 0;
    loop {
        // SAFETY: waits for the child forked above, with a valid pointer to the status.
        let waited = unsafe { libc::waitpid(pid, &mut status, 0) };
        if waited == pid {
            break;
        }
        let errno = last_errno();
        if errno != libc::EINTR {
            return Err(unavailable(Step::Unshare, errno));
        }
    }
    match entry.failure() {
        Some((step, errno)) => Err(unavailable(step, errno)),
        None if libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0 => Ok(()),
        // The child ended another way (killed): the namespaces were not shown to work.
        None => Err(unavailable(Step::Unshare, libc::ECHILD)),
    }
}

/// Makes `cmd`'s process enter the namespaces before it runs. Returns what tells, when the
/// spawn fails, whether entering them was why; it must be kept until the spawn has returned.
pub(crate) fn isolate(cmd: &mut tokio::process::Command) -> io::Result<Entry> {
    let entry = Entry::new()?;
    let child = entry.clone_for_child();
    // SAFETY: the closure makes system calls only (`Entry::enter`), as a step between fork and
    // exec must.
    unsafe {
        cmd.pre_exec(move || {
            child
                .enter()
                .map_err(|(_, errno)| io::Error::from_raw_os_error(errno))
        });
    }
    Ok(entry)
}

/// What a child needs to enter the namespaces, prepared before the fork: the maps' text, and
/// the pipe a failed step is reported on.
#[derive(Debug)]
pub(crate) struct Entry {
    uid_map: Vec<u8>,
    gid_map: Vec<u8>,
    /// Read by the parent after the child failed or ended; non-blocking.
    report: Option<OwnedFd>,
    /// The child's end (close-on-exec: the hook never holds it).
    tell: RawFd,
    _tell: Option<OwnedFd>,
}

impl Entry {
    fn new() -> io::Result<Entry> {
        use nix::fcntl::OFlag;
        let (read, write) =
            nix::unistd::pipe2(OFlag::O_CLOEXEC | OFlag::O_NONBLOCK).map_err(io::Error::from)?;
        // The one id each map may hold unprivileged: this process's own, kept as it is.
        // SAFETY: geteuid and getegid cannot fail.
        let (uid, gid) = unsafe { (libc::geteuid(), libc::getegid()) };
        Ok(Entry {
            uid_map: format!("{uid} {uid} 1\n").into_bytes(),
            gid_map: format!("{gid} {gid} 1\n").into_bytes(),
            report: Some(read),
            tell: write.as_raw_fd(),
            _tell: Some(write),
        })
    }

    /// The part the child's closure owns: the maps and the raw end it writes to (the parent
    /// keeps both ends open until the spawn has returned).
    fn clone_for_child(&self) -> Entry {
        Entry {
            uid_map: self.uid_map.clone(),
            gid_map: self.gid_map.clone(),
            report: None,
            tell: self.tell,
            _tell: None,
        }
    }

    /// In the child: enters the namespaces; a failed step is written to the pipe.
    fn enter(&self) -> Result<(), (Step, i32)> {
        let result = self.steps();
        if let Err((step, errno)) = result {
            let index = Step::ALL.iter().position(|s| *s == step).unwrap_or(0);
            let mut message = [0u8; 5];
            message[0] = index as u8;
            message[1..].copy_from_slice(&errno.to_ne_bytes());
            // SAFETY: writes from a live buffer to the pipe's write end, open in this child.
            unsafe { libc::write(self.tell, message.as_ptr().cast(), message.len()) };
        }
        result
    }

    fn steps(&self) -> Result<(), (Step, i32)> {
        // SAFETY: a system call with constant flags.
        if unsafe { libc::unshare(libc::CLONE_NEWUSER | libc::CLONE_NEWNET) } != 0 {
            return Err((Step::Unshare, last_errno()));
        }
        // Kernels before 3.19 have no such file, and need no deny before the gid map.
        match write_file(c"/proc/self/setgroups", b"deny") {
            Ok(()) => {}
            Err(libc::ENOENT) => {}
            Err(errno) => return Err((Step::Setgroups, errno)),
        }
        write_file(c"/proc/self/uid_map", &self.uid_map).map_err(|e| (Step::UidMap, e))?;
        write_file(c"/proc/self/gid_map", &self.gid_map).map_err(|e| (Step::GidMap, e))?;
        loopback_up().map_err(|e| (Step::Loopback, e))
    }

    /// In the parent: the step a child reported failing, if one did.
    pub(crate) fn failure(&self) -> Option<(Step, i32)> {
        let mut message = [0u8; 5];
        let mut read = std::fs::File::from(self.report.as_ref()?.try_clone().ok()?);
        if read.read_exact(&mut message).is_err() {
            return None;
        }
        let step = *Step::ALL.get(usize::from(message[0]))?;
        let errno = i32::from_ne_bytes([message[1], message[2], message[3], message[4]]);
        Some((step, errno))
    }

    /// In the parent, after a failed spawn: why, when entering the namespaces was why.
    pub(crate) fn unavailable(&self) -> Option<Unavailable> {
        let (step, errno) = self.failure()?;
        Some(Unavailable {
            step,
            errno,
            cause: explain(step, errno, &Knobs::read()),
        })
    }
}

/// Writes `data` to the file at `path` in one `write`, as `/proc` maps must be written.
fn write_file(path: &CStr, data: &[u8]) -> Result<(), i32> {
    // SAFETY: a NUL-terminated path; the descriptor is closed below.
    let fd = unsafe { libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC) };
    if fd < 0 {
        return Err(last_errno());
    }
    // SAFETY: writes from a live buffer of `data.len()` bytes to the descriptor opened above.
    let written = unsafe { libc::write(fd, data.as_ptr().cast(), data.len()) };
    let result = match usize::try_from(written) {
        Ok(n) if n == data.len() => Ok(()),
        Ok(_) => Err(libc::EIO),
        Err(_) => Err(last_errno()),
    };
    // SAFETY: closes the descriptor opened above, once.
    unsafe { libc::close(fd) };
    result
}

/// Brings the namespace's loopback up, so a hook may still talk to what it starts itself.
fn loopback_up() -> Result<(), i32> {
    // SAFETY: a socket for the interface ioctls; closed below.
    let fd = unsafe { libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0) };
    if fd < 0 {
        return Err(last_errno());
    }
    // SAFETY: `ifreq` is plain data, valid zeroed; the ioctls read and write it in place, and
    // its `ifru_flags` member is the one SIOCGIFFLAGS fills.
    let result = unsafe {
        let mut request: libc::ifreq = std::mem::zeroed();
        for (to, from) in request.ifr_name.iter_mut().zip(b"lo\0") {
            *to = *from as libc::c_char;
        }
        if libc::ioctl(fd, libc::SIOCGIFFLAGS as _, &mut request) < 0 {
            Err(last_errno())
        } else {
            request.ifr_ifru.ifru_flags |= libc::IFF_UP as libc::c_short;
            if libc::ioctl(fd, libc::SIOCSIFFLAGS as _, &request) < 0 {
                Err(last_errno())
            } else {
                Ok(())
            }
        }
    };
    // SAFETY: closes the socket opened above, once.
    unsafe { libc::close(fd) };
    result
}

fn last_errno() -> i32 {
    io::Error::last_os_error()
        .raw_os_error()
        .unwrap_or(libc::EIO)
}

fn os_errno(e: &io::Error) -> i32 {
    e.raw_os_error().unwrap_or(libc::EIO)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_are_explained_by_the_setting_that_makes_them() {
        let knobs = |clone: Option<&str>, max: Option<&str>, apparmor: Option<&str>| Knobs {
            unprivileged_userns_clone: clone.map(str::to_owned),
            max_user_namespaces: max.map(str::to_owned),
            apparmor_restrict_unprivileged_userns: apparmor.map(str::to_owned),
        };
        // Each refusal, the settings it happens under, and what names its cause.
        let cases = [
            (
                Step::Unshare,
                libc::EPERM,
                knobs(Some("0"), Some("100"), None),
                "kernel.unprivileged_userns_clone = 0",
            ),
            (
                Step::Unshare,
                libc::ENOSPC,
                knobs(None, Some("0"), None),
                "user.max_user_namespaces = 0",
            ),
            (
                Step::Unshare,
                libc::ENOSPC,
                knobs(None, Some("5"), None),
                "limit of user namespaces",
            ),
            // Allowed by every setting, refused all the same: a filter the kernel does not show.
            (
                Step::Unshare,
                libc::EPERM,
                knobs(Some("1"), Some("100"), None),
                "seccomp",
            ),
            (
                Step::UidMap,
                libc::EPERM,
                knobs(None, Some("100"), Some("1")),
                "AppArmor",
            ),
        ];
        for (step, errno, settings, cause) in cases {
            let said = explain(step, errno, &settings).unwrap_or_default();
            assert!(said.contains(cause), "{step:?} {errno}: {said}");
        }
        assert_eq!(
            explain(Step::Loopback, libc::EPERM, &knobs(None, None, None)),
            None
        );
        let unavailable = Unavailable {
            step: Step::Unshare,
            errno: libc::ENOSPC,
            cause: explain(Step::Unshare, libc::ENOSPC, &knobs(None, Some("0"), None)),
        };
        let text = unavailable.to_string();
        assert!(
            text.starts_with("unshare(CLONE_NEWUSER|CLONE_NEWNET) failed: ")
                && text.ends_with("(user namespaces are disabled: user.max_user_namespaces = 0)"),
            "{text}"
        );
    }

    /// The probe and a confined spawn agree: where the probe says a process can be confined,
    /// a confined process sees only its own loopback, up; where it says not, the spawn fails
    /// naming the same step.
    #[tokio::test]
    async fn the_probe_tells_whether_a_confined_process_starts_with_only_its_loopback() {
        let probed = probe();
        let mut cmd = tokio::process::Command::new("/bin/sh");
        cmd.arg("-c")
            .arg("cat /proc/self/net/dev; echo =; cat /proc/self/net/fib_trie; echo =; id -u")
            .stdout(std::process::Stdio::piped());
        let entry = isolate(&mut cmd).expect("a pipe");
        let spawned = cmd.output().await;
        match probed {
            Ok(()) => {
                let out = spawned.expect("a confined process starts where the probe said so");
                let text = String::from_utf8_lossy(&out.stdout);
                let mut parts = text.split("=\n");
                let (dev, routes, uid) = (
                    parts.next().unwrap_or_default(),
                    parts.next().unwrap_or_default(),
                    parts.next().unwrap_or_default(),
                );
                let interfaces: Vec<&str> = dev
                    .lines()
                    .skip(2)
                    .filter_map(|l| l.split_once(':').map(|(name, _)| name.trim()))
                    .collect();
                assert_eq!(interfaces, ["lo"], "{text}");
                // The loopback is up (its addresses are routed), and nothing else is.
                assert!(routes.contains("127.0.0.1"), "{text}");
                let routed: Vec<&str> = routes
                    .lines()
                    .filter_map(|l| l.trim().strip_prefix("|-- "))
                    .filter(|a| !a.starts_with("127.") && !a.starts_with("0.0.0.0"))
                    .collect();
                assert!(routed.is_empty(), "{routed:?} in {text}");
                // SAFETY: geteuid cannot fail.
                let euid = unsafe { libc::geteuid() };
                assert_eq!(
                    uid.trim(),
                    euid.to_string(),
                    "the user maps to itself: {text}"
                );
            }
            Err(why) => {
                assert!(
                    spawned.is_err(),
                    "the probe said no ({why}), the spawn went"
                );
                let failed = entry.unavailable().expect("the step is reported");
                assert_eq!(failed.step, why.step, "{failed} / {why}");
            }
        }
    }
}
