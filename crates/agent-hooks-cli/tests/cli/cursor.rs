//! Cursor: hooks written for Cursor (`.cursor/hooks.json`, commands relative to that file) run
//! here unmodified with Cursor's stdin and answer forms — `permission` with
//! `user_message`/`agent_message` (either spelling), `continue`, `followup_message` — and the
//! `cursor-hook` bridge and the sidecar's `/v1/hooks/cursor` route answer Cursor in its own
//! format; `cursor-install` is idempotent and keeps the user's hooks. Inputs are shaped as
//! Cursor's hooks documentation shows them.

use crate::support;

use serde_json::{Value, json};
use support::{Ran, Ws};

/// beforeShellExecution: keeps its input, denies recursive deletes with a message for each of
/// the user and the agent (camelCase, as Cursor's newer documents spell it).
const SHELL_GUARD: &str = r#"input=$(cat)
printf '%s\n' "$input" > ../cursor-seen.json
case "$input" in
  *'rm -rf'*) printf '{"permission":"deny","userMessage":"Blocked a recursive delete.","agentMessage":"Recursive deletes are not allowed; delete the files by name."}' ;;
  *'git push'*) printf '{"permission":"ask","user_message":"Push to the remote?","agent_message":"Pushing needs confirmation."}' ;;
  *) printf '{"permission":"allow"}' ;;
esac
"#;

/// beforeSubmitPrompt: refuses prompts with a key in them.
const PROMPT_GUARD: &str = r#"if grep -q 'AKIA'; then
  printf '{"continue":false,"user_message":"Your prompt contains an AWS key; it was not sent."}'
else
  printf '{"continue":true}'
fi
"#;

/// The same check as a hook of this workspace (shell dialect), which the bridge runs for Cursor.
const WORKSPACE_PROMPT_GUARD: &str = r#"if grep -q 'AKIA'; then
  printf '{"decision":"block","reason":"Your prompt contains an AWS key; it was not sent."}'
else
  printf '{}'
fi
"#;

/// stop: one follow-up, then let the agent stop.
const FOLLOW_UP: &str = r#"input=$(cat)
case "$input" in
  *'"loop_count":0'*) printf '{"followup_message":"Now run the test suite and report the result."}' ;;
  *) printf '{}' ;;
esac
"#;

/// beforeReadFile: permission only.
const READ_GUARD: &str = r#"input=$(cat)
case "$input" in
  *'.env'*) printf '{"permission":"deny"}' ;;
  *) printf '{"permission":"allow"}' ;;
esac
"#;

fn cursor_ws() -> Ws {
    let ws = Ws::new()
        .master(true)
        .sh(".cursor/hooks/shell.sh", SHELL_GUARD)
        .sh(".cursor/hooks/prompt.sh", PROMPT_GUARD)
        .sh(".cursor/hooks/stop.sh", FOLLOW_UP)
        .sh(".cursor/hooks/read.sh", READ_GUARD);
    let hooks = json!({
        "version": 1,
        "hooks": {
            "beforeShellExecution": [{"command": "./hooks/shell.sh"}],
            "beforeSubmitPrompt": [{"command": "./hooks/prompt.sh"}],
            "stop": [{"command": "./hooks/stop.sh"}],
            "beforeReadFile": [{"command": "./hooks/read.sh"}],
        }
    });
    let ws = ws.file(".cursor/hooks.json", &hooks.to_string());
    for command in [
        "./hooks/shell.sh",
        "./hooks/prompt.sh",
        "./hooks/stop.sh",
        "./hooks/read.sh",
    ] {
        ws.approve(command);
    }
    ws
}

fn bash(command: &str) -> Value {
    json!({"session_id": "c-1", "tool_name": "bash", "tool_input": {"command": command}})
}

/// A Cursor hook input as the documentation shows it.
fn cursor_input(event: &str, fields: Value) -> Value {
    let mut input = json!({
        "conversation_id": "conv-123",
        "generation_id": "gen-456",
        "hook_event_name": event,
        "workspace_roots": ["/tmp/project"],
        "model": "gpt-5",
        "cursor_version": "2.0.77",
    });
    if let (Value::Object(target), Value::Object(extra)) = (&mut input, fields) {
        target.extend(extra);
    }
    input
}

