//! The sidecar's file watcher reloads on changes, not on reads: a reload reads every
//! `hooks.json`, so taking reads for changes made it reload itself forever (and re-log a
//! broken file's errors several times a second).

use std::sync::Arc;
use std::time::{Duration, Instant};

use agent_hooks::{Engine, Workspace};

const BROKEN: &str = "{\"hooks\": [ {\"name\": ";

/// How many times the broken `hooks.json` has been reported: once per load of it.
fn reports(root: &std::path::Path) -> usize {
    std::fs::read_to_string(root.join("logs/events.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter(|l| l.contains("hook_invalid_json"))
        .count()
}

/// Waits until `check` holds or `limit` passes; whether it held.
async fn eventually(limit: Duration, check: impl Fn() -> bool) -> bool {
    let start = Instant::now();
    while start.elapsed() < limit {
        if check() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    check()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reading_a_watched_file_reloads_nothing_and_only_a_real_change_does() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().canonicalize().expect("canonical");
    let file = root.join("skills/a/hooks.json");
    std::fs::create_dir_all(file.parent().expect("a parent")).expect("mkdir");
    std::fs::write(&file, BROKEN).expect("write");
    let engine = Arc::new(Engine::open(Workspace::new(&root)));
    let _watcher = agent_hooks_server::watch(engine).expect("watch");
    assert_eq!(reports(&root), 1, "opening reports the broken file once");

    // One read, as `cat skills/a/hooks.json`; then time for several debounce periods.
    let _ = std::fs::read_to_string(&file).expect("read");
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(reports(&root), 1, "a read is not a change");

    // A real change reloads once; the file stays broken, so it is reported again.
    std::fs::write(&file, format!("{BROKEN} ")).expect("write");
    assert!(
        eventually(Duration::from_secs(10), || reports(&root) == 2).await,
        "a change must reload: {} reports",
        reports(&root)
    );
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(reports(&root), 2, "one change, one reload");

    // Writing the same bytes again changes no content: no reload.
    std::fs::write(&file, format!("{BROKEN} ")).expect("write");
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(reports(&root), 2, "the same content is no change");
}
