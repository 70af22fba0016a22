//! `claude-install` and `claude-uninstall`: the command written into `.claude/settings.json` is
//! the one a user would type when it runs this binary, the bridge survives the binary moving
//! once re-installed, no lock file is left in the user's project, `list` shows the entries as
//! the Claude Code bridge, and uninstall removes exactly them.

use crate::support;

use std::path::Path;
use std::process::Output;

use serde_json::{Value, json};
use support::{BIN, Ws};

fn settings(ws: &Ws) -> Value {
    serde_json::from_str(&ws.read(".claude/settings.json")).expect("settings are JSON")
}

/// Every command of the settings' hook entries.
fn commands(settings: &Value) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(events) = settings["hooks"].as_object() {
        for groups in events.values() {
            for group in groups.as_array().into_iter().flatten() {
                for hook in group["hooks"].as_array().into_iter().flatten() {
                    if let Some(c) = hook["command"].as_str() {
                        out.push(c.to_owned());
                    }
                }
            }
        }
    }
    out
}

/// `agent-hooks claude-install` with `dir` (and the system directories) as `PATH`.
fn install_with_path(ws: &Ws, dir: &Path) -> Output {
    ws.command(&["claude-install"])
        .env("PATH", format!("{}:/usr/bin:/bin", dir.display()))
        .output()
        .expect("run claude-install")
}

/// The `.lock` files anywhere in the workspace outside `state/`.
fn stray_locks(root: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut dirs = vec![root.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                if path != root.join("state") {
                    dirs.push(path);
                }
            } else if path.extension().is_some_and(|e| e == "lock") {
                found.push(path.display().to_string());
            }
        }
    }
    found
}

#[test]
fn install_writes_the_typed_command_when_path_runs_this_binary() {
    let ws = Ws::new();
    let bin_dir = tempfile::tempdir().expect("a PATH directory");
    std::os::unix::fs::symlink(BIN, bin_dir.path().join("agent-hooks")).expect("symlink");
    let out = install_with_path(&ws, bin_dir.path());
    assert!(out.status.success(), "{out:?}");
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains("warning"),
        "{out:?}"
    );
    let all = commands(&settings(&ws));
    assert_eq!(all.len(), 8, "{all:?}");
    assert!(
        all.iter()
            .all(|c| *c == support::bridge_command("agent-hooks", &ws, "claude-hook")),
        "{all:?}"
    );
}

#[test]
fn install_without_this_binary_on_path_writes_its_path_and_warns_and_reinstall_updates() {
    let ws = Ws::new();
    let empty = tempfile::tempdir().expect("a PATH directory");
    let out = install_with_path(&ws, empty.path());
    assert!(out.status.success(), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("warning") && stderr.contains("cargo install"),
        "{stderr}"
    );
    let absolute = support::bridge_command(BIN, &ws, "claude-hook");
    assert!(
        commands(&settings(&ws)).iter().all(|c| *c == absolute),
        "{:?}",
        commands(&settings(&ws))
    );
    // Once agent-hooks is on PATH, installing again rewrites the stale entries.
    let bin_dir = tempfile::tempdir().expect("a PATH directory");
    std::os::unix::fs::symlink(BIN, bin_dir.path().join("agent-hooks")).expect("symlink");
    let out = install_with_path(&ws, bin_dir.path());
    assert!(out.status.success(), "{out:?}");
    let all = commands(&settings(&ws));
    assert_eq!(all.len(), 8, "{all:?}");
    assert!(
        all.iter()
            .all(|c| *c == support::bridge_command("agent-hooks", &ws, "claude-hook")),
        "{all:?}"
    );
}

#[test]
fn no_lock_file_is_left_in_the_project() {
    let ws = Ws::new().sh("hooks/a.sh", "cat > /dev/null\n").file(
        "config/shell_hooks.yaml",
        "hooks:\n  - event: pre_tool_call\n    command: hooks/a.sh\n",
    );
    for args in [
        &["claude-install"][..],
        &["on"][..],
        &["approve", "hooks/a.sh"][..],
        &["revoke", "hooks/a.sh"][..],
        &["claude-uninstall"][..],
    ] {
        let out = ws.run(args);
        assert!(out.status.success(), "{args:?}: {out:?}");
    }
    assert_eq!(stray_locks(&ws.root()), Vec::<String>::new());
}

#[test]
fn list_shows_the_bridge_without_warnings_and_uninstall_removes_only_it() {
    let own = json!({"type": "command", "command": "hooks/mine.sh"});
    let ws = Ws::new()
        .master(true)
        .sh("hooks/mine.sh", "cat > /dev/null\n")
        .file(
            ".claude/settings.json",
            &json!({"model": "x", "hooks": {"Stop": [{"hooks": [own]}]}}).to_string(),
        );
    assert!(ws.run(&["claude-install"]).status.success());
    let out = ws.run(&["list"]);
    let listed = String::from_utf8_lossy(&out.stdout);
    assert!(
        listed.contains("the Claude Code bridge on 8 events"),
        "{listed}"
    );
    let report: Value =
        serde_json::from_slice(&ws.run(&["list", "--json"]).stdout).expect("list --json");
    let file = report["files"]
        .as_array()
        .and_then(|f| f.iter().find(|f| f["file"] == ".claude/settings.json"))
        .cloned()
        .unwrap_or_default();
    assert_eq!(file["warnings"], json!([]), "{file:#}");
    assert_eq!(file["bridge"].as_array().map(Vec::len), Some(8), "{file:#}");

    let out = ws.run(&["claude-uninstall"]);
    assert!(out.status.success(), "{out:?}");
    let after = settings(&ws);
    assert_eq!(commands(&after), vec!["hooks/mine.sh".to_owned()]);
    assert_eq!(after["model"], "x");
}
