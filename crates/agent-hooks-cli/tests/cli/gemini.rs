//! Gemini CLI: hooks written for Gemini CLI (`.gemini/settings.json`) run here unmodified with
//! its stdin and answer forms — exit 2 + stderr, `decision`, `hookSpecificOutput`, groups run
//! in parallel unless `sequential` — and the `gemini-hook` bridge and the sidecar's
//! `/v1/hooks/gemini` route answer Gemini CLI in its own format; `gemini-install` is idempotent
//! and keeps the user's settings and hooks. Inputs are shaped as Gemini CLI's hooks reference
//! documents them.

use crate::support;

use serde_json::{Value, json};
use support::{Ran, Ws};

/// A BeforeTool security check in Gemini CLI's JSON form; it keeps its input and the
/// variables Gemini CLI sets.
const DENY_JSON: &str = r#"input=$(cat)
printf '%s\n' "$input" > gemini-seen.json
printf '%s|%s\n' "$GEMINI_PROJECT_DIR" "$GEMINI_CWD" > gemini-env.txt
case "$input" in
  *'rm -rf'*) printf '{"decision":"deny","reason":"Security policy: recursive delete refused"}' ;;
  *) printf '{"decision":"allow"}' ;;
esac
"#;

/// The exit-2 form: stderr is the reason.
const EXIT_TWO: &str = r#"input=$(cat)
case "$input" in
  *'.env'*) echo "writing .env files is not allowed" >&2; exit 2 ;;
esac
exit 0
"#;

/// BeforeAgent: context for this turn.
const PROMPT_CONTEXT: &str = r#"cat >/dev/null
printf '{"hookSpecificOutput":{"hookEventName":"BeforeAgent","additionalContext":"The release branch is frozen."}}'
"#;

/// AfterAgent: a retry until the answer says the tests pass. (Matched with its space: the
/// input's paths hold the workspace's random name, which may spell `tests` too.)
const RETRY: &str = r#"input=$(cat)
case "$input" in
  *'"stop_hook_active":true'*) exit 0 ;;
  *'tests pass'*) exit 0 ;;
esac
printf '{"decision":"deny","reason":"Say which tests you ran."}'
"#;

/// BeforeTool rewriting an argument (merged over the model's arguments), in order after a
/// first hook that adds a flag.
const ADD_FLAG: &str = r#"cat >/dev/null
printf '{"hookSpecificOutput":{"tool_input":{"command":"ls -la"}}}'
"#;

fn handler(command: &str) -> Value {
    json!({"type": "command", "command": command, "timeout": 30000})
}

fn gemini_ws() -> Ws {
    let ws = Ws::new()
        .master(true)
        .sh(".gemini/hooks/deny.sh", DENY_JSON)
        .sh(".gemini/hooks/exit2.sh", EXIT_TWO)
        .sh(".gemini/hooks/context.sh", PROMPT_CONTEXT)
        .sh(".gemini/hooks/retry.sh", RETRY)
        .sh(".gemini/hooks/flag.sh", ADD_FLAG);
    let settings = json!({
        "general": {"vimMode": true},
        "hooks": {
            "BeforeTool": [
                {"matcher": "run_shell_command", "sequential": true, "hooks": [
                    {"name": "security-check", "type": "command",
                     "command": "sh \"$GEMINI_PROJECT_DIR\"/.gemini/hooks/deny.sh", "timeout": 30000},
                    handler("sh .gemini/hooks/flag.sh"),
                ]},
                {"matcher": "write_file|replace", "hooks": [handler("sh .gemini/hooks/exit2.sh")]},
            ],
            "BeforeAgent": [{"hooks": [handler("sh .gemini/hooks/context.sh")]}],
            "AfterAgent": [{"hooks": [handler("sh .gemini/hooks/retry.sh")]}],
        }
    });
    let ws = ws.file(".gemini/settings.json", &settings.to_string());
    for command in [
        "sh \"$GEMINI_PROJECT_DIR\"/.gemini/hooks/deny.sh",
        "sh .gemini/hooks/exit2.sh",
        "sh .gemini/hooks/context.sh",
        "sh .gemini/hooks/retry.sh",
        "sh .gemini/hooks/flag.sh",
    ] {
        ws.approve(command);
    }
    ws
}

