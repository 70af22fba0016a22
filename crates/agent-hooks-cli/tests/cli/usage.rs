//! The command line explains itself: every command is listed by `--help` and by `help`, answers
//! `--help` with its usage, a misspelt command or a Claude Code event name gets a hint, a
//! workspace that does not exist is refused by every command, and the completion scripts and the
//! manual page come from the same definitions.

use crate::support;

use std::process::{Command, Output, Stdio};

use serde_json::json;
use support::{BIN, Entry, Ws};

/// Every command of the binary, as a user types it.
const COMMANDS: [&str; 17] = [
    "list",
    "doctor",
    "on",
    "off",
    "approve",
    "revoke",
    "install",
    "fire",
    "test",
    "log",
    "serve",
    "guard",
    "claude-hook",
    "claude-install",
    "claude-uninstall",
    "completions",
    "man",
];

fn bare(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .current_dir(std::env::temp_dir())
        .env_remove("AGENT_HOOKS_WORKSPACE")
        .stdin(Stdio::null())
        .output()
        .expect("run agent-hooks")
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn help_and_dash_dash_help_list_every_command() {
    for args in [&["--help"][..], &["help"][..]] {
        let out = bare(args);
        assert!(out.status.success(), "{args:?}: {}", text(&out));
        let listed = String::from_utf8_lossy(&out.stdout);
        for command in COMMANDS {
            assert!(
                listed.contains(&format!("\n  {command} ")),
                "{args:?} does not list {command}:\n{listed}"
            );
        }
        assert!(listed.contains(" 1. security_guard"), "{listed}");
        assert!(listed.contains("pre_tool_call"), "{listed}");
    }
}

#[test]
fn every_command_answers_help_with_its_usage() {
    for command in COMMANDS {
        let out = bare(&[command, "--help"]);
        let printed = String::from_utf8_lossy(&out.stdout);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{command} --help: {}",
            text(&out)
        );
        assert!(
            printed.contains(&format!("Usage: agent-hooks {command}")),
            "{command} --help:\n{printed}"
        );
    }
}

#[test]
fn a_misspelt_command_gets_did_you_mean() {
    let out = bare(&["lsit"]);
    assert_eq!(out.status.code(), Some(2));
    let said = text(&out);
    assert!(said.contains("'lsit'") && said.contains("'list'"), "{said}");
}

#[test]
fn a_claude_code_event_name_gets_the_canonical_name() {
    let ws = Ws::new();
    let fired = ws.fire_raw("PreToolUse", b"{}");
    assert_eq!(fired.code, 2);
    assert!(
        fired.stderr.contains("did you mean \"pre_tool_call\""),
        "{}",
        fired.stderr
    );
    // The same hint where a hook is declared.
    let ws = ws
        .master(true)
        .sh("hooks/a.sh", "cat > /dev/null\n")
        .hook(Entry::new("PreToolUse", "hooks/a.sh"));
    let out = ws.run(&["list"]);
    // Words only: `list` wraps its lines at 80 columns.
    let listed = text(&out).split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        listed.contains("did you mean \"pre_tool_call\""),
        "{listed}"
    );
}

#[test]
fn a_workspace_that_does_not_exist_is_refused_by_every_command() {
    let missing = std::env::temp_dir().join("agent-hooks-no-such-workspace");
    let missing = missing.to_string_lossy().into_owned();
    let cases: [&[&str]; 14] = [
        &["list"],
        &["doctor"],
        &["on"],
        &["off"],
        &["approve", "hooks/x.sh"],
        &["revoke", "hooks/x.sh"],
        &["install", "security_guard"],
        &["fire", "pre_tool_call"],
        &["test", "guard"],
        &["log"],
        &["serve", "--listen", "127.0.0.1:0"],
        &["guard", "security_guard"],
        &["claude-install"],
        &["claude-uninstall"],
    ];
    for args in cases {
        let mut all = vec!["--workspace", missing.as_str()];
        all.extend_from_slice(args);
        let out = bare(&all);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", text(&out));
        assert!(
            text(&out).contains("is not a directory"),
            "{args:?}: {}",
            text(&out)
        );
    }
    let out = bare(&["--workspace", &missing, "claude-hook"]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "a non-blocking error for Claude Code"
    );
    assert!(
        !std::path::Path::new(&missing).exists(),
        "nothing was created"
    );
}

