//! What an agent's hooks file was before an installer first wrote its bridge into it, kept in
//! the runtime's own directory for the workspace, so that uninstalling puts the file back byte
//! for byte — or
//! removes it, with the directories made for it, when there was none — whenever nothing but
//! the bridge changed in it meanwhile. A file the user edited since keeps their edits (only the
//! bridge entries go). Where the write lands (through a symlink, never replacing it), the lock
//! that leaves no file behind, and whether the file is the user's rather than a project's are
//! decided here too.

use std::fs::File;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

use agent_hooks_core::store;
use agent_hooks_core::workspace::Workspace;
use agent_hooks_dialects::agent::Agent;

/// Where the record of `agent`'s hooks file before installation is kept.
fn record_path(ws: &Workspace, agent: Agent) -> PathBuf {
    ws.runtime_dir()
        .join("installed")
        .join(format!("{}.json", agent.name()))
}

/// Where earlier versions kept it, in the workspace's `state/`: still read and consumed, so a
/// bridge installed then is uninstalled byte for byte now.
fn legacy_record_path(ws: &Workspace, agent: Agent) -> PathBuf {
    ws.state_dir()
        .join("installed")
        .join(format!("{}.json", agent.name()))
}

/// `path` with every symlink on it followed as far as it exists, the rest appended: where a
/// write to it lands.
pub(crate) fn resolved(path: &Path) -> PathBuf {
    let mut rest = Vec::new();
    let mut at = path.to_path_buf();
    loop {
        if let Ok(real) = std::fs::canonicalize(&at) {
            return rest.iter().rev().fold(real, |dir, part| dir.join(part));
        }
        match (at.file_name(), at.parent()) {
            (Some(name), Some(parent)) => {
                rest.push(name.to_owned());
                at = parent.to_path_buf();
            }
            _ => return path.to_path_buf(),
        }
    }
}

/// The file an edit of `path` must replace: `path` itself, or, when it is a symlink, the file
/// it points to, so the link stays a link to where it pointed.
pub(crate) fn write_target(path: &Path) -> PathBuf {
    let is_link = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    if !is_link {
        return path.to_path_buf();
    }
    match std::fs::read_link(path) {
        Ok(link) => {
            let target = path.parent().map_or(link.clone(), |dir| dir.join(&link));
            if target.is_symlink() {
                write_target(&target)
            } else {
                target
            }
        }
        Err(_) => path.to_path_buf(),
    }
}

/// Why `file` (the agent's hooks file of `ws`, as named in the workspace) is the user's own
/// settings, read in every project, rather than a project's: the workspace is the home
/// directory, or the file resolves into one of the agent's user directories. `None` for a
/// project's file, and where no home directory is known.
pub(crate) fn user_level(ws: &Workspace, agent: Agent, file: &Path) -> Option<String> {
    let home = std::env::var_os("HOME").filter(|h| !h.is_empty())?;
    let home = std::fs::canonicalize(&home).unwrap_or_else(|_| PathBuf::from(&home));
    let shown = ws.display(file).into_owned();
    if resolved(ws.root()) == home {
        return Some(format!(
            "the workspace is your home directory ({}), so {shown} is {}'s user-wide \
             configuration, not a project's",
            home.display(),
            agent.label()
        ));
    }
    let lands = resolved(file);
    agent
        .home()
        .user_config_dirs()
        .iter()
        .map(|dir| resolved(&home.join(dir)))
        .any(|dir| lands.starts_with(&dir))
        .then(|| {
            format!(
                "{shown} resolves to {}, {}'s user-wide configuration, not a project's",
                lands.display(),
                agent.label()
            )
        })
}

/// An exclusive lock on the directory of an agent's hooks file, held while the file is read,
/// edited and replaced. The directory itself carries it, so no lock file is created anywhere.
#[derive(Debug)]
pub(crate) struct DirLock {
    _dir: File,
}

impl DirLock {
    /// Blocks until this process holds the lock on `dir` (released on drop).
    pub(crate) fn acquire(dir: &Path) -> std::io::Result<DirLock> {
        let dir = File::open(dir)?;
        dir.lock()?;
        Ok(DirLock { _dir: dir })
    }
}

/// The directories between `root` and `path` that do not exist yet, deepest first: what
/// creating `path` makes, and so what putting things back removes.
fn missing_dirs(root: &Path, path: &Path) -> Vec<PathBuf> {
    let mut missing = Vec::new();
    let mut dir = path.parent();
    while let Some(d) = dir {
        if d == root || !d.starts_with(root) || d.exists() {
            break;
        }
        missing.push(d.to_path_buf());
        dir = d.parent();
    }
    missing
}

/// The directories writing `path` creates, deepest first, wherever it is (the state directory
/// need not be inside the workspace).
fn created_by_writing(path: &Path) -> Vec<PathBuf> {
    path.ancestors()
        .skip(1)
        .take_while(|dir| !dir.as_os_str().is_empty() && !dir.exists())
        .map(Path::to_path_buf)
        .collect()
}

/// Removes the label [`Workspace::create_runtime_dir`] wrote when it is all the runtime's
/// directory of `ws` still holds, so that the directory itself can go: anything else the
/// runtime keeps there since (decisions, locks of a session) keeps it.
fn forget_runtime_dir(ws: &Workspace) {
    let dir = ws.runtime_dir();
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return;
    };
    let names: Vec<_> = entries.flatten().map(|e| e.file_name()).collect();
    if names.len() == 1 && names[0] == "workspace" {
        let _ = std::fs::remove_file(dir.join("workspace"));
    }
}

