//! The trust gate (`docs/trust.md`): a hook that needs approval runs only with the master switch on
//! and an approval of its (event, key) pair that still holds. An approval binds a digest of the
//! hook's whole effective definition (argv, env, matcher, timeout, on_error, dialect; a Claude Code
//! hook's `if` and `shell`; a built-in's rules path; an HTTP hook's URL, header templates,
//! `allowed_env` and secret) and every file its command names, as
//! [`agent_hooks_transports::command_line`] reads it with the hook's own environment. Drift is any
//! field of the definition changed, a file whose content changed or that is gone, or a command that
//! now resolves to a file the approval does not pin.
//!
//! Script-sized files (up to [`HASH_EVERY_TIME`]) are read whole at every check: a write through
//! a shared `mmap` moves neither mtime nor ctime, so no stat can vouch for them. A read that
//! equals, byte for byte, the content this process last hashed and found approved is that
//! content; any other read is hashed. Two kinds of file
//! keep a stat fingerprint instead, and are re-hashed when it moves: larger files (big
//! interpreters, compiled hooks), and compiled programs outside the workspace that only root
//! can write (`/usr/bin/sh`) — changing those in place takes root, which the gate does not
//! claim to stop.

use std::collections::{BTreeMap, HashMap};
use std::fs;
use std::io;
use std::os::unix::fs::{DirBuilderExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

pub(crate) use agent_hooks_transports::pinned::{Pinned, hash_file};
use agent_hooks_transports::pinned::{hash_reader, hex};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::config::ConfigError;
use crate::hook::Hook;
use agent_hooks_core::config_error::Location;
use agent_hooks_core::event::Event;
use agent_hooks_core::store::{self, FileLock};
use agent_hooks_core::workspace::Workspace;
use agent_hooks_transports::TransportSpec;
use agent_hooks_transports::command_line::{self, Reading, Role};

/// Files up to this size are hashed at every check; larger ones keep a stat fingerprint.
pub(crate) const HASH_EVERY_TIME: u64 = 1024 * 1024;

/// What an approval binds of a hook besides its files: one digest per field of its effective
/// definition, so that a change names the field ("env changed").
pub(crate) type Definition = BTreeMap<String, String>;

/// One file recorded by an approval.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct ApprovedFile {
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
pub(crate) struct StatPrint {
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
pub(crate) struct Approval {
    /// The event's canonical name.
    pub event: String,
    /// The hook's approval key: the command line as declared, or the URL.
    pub command: String,
    /// When it was approved, RFC 3339 UTC.
    pub approved_at: String,
    /// The files the command names, as they were when approved; any change is drift.
    #[serde(default)]
    pub files: Vec<ApprovedFile>,
    /// The definition of each declared hook with this key at this event, when approved. Empty
    /// in approvals written before definitions were recorded: those are not honoured.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub definitions: Vec<Definition>,
    /// The program `execve` starts, as resolved with the hook's environment when approved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub program: Option<PathBuf>,
}

/// The contents of `config/hook_approvals.json`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Approvals {
    /// The file format version (1).
    #[serde(default = "format_version")]
    pub version: u32,
    /// Every approved pair, in the order they were added.
    #[serde(default)]
    pub approvals: Vec<Approval>,
    /// The workspace root the file was read for. Paths inside the workspace are stored
    /// relative to it and held absolute in memory, so a moved or copied workspace keeps its
    /// approvals, bound to its own files (their content still decides).
    #[serde(skip)]
    pub root: PathBuf,
}

/// Every path an approval holds: its pinned files and its program.
fn paths_mut(list: &mut Approvals) -> impl Iterator<Item = &mut PathBuf> {
    list.approvals.iter_mut().flat_map(|approval| {
        approval
            .files
            .iter_mut()
            .map(|file| &mut file.path)
            .chain(approval.program.iter_mut())
    })
}

/// Each approved path as the file stores it: relative to `root` when inside it.
fn stored_relative(list: &mut Approvals, root: &Path) {
    for path in paths_mut(list) {
        if let Ok(rest) = path.strip_prefix(root)
            && !rest.as_os_str().is_empty()
        {
            *path = rest.to_path_buf();
        }
    }
}

/// Each stored path as the checks compare it: a relative one is taken from `root`.
fn held_absolute(list: &mut Approvals, root: &Path) {
    for path in paths_mut(list) {
        if path.is_relative() {
            *path = root.join(&*path);
        }
    }
    list.root = root.to_path_buf();
}

fn format_version() -> u32 {
    1
}

impl Approvals {
    /// Reads the allowlist; a missing file is an empty list.
    pub(crate) fn load(ws: &Workspace) -> Result<Approvals, ConfigError> {
        let path = ws.approvals_json();
        let display = ws.display(&path).into_owned();
        let text = store::read_optional(&path)
            .map_err(|e| ConfigError::whole_file(&display, format!("cannot read: {e}")))?;
        let mut list = match text {
            None => Approvals {
                version: 1,
                ..Approvals::default()
            },
            Some(text) if text.trim().is_empty() => Approvals::default(),
            Some(text) => serde_json::from_str(&text).map_err(|e| {
                ConfigError::located(
                    display,
                    Location::from_parser(e.line() as u64, e.column() as u64),
                    format!("not a valid approvals file: {e}"),
                )
            })?,
        };
        held_absolute(&mut list, ws.root());
        Ok(list)
    }

    /// The approval of `command` for `event`, if any (drift not checked).
    pub(crate) fn find(&self, event: Event, command: &str) -> Option<&Approval> {
        self.approvals
            .iter()
            .find(|a| a.command == command && a.event == event.name())
    }

    /// The events `command` is approved for.
    pub(crate) fn events_of<'a>(&'a self, command: &'a str) -> impl Iterator<Item = &'a str> {
        self.approvals
            .iter()
            .filter(move |a| a.command == command)
            .map(|a| a.event.as_str())
    }
}

/// Why a write to the allowlist failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
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
    /// Which files the command runs cannot be determined, so nothing could be pinned.
    #[error("cannot approve: {0}")]
    Unreadable(#[from] command_line::Unreadable),
    /// A file the command names does not exist (or a program is on no `PATH`).
    #[error("cannot approve \"{command}\": {why}")]
    Missing {
        /// The command line.
        command: String,
        /// Which file, and where it was looked for.
        why: String,
    },
    /// A file the command names could not be read to fingerprint it.
    #[error("failed to record {path} for the approval: {source}")]
    Record {
        /// The file that could not be hashed.
        path: String,
        /// The underlying failure.
        source: io::Error,
    },
}

/// Adds (or refreshes) approvals of `command` for `events`, binding the definition of each of
/// `hooks` (the declared hooks with that key) and recording the files their command names.
pub(crate) fn approve(
    ws: &Workspace,
    hooks: &[&Hook],
    command: &str,
    events: &[Event],
) -> Result<(), TrustError> {
    let mut files: Vec<ApprovedFile> = Vec::new();
    let mut program = None;
    for hook in hooks {
        let (paths, pinned) = pinned_files(hook)?;
        program = program.or(pinned);
        for file in record_files(paths)? {
            if !files.iter().any(|f| f.path == file.path) {
                files.push(file);
            }
        }
    }
    keep_texts(ws, &files);
    update(ws, |list| {
        let now = agent_hooks_core::diag::now_rfc3339();
        for event in events {
            let mut definitions: Vec<Definition> = hooks
                .iter()
                .filter(|h| h.handles(*event))
                .map(|h| definition_in(h, ws.root()))
                .collect();
            if definitions.is_empty() {
                definitions = hooks.iter().map(|h| definition_in(h, ws.root())).collect();
            }
            definitions.dedup();
            list.approvals
                .retain(|a| !(a.command == command && a.event == event.name()));
            list.approvals.push(Approval {
                event: event.name().to_owned(),
                command: command.to_owned(),
                approved_at: now.clone(),
                files: files.clone(),
                definitions,
                program: program.clone(),
            });
        }
    })
}

/// Files up to this size have their approved text kept, so a change can be shown as a diff.
const KEEP_TEXT: usize = 1 << 20;

/// Where approved texts are kept: the runtime's own directory for the workspace, outside the
/// workspace like the approvals, each file named by its SHA-256.
fn kept_dir(ws: &Workspace) -> PathBuf {
    ws.runtime_dir().join("approved")
}

/// Keeps a copy of each approved file's text. Only for showing what changed: drift is still
/// decided by the digests alone, so a copy that cannot be written is a warning, not a failure.
fn keep_texts(ws: &Workspace, files: &[ApprovedFile]) {
    let dir = kept_dir(ws);
    for file in files {
        let Ok(bytes) = fs::read(&file.path) else {
            continue;
        };
        // Only the content that was approved, whatever was written since it was hashed.
        if bytes.len() > KEEP_TEXT || hex(&Sha256::digest(&bytes)) != file.sha256 {
            continue;
        }
        let kept = std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&dir)
            .and_then(|()| fs::write(dir.join(&file.sha256), &bytes));
        if let Err(e) = kept {
            tracing::warn!(
                "could not keep the approved text of {} in {}: {e}; its changes cannot be shown as a diff",
                file.path.display(),
                dir.display()
            );
        }
    }
}

