//! The trust gate (SPEC §4): a hook that runs a command needs the master switch on and an
//! approval of its (event, command) pair that has not drifted. An approval records every file
//! the command names — path, mtime, SHA-256 — and drift is any of them changed or gone.
//!
//! Hashing on every dispatch would be waste, so a stat fingerprint (size, mtime, ctime, inode)
//! of each verified file is cached and the file is re-hashed only when the fingerprint moves.
//! ctime cannot be set back by a user, so `touch -r` after an edit still forces a re-hash.

use std::collections::HashMap;
use std::fs;
use std::io::{self, Read};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::config::ConfigError;
use crate::event::Event;
use crate::store::{self, FileLock};
use crate::transport::TransportSpec;
use crate::workspace::Workspace;

/// One file recorded by an approval.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApprovedFile {
    /// The file, absolute.
    pub path: PathBuf,
    /// Modification time, nanoseconds since the Unix epoch.
    pub mtime_ns: i128,
    /// SHA-256 of the content at approval, lowercase hex.
    pub sha256: String,
    /// The file's stat fingerprint when it was hashed (size, ctime, inode, device). While it is
    /// unchanged the content cannot have changed — ctime cannot be set back — so a dispatch,
    /// even in a fresh process, checks a stat instead of re-hashing the file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stat: Option<StatPrint>,
}

/// The parts of a file's stat that any write changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct StatPrint {
    /// Size in bytes.
    pub size: u64,
    /// Status-change time, nanoseconds since the Unix epoch.
    pub ctime_ns: i128,
    /// Inode number.
    pub ino: u64,
    /// Device the inode lives on.
    pub dev: u64,
}

/// One approved (event, command) pair.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Approval {
    /// The event's canonical name.
    pub event: String,
    /// The hook's approval key: the command line as declared, or the URL.
    pub command: String,
    /// When it was approved, RFC 3339 UTC.
    pub approved_at: String,
    /// The files the command names, as they were when approved; any change is drift.
    #[serde(default)]
    pub files: Vec<ApprovedFile>,
}

/// The contents of `config/hook_approvals.json`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Approvals {
    /// The file format version (1).
    #[serde(default = "format_version")]
    pub version: u32,
    /// Every approved pair, in the order they were added.
    #[serde(default)]
    pub approvals: Vec<Approval>,
}

fn format_version() -> u32 {
    1
}

impl Approvals {
    /// Reads the allowlist; a missing file is an empty list.
    pub fn load(ws: &Workspace) -> Result<Approvals, ConfigError> {
        let path = ws.approvals_json();
        let display = ws.display(&path).into_owned();
        let text = store::read_optional(&path).map_err(|e| ConfigError {
            kind: crate::diag::DiagKind::HookConfigError,
            file: display.clone(),
            line: 0,
            column: 0,
            message: format!("cannot read: {e}"),
        })?;
        match text {
            None => Ok(Approvals {
                version: 1,
                approvals: Vec::new(),
            }),
            Some(text) if text.trim().is_empty() => Ok(Approvals::default()),
            Some(text) => serde_json::from_str(&text).map_err(|e| ConfigError {
                kind: crate::diag::DiagKind::HookConfigError,
                file: display,
                line: e.line() as u64,
                column: e.column() as u64,
                message: format!("not a valid approvals file: {e}"),
            }),
        }
    }

    /// The approval of `command` for `event`, if any (drift not checked).
    pub fn find(&self, event: Event, command: &str) -> Option<&Approval> {
        self.approvals
            .iter()
            .find(|a| a.command == command && a.event == event.name())
    }

    /// The events `command` is approved for.
    pub fn events_of<'a>(&'a self, command: &'a str) -> impl Iterator<Item = &'a str> {
        self.approvals
            .iter()
            .filter(move |a| a.command == command)
            .map(|a| a.event.as_str())
    }
}

/// Why a write to the allowlist failed.
#[derive(Debug, thiserror::Error)]
pub enum TrustError {
    /// The approvals file could not be locked, read or written.
    #[error("failed to update {path}: {source}")]
    Io {
        /// The approvals file, as shown to the user.
        path: String,
        /// The underlying failure.
        source: io::Error,
    },
    /// The approvals file exists but does not parse; it is left as it is rather than replaced.
    #[error("{0}; fix or remove the file first (nothing was written, no approval was lost)")]
    Corrupt(ConfigError),
    /// A file the command names could not be read to fingerprint it.
    #[error("failed to record {path} for the approval: {source}")]
    Record {
        /// The file that could not be hashed.
        path: String,
        /// The underlying failure.
        source: io::Error,
    },
}

/// Adds (or refreshes) approvals of `command` for `events`, recording the files it names.
pub fn approve(
    ws: &Workspace,
    transport: &TransportSpec,
    command: &str,
    events: &[Event],
) -> Result<(), TrustError> {
    let files = record_files(transport)?;
    update(ws, |list| {
        let now = crate::diag::now_rfc3339();
        for event in events {
            list.approvals
                .retain(|a| !(a.command == command && a.event == event.name()));
            list.approvals.push(Approval {
                event: event.name().to_owned(),
                command: command.to_owned(),
                approved_at: now.clone(),
                files: files.clone(),
            });
        }
    })
}

/// Removes every approval of `command`; returns how many pairs were removed.
pub fn revoke(ws: &Workspace, command: &str) -> Result<usize, TrustError> {
    let mut removed = 0;
    update(ws, |list| {
        let before = list.approvals.len();
        list.approvals.retain(|a| a.command != command);
        removed = before - list.approvals.len();
    })?;
    Ok(removed)
}