fn bash(command: &str) -> Value {
    json!({"session_id": "g-1", "tool_name": "bash", "tool_input": {"command": command}})
}

/// A Gemini CLI hook input as the reference documents it.
fn gemini_input(event: &str, fields: Value) -> Value {
    let mut input = json!({
        "session_id": "gemini-session-1",
        "transcript_path": "/tmp/gemini-transcript.json",
        "cwd": "/tmp",
        "hook_event_name": event,
        "timestamp": "2026-12-01T10:00:00.000Z",
    });
    if let (Value::Object(target), Value::Object(extra)) = (&mut input, fields) {
        target.extend(extra);
    }
    input
}

fn gemini_hook(ws: &Ws, input: &Value) -> Ran {
    Ran::of(ws.command(&["gemini-hook"]), input.to_string().as_bytes())
}

#[test]
fn a_gemini_deny_blocks_under_fire_with_geminis_input_and_variables() {
    let ws = gemini_ws();
    let fired = ws.fire("pre_tool_call", bash("rm -rf /srv"));
    assert_eq!(fired.decision(), "block");
    assert_eq!(fired.reason(), "Security policy: recursive delete refused");
    // Sequential: the block ended the group before the next hook ran.
    assert_eq!(fired.status("sh .gemini/hooks/flag.sh"), "skipped");
    let seen: Value = serde_json::from_str(&ws.read("gemini-seen.json")).expect("stdin JSON");
    assert_eq!(seen["hook_event_name"], "BeforeTool");
    assert_eq!(seen["tool_name"], "run_shell_command");
    assert_eq!(seen["tool_input"]["command"], "rm -rf /srv");
    assert!(
        seen["timestamp"].as_str().is_some_and(|t| t.contains('T')),
        "{seen}"
    );
    let root = ws.root().display().to_string();
    assert_eq!(ws.read("gemini-env.txt").trim(), format!("{root}|{root}"));
}

#[test]
fn tool_input_is_merged_and_exit_two_blocks_with_stderr() {
    let ws = gemini_ws();
    let fired = ws.fire("pre_tool_call", bash("ls"));
    assert_eq!(fired.decision(), "continue");
    assert_eq!(fired.outcome["payload"]["tool_input"]["command"], "ls -la");
    let write = ws.fire(
        "pre_tool_call",
        json!({"tool_name": "write_file", "tool_input": {"file_path": ".env", "content": "K=v"}}),
    );
    assert_eq!(write.decision(), "block");
    assert_eq!(write.reason(), "writing .env files is not allowed");
}

#[test]
fn before_agent_context_and_after_agent_retry() {
    let ws = gemini_ws();
    let prompt = ws.fire(
        "on_user_message",
        json!({"message": "ship it", "channel": "cli"}),
    );
    assert_eq!(
        prompt.context(),
        vec!["The release branch is frozen.".to_owned()]
    );
    let stop = ws.fire("on_stop", json!({"session_id": "g-2", "response": "Done."}));
    assert_eq!(stop.decision(), "block");
    assert_eq!(stop.reason(), "Say which tests you ran.");
    let ok = ws.fire(
        "on_stop",
        json!({"session_id": "g-3", "response": "Done; the tests pass."}),
    );
    assert_eq!(ok.decision(), "continue");
}