/// One file an approved hook runs: its text when approved (when kept, and only if the kept
/// copy still has the approved digest) and its text now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ApprovedFileText {
    /// The file.
    pub path: PathBuf,
    /// Whether its content differs from the approved content.
    pub changed: bool,
    /// The approved text; `None` when it was approved before texts were kept, or is larger
    /// than 1 MiB.
    pub approved: Option<String>,
    /// The text now; `None` when the file cannot be read or is larger than 1 MiB.
    pub now: Option<String>,
}

/// The files of the latest approval of `key` in `ws`, each with its approved and current text.
pub fn approved_file_texts(ws: &Workspace, key: &str) -> Vec<ApprovedFileText> {
    let Ok(list) = Approvals::load(ws) else {
        return Vec::new();
    };
    let Some(approval) = list.approvals.iter().rev().find(|a| a.command == key) else {
        return Vec::new();
    };
    let text_of = |bytes: Vec<u8>| {
        (bytes.len() <= KEEP_TEXT).then(|| String::from_utf8_lossy(&bytes).into_owned())
    };
    let dir = kept_dir(ws);
    approval
        .files
        .iter()
        .map(|file| {
            let approved = fs::read(dir.join(&file.sha256))
                .ok()
                .filter(|bytes| hex(&Sha256::digest(bytes)) == file.sha256)
                .and_then(text_of);
            let now = fs::read(&file.path).ok();
            let changed = now
                .as_ref()
                .is_none_or(|bytes| hex(&Sha256::digest(bytes)) != file.sha256);
            ApprovedFileText {
                path: file.path.clone(),
                changed,
                approved,
                now: now.and_then(text_of),
            }
        })
        .collect()
}

