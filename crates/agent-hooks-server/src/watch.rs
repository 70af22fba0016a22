//! Hot reload: watch `config/`, `skills/` and `.claude/` and rebuild the configuration off the
//! request path. Under `skills/` only `hooks.json` files and skill directories count: a skill's
//! hook may keep its state in its own directory, and its writes must not reload anything.
//! Only writes, creations, removals and renames count — a reload reads every
//! `hooks.json`, a hook opens its script, the agent reads `SKILL.md`, and taking those reads
//! for changes made the sidecar reload itself forever. A burst of changes is let settle
//! (editors write a temporary file and rename it), and a burst that leaves every file's content
//! as it was reloads nothing; changes that never stop are taken at most [`MAX_WAIT`] after the
//! first, so a busy directory cannot hold a new configuration back. The engine swaps the new snapshot in whole; dispatches already
//! running keep the old one.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use notify::event::{AccessKind, AccessMode, EventKind, ModifyKind};
use notify::{RecommendedWatcher, RecursiveMode, Watcher as _};
use sha2::{Digest, Sha256};
use tokio::sync::mpsc;

use agent_hooks_runtime::Engine;

/// How long the watcher waits for a burst of file events to settle before reloading.
pub(super) const DEBOUNCE: Duration = Duration::from_millis(150);

/// The longest a burst is let run before the reload happens anyway.
pub(super) const MAX_WAIT: Duration = Duration::from_millis(500);

/// Why hot reload could not start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WatchError {
    /// The operating system's file watcher could not be created.
    #[error("cannot start the file watcher: {0}")]
    Start(notify::Error),
    /// The workspace could not be watched.
    #[error("cannot watch {}: {source}", path.display())]
    Root {
        /// The workspace root.
        path: PathBuf,
        /// The underlying failure.
        source: notify::Error,
    },
    /// The directory of an approvals file outside the workspace could not be watched.
    #[error("cannot watch the approvals directory {}: {source}", path.display())]
    Approvals {
        /// The approvals file's directory.
        path: PathBuf,
        /// The underlying failure.
        source: notify::Error,
    },
}

/// Keeps the watcher alive; dropping it stops hot reload (and the task that reloads).
pub struct Watcher {
    _watcher: RecommendedWatcher,
}

impl std::fmt::Debug for Watcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Watcher")
    }
}

/// Whether a changed path can change the configuration. Under `skills/` that is a
/// `hooks.json`, or a directory made or moved in or away (it may bring or take any number of
/// them; one made is looked into once the burst settles, since a file written into it at once
/// may be there before the watch on it); every other file there is a skill's own business.
fn relevant(root: &Path, path: &Path, kind: &EventKind) -> bool {
    use notify::event::RenameMode;
    let Ok(rel) = path.strip_prefix(root) else {
        return false;
    };
    let mut parts = rel.components();
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    match parts.next().and_then(|c| c.as_os_str().to_str()) {
        Some("skills") => {
            if name == "hooks.json" || parts.next().is_none() {
                return true;
            }
            return match kind {
                EventKind::Create(_) => path.is_dir(),
                // A name moved in is a directory now or not; one moved away cannot be looked
                // at, so a name without an extension (a directory's, usually) counts.
                EventKind::Modify(ModifyKind::Name(mode)) => {
                    path.is_dir()
                        || (!path.exists()
                            && !matches!(mode, RenameMode::To)
                            && Path::new(name).extension().is_none())
                }
                EventKind::Any => path.is_dir(),
                _ => false,
            };
        }
        Some("config") | Some(".claude") => {}
        _ => return false,
    }
    // Lock files and our own temporaries change on every approval; the data file's rename is
    // the event that matters.
    !(name.ends_with(".lock") || name.ends_with(".tmp"))
}

/// Whether an event can have changed what a file holds or which files exist. Opening, reading
/// and closing a file unwritten do not, nor does a change of its metadata alone.
fn changes_content(kind: &EventKind) -> bool {
    match kind {
        EventKind::Create(_) | EventKind::Remove(_) => true,
        EventKind::Modify(ModifyKind::Metadata(_)) => false,
        EventKind::Modify(_) => true,
        EventKind::Access(AccessKind::Close(AccessMode::Write)) => true,
        EventKind::Access(_) | EventKind::Other => false,
        // The backend could not say what happened: assume the worst.
        EventKind::Any => true,
    }
}

/// What a path held when the watcher last looked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Seen {
    Missing,
    File([u8; 32]),
    /// A directory or anything else that is not a readable file: a directory that appeared or
    /// moved may bring or take away any number of `hooks.json`, so it always counts as a change.
    Other,
}

