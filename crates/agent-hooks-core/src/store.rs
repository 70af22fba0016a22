//! Crash-safe, concurrency-safe writes of the small files agent-hooks owns or edits
//! (`config/hook_approvals.json`, `config/agent.yaml`, `.claude/settings.json`): an exclusive
//! lock on a lock file in the runtime's own directory for the workspace
//! ([`Workspace::runtime_dir`]) serialises writers across processes (the data file itself cannot
//! carry the lock: it is replaced, not rewritten, and the host's files stay free of lock files), and the data file is replaced by
//! write-temp, fsync, rename, fsync-directory so no reader ever sees a torn file.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::workspace::Workspace;

/// A held exclusive lock for one data file of a workspace; released on drop.
#[derive(Debug)]
pub struct FileLock {
    file: File,
}

impl FileLock {
    /// Blocks until this process holds the lock for `data_path`, a file of `ws`.
    pub fn acquire(ws: &Workspace, data_path: &Path) -> io::Result<FileLock> {
        let path = lock_path(ws, data_path);
        ws.create_runtime_dir()?;
        if let Some(dir) = path.parent() {
            fs::create_dir_all(dir)?;
        }
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(path)?;
        file.lock()?;
        Ok(FileLock { file })
    }
}

impl Drop for FileLock {
    fn drop(&mut self) {
        // Closing the descriptor releases the lock too; unlocking first just makes it prompt.
        let _ = self.file.unlock();
    }
}

/// `<runtime dir>/locks/<path inside the workspace, "/" spelt "%">.lock`, so two data files
/// never share a lock and no lock lands in the host's files.
fn lock_path(ws: &Workspace, data_path: &Path) -> PathBuf {
    let inside = data_path.strip_prefix(ws.root()).unwrap_or(data_path);
    let name = inside
        .to_string_lossy()
        .trim_start_matches('/')
        .replace('/', "%");
    ws.runtime_dir().join("locks").join(format!("{name}.lock"))
}

/// Replaces `path` with `contents` atomically. Callers hold the [`FileLock`] when the new
/// contents were computed from the old ones.
pub fn write_atomic(path: &Path, contents: &[u8]) -> io::Result<()> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    fs::create_dir_all(dir)?;
    remove_stale_temporaries(dir, path);
    let (tmp, mut file) = tempfile_in(dir, path)?;
    let written = (|| {
        file.write_all(contents)?;
        file.sync_all()?;
        // Keep the mode of the file being replaced (a user may have made it private).
        if let Ok(meta) = fs::metadata(path) {
            let _ = fs::set_permissions(&tmp, meta.permissions());
        }
        fs::rename(&tmp, path)
    })();
    if let Err(err) = written {
        let _ = fs::remove_file(&tmp);
        return Err(err);
    }
    File::open(dir)?.sync_all()
}

/// Removes the temporaries of `target` that writers left behind when they were killed
/// mid-write: those whose writing process is gone. A live writer's temporary is left alone
/// (a reused pid only delays the cleanup to a later write).
fn remove_stale_temporaries(dir: &Path, target: &Path) {
    let Some(stem) = target.file_name().and_then(|n| n.to_str()) else {
        return;
    };
    let prefix = format!(".{stem}.");
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix(&prefix))
            .and_then(|rest| rest.strip_suffix(".tmp"))
            .and_then(|rest| rest.split_once('.'))
            .and_then(|(pid, attempt)| {
                attempt.parse::<u32>().ok()?;
                pid.parse::<i32>().ok()
            })
        else {
            continue;
        };
        let gone = nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), None)
            == Err(nix::errno::Errno::ESRCH);
        if gone {
            let _ = fs::remove_file(entry.path());
        }
    }
}

fn tempfile_in(dir: &Path, target: &Path) -> io::Result<(PathBuf, File)> {
    let stem = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "file".into());
    for attempt in 0u32..100 {
        let candidate = dir.join(format!(".{stem}.{}.{attempt}.tmp", std::process::id()));
        match OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&candidate)
        {
            Ok(file) => return Ok((candidate, file)),
            Err(err) if err.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(err) => return Err(err),
        }
    }
    Err(io::Error::new(
        io::ErrorKind::AlreadyExists,
        format!("cannot create a temporary file in {}", dir.display()),
    ))
}

/// The largest configuration or approvals file agent-hooks reads. Real ones are a few KiB; a
/// bigger one is a mistake or an attack, and reading it would cost every `fire` its time.
pub const MAX_FILE_BYTES: u64 = 4 * 1024 * 1024;

/// Reads `path`, treating a missing file as empty (`docs/configuration.md`: missing means nothing
/// configured).
///
/// The one way every configuration and approvals file is read: only a regular file (a FIFO
/// would block the reader forever, `/dev/zero` would never end), at most [`MAX_FILE_BYTES`],
/// UTF-8. The file is opened without blocking and checked through the opened descriptor, so
/// swapping the path between check and read changes nothing.
pub fn read_optional(path: &Path) -> io::Result<Option<String>> {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let file = match OpenOptions::new()
        .read(true)
        .custom_flags(nix::libc::O_NONBLOCK)
        .open(path)
    {
        Ok(file) => file,
        Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(err) => return Err(err),
    };
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "not a regular file (it is {})",
                file_kind(&meta.file_type())
            ),
        ));
    }
    if meta.len() > MAX_FILE_BYTES {
        return Err(too_big(meta.len()));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    // A file that grows while it is read is still cut at the cap.
    file.take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(too_big(bytes.len() as u64));
    }
    String::from_utf8(bytes)
        .map(Some)
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, format!("not UTF-8: {e}")))
}

fn too_big(len: u64) -> io::Error {
    io::Error::new(
        io::ErrorKind::FileTooLarge,
        format!(
            "it is {len} bytes, over the {} MiB limit for this file",
            MAX_FILE_BYTES / (1024 * 1024)
        ),
    )
}

fn file_kind(kind: &fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if kind.is_dir() {
        "a directory"
    } else if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_socket() {
        "a socket"
    } else if kind.is_char_device() {
        "a character device"
    } else if kind.is_block_device() {
        "a block device"
    } else {
        "not a file"
    }
}

/// Makes a hook name safe as one path component under `state/`.
pub fn filesystem_safe(name: &str) -> String {
    let mut out: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    out = out.trim_matches(|c| c == '.' || c == '_').to_owned();
    if out.len() > 100 {
        out.truncate(100);
    }
    if out.is_empty() {
        out.push_str("hook");
    }
    out
}
