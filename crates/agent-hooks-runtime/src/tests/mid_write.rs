//! A `shell_hooks.yaml` caught mid-write — empty, truncated, unparsable — keeps the last good
//! hooks in force, in a long-lived engine (`serve`) and in a fresh one (every `fire` is a new
//! process); removing every hook takes an explicit `hooks: []`.

use crate::config::FileState;
use crate::{Decision, Engine, Event, Workspace};
use serde_json::json;

const GUARD: &str = r#"echo '{"decision": "block", "reason": "no rm -rf"}'"#;

fn good_yaml() -> String {
    format!("hooks:\n  - name: guard\n    event: pre_tool_call\n    command: {GUARD:?}\n")
}

/// A workspace whose guard loaded once and is approved, as it is before someone edits it.
fn armed() -> (tempfile::TempDir, Workspace) {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().canonicalize().expect("canonical");
    std::fs::create_dir_all(root.join("config")).expect("mkdir");
    std::fs::write(root.join("config/shell_hooks.yaml"), good_yaml()).expect("write");
    let engine = Engine::open(Workspace::new(&root));
    engine.set_master(true).expect("master on");
    engine.approve(None, GUARD).expect("approve");
    (dir, Workspace::new(&root))
}

fn set_yaml(ws: &Workspace, text: &str) {
    std::fs::write(ws.shell_hooks_yaml(), text).expect("write");
}

fn rm_rf(engine: &Engine) -> crate::Outcome {
    let payload = json!({"tool_name": "bash", "tool_input": {"command": "rm -rf /"}});
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(engine.dispatch(
        Event::PreToolCall,
        payload.as_object().cloned().expect("an object"),
    ))
}

fn shell_file_errors(engine: &Engine) -> (FileState, Vec<String>) {
    let snapshot = engine.snapshot();
    let file = snapshot
        .config
        .files
        .iter()
        .find(|f| f.display == "config/shell_hooks.yaml")
        .expect("shell_hooks.yaml is read");
    (
        file.state,
        file.errors.iter().map(ToString::to_string).collect(),
    )
}

const MID_WRITE: [(&str, &str); 4] = [
    ("empty", ""),
    ("only the top key", "hooks:\n"),
    (
        "cut inside a string",
        "hooks:\n  - name: guard\n    event: \"pre_tool",
    ),
    (
        "cut inside the list",
        "hooks:\n  - name: guard\n   event: [",
    ),
];

#[test]
fn a_new_process_keeps_the_last_good_hooks_when_the_file_is_caught_mid_write() {
    let (_dir, ws) = armed();
    for (what, text) in MID_WRITE {
        set_yaml(&ws, text);
        // A fresh engine has no memory of the good file: only what is on disk can save it.
        let engine = Engine::open(ws.clone());
        let outcome = rm_rf(&engine);
        assert_eq!(outcome.decision, Decision::Block, "{what}: {outcome:?}");
        let (state, errors) = shell_file_errors(&engine);
        assert_eq!(state, FileState::BrokenKeptPrevious, "{what}");
        assert!(
            errors
                .iter()
                .any(|e| e.contains("last good hooks (1) stay in force")),
            "{what}: {errors:?}"
        );
    }
}

#[test]
fn a_running_engine_keeps_the_last_good_hooks_across_a_reload_of_an_emptied_file() {
    let (_dir, ws) = armed();
    let engine = Engine::open(ws.clone());
    set_yaml(&ws, "");
    engine.reload();
    assert_eq!(rm_rf(&engine).decision, Decision::Block);
    let events = std::fs::read_to_string(ws.events_log()).expect("the error is logged");
    assert!(
        events.contains("stay in force") && events.contains("hook_config_error"),
        "{events}"
    );
}

#[test]
fn an_explicit_empty_list_removes_every_hook() {
    let (_dir, ws) = armed();
    set_yaml(&ws, "hooks: []\n");
    let engine = Engine::open(ws.clone());
    assert_eq!(rm_rf(&engine).decision, Decision::Continue);
    assert_eq!(shell_file_errors(&engine), (FileState::Loaded, Vec::new()));
    // And the empty list is now the last good state: emptying the file brings nothing back.
    set_yaml(&ws, "");
    let engine = Engine::open(ws);
    assert_eq!(rm_rf(&engine).decision, Decision::Continue);
}

#[test]
fn the_fixed_file_replaces_the_kept_hooks() {
    let (_dir, ws) = armed();
    set_yaml(&ws, "hooks:\n  - name: guard\n   event: [");
    let fixed = good_yaml().replace("no rm -rf", "fixed");
    set_yaml(&ws, &fixed);
    let engine = Engine::open(ws.clone());
    // The edited command is not approved yet, so the fixed file's hook is skipped: what
    // matters is that the kept copy no longer runs.
    let outcome = rm_rf(&engine);
    assert_eq!(outcome.decision, Decision::Continue, "{outcome:?}");
    assert_eq!(shell_file_errors(&engine).0, FileState::Loaded);
}
