//! Where a bridge finds its workspace (from the input's cwd up, as git finds `.git`), what the
//! installers write (`--workspace`, `--fail-closed`), and how `list` and `doctor` say the mode
//! (`docs/agents.md`). The lapses themselves are the chaos matrix's (`chaos.rs`).

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

use crate::support::{self, Ran, Ws};

/// A bridge started in `dir` with nothing naming the workspace, as an agent starts it.
fn bare(dir: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(support::BIN);
    cmd.args(args)
        .current_dir(dir)
        .env_remove("AGENT_HOOKS_WORKSPACE")
        .env_remove("CLAUDE_PROJECT_DIR")
        .env_remove("GEMINI_PROJECT_DIR")
        .env_remove("AGENT_HOOKS_LOG");
    cmd
}

/// A project with security_guard, and a source directory below it.
fn project() -> Ws {
    let ws = Ws::new();
    let out = ws.run(&["install", "security_guard"]);
    assert!(out.status.success(), "{out:?}");
    std::fs::create_dir_all(ws.path("src/lib")).expect("src/lib");
    ws
}

fn codex_rm(cwd: &Path) -> Value {
    json!({
        "hook_event_name": "PreToolUse",
        "session_id": "s",
        "turn_id": "t",
        "cwd": cwd,
        "tool_name": "Bash",
        "tool_input": {"command": "rm -rf ~"},
        "tool_use_id": "toolu_1",
    })
}