#[test]
fn unmapped_events_are_listed_as_warnings_and_hooks_need_approval() {
    let ws = Ws::new()
        .master(true)
        .sh(".gemini/hooks/deny.sh", DENY_JSON)
        .file(
            ".gemini/settings.json",
            &json!({"hooks": {
                "BeforeTool": [{"hooks": [handler("sh .gemini/hooks/deny.sh")]}],
                "BeforeToolSelection": [{"hooks": [handler("sh .gemini/hooks/deny.sh")]}],
            }})
            .to_string(),
        );
    let fired = ws.fire("pre_tool_call", bash("rm -rf /"));
    assert_eq!(fired.decision(), "continue");
    assert_eq!(fired.status("sh .gemini/hooks/deny.sh"), "skipped");
    let list = support::list_text(&ws);
    assert!(
        list.contains("BeforeToolSelection hooks never fire in this host"),
        "{list}"
    );
}

fn guarded() -> Ws {
    let ws = Ws::new();
    let out = ws.run(&["install", "security_guard"]);
    assert!(out.status.success(), "{out:?}");
    ws
}

fn rm_root() -> Value {
    gemini_input(
        "BeforeTool",
        json!({"tool_name": "run_shell_command",
               "tool_input": {"command": "rm -rf /", "description": "clean up"}}),
    )
}

fn assert_gemini_deny(answer: &Value) {
    assert_eq!(answer["decision"], "deny", "{answer}");
    assert!(
        answer["reason"]
            .as_str()
            .is_some_and(|r| !r.trim().is_empty()),
        "{answer}"
    );
}

#[test]
fn the_security_guard_denies_rm_rf_root_through_gemini_hook() {
    let ws = guarded();
    let ran = gemini_hook(&ws, &rm_root());
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert_gemini_deny(&ran.json());
    let harmless = gemini_input(
        "BeforeTool",
        json!({"tool_name": "run_shell_command", "tool_input": {"command": "ls"}}),
    );
    assert_eq!(gemini_hook(&ws, &harmless).json(), Value::Null);
}

#[test]
fn the_security_guard_denies_rm_rf_root_through_the_gemini_route() {
    let ws = guarded();
    let server = support::Server::start(&ws);
    let (status, answer) = server.post("/v1/hooks/gemini", rm_root());
    assert_eq!(status, 200);
    assert_gemini_deny(&answer);
    let (status, _) = server.post(
        "/v1/hooks/gemini",
        gemini_input("PreCompress", json!({"trigger": "auto"})),
    );
    // No counterpart, so no policy to evaluate: no opinion.
    assert_eq!(status, 200);
}

#[test]
fn the_bridge_answers_after_agent_with_a_retry_and_skips_geminis_own_hooks() {
    let ws = gemini_ws()
        .sh("hooks/stop.sh", RETRY)
        .hook(support::Entry::new("on_stop", "hooks/stop.sh"))
        .approve_all();
    let ran = gemini_hook(
        &ws,
        &gemini_input(
            "AfterAgent",
            json!({"prompt": "fix it", "prompt_response": "Fixed.", "stop_hook_active": false}),
        ),
    );
    assert_eq!(
        ran.json(),
        json!({"decision": "deny", "reason": "Say which tests you ran."})
    );
    let ran = gemini_hook(&ws, &rm_root());
    assert_eq!(
        ran.json(),
        Value::Null,
        "Gemini CLI runs its own hooks itself"
    );
    assert!(!ws.exists("gemini-seen.json"));
}

const USER_SETTINGS: &str = r#"{
  "general": {"vimMode": true},
  "hooksConfig": {"notifications": false},
  "hooks": {
    "BeforeTool": [
      {"matcher": "write_file", "hooks": [{"name": "lint", "type": "command", "command": "npm run lint", "timeout": 30000}]}
    ],
    "PreCompress": [
      {"hooks": [{"type": "command", "command": "./save-state.sh"}]}
    ]
  }
}
"#;

