//! `agent-hooks convert`: one agent's hooks rewritten as another's, with everything that has
//! no equivalent reported on stderr rather than dropped.

use crate::support;

use serde_json::{Value, json};
use support::Ws;

fn convert(ws: &Ws, from: &str, to: &str) -> (Value, String) {
    let out = ws.run(&["convert", "--from", from, "--to", to]);
    assert!(out.status.success(), "{out:?}");
    let stdout: Value = serde_json::from_slice(&out.stdout).expect("stdout is JSON");
    (stdout, String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn a_claude_policy_becomes_gemini_and_what_has_no_equivalent_is_reported() {
    let ws = Ws::new().file(
        ".claude/settings.json",
        &json!({"model": "opus", "hooks": {
            "PreToolUse": [{"matcher": "Bash", "hooks": [
                {"type": "command", "command": "sh .claude/hooks/guard.sh", "timeout": 10,
                 "statusMessage": "Checking the command"}]}],
            "PreCompact": [{"hooks": [{"type": "command", "command": "sh save.sh"}]}],
        }})
        .to_string(),
    );
    let (gemini, notes) = convert(&ws, "claude", "gemini");
    let group = &gemini["hooks"]["BeforeTool"][0];
    assert_eq!(group["matcher"], "run_shell_command");
    assert_eq!(group["hooks"][0]["command"], "sh .claude/hooks/guard.sh");
    assert_eq!(group["hooks"][0]["timeout"], 10_000);
    assert_eq!(group["hooks"][0]["statusMessage"], "Checking the command");
    assert!(notes.contains("not converted: hooks.PreCompact"), "{notes}");
    assert!(
        notes.contains("sh save.sh"),
        "the unconverted hook is shown whole: {notes}"
    );
    assert!(
        notes.contains("kept as written") && notes.contains("statusMessage"),
        "{notes}"
    );
}

#[test]
fn a_converted_cursor_policy_loads_as_codex_hooks() {
    let ws = Ws::new().file(
        ".cursor/hooks.json",
        &json!({"version": 1, "hooks": {
            "beforeShellExecution": [{"command": "./hooks/guard.sh"}],
            "stop": [{"command": "./hooks/followup.sh"}],
        }})
        .to_string(),
    );
    let (codex, _) = convert(&ws, "cursor", "codex");
    assert_eq!(codex["hooks"]["PreToolUse"][0]["matcher"], "Bash");
    let ws = ws.file(".codex/hooks.json", &codex.to_string());
    let list = support::list_text(&ws);
    assert!(
        list.contains("./hooks/guard.sh") && list.contains("./hooks/followup.sh"),
        "{list}"
    );
}

#[test]
fn an_unknown_agent_is_bad_usage() {
    let ws = Ws::new();
    let out = ws.run(&["convert", "--from", "claude", "--to", "vscode"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown agent \"vscode\""));
}
