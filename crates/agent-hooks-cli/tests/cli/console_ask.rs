//! Remote approval of `ask` (`ask: {via: console}` in `config/agent.yaml`): a real bridge
//! process waits for the operator's answer at `serve --console`, the timeout's default applies
//! and says so, an ask is answered exactly once, and a pending ask outlives the sidecar.

use crate::support;

use std::time::Duration;

use serde_json::{Value, json};
use support::{Entry, Ran, Ws};

/// A hook that asks before any `git push`.
const ASKER: &str = r#"
    case "$(cat)" in
      *'git push'*) echo '{"decision": "ask", "reason": "pushes need a person"}' ;;
    esac
"#;

/// A workspace whose approved hook `pusher` asks before a push, with `ask` as written.
fn asking(ask: &str) -> Ws {
    let ws = Ws::new()
        .sh("hooks/pusher.sh", ASKER)
        .hook(Entry::new("pre_tool_call", "hooks/pusher.sh").name("pusher"))
        .approve_all();
    ws.file(
        "config/agent.yaml",
        &format!("shell_hooks:\n  enabled: true\n{ask}"),
    )
}

fn push() -> Value {
    json!({"session_id": "s-7", "tool_name": "bash", "tool_input": {"command": "git push origin main"}})
}

/// Claude Code's PreToolUse input for a push.
fn claude_push() -> Value {
    json!({
        "session_id": "s-7",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "git push origin main"},
        "cwd": "/tmp",
    })
}

fn claude_hook(ws: &Ws, input: &Value) -> Ran {
    Ran::of(ws.command(&["claude-hook"]), input.to_string().as_bytes())
}

/// The pending asks the workspace's file store holds, as the console lists them.
fn pending_files(ws: &Ws) -> usize {
    std::fs::read_dir(ws.runtime_path("asks"))
        .map(|entries| {
            entries
                .flatten()
                .filter(|e| e.file_name().to_string_lossy().ends_with(".json"))
                .count()
        })
        .unwrap_or(0)
}

#[test]
fn without_an_operator_the_timeout_denies_and_says_so() {
    let ws = asking("ask: {via: console, timeout: 1s, on_timeout: deny}\n");
    let fired = ws.fire("pre_tool_call", push());
    assert_eq!(fired.decision(), "block", "{}", fired.outcome);
    assert!(
        fired
            .reason()
            .starts_with("no operator answered within 1s; denied by on_timeout"),
        "{}",
        fired.reason()
    );
    assert!(
        fired.reason().contains("pushes need a person"),
        "{}",
        fired.reason()
    );
    assert!(
        fired.elapsed >= Duration::from_secs(1),
        "{:?}",
        fired.elapsed
    );
    // The ask was kept in the store while it waited.
    assert_eq!(pending_files(&ws), 1);

    // The bridge answers Claude Code with the deny, in its own JSON.
    let ran = claude_hook(&ws, &claude_push());
    let answer = ran.json();
    let specific = &answer["hookSpecificOutput"];
    assert_eq!(specific["permissionDecision"], "deny", "{answer}");
    assert!(
        specific["permissionDecisionReason"]
            .as_str()
            .unwrap_or("")
            .contains("no operator answered within 1s; denied by on_timeout"),
        "{answer}"
    );
}

#[test]
fn on_timeout_ask_falls_back_to_the_agents_own_prompt_and_allow_lets_it_run() {
    let ws = asking("ask: {via: console, timeout: 1, on_timeout: ask}\n");
    let answer = claude_hook(&ws, &claude_push()).json();
    let specific = &answer["hookSpecificOutput"];
    assert_eq!(specific["permissionDecision"], "ask", "{answer}");
    let reason = specific["permissionDecisionReason"].as_str().unwrap_or("");
    assert!(
        reason.contains("pushes need a person")
            && reason.contains(
                "no operator answered within 1s; left to the agent's own prompt by on_timeout"
            ),
        "{answer}"
    );

    let ws = asking("ask:\n  via: console\n  timeout: 1s\n  on_timeout: allow\n");
    let fired = ws.fire("pre_tool_call", push());
    assert_eq!(fired.decision(), "continue", "{}", fired.outcome);
    assert!(
        fired
            .warnings()
            .iter()
            .any(|w| w == "no operator answered within 1s; allowed by on_timeout"),
        "{:?}",
        fired.warnings()
    );
}

#[test]
fn a_call_no_hook_asks_about_never_waits() {
    let ws = asking("ask: {via: console, timeout: 1h}\n");
    let fired = ws.fire(
        "pre_tool_call",
        json!({"session_id": "s-7", "tool_name": "bash", "tool_input": {"command": "ls"}}),
    );
    assert_eq!(fired.decision(), "continue");
    assert_eq!(pending_files(&ws), 0);
}

#[test]
fn a_broken_ask_section_is_a_located_error_and_leaves_the_ask_to_the_agent() {
    let ws = asking("ask: {via: console, on_timeout: maybe}\n");
    let fired = ws.fire("pre_tool_call", push());
    // The agent's own prompt asks; the mistake is told, with the file and the key.
    assert_eq!(fired.decision(), "ask", "{}", fired.outcome);
    let told = fired.warnings().join("\n");
    assert!(
        told.contains("config/agent.yaml")
            && told.contains("ask.on_timeout: expected deny, allow or ask, found \"maybe\""),
        "{told}"
    );
    assert_eq!(pending_files(&ws), 0);
    let listed = support::list_text(&ws);
    assert!(listed.contains("ask.on_timeout"), "{listed}");
}
