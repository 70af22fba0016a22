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
    for entry in fs::read_dir(from)
        .expect("read a directory to copy")
        .flatten()
    {
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
    fs::copy(
        repo().join("examples/demo.sh"),
        dir.path().join("examples/demo.sh"),
    )
    .expect("copy the demo");
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
        lines
            .iter()
            .any(|line| line.starts_with("tool bash blocked: ")
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
    for file in [
        "config/shell_hooks.yaml",
        "hooks/block_dangerous.sh",
        "payloads",
    ] {
        assert!(example.join(file).exists(), "{file} is gone:\n{all}");
    }
}

/// Runs the demo of `checkout` with `sh`, from `cwd`, with `env` and `path_first` before PATH.
fn demo(checkout: &Path, cwd: &Path, env: &[(&str, &str)], path_first: Option<&Path>) -> Output {
    let mut cmd = Command::new("sh");
    cmd.arg(checkout.join("examples/demo.sh"))
        .current_dir(cwd)
        .env_remove("AGENT_HOOKS_BIN");
    for (key, value) in env {
        cmd.env(key, value);
    }
    if let Some(dir) = path_first {
        let path = std::env::var("PATH").unwrap_or_default();
        cmd.env("PATH", format!("{}:{path}", dir.display()));
    }
    cmd.output().expect("run sh examples/demo.sh")
}

fn assert_demo_ran(out: &Output) {
    let all = text(out);
    assert!(out.status.success(), "{all}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("== every example hook ran"), "{all}");
    assert!(
        stdout.contains(r#""decision":"block","reason":"blocked: recursive force-delete of / or the home directory""#),
        "{all}"
    );
}

#[test]
fn the_demo_runs_the_binary_cargo_reports_wherever_the_target_directory_is() {
    let checkout = scratch_checkout();
    let elsewhere = tempfile::tempdir().expect("a directory to run from");
    // A cargo that builds nothing but reports the binary where a relative CARGO_TARGET_DIR and a
    // --target triple put it: the demo must take cargo's word, not guess `target/release`.
    let tools = tempfile::tempdir().expect("a directory for the stand-in cargo");
    let stand_in = format!(
        "#!/bin/sh\n\
         printf '%s\\n' \"$@\" > \"{log}\"\n\
         out=\"$PWD/$CARGO_TARGET_DIR/x86_64-unknown-linux-gnu/debug\"\n\
         mkdir -p \"$out\" && ln -sf \"{bin}\" \"$out/agent-hooks\"\n\
         printf '{{\"reason\":\"compiler-artifact\",\"target\":{{\"name\":\"agent-hooks\"}},\"executable\":\"%s\"}}\\n' \"$out/agent-hooks\"\n\
         printf '{{\"reason\":\"build-finished\",\"success\":true}}\\n'\n",
        log = tools.path().join("args").display(),
        bin = support::BIN,
    );
    let cargo = tools.path().join("cargo");
    fs::write(&cargo, stand_in).expect("write the stand-in cargo");
    support::set_mode(&cargo, 0o755);
    let out = demo(
        checkout.path(),
        elsewhere.path(),
        &[("CARGO_TARGET_DIR", "relative-target")],
        Some(tools.path()),
    );
    assert_demo_ran(&out);
    let args = fs::read_to_string(tools.path().join("args")).expect("the stand-in cargo ran");
    let manifest = checkout.path().join("examples/../Cargo.toml");
    assert!(
        args.lines().any(|arg| arg == manifest.to_string_lossy()),
        "the build does not name the checkout's manifest: {args}"
    );
}

#[test]
fn the_demo_runs_from_any_directory_on_a_binary_already_built() {
    let checkout = scratch_checkout();
    let elsewhere = tempfile::tempdir().expect("a directory to run from");
    let out = demo(
        checkout.path(),
        elsewhere.path(),
        &[("AGENT_HOOKS_BIN", support::BIN)],
        None,
    );
    assert_demo_ran(&out);
}
