//! What a newcomer runs first, through the real binary: the examples as documented (the Python
//! agent loop, the demo script from anywhere), so an example can neither destroy data nor
//! break on a common setup.

use crate::support;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Copies a tree as it is: files byte for byte, symlinks as symlinks to the same target.
pub(crate) fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).expect("create a directory of the copy");
    for entry in fs::read_dir(from).expect("read a directory to copy").flatten() {
        let path = entry.path();
        let target = to.join(entry.file_name());
        let kind = entry.file_type().expect("the type of a file to copy");
        if kind.is_symlink() {
            let link = fs::read_link(&path).expect("read a symlink");
            std::os::unix::fs::symlink(link, &target).expect("copy a symlink");
        } else if kind.is_dir() {
            copy_tree(&path, &target);
        } else {
            fs::copy(&path, &target).expect("copy a file");
        }
    }
}

/// The examples and the Python client laid out as in a checkout, in a scratch directory, so
/// running them touches nothing of this checkout (approvals, logs).
fn scratch_checkout() -> tempfile::TempDir {
    let dir = tempfile::Builder::new()
        .prefix("agent-hooks-newcomer")
        .tempdir()
        .expect("create a scratch checkout");
    for part in ["examples/hosts", "examples/workspace", "clients/python"] {
        copy_tree(&repo().join(part), &dir.path().join(part));
    }
    for leftover in ["config/hook_approvals.json", "logs", "state"] {
        let path = dir.path().join("examples/workspace").join(leftover);
        let _ = fs::remove_file(&path);
        let _ = fs::remove_dir_all(&path);
    }
    dir
}

fn text(out: &Output) -> String {
    format!(
        "status {:?}\n--- stdout\n{}--- stderr\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[cfg_attr(
    not(have_python3),
    ignore = "needs python3 on PATH (.ci/run installs it)"
)]
#[test]
fn the_agent_loop_runs_with_no_argument_and_its_rm_rf_is_blocked_by_the_example_policy() {
    let checkout = scratch_checkout();
    let elsewhere = tempfile::tempdir().expect("a directory to run from");
    let out = Command::new(support::python())
        .arg(checkout.path().join("examples/hosts/agent_loop.py"))
        .current_dir(elsewhere.path())
        .env("AGENT_HOOKS_BIN", support::BIN)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .expect("run examples/hosts/agent_loop.py");
    let all = text(&out);
    assert!(out.status.success(), "{all}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.first(), Some(&"tool bash success: hello"), "{all}");
    assert!(
        lines.iter().any(|line| line.starts_with("tool bash blocked: ")
            && line.contains("recursive force-delete")),
        "the example workspace did not block the rm -rf:\n{all}"
    );
    assert_eq!(
        lines.last(),
        Some(&"scratch file kept: a hook blocked the rm -rf"),
        "{all}"
    );
    // Nothing of the example checkout was removed either.
    let example = checkout.path().join("examples/workspace");
    for file in ["config/shell_hooks.yaml", "hooks/block_dangerous.sh", "payloads"] {
        assert!(example.join(file).exists(), "{file} is gone:\n{all}");
    }
}
