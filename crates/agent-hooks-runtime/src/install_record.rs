//! What an agent's hooks file was before an installer first wrote its bridge into it, kept in
//! the runtime's own directory for the workspace, so that uninstalling puts the file back byte
//! for byte — or
//! removes it, with the directories made for it, when there was none — whenever nothing but
//! the bridge changed in it meanwhile. A file the user edited since keeps their edits (only the
//! bridge entries go).

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

/// The file and its directories as they were before an install touched them.
#[derive(Debug)]
pub(crate) struct Before {
    /// The file's text, `None` when it did not exist.
    text: Option<String>,
    /// The directories between the workspace and the file that did not exist, deepest first.
    missing_dirs: Vec<PathBuf>,
}

impl Before {
    /// Reads `path` (a file of `ws`) as it is now: call it before creating anything.
    pub(crate) fn capture(ws: &Workspace, path: &Path) -> Before {
        let text = store::read_optional(path).ok().flatten();
        let mut missing_dirs = Vec::new();
        let mut dir = path.parent();
        while let Some(d) = dir {
            if d == ws.root() || !d.starts_with(ws.root()) || d.exists() {
                break;
            }
            missing_dirs.push(d.to_path_buf());
            dir = d.parent();
        }
        Before { text, missing_dirs }
    }

    /// Keeps this as the file's state before `agent`'s bridge, unless a record is kept
    /// already (a second install must not take a bridged file for the original). `fresh` is
    /// whether the file held no bridge entry of `agent`.
    pub(crate) fn keep(&self, ws: &Workspace, agent: Agent, fresh: bool) {
        let path = record_path(ws, agent);
        if !fresh || path.exists() || legacy_record_path(ws, agent).exists() {
            return;
        }
        let _ = ws.create_runtime_dir();
        let record = json!({
            "text": self.text,
            "missing_dirs": self.missing_dirs,
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
        let dirs = record
            .get("missing_dirs")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(PathBuf::from)
            .filter(|d| d.starts_with(ws.root()) && d != ws.root());
        for dir in dirs {
            // Only an empty directory goes: anything the user put there since stays.
            let _ = std::fs::remove_dir(dir);
        }
        return Some(removed);
    };
    Some(store::write_atomic(path, text.as_bytes()))
}