fn look_at(path: &Path) -> Seen {
    match agent_hooks_core::store::read_optional(path) {
        Ok(Some(text)) => Seen::File(Sha256::digest(text.as_bytes()).into()),
        Ok(None) => Seen::Missing,
        Err(_) => Seen::Other,
    }
}

/// Whether `dir` holds a `hooks.json`, looking at most `depth` levels down (symbolic links
/// are not followed, as the loader does not follow them).
fn holds_hooks_json(dir: &Path, depth: usize) -> bool {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return false;
    };
    entries.flatten().any(|entry| {
        let Ok(kind) = entry.file_type() else {
            return false;
        };
        (kind.is_file() && entry.file_name() == "hooks.json")
            || (kind.is_dir() && depth > 0 && holds_hooks_json(&entry.path(), depth - 1))
    })
}

/// Starts watching `engine`'s workspace — and the approvals file when it lives outside it
/// (`AGENT_HOOKS_APPROVALS`), so a revocation made elsewhere stops the hook here too; each
/// settled burst of changes that altered some file's content triggers a reload on a blocking
/// thread.
pub fn watch(engine: Arc<Engine>) -> Result<Watcher, WatchError> {
    let root = engine.workspace().root().to_path_buf();
    let approvals = engine.workspace().approvals_json();
    let outside = (!approvals.starts_with(&root)).then_some(approvals);
    let (tx, rx) = mpsc::unbounded_channel::<PathBuf>();
    let watched_root = root.clone();
    let watched_approvals = outside.clone();
    // The trust settings beside outside approvals live in the same directory.
    let watched_trust = engine.snapshot().trust_file().map(Path::to_path_buf);
    let mut watcher = notify::recommended_watcher(move |result: notify::Result<notify::Event>| {
        let Ok(event) = result else {
            return;
        };
        if !changes_content(&event.kind) {
            return;
        }
        for path in event.paths {
            if relevant(&watched_root, &path, &event.kind)
                || watched_approvals.as_deref() == Some(&path)
                || watched_trust.as_deref() == Some(&path)
            {
                // The receiver is gone only when the watcher is being dropped.
                let _ = tx.send(path);
            }
        }
    })
    .map_err(WatchError::Start)?;
    // The root, recursively: config/, skills/ or .claude/ may be created later.
    watcher
        .watch(&root, RecursiveMode::Recursive)
        .map_err(|source| WatchError::Root {
            path: root.clone(),
            source,
        })?;
    // The approvals file's directory: the file is replaced by a rename at every change.
    if let Some(dir) = outside.as_deref().and_then(Path::parent) {
        watcher
            .watch(dir, RecursiveMode::NonRecursive)
            .map_err(|source| WatchError::Approvals {
                path: dir.to_path_buf(),
                source,
            })?;
    }
    tokio::spawn(reload_on_change(engine, rx));
    Ok(Watcher { _watcher: watcher })
}

/// Collects changed paths until none arrive for [`DEBOUNCE`] (or [`MAX_WAIT`] has passed since
/// the first), then reloads if any of them
/// holds something other than when it was last seen. Ends when the watcher is dropped.
async fn reload_on_change(engine: Arc<Engine>, mut rx: mpsc::UnboundedReceiver<PathBuf>) {
    let skills = engine.workspace().skills_dir();
    let mut seen: HashMap<PathBuf, Seen> = HashMap::new();
    while let Some(first) = rx.recv().await {
        let mut burst = BTreeSet::from([first]);
        let deadline = tokio::time::Instant::now() + MAX_WAIT;
        loop {
            let quiet = tokio::time::Instant::now() + DEBOUNCE;
            match tokio::time::timeout_at(quiet.min(deadline), rx.recv()).await {
                Ok(Some(path)) => {
                    burst.insert(path);
                }
                Ok(None) => return,
                Err(_settled) => break,
            }
        }
        let engine = engine.clone();
        let skills = skills.clone();
        let known = std::mem::take(&mut seen);
        // Reading the files and reloading both touch the disk: off the async threads.
        let reloaded = tokio::task::spawn_blocking(move || {
            let mut known = known;
            let mut changed = false;
            for path in burst {
                // A directory under skills/ matters only for the hooks.json it brings.
                if path.starts_with(&skills) && path.is_dir() {
                    changed |= holds_hooks_json(&path, 8);
                    continue;
                }
                let now = look_at(&path);
                // A path never seen before counts as changed: the engine loaded it before the
                // watcher knew it.
                if now == Seen::Other || known.insert(path, now) != Some(now) {
                    changed = true;
                }
            }
            if changed {
                engine.reload();
                tracing::info!("configuration reloaded after a file change");
            }
            known
        })
        .await;
        match reloaded {
            Ok(known) => seen = known,
            Err(e) => tracing::warn!("the reload after a file change failed: {e}"),
        }
    }
}