#[test]
fn a_codex_session_started_in_a_subdirectory_uses_the_project() {
    let ws = project();
    let src = ws.path("src/lib");
    // With no --workspace at all: found from the input's cwd up.
    let ran = Ran::of(
        bare(&std::env::temp_dir(), &["codex-hook"]),
        codex_rm(&src).to_string().as_bytes(),
    );
    assert_eq!(
        ran.json()["hookSpecificOutput"]["permissionDecision"],
        "deny",
        "{} {}",
        ran.stdout,
        ran.stderr
    );
    // The installer names the project by its absolute path, whatever directory Codex runs
    // the command from.
    let out = ws.run(&["codex-install"]);
    assert!(out.status.success(), "{out:?}");
    let hooks: Value =
        serde_json::from_str(&ws.read(".codex/hooks.json")).expect(".codex/hooks.json");
    let command = hooks["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
        .as_str()
        .expect("a command")
        .to_owned();
    let words: Vec<&str> = command.split(' ').collect();
    assert_eq!(
        words[1..].to_vec(),
        [
            "--workspace",
            &ws.root().display().to_string(),
            "codex-hook"
        ],
        "{command}"
    );
    let ran = Ran::of(
        bare(&src, &words[1..]),
        codex_rm(Path::new("/")).to_string().as_bytes(),
    );
    assert_eq!(
        ran.json()["hookSpecificOutput"]["permissionDecision"],
        "deny",
        "{}",
        ran.stderr
    );
}

#[test]
fn a_cursor_input_without_workspace_roots_finds_the_project_from_its_cwd() {
    let ws = project();
    let input = json!({
        "hook_event_name": "beforeShellExecution",
        "conversation_id": "c",
        "generation_id": "g",
        "command": "rm -rf ~",
        "cwd": ws.path("src/lib"),
    });
    let ran = Ran::of(
        bare(&std::env::temp_dir(), &["cursor-hook"]),
        input.to_string().as_bytes(),
    );
    assert_eq!(ran.json()["permission"], "deny", "{}", ran.stderr);
}

#[test]
fn fire_from_a_subdirectory_runs_the_projects_hooks() {
    let ws = project();
    let ran = Ran::of(
        bare(&ws.path("src/lib"), &["fire", "pre_tool_call"]),
        br#"{"tool_name": "bash", "tool_input": {"command": "rm -rf ~"}}"#,
    );
    assert_eq!(ran.json()["decision"], "block", "{}", ran.stderr);
}

#[test]
fn the_home_directorys_agent_settings_do_not_make_it_a_workspace() {
    let home = tempfile::tempdir().expect("a home");
    let home = home.path().canonicalize().expect("canonical");
    std::fs::create_dir_all(home.join(".claude")).expect("~/.claude");
    std::fs::create_dir_all(home.join("scratch")).expect("~/scratch");
    let input = json!({
        "hook_event_name": "PreToolUse",
        "session_id": "s",
        "cwd": home.join("scratch"),
        "tool_name": "Bash",
        "tool_input": {"command": "ls"},
    });
    let run = || {
        let mut cmd = bare(&home.join("scratch"), &["claude-hook"]);
        cmd.env("HOME", &home);
        Ran::of(cmd, input.to_string().as_bytes())
    };
    let ran = run();
    let shown = ran.json()["systemMessage"]
        .as_str()
        .unwrap_or("")
        .to_owned();
    assert!(shown.contains("found no workspace"), "{}", ran.stdout);
    // With settings of its own, home is a workspace like any other.
    std::fs::create_dir_all(home.join("config")).expect("~/config");
    std::fs::write(
        home.join("config/agent.yaml"),
        "shell_hooks:\n  enabled: true\n",
    )
    .expect("~/config/agent.yaml");
    let ran = run();
    assert_eq!((ran.code, ran.stdout.as_str()), (0, ""), "{}", ran.stderr);
}

#[test]
fn install_fail_closed_holds_even_when_agent_yaml_does_not_load_and_list_and_doctor_say_so() {
    let ws = support::Ws::new().master(true);
    let list = support::list_text(&ws);
    assert!(list.contains("On failure: fail open"), "{list}");
    let out = ws.run(&["claude-install", "--fail-closed"]);
    assert!(out.status.success(), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("On failure:"),
        "{out:?}"
    );
    let settings: Value =
        serde_json::from_str(&ws.read(".claude/settings.json")).expect("settings");
    let command = settings["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
        .as_str()
        .expect("a command")
        .to_owned();
    assert!(command.ends_with("claude-hook --fail-closed"), "{command}");
    for verb in ["list", "doctor"] {
        let out = ws.run(&[verb]);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.contains("the bridge of Claude Code fails closed"),
            "{verb}: {text}"
        );
    }
    // config/agent.yaml breaks: the installed command still fails closed.
    let ws = ws.file("config/agent.yaml", "shell_hooks: [\n");
    let words: Vec<&str> = command.split(' ').skip(1).collect();
    let input = json!({
        "hook_event_name": "PreToolUse",
        "session_id": "s",
        "cwd": ws.root(),
        "tool_name": "Bash",
        "tool_input": {"command": "ls"},
    });
    let ran = Ran::of(bare(&ws.root(), &words), input.to_string().as_bytes());
    let answer = ran.json();
    assert_eq!(
        answer["hookSpecificOutput"]["permissionDecision"], "deny",
        "{}",
        ran.stdout
    );
    assert!(
        answer["systemMessage"]
            .as_str()
            .is_some_and(|m| m.contains("config/agent.yaml")),
        "{answer}"
    );
}

#[test]
fn on_failure_block_is_printed_and_a_value_that_is_neither_fails_closed() {
    let ws = Ws::new().file(
        "config/agent.yaml",
        "shell_hooks:\n  enabled: true\non_failure: block\n",
    );
    assert!(support::list_text(&ws).contains("On failure: fail closed"));
    let ws = ws.file(
        "config/agent.yaml",
        "shell_hooks:\n  enabled: true\non_failure: blok\n",
    );
    let fired = ws.fire(
        "pre_tool_call",
        json!({"tool_name": "bash", "tool_input": {"command": "ls"}}),
    );
    assert_eq!(fired.decision(), "block", "{}", fired.outcome);
    assert!(fired.reason().contains("on_failure"), "{}", fired.reason());
}

#[test]
fn a_lapse_at_the_stop_is_shown_but_forces_no_redo() {
    let ws = Ws::new()
        .file(
            "config/agent.yaml",
            "shell_hooks:\n  enabled: true\non_failure: block\n",
        )
        .file("config/shell_hooks.yaml", "hooks: [\n");
    let fired = ws.fire("on_stop", json!({"response": "done"}));
    assert_eq!(fired.decision(), "continue", "{}", fired.outcome);
    assert!(
        fired
            .warnings()
            .iter()
            .any(|w| w.contains("configuration error")),
        "{}",
        fired.outcome
    );
}

#[test]
fn a_hook_that_says_on_error_block_fails_closed_when_the_trust_gate_keeps_it_from_running() {
    let ws = Ws::new()
        .master(true)
        .sh("hooks/strict.sh", "exit 0\n")
        .hook(
            support::Entry::new("pre_tool_call", "hooks/strict.sh")
                .name("strict")
                .on_error_block(),
        )
        .sh("hooks/lenient.sh", "exit 0\n")
        .hook(support::Entry::new("pre_tool_call", "hooks/lenient.sh").name("lenient"));
    let payload = json!({"tool_name": "bash", "tool_input": {"command": "ls"}});
    // Neither is approved: the strict one's lapse denies, in a workspace that fails open.
    let fired = ws.fire("pre_tool_call", payload.clone());
    assert_eq!(fired.decision(), "block", "{}", fired.outcome);
    assert!(
        fired.reason().contains("hook \"strict\""),
        "{}",
        fired.reason()
    );
    // Approved, the strict one runs; the lenient one's lapse is only told.
    ws.approve("hooks/strict.sh");
    let fired = ws.fire("pre_tool_call", payload);
    assert_eq!(fired.decision(), "continue", "{}", fired.outcome);
    assert!(
        fired
            .warnings()
            .iter()
            .any(|w| w.contains("hook \"lenient\"")),
        "{}",
        fired.outcome
    );
}

#[test]
fn the_route_fails_closed_with_on_failure_block_in_its_url_even_when_agent_yaml_is_broken() {
    let ws = Ws::new().file("config/agent.yaml", "shell_hooks: [\n");
    let server = support::Server::start(&ws);
    let input = json!({
        "hook_event_name": "PreToolUse",
        "session_id": "s",
        "cwd": ws.root(),
        "tool_name": "Bash",
        "tool_input": {"command": "ls"},
    })
    .to_string();
    let (status, open) = server.request("POST", "/v1/hooks/claude-code", input.as_bytes());
    assert_eq!(status, 200);
    assert_eq!(
        open["hookSpecificOutput"]["permissionDecision"],
        Value::Null,
        "{open}"
    );
    assert!(
        open["systemMessage"]
            .as_str()
            .is_some_and(|m| m.contains("config/agent.yaml")),
        "{open}"
    );
    let (status, closed) = server.request(
        "POST",
        "/v1/hooks/claude-code?on_failure=block",
        input.as_bytes(),
    );
    assert_eq!(status, 200);
    assert_eq!(
        closed["hookSpecificOutput"]["permissionDecision"], "deny",
        "{closed}"
    );
}
