//! Crash-safe, concurrency-safe writes of the small files agent-hooks owns or edits
//! (`config/hook_approvals.json`, `config/agent.yaml`): an exclusive lock on a sidecar
//! `.lock` file serialises writers across processes, and the data file is replaced by
//! write-temp, fsync, rename, fsync-directory so no reader ever sees a torn file.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// A held exclusive lock on `<file>.lock`; released on drop.
#[derive(Debug)]
pub struct FileLock {
    file: File,
}

impl FileLock {
    /// Blocks until this process holds the lock for `data_path`.
    pub fn acquire(data_path: &Path) -> io::Result<FileLock> {
        if let Some(dir) = data_path.parent() {
            fs::create_dir_all(dir)?;
        }
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(lock_path(data_path))?;
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

fn lock_path(data_path: &Path) -> PathBuf {
    let mut p = data_path.as_os_str().to_owned();
    p.push(".lock");
    PathBuf::from(p)
}

/// Replaces `path` with `contents` atomically. Callers hold the [`FileLock`] when the new
/// contents were computed from the old ones.
pub fn write_atomic(path: &Path, contents: &[u8]) -> io::Result<()> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    fs::create_dir_all(dir)?;
    let mut tmp = tempfile_in(dir, path)?;
    tmp.1.write_all(contents)?;
    tmp.1.sync_all()?;
    // Keep the mode of the file being replaced (a user may have made it private).
    if let Ok(meta) = fs::metadata(path) {
        let _ = fs::set_permissions(&tmp.0, meta.permissions());
    }
    if let Err(err) = fs::rename(&tmp.0, path) {
        let _ = fs::remove_file(&tmp.0);
        return Err(err);
    }
    File::open(dir)?.sync_all()
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

/// Reads `path`, treating a missing file as empty (SPEC §2: missing means nothing configured).
pub fn read_optional(path: &Path) -> io::Result<Option<String>> {
    match fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(err) if err.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(err) => Err(err),
    }
}