/// Removes every approval of `command`; returns how many pairs were removed.
pub(crate) fn revoke(ws: &Workspace, command: &str) -> Result<usize, TrustError> {
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
    let _lock = FileLock::acquire(ws, &path).map_err(io)?;
    let mut list = Approvals::load(ws).map_err(TrustError::Corrupt)?;
    list.version = 1;
    change(&mut list);
    stored_relative(&mut list, ws.root());
    let mut text = serde_json::to_vec_pretty(&list).map_err(|e| io(e.into()))?;
    text.push(b'\n');
    store::write_atomic(&path, &text).map_err(io)
}

/// Why `hook` cannot be approved as it is written, when its command line does not say which
/// files it runs: a skip warning then names the rewrite it needs instead of an approval that
/// would be refused.
pub(crate) fn unapprovable(hook: &Hook) -> Option<String> {
    match &hook.transport {
        TransportSpec::Command(spec) => command_line::read(spec, &hook.env)
            .err()
            .map(|unreadable| unreadable.why),
        _ => None,
    }
}

/// The files an approval of `hook` pins, and the program `execve` starts.
fn pinned_files(hook: &Hook) -> Result<(Vec<PathBuf>, Option<PathBuf>), TrustError> {
    match &hook.transport {
        TransportSpec::Command(spec) => {
            let reading = command_line::read(spec, &hook.env)?;
            if let Some((_, why)) = reading.missing() {
                return Err(TrustError::Missing {
                    command: spec.line.clone(),
                    why,
                });
            }
            Ok((
                reading.paths().map(Path::to_path_buf).collect(),
                reading.program.clone(),
            ))
        }
        // An HTTP hook is its URL, a judge its prompt and endpoint: no file on this machine
        // to pin.
        TransportSpec::Http(_) | TransportSpec::Judge(_) => Ok((Vec::new(), None)),
        // A built-in guard is pinned by its rules file, which decides what it blocks.
        TransportSpec::Builtin(spec) => match &spec.rules {
            Some(rules) if !rules.is_file() => Err(TrustError::Missing {
                command: format!("builtin:{}", spec.guard),
                why: format!("its rules file {} does not exist", rules.display()),
            }),
            _ => Ok((spec.files(), None)),
        },
    }
}