/// Read-modify-write of the allowlist under its lock.
fn update(ws: &Workspace, change: impl FnOnce(&mut Approvals)) -> Result<(), TrustError> {
    let path = ws.approvals_json();
    let display = ws.display(&path).into_owned();
    let io = |source| TrustError::Io {
        path: display.clone(),
        source,
    };
    let _lock = FileLock::acquire(&path).map_err(io)?;
    let mut list = Approvals::load(ws).map_err(TrustError::Corrupt)?;
    list.version = 1;
    change(&mut list);
    let mut text = serde_json::to_vec_pretty(&list).map_err(|e| io(e.into()))?;
    text.push(b'\n');
    store::write_atomic(&path, &text).map_err(io)
}

fn record_files(transport: &TransportSpec) -> Result<Vec<ApprovedFile>, TrustError> {
    let paths = match transport {
        TransportSpec::Command(spec) => spec.files(),
        // An HTTP hook is its URL: there is no file on this machine to pin.
        TransportSpec::Http(_) => Vec::new(),
        // A built-in guard is pinned by its rules file, which decides what it blocks.
        TransportSpec::Builtin(spec) => spec.files(),
    };
    paths
        .into_iter()
        .map(|path| {
            let err = |source| TrustError::Record {
                path: path.display().to_string(),
                source,
            };
            let meta = fs::metadata(&path).map_err(err)?;
            let sha256 = hash_file(&path).map_err(err)?;
            let after = fs::metadata(&path).map_err(err)?;
            let print = Fingerprint::of(&meta);
            if Fingerprint::of(&after) != print {
                return Err(err(io::Error::other(
                    "the file changed while it was being recorded; approve it again",
                )));
            }
            Ok(ApprovedFile {
                mtime_ns: mtime_ns(&meta),
                path,
                sha256,
                stat: Some(print.stat()),
            })
        })
        .collect()
}

fn mtime_ns(meta: &fs::Metadata) -> i128 {
    i128::from(meta.mtime()) * 1_000_000_000 + i128::from(meta.mtime_nsec())
}

/// SHA-256 of a file, as lowercase hex.
pub fn hash_file(path: &Path) -> io::Result<String> {
    let mut file = fs::File::open(path)?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect())
}

/// What the gate says about one (event, command) pair.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Approved and unchanged: the hook may run.
    Approved,
    /// No approval for this pair: the hook is skipped.
    NotApproved,
    /// Approved, but a recorded file changed: says which and how.
    Drifted(String),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Fingerprint {
    size: u64,
    mtime_ns: i128,
    ctime_ns: i128,
    ino: u64,
    dev: u64,
}

impl Fingerprint {
    fn stat(&self) -> StatPrint {
        StatPrint {
            size: self.size,
            ctime_ns: self.ctime_ns,
            ino: self.ino,
            dev: self.dev,
        }
    }

    fn of(meta: &fs::Metadata) -> Fingerprint {
        Fingerprint {
            size: meta.size(),
            mtime_ns: mtime_ns(meta),
            ctime_ns: i128::from(meta.ctime()) * 1_000_000_000 + i128::from(meta.ctime_nsec()),
            ino: meta.ino(),
            dev: meta.dev(),
        }
    }
}

/// Checks approvals for drift, remembering files already verified.
#[derive(Debug, Default)]
pub struct DriftChecker {
    /// Path → (fingerprint at the last check, hash it was checked against).
    verified: Mutex<HashMap<PathBuf, (Fingerprint, String)>>,
}

impl DriftChecker {
    /// Whether `command` may run at `event`. Re-hashes a recorded file only when its stat
    /// fingerprint moved since the last check, so the common case is a few `stat` calls.
    pub fn check(&self, approvals: &Approvals, event: Event, command: &str) -> Verdict {
        let Some(approval) = approvals.find(event, command) else {
            return Verdict::NotApproved;
        };
        for file in &approval.files {
            if let Some(why) = self.drift_of(file) {
                return Verdict::Drifted(why);
            }
        }
        Verdict::Approved
    }

    /// `None` when `file` is as approved; otherwise what changed.
    fn drift_of(&self, file: &ApprovedFile) -> Option<String> {
        let meta = match fs::metadata(&file.path) {
            Ok(meta) => meta,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Some(format!("{} is gone", file.path.display()));
            }
            Err(e) => return Some(format!("{} cannot be read: {e}", file.path.display())),
        };
        let print = Fingerprint::of(&meta);
        if file.stat == Some(print.stat()) && print.mtime_ns == file.mtime_ns {
            return None;
        }
        {
            let cache = self.verified.lock().unwrap_or_else(|p| p.into_inner());
            if let Some((seen, hash)) = cache.get(&file.path)
                && *seen == print
                && *hash == file.sha256
            {
                return None;
            }
        }
        if print.mtime_ns != file.mtime_ns {
            return Some(format!(
                "{} was modified (mtime changed)",
                file.path.display()
            ));
        }
        match hash_file(&file.path) {
            Ok(hash) if hash == file.sha256 => {
                self.verified
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .insert(file.path.clone(), (print, hash));
                None
            }
            Ok(_) => Some(format!(
                "{} was modified (content changed, mtime unchanged)",
                file.path.display()
            )),
            Err(e) => Some(format!("{} cannot be read: {e}", file.path.display())),
        }
    }
}