#[test]
fn gemini_install_keeps_the_users_settings_and_is_idempotent() {
    let ws = Ws::new().file(".gemini/settings.json", USER_SETTINGS);
    let first = ws.run(&["gemini-install"]);
    assert!(first.status.success(), "{first:?}");
    let after: Value = serde_json::from_str(&ws.read(".gemini/settings.json")).expect("JSON");
    let before: Value = serde_json::from_str(USER_SETTINGS).expect("JSON");
    for key in ["general", "hooksConfig"] {
        assert_eq!(after[key], before[key], "{key} changed");
    }
    assert_eq!(
        after["hooks"]["PreCompress"],
        before["hooks"]["PreCompress"]
    );
    assert_eq!(
        after["hooks"]["BeforeTool"][0],
        before["hooks"]["BeforeTool"][0]
    );
    for event in [
        "BeforeAgent",
        "BeforeTool",
        "AfterTool",
        "AfterAgent",
        "SessionStart",
        "SessionEnd",
        "Notification",
    ] {
        let bridged = support::handlers_ending_with(
            &after,
            event,
            &support::bridge_command("agent-hooks", &ws, "gemini-hook"),
        );
        assert_eq!(bridged.len(), 1, "{event}: {after}");
        assert_eq!(bridged[0]["timeout"], 120_000, "milliseconds");
    }
    let written = ws.read(".gemini/settings.json");
    let second = ws.run(&["gemini-install"]);
    assert!(second.status.success());
    assert_eq!(ws.read(".gemini/settings.json"), written);
    assert!(String::from_utf8_lossy(&second.stdout).contains("nothing changed"));
    let list = support::list_text(&ws);
    assert!(list.contains("the Gemini CLI bridge on 7 events"), "{list}");
    let removed = ws.run(&["gemini-uninstall"]);
    assert!(removed.status.success(), "{removed:?}");
    let back: Value = serde_json::from_str(&ws.read(".gemini/settings.json")).expect("JSON");
    assert_eq!(back, before);
}

/// Settings as people keep them: comments, and the hooks turned off by name under `hooks`.
const COMMENTED_SETTINGS: &str = r#"{
  // Team policy; see the wiki.
  "general": {"vimMode": true},
  "hooks": {
    /* audit is noisy; keep it off for now */
    "disabled": ["audit"],
    "BeforeTool": [
      {"matcher": "run_shell_command", "hooks": [
        {"name": "audit", "type": "command", "command": "sh .gemini/hooks/exit2.sh"},
        {"name": "security-check", "type": "command", "command": "sh .gemini/hooks/deny.sh"} // the guard
      ]}
    ]
  }
}
"#;

#[test]
fn settings_with_comments_load_and_hooks_disabled_turns_a_hook_off() {
    let ws = Ws::new()
        .master(true)
        .sh(".gemini/hooks/deny.sh", DENY_JSON)
        .sh(
            ".gemini/hooks/exit2.sh",
            "cat >/dev/null; echo 'audit blocks everything' >&2; exit 2\n",
        )
        .file(".gemini/settings.json", COMMENTED_SETTINGS);
    ws.approve("sh .gemini/hooks/deny.sh");
    // Turned off, it is no hook of the workspace: nothing to approve, nothing that runs.
    let out = ws.run(&["approve", "sh .gemini/hooks/exit2.sh"]);
    assert!(!out.status.success(), "{out:?}");
    let list = support::list_text(&ws);
    assert!(!list.contains("no such event"), "{list}");
    assert!(!list.contains("not valid JSON"), "{list}");
    let fired = ws.fire("pre_tool_call", bash("rm -rf build"));
    assert_eq!(fired.decision(), "block", "{:?}", fired.outcome);
    assert_eq!(fired.reason(), "Security policy: recursive delete refused");
    let ls = ws.fire("pre_tool_call", bash("ls"));
    assert_eq!(ls.decision(), "continue", "{:?}", ls.outcome);
}

#[test]
fn gemini_install_leaves_a_commented_settings_file_as_it_is_and_says_why() {
    let ws = Ws::new().file(".gemini/settings.json", COMMENTED_SETTINGS);
    let out = ws.run(&["gemini-install"]);
    assert!(!out.status.success(), "{out:?}");
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("it has comments"), "{said}");
    assert_eq!(ws.read(".gemini/settings.json"), COMMENTED_SETTINGS);
}