fn record_files(paths: Vec<PathBuf>) -> Result<Vec<ApprovedFile>, TrustError> {
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

/// [`definition`] with the workspace root spelt `$WORKSPACE` in every field, as approvals
/// record it: a hook of a moved or copied workspace keeps the definition it was approved with
/// (its files' content is checked on its own).
pub(crate) fn definition_in(hook: &Hook, root: &Path) -> Definition {
    digests(hook, Some(root))
}

/// The digest of each field of `hook`'s effective definition, paths as they are (what
/// approvals recorded before paths in the workspace were stored relative to it).
pub(crate) fn definition(hook: &Hook) -> Definition {
    digests(hook, None)
}

/// `value` with each occurrence of the path `root` (a whole path component prefix) spelt
/// `$WORKSPACE`.
fn portable(value: &str, root: &Path) -> String {
    let root = root.to_string_lossy();
    if root.len() <= 1 {
        return value.to_owned();
    }
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(at) = rest.find(&*root) {
        let after = &rest[at + root.len()..];
        out.push_str(&rest[..at]);
        if after.is_empty() || after.starts_with(['/', '"', '\'', ' ']) {
            out.push_str("$WORKSPACE");
        } else {
            out.push_str(&root);
        }
        rest = after;
    }
    out.push_str(rest);
    out
}

/// The digest of each field of `hook`'s effective definition. Everything that decides what
/// runs and how is here; the name and the declaring file are not (renaming a hook changes
/// nothing it does).
fn digests(hook: &Hook, root: Option<&Path>) -> Definition {
    let mut fields: Vec<(&str, String)> = vec![
        ("dialect", hook.dialect.label().to_owned()),
        (
            "matcher",
            hook.matcher
                .as_ref()
                .map(|m| m.pattern.clone())
                .unwrap_or_default(),
        ),
        ("timeout", hook.timeout.as_millis().to_string()),
        ("on_error", format!("{:?}", hook.on_error)),
        ("env", format!("{:?}", hook.env)),
    ];
    // Fields only some hooks have are bound only when present, so that an approval recorded
    // before they existed still holds for a hook that does not use them.
    if let agent_hooks_dialects::Dialect::Claude {
        condition: Some(condition),
        ..
    } = &hook.dialect
    {
        fields.push(("if", condition.rule().to_owned()));
    }
    // A guard made async can no longer block: that is a change of what was approved.
    if let Some(background) = hook.dialect.background() {
        fields.push(("async", background.field().to_owned()));
    }
    match &hook.transport {
        TransportSpec::Command(spec) => {
            fields.push(("command", format!("{:?}", spec.invocation)));
            if let Some((shell, _)) = spec.invocation.shell_line()
                && shell != "sh"
            {
                fields.push(("shell", shell.to_owned()));
            }
            fields.push(("working directory", spec.cwd.to_string_lossy().into_owned()));
            // Bound only when set, like `async`: approvals made before it existed still hold.
            if let Some(prefork) = &spec.prefork {
                fields.push(("prefork", prefork.describe()));
            }
        }
        TransportSpec::Http(spec) => {
            fields.push(("url", spec.url.clone()));
            fields.push(("headers", format!("{:?}", spec.headers)));
            fields.push(("allowed_env", format!("{:?}", spec.allowed_env)));
            fields.push(("secret", spec.secret.is_some().to_string()));
        }
        TransportSpec::Judge(spec) => {
            // A prompt hook turned agent hook reads the workspace: bound, when it is one.
            if spec.is_agent() {
                fields.push(("type", "agent".to_owned()));
            }
            fields.push(("prompt", spec.prompt.clone()));
            fields.push(("model", spec.model().to_owned()));
            fields.push(("endpoint", spec.endpoint.describe()));
            fields.push(("continueOnBlock", spec.continue_on_block.to_string()));
        }
        TransportSpec::Builtin(spec) => {
            fields.push(("guard", spec.guard.to_owned()));
            fields.push((
                "rules",
                spec.rules
                    .as_ref()
                    .map(|p| p.to_string_lossy().into_owned())
                    .unwrap_or_default(),
            ));
        }
    }
    fields
        .into_iter()
        .map(|(name, value)| {
            let value = match root {
                Some(root) => portable(&value, root),
                None => value,
            };
            (
                name.to_owned(),
                hex(&Sha256::digest(value.as_bytes())[..16]),
            )
        })
        .collect()
}

fn mtime_ns(meta: &fs::Metadata) -> i128 {
    i128::from(meta.mtime()) * 1_000_000_000 + i128::from(meta.mtime_nsec())
}

/// What the gate says about one (event, command) pair.
#[derive(Debug, Clone)]
pub(crate) enum Verdict {
    /// Approved and unchanged: the hook may run, and `execve` starts the pinned program (when
    /// the approval pins one).
    Approved(Option<Pinned>),
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
pub(crate) struct DriftChecker {
    /// The workspace root, canonical: nothing under it is ever a system program.
    workspace: Option<PathBuf>,
    /// Path → what the last full check of it found.
    verified: Mutex<Seen>,
}

/// At most this many bytes of approved content are kept per checker (per engine), so a
/// script-sized file read at every check is compared with them instead of hashed.
const KEEP_APPROVED: usize = 8 * 1024 * 1024;

/// What the checker has verified, and the approved bytes it keeps, within [`KEEP_APPROVED`].
#[derive(Debug, Default)]
struct Seen {
    files: HashMap<PathBuf, Verified>,
    /// The bytes held by `files`, in all.
    kept: usize,
}

impl Seen {
    /// Records `path` as hashed and found to be the approved content. A new entry that would
    /// take the kept bytes past the budget drops every kept copy first: they are only a way to
    /// skip a hash, and the next check of each file hashes it again.
    fn insert(&mut self, path: &Path, verified: Verified) {
        if let Some(old) = self.files.remove(path) {
            self.kept -= old.bytes.as_ref().map_or(0, |b| b.len());
        }
        let size = verified.bytes.as_ref().map_or(0, |b| b.len());
        if self.kept + size > KEEP_APPROVED {
            for seen in self.files.values_mut() {
                seen.bytes = None;
            }
            self.kept = 0;
        }
        self.kept += size;
        self.files.insert(path.to_path_buf(), verified);
    }
}

/// A file hashed and found to be the approved content.
#[derive(Debug, Clone)]
struct Verified {
    print: Fingerprint,
    sha256: String,
    /// The content as hashed, for a file of up to [`HASH_EVERY_TIME`] bytes (within the
    /// checker's budget): a later read that equals it byte for byte is that same approved
    /// content, whatever its timestamps say, so it needs no hash.
    bytes: Option<Arc<[u8]>>,
}

impl DriftChecker {
    /// A checker for hooks of the workspace at `root`. Compiled programs installed outside it
    /// (owned by root, writable by nobody else) are vouched for by their stat fingerprint once
    /// hashed; see [`HASH_EVERY_TIME`]. [`DriftChecker::default`] knows no workspace and hashes
    /// every script-sized file at every check.
    pub(crate) fn new(root: &Path) -> DriftChecker {
        DriftChecker {
            workspace: Some(root.canonicalize().unwrap_or_else(|_| root.to_path_buf())),
            verified: Mutex::default(),
        }
    }

    /// Whether `hook` may run at `event` under `approvals`: its definition is the approved one,
    /// its command still reads to the pinned files, and their content is the approved content.
    pub(crate) fn check(&self, approvals: &Approvals, event: Event, hook: &Hook) -> Verdict {
        let Some(key) = &hook.approval_key else {
            return Verdict::Approved(None);
        };
        let Some(approval) = approvals.find(event, key) else {
            return Verdict::NotApproved;
        };
        if approval.definitions.is_empty() {
            return Verdict::Drifted(
                "its approval was recorded by an earlier version, which did not bind the hook's whole definition (env, matcher, timeout, ...); review the hook and approve it again".into(),
            );
        }
        let mine = definition_in(hook, &approvals.root);
        if !approval.definitions.contains(&mine)
            && !approval.definitions.contains(&definition(hook))
        {
            return Verdict::Drifted(changed_fields(&approval.definitions, &mine));
        }
        if let TransportSpec::Command(spec) = &hook.transport {
            let reading = match command_line::read(spec, &hook.env) {
                Ok(reading) => reading,
                Err(e) => return Verdict::Drifted(e.to_string()),
            };
            if let Some(why) = unpinned(&reading, approval) {
                return Verdict::Drifted(why);
            }
        }
        let mut pinned = approval.program.clone().map(|path| Pinned {
            path,
            file: None,
            approved: Vec::new(),
        });
        for file in &approval.files {
            let program = pinned.as_mut().filter(|p| p.path == file.path);
            let result = match program {
                Some(program) => self.open_verified(file).map(|open| program.file = open),
                None => self.verify(file).map(drop),
            };
            if let Err(why) = result {
                return Verdict::Drifted(why);
            }
        }
        // The transport runs the command from sealed copies of these exact contents (and a
        // `prefork` forker compiles only these).
        if let (Some(pinned), TransportSpec::Command(_)) = (pinned.as_mut(), &hook.transport) {
            pinned.approved = approval
                .files
                .iter()
                .map(|f| (f.path.clone(), f.sha256.clone()))
                .collect();
        }
        Verdict::Approved(pinned)
    }

    /// Verifies the program through one open descriptor; keeps the descriptor when the file is
    /// a compiled program (ELF), which the kernel can start from it.
    fn open_verified(&self, file: &ApprovedFile) -> Result<Option<Arc<fs::File>>, String> {
        let (opened, elf) = self.verify(file)?;
        Ok(opened.filter(|_| elf).map(Arc::new))
    }

    /// Checks that `file` holds the approved content, through one open descriptor, which it
    /// returns with whether the file is a compiled program. The descriptor is `None` when a
    /// stat vouched for the file without opening it.
    fn verify(&self, file: &ApprovedFile) -> Result<(Option<fs::File>, bool), String> {
        use std::os::unix::fs::FileExt;
        let shown = file.path.display();
        let mut opened = match fs::File::open(&file.path) {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Err(format!("{shown} is gone"));
            }
            Err(e) => return Err(format!("{shown} cannot be read: {e}")),
        };
        let meta = opened
            .metadata()
            .map_err(|e| format!("{shown} cannot be read: {e}"))?;
        let print = Fingerprint::of(&meta);
        let mut magic = [0u8; 4];
        let elf = opened.read_exact_at(&mut magic, 0).is_ok() && magic == *b"\x7fELF";
        if self.vouched(file, &meta, print, elf) {
            return Ok((Some(opened), elf));
        }
        let unreadable = |e: io::Error| format!("{shown} cannot be read: {e}");
        let (hash, bytes) = if meta.len() <= HASH_EVERY_TIME {
            // Read whole at every check (no stat can vouch for it); hashed only when the
            // bytes are not the approved ones this checker already holds.
            let bytes = read_whole(&mut opened, meta.len()).map_err(unreadable)?;
            if self.kept_equals(file, &bytes) {
                return Ok((Some(opened), elf));
            }
            let fits = bytes.len() as u64 <= HASH_EVERY_TIME;
            (hex(&Sha256::digest(&bytes)), fits.then(|| Arc::from(bytes)))
        } else {
            (hash_reader(&mut opened).map_err(unreadable)?, None)
        };
        if hash != file.sha256 {
            return Err(format!("{shown} was modified (its content changed)"));
        }
        self.verified
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(
                &file.path,
                Verified {
                    print,
                    sha256: hash,
                    bytes,
                },
            );
        Ok((Some(opened), elf))
    }

    /// Whether `bytes`, just read from `file`, are byte for byte the content this checker
    /// hashed earlier and found to be the approved one.
    fn kept_equals(&self, file: &ApprovedFile, bytes: &[u8]) -> bool {
        let kept = self
            .verified
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .files
            .get(&file.path)
            .filter(|seen| seen.sha256 == file.sha256)
            .and_then(|seen| seen.bytes.clone());
        kept.is_some_and(|kept| *kept == *bytes)
    }

    /// Whether the file's stat vouches that its content is still the approved content (as
    /// hashed at approval or by an earlier check), so it need not be hashed again. That holds
    /// for a large file whose fingerprint is unchanged, and for a compiled program that only
    /// root can write and that lies outside the workspace (an interpreter such as
    /// `/usr/bin/sh`). A script-sized file that anyone
    /// else can write is hashed: a write through a shared `mmap` can leave every timestamp
    /// where it was.
    fn vouched(
        &self,
        file: &ApprovedFile,
        meta: &fs::Metadata,
        print: Fingerprint,
        elf: bool,
    ) -> bool {
        let seen = self
            .verified
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .files
            .get(&file.path)
            .is_some_and(|seen| seen.print == print && seen.sha256 == file.sha256);
        let at_approval = file.stat == Some(print.stat()) && print.mtime_ns == file.mtime_ns;
        if meta.len() > HASH_EVERY_TIME {
            return seen || at_approval;
        }
        let system = elf
            && meta.uid() == 0
            && meta.mode() & 0o022 == 0
            && self
                .workspace
                .as_deref()
                .is_some_and(|root| !file.path.starts_with(root));
        system && (seen || at_approval)
    }
}

/// The rest of `file`, `len` bytes as its stat said, to its end: two `read`s when the size
/// holds (std's `read_to_end` would `stat` the file again, or read in growing steps).
fn read_whole(file: &mut fs::File, len: u64) -> io::Result<Vec<u8>> {
    use io::Read;
    let mut bytes = vec![0u8; usize::try_from(len).unwrap_or(0).saturating_add(1)];
    let mut filled = 0;
    loop {
        if filled == bytes.len() {
            // The file grew under the read: its end, not its old size, ends the content.
            bytes.resize(bytes.len() * 2, 0);
        }
        match file.read(&mut bytes[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    bytes.truncate(filled);
    Ok(bytes)
}

/// Which fields of `mine` differ from the approved definition closest to it.
fn changed_fields(approved: &[Definition], mine: &Definition) -> String {
    let differing = |d: &Definition| -> Vec<String> {
        mine.iter()
            .filter(|(k, v)| d.get(*k) != Some(*v))
            .map(|(k, _)| k.clone())
            .chain(d.keys().filter(|k| !mine.contains_key(*k)).cloned())
            .collect()
    };
    let fields = approved
        .iter()
        .map(differing)
        .min_by_key(Vec::len)
        .unwrap_or_default();
    match fields.as_slice() {
        [] => "its definition changed since approval".into(),
        [one] => format!("{one} changed since approval"),
        many => format!("{} changed since approval", many.join(", ")),
    }
}

/// A file the command now names (or a program it now resolves to) that the approval does not
/// pin. An approval pinning nothing for a command that names files is not honoured.
fn unpinned(reading: &Reading, approval: &Approval) -> Option<String> {
    let pinned = |p: &Path| approval.files.iter().any(|f| f.path == p);
    for named in &reading.files {
        match &named.path {
            None => return Some(format!("{} is no longer on PATH", named.word)),
            Some(path) if !path.is_file() => {
                return Some(format!("{} is gone ({})", named.word, path.display()));
            }
            Some(path) if !pinned(path) => {
                return Some(match named.role {
                    Role::Program if !named.word.contains('/') => format!(
                        "{} now resolves to {}, which the approval does not pin",
                        named.word,
                        path.display()
                    ),
                    _ => format!(
                        "{} ({}) is not pinned by the approval",
                        named.word,
                        path.display()
                    ),
                });
            }
            Some(_) => {}
        }
    }
    if reading.program.is_some() && approval.program != reading.program {
        return Some(format!(
            "{} now resolves to {}, not the approved {}",
            reading.program_word,
            reading
                .program
                .as_deref()
                .map_or_else(|| "nothing".into(), |p| p.display().to_string()),
            approval
                .program
                .as_deref()
                .map_or_else(|| "nothing".into(), |p| p.display().to_string()),
        ));
    }
    None
}

/// The command that approves `key`, as the user would type it.
pub(crate) fn approve_command(key: &str) -> String {
    format!("/hooks approve {}", quote(key))
}

/// A command as the user would type it after `/hooks approve`.
pub(crate) fn quote(command: &str) -> String {
    if command.contains(char::is_whitespace) || command.contains(['"', '\'']) {
        shell_words::quote(command).into_owned()
    } else {
        command.to_owned()
    }
}

/// What governs approval when approvals are kept outside the workspace, read from a file
/// beside the approvals file (`docs/trust.md`, "Trust settings live with the approvals"): a
/// place the agent cannot write, unlike `config/agent.yaml`, which it can edit and which is
/// reloaded while the sidecar runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TrustSettings {
    /// Whether the sidecar's approve and revoke routes answer. `config/agent.yaml` can only
    /// turn them off on top of this, never on.
    pub self_approve: bool,
    /// The file these came from; `None` when approvals live in the workspace, where
    /// `config/agent.yaml` alone decides.
    pub file: Option<PathBuf>,
}

impl Default for TrustSettings {
    /// Approvals in the workspace: nothing beyond `config/agent.yaml` restricts approval.
    fn default() -> TrustSettings {
        TrustSettings {
            self_approve: true,
            file: None,
        }
    }
}

/// The trust settings file as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TrustFile {
    self_approve: Option<bool>,
}

impl TrustSettings {
    /// The file beside approvals kept outside the workspace: the approvals file's name with
    /// `.trust.yaml` for its extension (`proj-approvals.json` → `proj-approvals.trust.yaml`).
    /// `None` when approvals live in the workspace.
    pub(crate) fn path(ws: &Workspace) -> Option<PathBuf> {
        ws.approvals_outside()
            .then(|| ws.approvals_json().with_extension("trust.yaml"))
    }

    /// The settings in force for `ws`. With approvals outside the workspace, a missing file
    /// turns self-approval off: the user took approving out of the agent's reach, and an
    /// approve route would hand it back. A file that cannot be read or parsed does the same,
    /// and is returned as the error to report beside the settings.
    pub(crate) fn load(ws: &Workspace) -> (TrustSettings, Option<ConfigError>) {
        let Some(path) = TrustSettings::path(ws) else {
            return (TrustSettings::default(), None);
        };
        let closed = TrustSettings {
            self_approve: false,
            file: Some(path.clone()),
        };
        let display = path.display().to_string();
        let text = match store::read_optional(&path) {
            Ok(Some(text)) => text,
            Ok(None) => return (closed, None),
            Err(e) => {
                let error = ConfigError::whole_file(
                    &display,
                    format!("cannot read: {e}; self-approval stays off"),
                );
                return (closed, Some(error));
            }
        };
        if text.trim().is_empty() {
            return (closed, None);
        }
        match serde_saphyr::from_str::<TrustFile>(&text) {
            Ok(file) => (
                TrustSettings {
                    self_approve: file.self_approve.unwrap_or(false),
                    file: Some(path),
                },
                None,
            ),
            Err(e) => {
                let location = e
                    .location()
                    .and_then(|l| Location::from_parser(l.line(), l.column()));
                let message = e.to_string();
                let message = message.lines().next().unwrap_or("").trim().to_owned();
                let error = ConfigError::located(
                    display,
                    location,
                    format!(
                        "{message} (expected `self_approve: true` or `false`); self-approval stays off"
                    ),
                );
                (closed, Some(error))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verified(len: usize) -> Verified {
        Verified {
            print: Fingerprint {
                size: len as u64,
                mtime_ns: 0,
                ctime_ns: 0,
                ino: 1,
                dev: 1,
            },
            sha256: String::new(),
            bytes: Some(Arc::from(vec![0u8; len])),
        }
    }

    #[test]
    fn a_file_is_read_whole_whatever_its_stat_said() -> io::Result<()> {
        let dir = tempfile::tempdir()?;
        let path = dir.path().join("f");
        for content in [&b""[..], b"x", &[7u8; 70_000]] {
            fs::write(&path, content)?;
            let len = content.len() as u64;
            // As stat'ed, and as if it grew or shrank between the stat and the read.
            for said in [len, len.saturating_sub(1), 0, len + 5] {
                assert_eq!(read_whole(&mut fs::File::open(&path)?, said)?, content);
            }
        }
        Ok(())
    }

    #[test]
    fn kept_approved_bytes_stay_within_the_budget() {
        let mut seen = Seen::default();
        let mib = 1024 * 1024;
        for n in 0..8 {
            seen.insert(Path::new(&format!("/f{n}")), verified(mib));
        }
        assert_eq!(seen.kept, KEEP_APPROVED);
        // Replacing an entry counts its old bytes out.
        seen.insert(Path::new("/f0"), verified(mib / 2));
        assert_eq!(seen.kept, KEEP_APPROVED - mib / 2);
        // One more past the budget drops every other copy, never the verified facts.
        seen.insert(Path::new("/f8"), verified(mib));
        assert_eq!(seen.kept, mib);
        assert_eq!(seen.files.len(), 9);
        let held = seen.files.values().filter(|v| v.bytes.is_some()).count();
        assert_eq!(held, 1);
    }
}
