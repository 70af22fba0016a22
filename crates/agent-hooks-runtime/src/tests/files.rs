//! Workspace files that are not what they seem: a FIFO, a device, a huge file, a symlink loop.
//! Loading a workspace must finish promptly whatever sits at a configuration path, and say
//! which file is wrong and why.

use std::path::Path;
use std::process::Command;
use std::sync::mpsc;
use std::time::Duration;

use crate::config::FileState;
use crate::trust::Approvals;
use crate::{Engine, Workspace};

/// Runs `load` on its own thread and fails the test if it has not returned within a few
/// seconds (a FIFO blocks the reader forever, so the alternative is a hung test run).
fn within_deadline<T: Send + 'static>(what: &str, load: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(load());
    });
    match rx.recv_timeout(Duration::from_secs(10)) {
        Ok(value) => value,
        Err(_) => panic!("{what} did not return within 10 s"),
    }
}

fn workspace() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().canonicalize().expect("canonical");
    std::fs::create_dir_all(root.join("config")).expect("mkdir config");
    (dir, root)
}

fn mkfifo(path: &Path) {
    std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
    let status = Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("run mkfifo");
    assert!(status.success(), "mkfifo {}", path.display());
}

/// The error messages of the file at `rel` after opening the workspace.
fn load_errors(root: &Path, rel: &str) -> (FileState, Vec<String>) {
    let ws = Workspace::new(root);
    let engine = within_deadline("opening the workspace", move || Engine::open(ws));
    let snapshot = engine.snapshot();
    let file = snapshot
        .config
        .files
        .iter()
        .find(|f| f.display == rel)
        .unwrap_or_else(|| panic!("{rel} is not among the files read"));
    (
        file.state,
        file.errors.iter().map(ToString::to_string).collect(),
    )
}

#[test]
fn a_fifo_as_shell_hooks_yaml_is_a_config_error_not_a_hang() {
    let (_dir, root) = workspace();
    mkfifo(&root.join("config/shell_hooks.yaml"));
    let (state, errors) = load_errors(&root, "config/shell_hooks.yaml");
    assert_eq!(state, FileState::Broken);
    assert!(
        errors
            .iter()
            .any(|e| e.contains("not a regular file (it is a FIFO)")),
        "{errors:?}"
    );
}

#[test]
fn a_fifo_as_a_skills_hooks_json_is_a_config_error_not_a_hang() {
    let (_dir, root) = workspace();
    mkfifo(&root.join("skills/a/hooks.json"));
    let (state, errors) = load_errors(&root, "skills/a/hooks.json");
    assert_eq!(state, FileState::Broken);
    assert!(
        errors.iter().any(|e| e.contains("it is a FIFO")),
        "{errors:?}"
    );
}

#[test]
fn shell_hooks_yaml_linked_to_dev_zero_is_refused_without_reading_it() {
    let (_dir, root) = workspace();
    std::os::unix::fs::symlink("/dev/zero", root.join("config/shell_hooks.yaml")).expect("symlink");
    let (state, errors) = load_errors(&root, "config/shell_hooks.yaml");
    assert_eq!(state, FileState::Broken);
    assert!(
        errors
            .iter()
            .any(|e| e.contains("it is a character device")),
        "{errors:?}"
    );
}

#[test]
fn a_fifo_as_the_approvals_file_is_an_error_not_a_hang() {
    let (_dir, root) = workspace();
    mkfifo(&root.join("config/hook_approvals.json"));
    let ws = Workspace::new(&root);
    let result = within_deadline("reading the approvals", move || Approvals::load(&ws));
    let err = result.expect_err("a FIFO is not an approvals file");
    assert_eq!(err.file(), "config/hook_approvals.json");
    assert!(err.message().contains("it is a FIFO"), "{err}");
}

#[test]
fn an_oversized_approvals_file_is_refused_before_it_is_parsed() {
    let (_dir, root) = workspace();
    let path = root.join("config/hook_approvals.json");
    // Valid JSON, so only the size can be the reason for refusing it.
    let mut text = String::from("{\"version\": 1, \"approvals\": [], \"padding\": \"");
    text.push_str(&"x".repeat(5 * 1024 * 1024));
    text.push_str("\"}");
    std::fs::write(&path, text).expect("write");
    let err = Approvals::load(&Workspace::new(&root)).expect_err("too big");
    assert!(err.message().contains("over the 4 MiB limit"), "{err}");
}

#[test]
fn a_killed_writers_temporary_file_is_removed_by_the_next_write() {
    let (_dir, root) = workspace();
    // A writer that is gone: the pid of a child already reaped.
    let mut child = Command::new("true").spawn().expect("spawn true");
    let dead = child.id();
    child.wait().expect("reap");
    let stale = root.join(format!("config/.hook_approvals.json.{dead}.0.tmp"));
    std::fs::write(&stale, vec![b'x'; 64 * 1024]).expect("write");
    // A writer that is still at work (this process) keeps its temporary.
    let live = root.join(format!(
        "config/.hook_approvals.json.{}.7.tmp",
        std::process::id()
    ));
    std::fs::write(&live, "half").expect("write");

    std::fs::write(
        root.join("config/shell_hooks.yaml"),
        "hooks:\n  - event: on_stop\n    command: /bin/true\n",
    )
    .expect("write");
    let engine = Engine::open(Workspace::new(&root));
    engine.approve(None, "/bin/true").expect("approve");
    assert!(!stale.exists(), "the dead writer's temporary is removed");
    assert!(live.exists(), "a live writer's temporary is kept");
}