fn cursor_hook(ws: &Ws, input: &Value) -> Ran {
    Ran::of(ws.command(&["cursor-hook"]), input.to_string().as_bytes())
}

#[test]
fn a_cursor_deny_blocks_under_fire_with_the_agents_message_as_the_reason() {
    let ws = cursor_ws();
    let fired = ws.fire("pre_tool_call", bash("rm -rf node_modules"));
    assert_eq!(fired.decision(), "block");
    assert_eq!(
        fired.reason(),
        "Recursive deletes are not allowed; delete the files by name."
    );
    assert_eq!(
        fired.warnings(),
        vec!["Blocked a recursive delete.".to_owned()]
    );
    // The script ran from .cursor/ (its `../cursor-seen.json` is the workspace's).
    let seen: Value = serde_json::from_str(&ws.read("cursor-seen.json")).expect("stdin JSON");
    assert_eq!(seen["hook_event_name"], "beforeShellExecution");
    assert_eq!(seen["command"], "rm -rf node_modules");
    assert_eq!(seen["conversation_id"], "c-1");
    assert!(seen["workspace_roots"].is_array(), "{seen}");
}

#[test]
fn ask_prompt_stop_and_read_answers_take_effect() {
    let ws = cursor_ws();
    let push = ws.fire("pre_tool_call", bash("git push origin main"));
    assert_eq!(push.decision(), "ask");
    assert_eq!(push.reason(), "Pushing needs confirmation.");
    let prompt = ws.fire(
        "on_user_message",
        json!({"message": "use AKIAIOSFODNN7EXAMPLE", "channel": "cli"}),
    );
    assert_eq!(prompt.decision(), "block");
    assert_eq!(
        prompt.reason(),
        "Your prompt contains an AWS key; it was not sent."
    );
    let stop = ws.fire("on_stop", json!({"session_id": "c-2", "response": "Done."}));
    assert_eq!(stop.decision(), "block");
    assert_eq!(
        stop.reason(),
        "Now run the test suite and report the result."
    );
    let read = ws.fire(
        "pre_tool_call",
        json!({"tool_name": "read_file", "tool_input": {"file_path": ".env"}}),
    );
    assert_eq!(read.decision(), "block");
    let other = ws.fire("pre_tool_call", bash("ls"));
    assert_eq!(other.decision(), "continue");
}

