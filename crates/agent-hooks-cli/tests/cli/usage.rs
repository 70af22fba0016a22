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
    // A bridge answers in its agent's format, so the user sees why no hook ran.
    let out = bare(&["--workspace", &missing, "claude-hook"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let answer: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
    assert!(
        answer["systemMessage"]
            .as_str()
            .is_some_and(|m| m.contains("is not a directory")),
        "{}",
        text(&out)
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

/// Every command `--help` lists, read from its output (so a new command is covered at once).
fn listed_commands() -> Vec<String> {
    let out = bare(&["--help"]);
    let listed = String::from_utf8_lossy(&out.stdout).into_owned();
    listed
        .split("Commands:\n")
        .nth(1)
        .and_then(|rest| rest.split("\n\n").next())
        .unwrap_or_default()
        .lines()
        .filter_map(|line| line.split_whitespace().next().map(str::to_owned))
        .collect()
}

#[test]
fn every_listed_command_help_included_answers_help_and_exits_zero() {
    let commands = listed_commands();
    assert!(
        commands.len() > 30 && commands.contains(&"help".to_owned()),
        "{commands:?}"
    );
    for command in &commands {
        for flag in ["--help", "-h"] {
            let out = bare(&[command, flag]);
            let printed = String::from_utf8_lossy(&out.stdout);
            assert_eq!(
                out.status.code(),
                Some(0),
                "{command} {flag}: {}",
                text(&out)
            );
            assert!(
                printed.contains(&format!("Usage: agent-hooks {command}")),
                "{command} {flag}:\n{printed}"
            );
            // The description is the command's own, not that of the arguments it shares.
            assert!(
                !printed.starts_with("The arguments of"),
                "{command} {flag}:\n{printed}"
            );
        }
    }
}

#[test]
fn the_workspace_default_said_by_a_bridge_agrees_with_its_description() {
    for agent in ["claude", "codex", "gemini", "cursor", "copilot", "windsurf"] {
        let out = bare(&[&format!("{agent}-hook"), "--help"]);
        let printed = String::from_utf8_lossy(&out.stdout);
        assert!(
            printed.contains("bridge: run this workspace's hooks"),
            "{printed}"
        );
        assert!(
            printed.contains("nearest directory holding a workspace marker"),
            "{printed}"
        );
        assert!(
            !printed.contains("else the current directory)"),
            "the --workspace default contradicts the description:\n{printed}"
        );
        assert!(
            printed.contains("the `*-hook` bridges look further"),
            "{printed}"
        );
    }
}

#[test]
fn every_page_the_manual_names_is_produced() {
    let out = bare(&["man"]);
    let page = String::from_utf8_lossy(&out.stdout).replace('\\', "");
    let named: std::collections::BTreeSet<String> = page
        .split("agent-hooks-")
        .skip(1)
        .filter_map(|rest| rest.split_once("(1)").map(|(name, _)| name.to_owned()))
        .filter(|name| !name.contains(char::is_whitespace))
        .collect();
    assert!(named.len() > 30 && named.contains("list"), "{named:?}");
    for name in &named {
        let out = bare(&["man", name]);
        let sub = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "man {name}: {}", text(&out));
        assert!(
            sub.contains(&format!(".TH agent-hooks-{name} 1")),
            "man {name} is not agent-hooks-{name}(1):\n{sub}"
        );
    }
    let out = bare(&["man", "aprove"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out).contains("(did you mean \"approve\"?)"),
        "{}",
        text(&out)
    );
}

#[test]
fn the_example_of_test_help_runs_as_it_says() {
    let out = bare(&["test", "--help"]);
    let help = String::from_utf8_lossy(&out.stdout).into_owned();
    let example = help
        .lines()
        .skip_while(|line| !line.starts_with("Example"))
        .nth(1)
        .map(str::trim)
        .unwrap_or_else(|| panic!("no example in test --help:\n{help}"));
    assert!(
        help.contains("once `agent-hooks install security_guard` has declared it"),
        "{help}"
    );
    let ws = Ws::new();
    let installed = ws.run(&["install", "security_guard"]);
    assert!(installed.status.success(), "{}", text(&installed));
    let bin_dir = std::path::Path::new(BIN)
        .parent()
        .expect("the binary's directory");
    let out = Command::new("sh")
        .args(["-c", example])
        .current_dir(ws.root())
        .env("PATH", format!("{}:/usr/bin:/bin", bin_dir.display()))
        .env_remove("AGENT_HOOKS_WORKSPACE")
        .output()
        .expect("run the example");
    // Exit status 1: the hook blocks `rm -rf /`, as the example means to show.
    assert_eq!(out.status.code(), Some(1), "{example}\n{}", text(&out));
    assert!(text(&out).contains("block"), "{}", text(&out));
}

#[test]
fn did_you_mean_puts_the_best_match_first() {
    let said = text(&bare(&["aprove"]));
    let approve = said.find("'approve'").unwrap_or(usize::MAX);
    let serve = said.find("'serve'").unwrap_or(0);
    assert!(approve < serve, "the best match is not first:\n{said}");
}

#[test]
fn fire_at_a_terminal_says_what_it_reads_and_piped_input_gets_no_prompt() {
    let Some(script) = ["/usr/bin/script", "/bin/script"]
        .into_iter()
        .find(|p| std::path::Path::new(p).is_file())
    else {
        eprintln!("skipped: util-linux `script` is not installed, so no terminal can be made");
        return;
    };
    let ws = Ws::new();
    // `script` runs the command on a new pseudo-terminal and feeds it this input: a payload, a
    // newline, and Ctrl-D at the start of a line, which is end of input there.
    let line = format!("'{BIN}' --workspace '{}' fire on_stop", ws.root().display());
    let out = support::run_piped(
        {
            let mut cmd = Command::new(script);
            cmd.args(["-qec", &line, "/dev/null"]);
            cmd
        },
        b"{}\n\x04",
    );
    // The terminal echoes the typed payload wherever it lands among what fire writes to
    // stderr; it is taken out before the prompt is read.
    let mut said = text(&out);
    for echo in ["{}\r\n", "{}\n"] {
        if let Some(at) = said.find(echo) {
            said.replace_range(at..at + echo.len(), "");
            break;
        }
    }
    assert!(out.status.success(), "{said}");
    assert!(
        said.contains("reading the on_stop payload, one JSON object, from stdin")
            && said.contains("Ctrl-D"),
        "{said}"
    );
    assert!(said.contains("\"decision\": \"continue\""), "{said}");
    let piped = ws.fire_raw("on_stop", b"{}");
    assert_eq!(piped.code, 0);
    assert!(
        !piped.stderr.contains("reading the"),
        "a prompt on piped input"
    );
}
