//! Codex: hooks written for Codex (`.codex/hooks.json`, inline `[hooks]` in
//! `.codex/config.toml`) run here unmodified with Codex's stdin and answer forms; the
//! `codex-hook` bridge and the sidecar's `/v1/hooks/codex` route answer Codex in its own format;
//! `codex-install` is idempotent and keeps the user's hooks. Inputs are shaped as Codex's
//! hooks reference documents them.

use crate::support;

use serde_json::{Value, json};
use support::{Ran, Ws};

/// A PreToolUse policy in Codex's JSON form: it keeps what it was given and denies `rm -rf`.
const DENY_JSON: &str = r#"input=$(cat)
printf '%s\n' "$input" > codex-seen.json
case "$input" in
  *'rm -rf'*) printf '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"destructive command blocked by policy"}}\n' ;;
esac
exit 0
"#;

/// The exit-2 form: the reason on stderr.
const DENY_EXIT_TWO: &str = r#"input=$(cat)
case "$input" in
  *'push --force'*) echo "force pushes are not allowed here" >&2; exit 2 ;;
esac
exit 0
"#;

/// UserPromptSubmit with a top-level decision.
const PROMPT_BLOCK: &str = r#"if grep -q 'sk-live-'; then
  printf '{"decision":"block","reason":"the prompt contains a live API key"}'
fi
exit 0
"#;

/// PostToolUse adding context for the model.
const POST_CONTEXT: &str = r#"cat >/dev/null
printf '{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"the build cache was cleared"}}'
"#;

/// Stop keeping the turn going once, then letting it end.
const STOP_ONCE: &str = r#"input=$(cat)
case "$input" in *'"stop_hook_active":true'*) exit 0 ;; esac
printf '{"decision":"block","reason":"run the test suite before stopping"}'
"#;

fn handler(command: &str) -> Value {
    json!({"type": "command", "command": command, "timeout": 30})
}

/// A workspace with the scripts above under `.codex/hooks/`, declared in `.codex/hooks.json`
/// as a Codex user would, approved, master switch on.
fn codex_ws() -> Ws {
    let ws = Ws::new()
        .master(true)
        .sh(".codex/hooks/deny.sh", DENY_JSON)
        .sh(".codex/hooks/exit2.sh", DENY_EXIT_TWO)
        .sh(".codex/hooks/prompt.sh", PROMPT_BLOCK)
        .sh(".codex/hooks/post.sh", POST_CONTEXT)
        .sh(".codex/hooks/stop.sh", STOP_ONCE);
    let hooks = json!({
        "description": "team policy",
        "hooks": {
            "PreToolUse": [
                {"matcher": "Bash", "hooks": [handler("sh .codex/hooks/deny.sh")]},
            ],
            "UserPromptSubmit": [{"hooks": [handler("sh .codex/hooks/prompt.sh")]}],
            "PostToolUse": [{"matcher": "Bash", "hooks": [handler("sh .codex/hooks/post.sh")]}],
            "Stop": [{"hooks": [handler("sh .codex/hooks/stop.sh")]}],
        }
    });
    let ws = ws
        .file(".codex/hooks.json", &hooks.to_string())
        .file(
            ".codex/config.toml",
            "model = \"gpt-5\"\n\n[[hooks.PreToolUse]]\nmatcher = \"Bash\"\n\n[[hooks.PreToolUse.hooks]]\ntype = \"command\"\ncommand = \"sh .codex/hooks/exit2.sh\"\n",
        );
    for command in [
        "sh .codex/hooks/deny.sh",
        "sh .codex/hooks/exit2.sh",
        "sh .codex/hooks/prompt.sh",
        "sh .codex/hooks/post.sh",
        "sh .codex/hooks/stop.sh",
    ] {
        ws.approve(command);
    }
    ws
}

fn bash(command: &str) -> Value {
    json!({"session_id": "s-1", "tool_name": "bash", "tool_input": {"command": command}})
}

