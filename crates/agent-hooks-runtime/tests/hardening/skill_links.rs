//! Symlinks under `skills/`: a link back up the tree must neither loop nor run a skill's hooks
//! more than once per event.

use std::os::unix::fs::symlink;
use std::sync::mpsc;
use std::time::Duration;

use agent_hooks_runtime::{Engine, Event, Workspace};
use serde_json::json;

/// A skill hook that appends one line to `runs` in the workspace each time it runs.
const COUNTING_HOOK: &str = r#"{"hooks": [{"name": "count", "command": "echo run >> ../../runs", "events": ["pre_tool_call"]}]}"#;

fn open_within_deadline(ws: Workspace) -> Engine {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(Engine::open(ws));
    });
    rx.recv_timeout(Duration::from_secs(20))
        .expect("loading a workspace with symlink loops must finish")
}

#[test]
fn links_back_up_the_tree_run_each_skill_hook_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().canonicalize().expect("canonical");
    std::fs::create_dir_all(root.join("skills/a")).expect("mkdir");
    std::fs::write(root.join("skills/a/hooks.json"), COUNTING_HOOK).expect("write");
    // Two loops, one to the parent and one to the skill itself, made `fire` never return.
    symlink("..", root.join("skills/a/loop")).expect("symlink");
    symlink(".", root.join("skills/a/self")).expect("symlink");

    let engine = open_within_deadline(Workspace::new(&root));
    let hooks = engine.snapshot().hook_count(Event::PreToolCall);
    assert_eq!(hooks, 1, "one hooks.json, one hook");

    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(
        engine.dispatch(
            Event::PreToolCall,
            json!({"tool_name": "bash", "tool_input": {}})
                .as_object()
                .cloned()
                .expect("an object"),
        ),
    );
    let runs = std::fs::read_to_string(root.join("runs")).expect("the hook ran");
    assert_eq!(runs.lines().count(), 1, "{runs}");
}

#[test]
fn links_are_followed_as_open_strix_follows_them() {
    // open-strix finds skills with `rglob("hooks.json")`: a linked `skills/` and a linked
    // `hooks.json` are followed, a linked directory below `skills/` is not entered.
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().canonicalize().expect("canonical");
    std::fs::create_dir_all(root.join("shared/tool")).expect("mkdir");
    std::fs::create_dir_all(root.join("real-skills/own")).expect("mkdir");
    std::fs::write(root.join("shared/tool/hooks.json"), COUNTING_HOOK).expect("write");
    symlink(root.join("real-skills"), root.join("skills")).expect("symlink");
    symlink(root.join("shared/tool"), root.join("real-skills/tool")).expect("symlink");
    let engine = open_within_deadline(Workspace::new(&root));
    assert_eq!(engine.snapshot().hook_count(Event::PreToolCall), 0);

    symlink(
        root.join("shared/tool/hooks.json"),
        root.join("real-skills/own/hooks.json"),
    )
    .expect("symlink");
    let engine = open_within_deadline(Workspace::new(&root));
    assert_eq!(engine.snapshot().hook_count(Event::PreToolCall), 1);
}
