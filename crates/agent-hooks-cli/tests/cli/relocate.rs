//! A workspace made by `install` and `approve` can be moved or copied: paths inside it are
//! stored relative to it (the rules path `install` writes, the approvals' files), so a moved
//! workspace keeps its approvals, a copy uses its own rules, and the content of each file
//! still decides (an edit after the move is drift).

use crate::support;

use std::fs;
use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

fn run(ws: &Path, args: &[&str]) -> Output {
    Command::new(support::BIN)
        .arg("--workspace")
        .arg(ws)
        .args(args)
        .current_dir(std::env::temp_dir())
        .env_remove("AGENT_HOOKS_WORKSPACE")
        .env_remove("AGENT_HOOKS_APPROVALS")
        .output()
        .expect("run agent-hooks")
}

fn ok(ws: &Path, args: &[&str]) -> String {
    let out = run(ws, args);
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{args:?}: {text}");
    text
}

/// Each hook's name and health, in `list --json` order.
fn health(ws: &Path) -> Vec<(String, String)> {
    let report: Value =
        serde_json::from_str(&ok(ws, &["list", "--json"])).expect("list --json is JSON");
    report["hooks"]
        .as_array()
        .expect("hooks")
        .iter()
        .map(|h| {
            (
                h["name"].as_str().unwrap_or_default().to_owned(),
                h["health"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

/// The guide's guard, approved by the user, and the security guard as `install` sets it up.
fn made_by_install(parent: &Path) -> std::path::PathBuf {
    let ws = parent.join("original");
    fs::create_dir_all(ws.join("config")).expect("config/");
    fs::create_dir_all(ws.join("hooks")).expect("hooks/");
    fs::write(
        ws.join("config/shell_hooks.yaml"),
        "hooks:\n  - name: guard\n    event: pre_tool_call\n    command: hooks/guard.sh\n",
    )
    .expect("shell_hooks.yaml");
    fs::write(ws.join("hooks/guard.sh"), "#!/bin/sh\ncat > /dev/null\n").expect("guard.sh");
    support::set_mode(&ws.join("hooks/guard.sh"), 0o755);
    ok(&ws, &["on"]);
    ok(&ws, &["approve", "guard"]);
    ok(&ws, &["install", "security_guard"]);
    ws
}

fn all_approved(ws: &Path) {
    let hooks = health(ws);
    assert!(hooks.len() > 1, "{hooks:?}");
    assert!(
        hooks.iter().all(|(_, h)| h == "approved"),
        "{}: {hooks:?}",
        ws.display()
    );
}

#[test]
fn what_install_and_approve_write_names_no_absolute_path_inside_the_workspace() {
    let parent = tempfile::tempdir().expect("a scratch directory");
    let ws = made_by_install(parent.path());
    let root = ws.canonicalize().expect("canonical").display().to_string();
    for file in ["config/shell_hooks.yaml", "config/hook_approvals.json"] {
        let text = fs::read_to_string(ws.join(file)).expect("read");
        assert!(!text.contains(&root), "{file} names {root}:\n{text}");
    }
    let yaml = fs::read_to_string(ws.join("config/shell_hooks.yaml")).expect("read");
    assert!(
        yaml.contains("rules: 'hooks/security_guard.yaml'"),
        "{yaml}"
    );
}

#[test]
fn a_moved_workspace_keeps_its_approvals_and_its_content_still_decides() {
    let parent = tempfile::tempdir().expect("a scratch directory");
    let ws = made_by_install(parent.path());
    all_approved(&ws);
    let moved = parent.path().join("elsewhere/moved");
    fs::create_dir_all(moved.parent().expect("parent")).expect("mkdir");
    fs::rename(&ws, &moved).expect("move the workspace");
    all_approved(&moved);
    let fired = support::run_piped(
        {
            let mut cmd = Command::new(support::BIN);
            cmd.arg("--workspace")
                .arg(&moved)
                .args(["fire", "pre_tool_call"]);
            cmd
        },
        br#"{"tool_name": "bash", "tool_input": {"command": "rm -rf /"}}"#,
    );
    let outcome: Value = serde_json::from_slice(&fired.stdout).expect("an outcome");
    assert_eq!(outcome["decision"], "block", "{outcome:#}");
    // Moving did not make an approval outlive an edit: the content is still checked.
    fs::write(
        moved.join("hooks/guard.sh"),
        "#!/bin/sh\nrm -rf \"$HOME\"\n",
    )
    .expect("edit");
    let hooks = health(&moved);
    assert!(
        hooks
            .iter()
            .any(|(name, h)| name == "guard" && h == "changed"),
        "{hooks:?}"
    );
}

#[test]
fn a_copied_workspace_uses_its_own_rules_and_files() {
    let parent = tempfile::tempdir().expect("a scratch directory");
    let ws = made_by_install(parent.path());
    let copy = parent.path().join("copy");
    let out = Command::new("cp")
        .arg("-a")
        .arg(&ws)
        .arg(&copy)
        .output()
        .expect("cp -a");
    assert!(out.status.success(), "{out:?}");
    all_approved(&copy);
    // The copy's rules are the copy's: editing them is drift there, not in the original.
    let mut rules = fs::read_to_string(copy.join("hooks/security_guard.yaml")).expect("rules");
    rules.push_str("# tuned in the copy\n");
    fs::write(copy.join("hooks/security_guard.yaml"), rules).expect("edit the copy's rules");
    let hooks = health(&copy);
    assert!(
        hooks
            .iter()
            .any(|(name, h)| name == "security_guard" && h == "changed"),
        "{hooks:?}"
    );
    all_approved(&ws);
    let report: Value = serde_json::from_str(&ok(&copy, &["list", "--json"])).expect("list --json");
    let text = report.to_string();
    let original = ws.canonicalize().expect("canonical").display().to_string();
    assert!(
        !text.contains(&format!("{original}/")),
        "the copy names the original: {text}"
    );
}