/// A Codex hook input as the reference documents it.
fn codex_input(event: &str, fields: Value) -> Value {
    let mut input = json!({
        "session_id": "019a-codex-session",
        "turn_id": "turn-3",
        "transcript_path": null,
        "cwd": "/tmp",
        "hook_event_name": event,
        "model": "gpt-5",
        "permission_mode": "default",
    });
    if let (Value::Object(target), Value::Object(extra)) = (&mut input, fields) {
        target.extend(extra);
    }
    input
}

fn codex_hook(ws: &Ws, input: &Value) -> Ran {
    Ran::of(ws.command(&["codex-hook"]), input.to_string().as_bytes())
}

#[test]
fn a_codex_json_deny_blocks_under_fire_and_gets_codexs_input() {
    let ws = codex_ws();
    let fired = ws.fire("pre_tool_call", bash("rm -rf build"));
    assert_eq!(fired.decision(), "block");
    assert_eq!(fired.reason(), "destructive command blocked by policy");
    let seen: Value = serde_json::from_str(&ws.read("codex-seen.json")).expect("stdin JSON");
    assert_eq!(seen["hook_event_name"], "PreToolUse");
    assert_eq!(seen["tool_name"], "Bash");
    assert_eq!(seen["tool_input"]["command"], "rm -rf build");
    assert_eq!(seen["session_id"], "s-1");
    for key in ["turn_id", "model", "tool_use_id", "cwd"] {
        assert!(seen.get(key).is_some(), "{key} missing from {seen}");
    }
}

#[test]
fn an_inline_toml_hook_blocks_with_its_exit_two_stderr() {
    let ws = codex_ws();
    let fired = ws.fire("pre_tool_call", bash("git push --force origin main"));
    assert_eq!(fired.decision(), "block");
    assert_eq!(fired.reason(), "force pushes are not allowed here");
    assert_eq!(ws.fire("pre_tool_call", bash("ls")).decision(), "continue");
}

#[test]
fn prompt_post_tool_and_stop_answers_take_effect() {
    let ws = codex_ws();
    let prompt = ws.fire(
        "on_user_message",
        json!({"message": "deploy with sk-live-123", "channel": "cli"}),
    );
    assert_eq!(prompt.decision(), "block");
    assert_eq!(prompt.reason(), "the prompt contains a live API key");
    let post = ws.fire(
        "post_tool_call",
        json!({"tool_name": "bash", "tool_input": {"command": "make clean"},
               "tool_result": "ok", "status": "success"}),
    );
    assert_eq!(
        post.strings("notes"),
        vec!["the build cache was cleared".to_owned()]
    );
    let stop = ws.fire("on_stop", json!({"session_id": "s-2", "response": "done"}));
    assert_eq!(stop.decision(), "block");
    assert_eq!(stop.reason(), "run the test suite before stopping");
}

#[test]
fn codex_hooks_need_approval_and_unmapped_events_are_listed_as_warnings() {
    let ws = Ws::new()
        .master(true)
        .sh(".codex/hooks/deny.sh", DENY_JSON)
        .file(
            ".codex/hooks.json",
            &json!({"hooks": {
                "PreToolUse": [{"hooks": [handler("sh .codex/hooks/deny.sh")]}],
                "PermissionRequest": [{"hooks": [handler("sh .codex/hooks/deny.sh")]}],
            }})
            .to_string(),
        );
    let fired = ws.fire("pre_tool_call", bash("rm -rf /"));
    assert_eq!(fired.decision(), "continue");
    assert_eq!(fired.status("sh .codex/hooks/deny.sh"), "skipped");
    let list = support::list_text(&ws);
    assert!(
        list.contains("PermissionRequest hooks never fire in this host"),
        "{list}"
    );
    assert!(list.contains(".codex/hooks.json"), "{list}");
}

/// The workspace's built-in security_guard, installed as a user would.
fn guarded() -> Ws {
    let ws = Ws::new();
    let out = ws.run(&["install", "security_guard"]);
    assert!(out.status.success(), "{out:?}");
    ws
}

fn rm_root() -> Value {
    codex_input(
        "PreToolUse",
        json!({"tool_name": "Bash", "tool_input": {"command": "rm -rf /"},
               "tool_use_id": "call_1"}),
    )
}

