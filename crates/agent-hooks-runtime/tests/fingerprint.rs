//! Drift checks across processes: a script-sized file is hashed at every dispatch, while a
//! large one (an interpreter, a compiled hook) keeps the stat fingerprint its approval stored,
//! so a fresh process (every `agent-hooks fire`) compares a stat instead of hashing it, and any
//! write — which moves ctime — forces a real re-hash. (What runs is hashed all the same, as it
//! is copied to be started from: `docs/trust.md`.)

use std::os::unix::fs::PermissionsExt;

use agent_hooks_runtime::{Engine, Event, HookStatus, Workspace};
use serde_json::{Map, Value};

/// A workspace whose hook is a script of `size` bytes (padded with a comment).
fn setup_sized(size: usize) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().canonicalize().expect("canonical");
    std::fs::create_dir_all(root.join("config")).expect("config/");
    std::fs::write(
        root.join("config/agent.yaml"),
        "shell_hooks:\n  enabled: true\n",
    )
    .expect("agent.yaml");
    let mut script = String::from("#!/bin/sh\ncat > /dev/null\nexit 0\n#");
    while script.len() < size {
        script.push('x');
    }
    std::fs::write(root.join("hook.sh"), script).expect("hook");
    std::fs::set_permissions(root.join("hook.sh"), std::fs::Permissions::from_mode(0o755))
        .expect("chmod");
    std::fs::write(
        root.join("config/shell_hooks.yaml"),
        format!(
            "hooks:\n  - name: h\n    event: on_stop\n    command: {}\n",
            root.join("hook.sh").display()
        ),
    )
    .expect("yaml");
    (dir, root)
}

async fn status(root: &std::path::Path) -> (HookStatus, Option<String>) {
    // A new engine each time: nothing is cached in memory, as in a fresh `fire` process.
    let engine = Engine::open(Workspace::new(root));
    let outcome = engine.dispatch(Event::OnStop, Map::new()).await;
    let report = &outcome.hooks[0];
    (report.status, report.detail.as_deref().map(str::to_owned))
}

/// Replaces the recorded hash with a wrong one, so any re-hash would report drift.
fn corrupt_recorded_hash(root: &std::path::Path) {
    let path = root.join("config/hook_approvals.json");
    let mut doc: Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("read")).expect("json");
    doc["approvals"][0]["files"][0]["sha256"] = Value::String("0".repeat(64));
    std::fs::write(&path, serde_json::to_string_pretty(&doc).expect("json")).expect("write");
}

#[tokio::test]
async fn a_large_files_unchanged_stat_is_trusted_without_hashing_and_any_write_forces_a_hash() {
    let (_dir, root) = setup_sized(2 * 1024 * 1024);
    let engine = Engine::open(Workspace::new(&root));
    let command = root.join("hook.sh").display().to_string();
    engine.approve(None, &command).expect("approve");
    assert_eq!(status(&root).await.0, HookStatus::Noop);

    // The stat still matches: the gate does not hash the file, so it is not skipped as drift;
    // the run hashes the bytes it copies to start from, and refuses them against the (now
    // wrong) record.
    corrupt_recorded_hash(&root);
    let (st, detail) = status(&root).await;
    assert_eq!(st, HookStatus::Error, "{detail:?}");
    assert!(
        detail
            .as_deref()
            .is_some_and(|d| d.contains("modified after its approval was checked")),
        "{detail:?}"
    );

    // chmod to the same mode changes nothing but ctime: the file is re-hashed, and the hash
    // no longer matches the record.
    std::fs::set_permissions(root.join("hook.sh"), std::fs::Permissions::from_mode(0o755))
        .expect("chmod");
    let (st, detail) = status(&root).await;
    assert_eq!(st, HookStatus::Skipped);
    assert_eq!(detail.as_deref(), Some("drift"));
}

#[tokio::test]
async fn a_script_sized_file_is_hashed_at_every_dispatch() {
    let (_dir, root) = setup_sized(10 * 1024);
    let engine = Engine::open(Workspace::new(&root));
    let command = root.join("hook.sh").display().to_string();
    engine.approve(None, &command).expect("approve");
    assert_eq!(status(&root).await.0, HookStatus::Noop);

    // Nothing about the file moved, yet the wrong record is caught: its stat vouches for nothing.
    corrupt_recorded_hash(&root);
    let (st, detail) = status(&root).await;
    assert_eq!(st, HookStatus::Skipped);
    assert_eq!(detail.as_deref(), Some("drift"));
}
