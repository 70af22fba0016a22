//! Where a workspace's forkers listen (a `0700` directory in the runtime's own directory for the
//! workspace, one socket per
//! forker) and how a process per event reaches one: connect when it serves, else start it and
//! wait, within the call's time, for it to load the script.

use std::io::{self, Read, Write};
use std::os::fd::{AsFd, AsRawFd};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use nix::sys::socket::{AddressFamily, SockFlag, SockType};
use serde_json::json;

use super::{IDLE, IDLE_ENV, Refused, START_TIMEOUT, Start, config_frames, readable, ready};
use agent_hooks_core::workspace::Workspace;

/// The directory of the workspace's forker sockets.
fn sockets_of(ws: &Workspace) -> PathBuf {
    ws.runtime_dir().join("prefork")
}

/// Where the workspace's forker for `key` listens.
pub(super) fn socket_path(ws: &Workspace, key: &str) -> PathBuf {
    sockets_of(ws).join(format!("{key}.sock"))
}

/// Connects to the forker listening at `socket`, when one does, without waiting: a forker
/// that is up answers at once, so the common call needs no thread; anything else (no forker,
/// a full backlog) goes the way that may start one.
pub(super) fn connect_serving(socket: &Path) -> Option<std::os::unix::net::UnixStream> {
    use nix::sys::socket::{UnixAddr, connect, socket as new_socket};
    let fd = new_socket(
        AddressFamily::Unix,
        SockType::Stream,
        SockFlag::SOCK_CLOEXEC | SockFlag::SOCK_NONBLOCK,
        None,
    )
    .ok()?;
    at_socket(socket, |path| {
        connect(fd.as_raw_fd(), &UnixAddr::new(path)?).map_err(io::Error::from)
    })
    .ok()?;
    let conn = std::os::unix::net::UnixStream::from(fd);
    conn.set_nonblocking(false).ok()?;
    Some(conn)
}

/// A connection to the socket file `socket` that may wait for the forker to accept it (for a
/// blocking thread; [`connect_serving`] is the one that never waits).
fn connect_blocking(socket: &Path) -> io::Result<std::os::unix::net::UnixStream> {
    at_socket(socket, |path| std::os::unix::net::UnixStream::connect(path))
}

/// `connect` to the socket file `socket`, through its directory's descriptor when the path is
/// longer than an AF_UNIX address holds (108 bytes; a deep workspace).
fn at_socket<T>(socket: &Path, connect: impl FnOnce(&Path) -> io::Result<T>) -> io::Result<T> {
    use std::os::unix::ffi::OsStrExt;
    let (Some(dir), Some(name)) = (socket.parent(), socket.file_name()) else {
        return connect(socket);
    };
    if socket.as_os_str().as_bytes().len() < 108 {
        return connect(socket);
    }
    let dir = std::fs::File::open(dir)?;
    connect(
        &Path::new("/proc/self/fd")
            .join(dir.as_raw_fd().to_string())
            .join(name),
    )
}

/// The directory of the workspace's forker sockets, made private to the user.
fn socket_dir(ws: &Workspace) -> io::Result<PathBuf> {
    use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
    let dir = sockets_of(ws);
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(&dir)?;
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700))?;
    Ok(dir)
}

/// Connects to the workspace's forker for `key`, starting it when none serves it.
/// Waits for a forker it starts no longer than `within` (what is left of the call's time):
/// `None` when that ran out first, the forker left starting for the calls that follow (it ends
/// itself if it is still starting after [`START_TIMEOUT`]).
pub(super) fn connect_or_start(
    ws: &Workspace,
    key: &str,
    start: &Start,
    within: Duration,
) -> Result<Option<std::os::unix::net::UnixStream>, Refused> {
    let dir = socket_dir(ws).map_err(|e| format!("cannot make the forkers' directory: {e}"))?;
    let socket = socket_path(ws, key);
    if let Ok(conn) = connect_blocking(&socket) {
        return Ok(Some(conn));
    }
    let idle = std::env::var(IDLE_ENV)
        .ok()
        .and_then(|s| s.parse::<f64>().ok())
        .filter(|s| *s > 0.0)
        .unwrap_or(IDLE.as_secs_f64());
    let listen = json!({
        "listen": socket,
        "lock": dir.join(format!("{key}.lock")),
        "approvals": ws.approvals_json(),
        "idle_seconds": idle,
        "start_seconds": START_TIMEOUT.as_secs_f64(),
    });
    let mut cmd = start.command();
    cmd.stdin(Stdio::piped()).stdout(Stdio::piped());
    let mut process = cmd
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", start.interpreter.display()))?;
    // The configuration goes through a pipe only the forker reads, never its command line.
    if let Some(mut config) = process.stdin.take() {
        for frame in config_frames(&start.config(Some(listen))) {
            if let Err(e) = config.write_all(&frame) {
                let _ = process.kill();
                let _ = process.wait();
                return Err(Refused::Unavailable(format!(
                    "the forker did not take its configuration: {e}"
                )));
            }
        }
    }
    let mut line = Vec::new();
    if let Some(mut out) = process.stdout.take() {
        if !readable(out.as_fd(), within.min(START_TIMEOUT)) {
            if within < START_TIMEOUT {
                return Ok(None);
            }
            let _ = process.kill();
            return Err(Refused::Unavailable(format!(
                "the forker did not load the script within {} s",
                START_TIMEOUT.as_secs()
            )));
        }
        let mut byte = [0u8; 1];
        while line.len() < 64 * 1024
            && out.read(&mut byte).is_ok_and(|n| n == 1)
            && byte[0] != b'\n'
        {
            line.push(byte[0]);
        }
    }
    // The forker lives on, serving the workspace; it is reaped by whoever inherits it.
    drop(process);
    ready(&line)?;
    // Another process's forker may have taken the socket first and still be binding it.
    let mut last = None;
    for _ in 0..100 {
        match connect_blocking(&socket) {
            Ok(conn) => return Ok(Some(conn)),
            Err(e) => last = Some(e),
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    Err(Refused::Unavailable(format!(
        "cannot connect to the forker at {}: {}",
        socket.display(),
        last.map_or_else(String::new, |e| e.to_string())
    )))
}
