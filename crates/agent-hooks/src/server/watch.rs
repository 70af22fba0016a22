//! Hot reload: watch `config/`, `skills/` and `.claude/` (debounced — editors save by writing a
//! temporary file and renaming it) and rebuild the configuration off the request path. The
//! engine swaps the new snapshot in whole; dispatches already running keep the old one.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use notify_debouncer_mini::notify::RecursiveMode;
use notify_debouncer_mini::{DebounceEventResult, Debouncer, new_debouncer};

use crate::engine::Engine;

/// How long the watcher waits for a burst of file events to settle before reloading.
pub const DEBOUNCE: Duration = Duration::from_millis(150);

/// Keeps the watcher alive; dropping it stops hot reload.
pub struct Watcher {
    _debouncer: Debouncer<notify_debouncer_mini::notify::RecommendedWatcher>,
}

impl std::fmt::Debug for Watcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Watcher")
    }
}

/// Whether a changed path can change the configuration.
fn relevant(root: &Path, path: &Path) -> bool {
    let Ok(rel) = path.strip_prefix(root) else {
        return false;
    };
    let mut parts = rel.components();
    match parts.next().and_then(|c| c.as_os_str().to_str()) {
        Some("config") | Some("skills") | Some(".claude") => {}
        _ => return false,
    }
    // Lock files and our own temporaries change on every approval; the data file's rename is
    // the event that matters.
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    !(name.ends_with(".lock") || name.ends_with(".tmp"))
}

/// Starts watching `engine`'s workspace; each settled burst of relevant changes triggers a
/// reload on a blocking thread.
pub fn watch(engine: Arc<Engine>) -> Result<Watcher, String> {
    let root = engine.workspace().root().to_path_buf();
    let handle = tokio::runtime::Handle::current();
    let watched_root = root.clone();
    let mut debouncer = new_debouncer(DEBOUNCE, move |result: DebounceEventResult| {
        let Ok(events) = result else {
            return;
        };
        if !events.iter().any(|e| relevant(&watched_root, &e.path)) {
            return;
        }
        let engine = engine.clone();
        handle.spawn_blocking(move || {
            engine.reload();
            tracing::info!("configuration reloaded after a file change");
        });
    })
    .map_err(|e| format!("cannot start the file watcher: {e}"))?;
    // The root, recursively: config/, skills/ or .claude/ may be created later.
    debouncer
        .watcher()
        .watch(&root, RecursiveMode::Recursive)
        .map_err(|e| format!("cannot watch {}: {e}", root.display()))?;
    Ok(Watcher {
        _debouncer: debouncer,
    })
}