#[test]
fn unmapped_events_are_listed_as_warnings_and_hooks_need_approval() {
    let ws = Ws::new()
        .master(true)
        .sh(".cursor/hooks/shell.sh", SHELL_GUARD)
        .file(
            ".cursor/hooks.json",
            &json!({"version": 1, "hooks": {
                "beforeShellExecution": [{"command": "./hooks/shell.sh"}],
                "afterAgentThought": [{"command": "./hooks/shell.sh"}],
            }})
            .to_string(),
        );
    let fired = ws.fire("pre_tool_call", bash("rm -rf /"));
    assert_eq!(fired.decision(), "continue");
    assert_eq!(fired.status("./hooks/shell.sh"), "skipped");
    let list = support::list_text(&ws);
    assert!(
        list.contains("afterAgentThought hooks never fire in this host"),
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
    cursor_input(
        "beforeShellExecution",
        json!({"command": "rm -rf /", "cwd": "/tmp/project"}),
    )
}

fn assert_cursor_deny(answer: &Value) {
    assert_eq!(answer["permission"], "deny", "{answer}");
    for key in ["user_message", "agent_message"] {
        assert!(
            answer[key].as_str().is_some_and(|m| !m.trim().is_empty()),
            "{key}: {answer}"
        );
    }
}

#[test]
fn the_security_guard_denies_rm_rf_root_through_cursor_hook() {
    let ws = guarded();
    let ran = cursor_hook(&ws, &rm_root());
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert_cursor_deny(&ran.json());
    let harmless = cursor_input(
        "beforeShellExecution",
        json!({"command": "ls", "cwd": "/tmp/project"}),
    );
    assert_eq!(cursor_hook(&ws, &harmless).json(), json!({}));
}

#[test]
fn the_security_guard_denies_rm_rf_root_through_the_cursor_route() {
    let ws = guarded();
    let server = support::Server::start(&ws);
    let (status, answer) = server.post("/v1/hooks/cursor", rm_root());
    assert_eq!(status, 200);
    assert_cursor_deny(&answer);
    let (status, _) = server.post(
        "/v1/hooks/cursor",
        cursor_input("afterAgentThought", json!({"text": "hmm"})),
    );
    // No counterpart, so no policy to evaluate: no opinion.
    assert_eq!(status, 200);
}

#[test]
fn the_bridge_answers_a_prompt_and_a_stop_and_skips_cursors_own_hooks() {
    let ws = cursor_ws()
        .sh("hooks/prompt.sh", WORKSPACE_PROMPT_GUARD)
        .hook(support::Entry::new("on_user_message", "hooks/prompt.sh"))
        .approve_all();
    let blocked = cursor_hook(
        &ws,
        &cursor_input(
            "beforeSubmitPrompt",
            json!({"prompt": "key AKIA123", "attachments": []}),
        ),
    );
    assert_eq!(
        blocked.json(),
        json!({"continue": false, "user_message": "Your prompt contains an AWS key; it was not sent."})
    );
    let fine = cursor_hook(
        &ws,
        &cursor_input(
            "beforeSubmitPrompt",
            json!({"prompt": "hello", "attachments": []}),
        ),
    );
    assert_eq!(fine.json(), json!({"continue": true}));
    let shell = cursor_hook(&ws, &rm_root());
    assert_eq!(shell.json(), json!({}), "Cursor runs its own hooks itself");
    assert!(!ws.exists("cursor-seen.json"));
}

const USER_HOOKS: &str = r#"{
  "version": 1,
  "hooks": {
    "afterFileEdit": [{"command": "./hooks/format.sh"}],
    "afterAgentThought": [{"command": "./hooks/log-thought.sh"}]
  }
}
"#;

#[test]
fn cursor_install_keeps_the_users_hooks_and_is_idempotent() {
    let ws = Ws::new().file(".cursor/hooks.json", USER_HOOKS);
    let first = ws.run(&["cursor-install"]);
    assert!(first.status.success(), "{first:?}");
    let after: Value = serde_json::from_str(&ws.read(".cursor/hooks.json")).expect("JSON");
    let before: Value = serde_json::from_str(USER_HOOKS).expect("JSON");
    assert_eq!(after["version"], 1);
    assert_eq!(
        after["hooks"]["afterAgentThought"],
        before["hooks"]["afterAgentThought"]
    );
    assert_eq!(
        after["hooks"]["afterFileEdit"][0],
        before["hooks"]["afterFileEdit"][0]
    );
    for event in [
        "beforeSubmitPrompt",
        "beforeShellExecution",
        "beforeMCPExecution",
        "beforeReadFile",
        "afterShellExecution",
        "afterMCPExecution",
        "afterFileEdit",
        "afterAgentResponse",
        "stop",
        "sessionStart",
        "sessionEnd",
        "postToolUseFailure",
    ] {
        let bridged: Vec<&Value> = after["hooks"][event]
            .as_array()
            .expect("a list of hooks")
            .iter()
            .filter(|h| {
                h["command"].as_str().is_some_and(|c| {
                    c.ends_with(&support::bridge_command("agent-hooks", &ws, "cursor-hook"))
                })
            })
            .collect();
        assert_eq!(bridged.len(), 1, "{event}: {after}");
    }
    let written = ws.read(".cursor/hooks.json");
    let second = ws.run(&["cursor-install"]);
    assert!(second.status.success());
    assert_eq!(ws.read(".cursor/hooks.json"), written);
    assert!(String::from_utf8_lossy(&second.stdout).contains("nothing changed"));
    let list = support::list_text(&ws);
    // The generic tool events fire beside the specific ones: bridged there, a call would be
    // judged twice.
    for event in ["preToolUse", "postToolUse"] {
        assert!(after["hooks"].get(event).is_none(), "{event}: {after}");
    }
    assert!(list.contains("the Cursor bridge on 12 events"), "{list}");
    let removed = ws.run(&["cursor-uninstall"]);
    assert!(removed.status.success(), "{removed:?}");
    let back: Value = serde_json::from_str(&ws.read(".cursor/hooks.json")).expect("JSON");
    assert_eq!(back, before);
}