#[test]
fn fix_lines_from_a_shell_are_shell_commands() {
    let ws = Ws::new()
        .master(true)
        .sh("hooks/a.sh", "cat > /dev/null\n")
        .hook(Entry::new("pre_tool_call", "hooks/a.sh").name("a"));
    let listed = text(&ws.run(&["list"]));
    assert!(listed.contains("agent-hooks approve"), "{listed}");
    assert!(!listed.contains("/hooks approve"), "{listed}");
}

#[test]
fn fire_pretty_indents_the_outcome() {
    let ws = Ws::new();
    let out = support::run_piped(
        ws.command(&["fire", "--pretty", "on_session_start"]),
        json!({}).to_string().as_bytes(),
    );
    assert!(out.status.success(), "{}", text(&out));
    let printed = String::from_utf8_lossy(&out.stdout);
    assert!(printed.starts_with("{\n  \""), "{printed}");
    let compact = ws.fire("on_session_start", json!({}));
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&printed).expect("JSON"),
        compact.outcome
    );
}

#[test]
fn completions_and_the_manual_page_cover_every_command() {
    for shell in ["bash", "zsh", "fish"] {
        let out = bare(&["completions", shell]);
        assert!(out.status.success(), "{shell}: {}", text(&out));
        let script = String::from_utf8_lossy(&out.stdout);
        for command in ["approve", "claude-install", "doctor"] {
            assert!(script.contains(command), "{shell} lacks {command}");
        }
    }
    let out = bare(&["man"]);
    assert!(out.status.success(), "{}", text(&out));
    let page = String::from_utf8_lossy(&out.stdout);
    assert!(page.starts_with(".ie") || page.contains(".TH"), "{page}");
    assert!(page.contains("approve"), "{page}");
}

#[test]
fn a_reader_that_closed_the_pipe_is_not_a_crash() {
    for args in [&["completions", "bash"][..], &["man"][..]] {
        // The read end is closed before the binary starts, so its first write fails with EPIPE.
        let (reader, writer) = std::io::pipe().expect("pipe");
        drop(reader);
        let out = Command::new(BIN)
            .args(args)
            .current_dir(std::env::temp_dir())
            .stdin(Stdio::null())
            .stdout(writer)
            .stderr(Stdio::piped())
            .output()
            .expect("run agent-hooks");
        let said = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {said}");
        assert!(!said.contains("panicked"), "{args:?}: {said}");
    }
}

// ---------------------------------------------------------------------------------------------
// Errors that prevent mistakes

#[test]
fn approving_for_an_event_the_hook_is_not_declared_on_is_an_error() {
    let ws = Ws::new()
        .sh("hooks/a.sh", "cat > /dev/null\n")
        .hook(Entry::new("pre_tool_call", "hooks/a.sh"));
    let out = ws.run(&["approve", "on_stop", "hooks/a.sh"]);
    let said = text(&out);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(
        said.contains("not declared on on_stop") && said.contains("pre_tool_call"),
        "{said}"
    );
    assert!(!ws.exists("config/hook_approvals.json"), "nothing recorded");
}

#[test]
fn approving_a_url_the_ssrf_guard_refuses_says_so() {
    let url = "http://127.0.0.1:9/hook";
    let ws = Ws::new().file(
        "config/shell_hooks.yaml",
        &format!("hooks:\n  - event: pre_tool_call\n    type: http\n    url: {url}\n"),
    );
    let out = ws.run(&["approve", url]);
    let said = text(&out);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(said.contains("did not load"), "{said}");
    assert!(!said.contains("not declared"), "{said}");
}

#[test]
fn approving_a_script_that_is_not_executable_warns() {
    let ws = Ws::new().file("hooks/plain.sh", "#!/bin/sh\ncat > /dev/null\n");
    support::set_mode(&ws.path("hooks/plain.sh"), 0o644);
    let ws = ws.hook(Entry::new("pre_tool_call", "hooks/plain.sh"));
    let out = ws.run(&["approve", "hooks/plain.sh"]);
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    assert!(
        said.contains("hooks/plain.sh is not executable") && said.contains("chmod +x"),
        "{said}"
    );
}

#[test]
fn fire_with_a_broken_config_file_warns_in_the_outcome() {
    let ws = Ws::new()
        .master(true)
        .file("config/shell_hooks.yaml", "hooks:\n  - event: [\n");
    let fired = ws.fire("pre_tool_call", json!({"tool_name": "bash"}));
    assert_eq!(fired.decision(), "continue");
    let warnings = fired.warnings();
    assert!(
        warnings
            .iter()
            .any(|w| w.starts_with("configuration error: config/shell_hooks.yaml:")),
        "{warnings:?}"
    );
}
