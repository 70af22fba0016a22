//! The sidecar's file watcher reloads on changes, not on reads: a reload reads every
//! `hooks.json`, so taking reads for changes made it reload itself forever (and re-log a
//! broken file's errors several times a second).

use std::sync::Arc;
use std::time::{Duration, Instant};

use agent_hooks_runtime::{Engine, Workspace};

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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_skill_writing_its_own_state_reloads_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().canonicalize().expect("canonical");
    let file = root.join("skills/a/hooks.json");
    std::fs::create_dir_all(file.parent().expect("a parent")).expect("mkdir");
    std::fs::write(&file, r#"{"hooks": []}"#).expect("write");
    let engine = Arc::new(Engine::open(Workspace::new(&root)));
    let _watcher = agent_hooks_server::watch(engine.clone()).expect("watch");
    // A reload swaps in a new snapshot: the one in force is the witness.
    let loaded = engine.snapshot();

    // What a hook keeping state in its skill directory does on every event: a write, a
    // write-then-rename, a new file in a subdirectory of its own.
    let skill = root.join("skills/a");
    std::fs::create_dir_all(skill.join("cache")).expect("mkdir");
    for n in 0..15 {
        std::fs::write(skill.join("state.json"), format!("{{\"n\": {n}}}")).expect("write");
        std::fs::write(skill.join("state.json.new"), format!("{n}")).expect("write");
        std::fs::rename(skill.join("state.json.new"), skill.join("counter.txt")).expect("mv");
        std::fs::write(skill.join(format!("cache/{n}.json")), "{}").expect("write");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert!(
        Arc::ptr_eq(&loaded, &engine.snapshot()),
        "a skill's own files are not configuration"
    );

    // A new skill directory with its hooks.json is.
    let other = root.join("skills/b/hooks.json");
    std::fs::create_dir_all(other.parent().expect("a parent")).expect("mkdir");
    std::fs::write(&other, BROKEN).expect("write");
    // The load reports the broken file before the engine swaps the new snapshot in.
    assert!(
        eventually(Duration::from_secs(10), || {
            reports(&root) == 1 && !Arc::ptr_eq(&loaded, &engine.snapshot())
        })
        .await,
        "a new hooks.json reloads: {} reports",
        reports(&root)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn files_that_never_stop_changing_do_not_hold_a_new_hooks_json_back() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().canonicalize().expect("canonical");
    let file = root.join("skills/a/hooks.json");
    std::fs::create_dir_all(file.parent().expect("a parent")).expect("mkdir");
    std::fs::create_dir_all(root.join("config")).expect("mkdir");
    std::fs::write(&file, BROKEN).expect("write");
    let engine = Arc::new(Engine::open(Workspace::new(&root)));
    let _watcher = agent_hooks_server::watch(engine).expect("watch");
    assert_eq!(reports(&root), 1);

    // A file under config/ rewritten every 50 ms, faster than the burst settles, for as long
    // as the test runs.
    let noise = root.join("config/noise.txt");
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let writer = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            let mut n = 0u64;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                n += 1;
                let _ = std::fs::write(&noise, n.to_string());
                std::thread::sleep(Duration::from_millis(50));
            }
        })
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    let before = reports(&root);
    let changed = Instant::now();
    std::fs::write(&file, format!("{BROKEN} ")).expect("write");
    let reloaded = eventually(Duration::from_secs(5), || reports(&root) > before).await;
    let took = changed.elapsed();
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let _ = writer.join();
    assert!(
        reloaded,
        "the new hooks.json was never loaded under constant churn"
    );
    assert!(took < Duration::from_secs(3), "loaded only after {took:?}");
}