#[test]
fn the_bridge_takes_the_workspace_from_the_input_when_none_is_named() {
    let ws = guarded();
    std::fs::create_dir_all(ws.path(".cursor")).expect("create .cursor/");
    // Cursor runs a project hook from the directory of hooks.json.
    let mut cmd = std::process::Command::new(support::BIN);
    cmd.arg("cursor-hook")
        .current_dir(ws.path(".cursor"))
        .env_remove("AGENT_HOOKS_WORKSPACE");
    let mut input = rm_root();
    input["workspace_roots"] = json!([ws.root()]);
    let ran = Ran::of(cmd, input.to_string().as_bytes());
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert_cursor_deny(&ran.json());
}

/// A stop hook in the spirit of a commitment check: it refuses to end a turn whose reply
/// promises to report back later.
const PROMISE_CHECK: &str = r#"input=$(cat)
case "$input" in
  *"let you know"*) printf '{"decision":"block","reason":"you promised a follow-up; schedule it or say you cannot"}' ;;
esac
exit 0
"#;

#[test]
fn a_stop_through_the_bridge_judges_the_reply_of_the_afteragentresponse_before_it() {
    let ws = Ws::new()
        .master(true)
        .sh("hooks/promise.sh", PROMISE_CHECK)
        .hook(support::Entry::new("on_stop", "hooks/promise.sh"))
        .approve_all();
    let response = |text: &str| {
        cursor_hook(
            &ws,
            &cursor_input("afterAgentResponse", json!({"text": text})),
        )
    };
    let stop = || {
        cursor_hook(
            &ws,
            &cursor_input("stop", json!({"status": "completed", "loop_count": 0})),
        )
        .json()
    };
    // Each event is its own bridge process: the reply reaches the stop through the workspace.
    assert_eq!(
        response("I'll let you know when the build finishes.").code,
        0
    );
    let answer = stop();
    assert_eq!(
        answer["followup_message"], "you promised a follow-up; schedule it or say you cannot",
        "{answer}"
    );
    // The reply is judged once: the next turn's stop does not see it again.
    assert_eq!(stop(), json!({}));
    assert_eq!(response("Done: the tests pass.").code, 0);
    assert_eq!(stop(), json!({}));
}

/// preToolUse (every tool): denies recursive deletes in Cursor's form and keeps its input.
const PRE_TOOL_USE: &str = r#"input=$(cat)
printf '%s\n' "$input" > ../cursor-pre-tool.json
case "$input" in
  *'rm -rf'*) printf '{"permission":"deny","user_message":"No recursive deletes.","agent_message":"Delete the files by name."}' ;;
  *) printf '{"permission":"allow"}' ;;
esac
"#;

/// sessionStart: context for the session.
const SESSION_START: &str = r#"cat >/dev/null
printf '{"additional_context":"This repository deploys from main; never push there."}'
"#;

/// A guard that crashes: under failClosed its failure blocks.
const CRASHES: &str = "cat >/dev/null; exit 1\n";

/// stop: always asks for one more follow-up; its loop_limit ends that.
const ALWAYS_MORE: &str = r#"cat >/dev/null
printf '{"followup_message":"One more pass."}'
"#;

fn newer_events_ws() -> Ws {
    let ws = Ws::new()
        .master(true)
        .sh(".cursor/hooks/pre.sh", PRE_TOOL_USE)
        .sh(".cursor/hooks/start.sh", SESSION_START)
        .sh(".cursor/hooks/crash.sh", CRASHES)
        .sh(".cursor/hooks/more.sh", ALWAYS_MORE);
    let hooks = json!({
        "version": 1,
        "hooks": {
            "preToolUse": [{"command": "./hooks/pre.sh", "matcher": "Shell"}],
            "sessionStart": [{"command": "./hooks/start.sh"}],
            "beforeMCPExecution": [{"command": "./hooks/crash.sh", "failClosed": true}],
            "stop": [{"command": "./hooks/more.sh", "loop_limit": 2}],
        }
    });
    let ws = ws.file(".cursor/hooks.json", &hooks.to_string());
    for command in [
        "./hooks/pre.sh",
        "./hooks/start.sh",
        "./hooks/crash.sh",
        "./hooks/more.sh",
    ] {
        ws.approve(command);
    }
    ws
}