fn assert_codex_deny(answer: &Value) {
    let specific = &answer["hookSpecificOutput"];
    assert_eq!(specific["hookEventName"], "PreToolUse", "{answer}");
    assert_eq!(specific["permissionDecision"], "deny", "{answer}");
    assert!(
        specific["permissionDecisionReason"]
            .as_str()
            .is_some_and(|r| !r.trim().is_empty()),
        "Codex ignores a deny without a reason: {answer}"
    );
    assert!(answer.get("continue").is_none(), "{answer}");
}

#[test]
fn the_security_guard_denies_rm_rf_root_through_codex_hook() {
    let ws = guarded();
    let ran = codex_hook(&ws, &rm_root());
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert_codex_deny(&ran.json());
    let harmless = codex_input(
        "PreToolUse",
        json!({"tool_name": "Bash", "tool_input": {"command": "ls -la"}, "tool_use_id": "call_2"}),
    );
    assert_eq!(codex_hook(&ws, &harmless).json(), Value::Null);
}

#[test]
fn the_security_guard_denies_rm_rf_root_through_the_codex_route() {
    let ws = guarded();
    let server = support::Server::start(&ws);
    let (status, answer) = server.post("/v1/hooks/codex", rm_root());
    assert_eq!(status, 200);
    assert_codex_deny(&answer);
    // Codex has no Notification: an event with no counterpart has no policy to evaluate, so
    // the route has no opinion (nothing lapsed).
    let (status, answer) = server.post(
        "/v1/hooks/codex",
        codex_input("Notification", json!({"message": "hi"})),
    );
    assert_eq!((status, answer), (200, Value::String(String::new())));
}

#[test]
fn the_bridge_skips_the_workspaces_own_codex_hooks() {
    let ws = codex_ws();
    let ran = codex_hook(&ws, &rm_root());
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    // Codex runs its own hooks itself; through the bridge they would run twice.
    assert_eq!(ran.json(), Value::Null);
    assert!(!ws.exists("codex-seen.json"));
}

#[test]
fn a_stop_through_the_bridge_keeps_the_turn_going_in_codexs_format() {
    let ws = Ws::new()
        .master(true)
        .sh("hooks/stop.sh", STOP_ONCE)
        .hook(support::Entry::new("on_stop", "hooks/stop.sh"))
        .approve_all();
    let stop = |active: bool| {
        codex_hook(
            &ws,
            &codex_input(
                "Stop",
                json!({"stop_hook_active": active, "last_assistant_message": "Done."}),
            ),
        )
        .json()
    };
    assert_eq!(
        stop(false),
        json!({"decision": "block", "reason": "run the test suite before stopping"})
    );
}

const USER_HOOKS: &str = r#"{
  "description": "my own hooks",
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "python3 ~/.codex/hooks/audit.py", "timeout": 10}]}
    ],
    "PermissionRequest": [
      {"hooks": [{"type": "command", "command": "notify-send codex"}]}
    ]
  }
}
"#;

#[test]
fn codex_install_keeps_the_users_hooks_and_is_idempotent() {
    let ws = Ws::new().file(".codex/hooks.json", USER_HOOKS);
    let first = ws.run(&["codex-install"]);
    assert!(first.status.success(), "{first:?}");
    let after: Value = serde_json::from_str(&ws.read(".codex/hooks.json")).expect("JSON");
    let before: Value = serde_json::from_str(USER_HOOKS).expect("JSON");
    assert_eq!(after["description"], before["description"]);
    assert_eq!(
        after["hooks"]["PermissionRequest"],
        before["hooks"]["PermissionRequest"]
    );
    assert_eq!(
        after["hooks"]["PreToolUse"][0],
        before["hooks"]["PreToolUse"][0]
    );
    for event in [
        "UserPromptSubmit",
        "PreToolUse",
        "PostToolUse",
        "Stop",
        "SessionStart",
        "SessionEnd",
    ] {
        let bridged = support::handlers_ending_with(
            &after,
            event,
            &support::bridge_command("agent-hooks", &ws, "codex-hook"),
        );
        assert_eq!(bridged.len(), 1, "{event}: {after}");
        assert_eq!(bridged[0]["type"], "command");
    }
    assert!(after["hooks"].get("Notification").is_none(), "{after}");
    let written = ws.read(".codex/hooks.json");
    let second = ws.run(&["codex-install"]);
    assert!(second.status.success());
    assert_eq!(
        ws.read(".codex/hooks.json"),
        written,
        "a second install changes nothing"
    );
    assert!(String::from_utf8_lossy(&second.stdout).contains("nothing changed"));
    let list = support::list_text(&ws);
    assert!(list.contains("the Codex bridge on 6 events"), "{list}");

    let removed = ws.run(&["codex-uninstall"]);
    assert!(removed.status.success(), "{removed:?}");
    let back: Value = serde_json::from_str(&ws.read(".codex/hooks.json")).expect("JSON");
    assert_eq!(back, before, "uninstall leaves exactly the user's file");
}