/// Removes each of `dirs` (deepest first) while it is empty: anything put there since stays.
fn remove_empty(dirs: impl IntoIterator<Item = PathBuf>) {
    for dir in dirs {
        let _ = std::fs::remove_dir(dir);
    }
}

/// The file and its directories as they were before an install touched them.
#[derive(Debug)]
pub(crate) struct Before {
    /// The file's text, `None` when it did not exist.
    text: Option<String>,
    /// The directories between the workspace and the file that did not exist, deepest first.
    missing_dirs: Vec<PathBuf>,
    /// The directories of the runtime's own state for this workspace that did not exist yet,
    /// deepest first: an uninstall that leaves them holding nothing removes them.
    missing_runtime_dirs: Vec<PathBuf>,
}

impl Before {
    /// Reads `path` (a file of `ws`) as it is now: call it before creating anything.
    pub(crate) fn capture(ws: &Workspace, path: &Path) -> Before {
        Before {
            text: store::read_optional(path).ok().flatten(),
            missing_dirs: missing_dirs(ws.root(), path),
            missing_runtime_dirs: created_by_writing(&ws.runtime_dir().join("workspace")),
        }
    }

    /// Keeps this as the file's state before `agent`'s bridge, unless a record is kept
    /// already (a second install must not take a bridged file for the original). `fresh` is
    /// whether the file held no bridge entry of `agent`.
    pub(crate) fn keep(&self, ws: &Workspace, agent: Agent, fresh: bool) {
        let path = record_path(ws, agent);
        if !fresh || path.exists() || legacy_record_path(ws, agent).exists() {
            return;
        }
        // The record's own directories (up to the runtime's state directory itself, when the
        // install made it) go with it, so an uninstall leaves no state behind.
        let record_dirs = created_by_writing(&path);
        let _ = ws.create_runtime_dir();
        let record = json!({
            "text": self.text,
            "missing_dirs": self.missing_dirs,
            "record_dirs": record_dirs,
            "runtime_dirs": self.missing_runtime_dirs,
        });
        // Without the record, uninstall still removes the bridge; it only cannot restore the
        // file's exact bytes, so a failure to keep it does not stop the install.
        let _ = store::write_atomic(&path, record.to_string().as_bytes());
    }
}

/// `doc` as it means the same with or without the containers an install adds and an uninstall
/// leaves empty: empty event lists, groups with no handlers, an empty `hooks`, and the
/// `version` the agent's file always carries.
fn normal(agent: Agent, doc: &Map<String, Value>) -> Map<String, Value> {
    let mut doc = doc.clone();
    if let Some(Value::Object(hooks)) = doc.get_mut("hooks") {
        for list in hooks.values_mut() {
            if let Value::Array(list) = list {
                list.retain(|g| {
                    g.get("hooks")
                        .and_then(Value::as_array)
                        .is_none_or(|h| !h.is_empty())
                });
            }
        }
        hooks.retain(|_, list| list.as_array().is_none_or(|l| !l.is_empty()));
    }
    if doc
        .get("hooks")
        .and_then(Value::as_object)
        .is_some_and(Map::is_empty)
    {
        doc.remove("hooks");
    }
    if let Some(version) = agent.home().hooks_file().version
        && doc.get("version").and_then(Value::as_u64) == Some(version)
    {
        doc.remove("version");
    }
    doc
}

/// After an uninstall removed `agent`'s bridge entries and left `after`: puts `path` back as
/// it was before the first install when `after` means what it meant then (the record is
/// consumed either way). `None` when there is no record or the file changed otherwise — the
/// caller then writes `after`.
pub(crate) fn restore(
    ws: &Workspace,
    agent: Agent,
    path: &Path,
    after: &Map<String, Value>,
) -> Option<std::io::Result<()>> {
    let record_file = [record_path(ws, agent), legacy_record_path(ws, agent)]
        .into_iter()
        .find(|p| p.exists())?;
    let record: Value = serde_json::from_str(&store::read_optional(&record_file).ok()??).ok()?;
    let _ = std::fs::remove_file(&record_file);
    let dirs_of = |key: &str| -> Vec<PathBuf> {
        record
            .get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(PathBuf::from)
            .collect()
    };
    remove_empty(dirs_of("record_dirs"));
    let runtime_dirs = dirs_of("runtime_dirs");
    if !runtime_dirs.is_empty() {
        forget_runtime_dir(ws);
        remove_empty(runtime_dirs);
    }
    if let Some(dir) = record_file.parent() {
        // The legacy `state/installed/` goes with its last record.
        let _ = std::fs::remove_dir(dir);
    }
    let text = record.get("text").and_then(Value::as_str);
    let original = match text {
        None => Map::new(),
        Some(t) if t.trim().is_empty() => Map::new(),
        Some(t) => match serde_json::from_str::<Value>(t) {
            Ok(Value::Object(map)) => map,
            _ => return None,
        },
    };
    if normal(agent, &original) != normal(agent, after) {
        return None;
    }
    let Some(text) = text else {
        let removed = std::fs::remove_file(path);
        let inside = |d: &PathBuf| d.starts_with(ws.root()) && d != ws.root();
        remove_empty(dirs_of("missing_dirs").into_iter().filter(inside));
        return Some(removed);
    };
    Some(store::write_atomic(path, text.as_bytes()))
}