#[test]
fn a_pre_tool_use_hook_runs_on_every_tool_its_matcher_names_with_cursors_input() {
    let ws = newer_events_ws();
    let fired = ws.fire("pre_tool_call", bash("rm -rf build"));
    assert_eq!(fired.decision(), "block", "{:?}", fired.outcome);
    assert_eq!(fired.reason(), "Delete the files by name.");
    let seen: Value = serde_json::from_str(&ws.read("cursor-pre-tool.json")).expect("stdin JSON");
    assert_eq!(seen["hook_event_name"], "preToolUse");
    assert_eq!(seen["tool_name"], "Shell");
    assert_eq!(seen["tool_input"]["command"], "rm -rf build");
    // Its matcher names Cursor's tool: a file read is not its business.
    let read = ws.fire(
        "pre_tool_call",
        json!({"tool_name": "read_file", "tool_input": {"file_path": "rm -rf"}}),
    );
    assert_eq!(
        read.status("./hooks/pre.sh"),
        "skipped",
        "{:?}",
        read.outcome
    );
    assert_eq!(
        read.detail("./hooks/pre.sh"),
        "no match",
        "{:?}",
        read.outcome
    );
}

#[test]
fn session_start_context_fail_closed_and_loop_limit_take_effect() {
    let ws = newer_events_ws();
    let start = ws.fire(
        "on_session_start",
        json!({"session_id": "c-9", "status": "startup"}),
    );
    assert_eq!(
        start.context(),
        vec!["This repository deploys from main; never push there.".to_owned()]
    );
    let mcp = ws.fire(
        "pre_tool_call",
        json!({"tool_name": "db_query", "tool_input": {"q": "select 1"}}),
    );
    assert_eq!(mcp.decision(), "block", "failClosed: {:?}", mcp.outcome);
    let stop = |redo: u64| ws.fire("on_stop", json!({"response": "done", "redo_count": redo}));
    assert_eq!(stop(1).decision(), "block");
    let capped = stop(2);
    assert_eq!(capped.decision(), "continue", "{:?}", capped.outcome);
    assert!(
        capped.warnings().join("\n").contains("loop_limit of 2"),
        "{:?}",
        capped.outcome
    );
}

#[test]
fn the_bridge_answers_cursors_newer_events_in_their_own_forms() {
    let ws = guarded();
    let pre = cursor_hook(
        &ws,
        &cursor_input(
            "preToolUse",
            json!({"tool_name": "Shell", "tool_input": {"command": "rm -rf /"},
                   "tool_use_id": "t-1", "cwd": "/tmp/project"}),
        ),
    );
    assert_eq!(pre.code, 0, "{}", pre.stderr);
    let answer = pre.json();
    assert_eq!(answer["permission"], "deny", "{answer}");
    assert!(
        answer["agent_message"]
            .as_str()
            .is_some_and(|m| !m.is_empty()),
        "{answer}"
    );
    for (event, fields) in [
        (
            "sessionStart",
            json!({"session_id": "c-1", "is_background_agent": false, "composer_mode": "agent"}),
        ),
        (
            "sessionEnd",
            json!({"session_id": "c-1", "reason": "completed", "duration_ms": 10}),
        ),
        (
            "postToolUseFailure",
            json!({"tool_name": "Shell", "tool_input": {"command": "make"},
                                      "error_message": "exit 2", "failure_type": "error"}),
        ),
        (
            "subagentStart",
            json!({"subagent_type": "explore", "prompt": "look around"}),
        ),
        (
            "afterAgentThought",
            json!({"text": "hmm", "duration_ms": 3}),
        ),
    ] {
        let ran = cursor_hook(&ws, &cursor_input(event, fields));
        assert_eq!(ran.code, 0, "{event}: {}", ran.stderr);
        // Cursor reads one JSON object from every hook.
        assert_eq!(ran.json(), json!({}), "{event}");
    }
}