#[test]
fn codex_install_writes_a_new_file_codex_accepts() {
    let ws = Ws::new();
    let out = ws.run(&["codex-install"]);
    assert!(out.status.success(), "{out:?}");
    let written: Value = serde_json::from_str(&ws.read(".codex/hooks.json")).expect("JSON");
    let keys: Vec<&String> = written.as_object().expect("an object").keys().collect();
    assert_eq!(keys, vec!["hooks"], "Codex refuses other root keys");
}

#[test]
fn hooks_named_from_the_repository_top_level_are_approved_and_run() {
    // Codex's reference writes a repository's hook paths from `git rev-parse --show-toplevel`,
    // so that they run from any directory of the repository.
    let command = r#"sh "$(git rev-parse --show-toplevel)/.codex/hooks/deny.sh""#;
    let ws = Ws::new()
        .master(true)
        .sh(".codex/hooks/deny.sh", DENY_JSON)
        .file(
            ".codex/hooks.json",
            &json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [handler(command)]}]}})
                .to_string(),
        );
    let init = std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(ws.root())
        .output()
        .expect("run git init");
    assert!(init.status.success(), "{init:?}");
    ws.approve(command);
    let fired = ws.fire("pre_tool_call", bash("rm -rf build"));
    assert_eq!(fired.decision(), "block", "{:?}", fired.outcome);
    assert_eq!(fired.reason(), "destructive command blocked by policy");
}

/// A PreToolUse policy that asks before deploys and records what it was given.
const ASK_DEPLOY: &str = r#"input=$(cat)
printf '%s\n' "$input" > codex-ask-seen.json
case "$input" in
  *deploy*) printf '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"deploys need a human"}}\n' ;;
esac
"#;

fn ask_ws() -> Ws {
    let ws = Ws::new()
        .master(true)
        .sh(".codex/hooks/ask.sh", ASK_DEPLOY)
        .file(
            ".codex/hooks.json",
            &json!({"hooks": {"PreToolUse": [{"matcher": "Bash",
                "hooks": [handler("sh .codex/hooks/ask.sh")]}]}})
            .to_string(),
        );
    ws.approve("sh .codex/hooks/ask.sh");
    ws
}

#[test]
fn a_codex_hooks_ask_lets_the_call_run_as_codex_does_and_says_so() {
    let ws = ask_ws();
    let fired = ws.fire("pre_tool_call", bash("./deploy.sh prod"));
    assert_eq!(fired.decision(), "continue", "{:?}", fired.outcome);
    let warnings = fired.warnings().join("\n");
    assert!(
        warnings.contains("Codex does not support ask")
            && warnings.contains("deploys need a human"),
        "{warnings}"
    );
}

#[test]
fn a_codex_hook_always_gets_a_transcript_path_key() {
    let ws = ask_ws();
    ws.fire("pre_tool_call", bash("ls"));
    let seen: Value = serde_json::from_str(&ws.read("codex-ask-seen.json")).expect("stdin JSON");
    let object = seen.as_object().expect("an object");
    assert!(object.contains_key("transcript_path"), "{seen}");
    assert_eq!(seen["transcript_path"], Value::Null, "{seen}");
}
