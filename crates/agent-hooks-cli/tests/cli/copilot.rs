//! GitHub Copilot: hooks written for Copilot (`.github/hooks/*.json`, `version: 1`, a `bash`
//! command with `timeoutSec`, and the user's `~/.copilot/hooks/`) run here unmodified with
//! Copilot's stdin and answer forms — `permissionDecision`, `decision`/`reason`,
//! `additionalContext`, and its exit codes (a `preToolUse` hook that exits 2 or crashes
//! denies) — and the `copilot-hook` bridge and the sidecar's `/v1/hooks/copilot` route answer
//! Copilot in its own format; `copilot-install` merges idempotently and `copilot-uninstall`
//! puts the file back byte for byte. Inputs are shaped as Copilot's hooks reference shows them.

use crate::support;

use serde_json::{Value, json};
use support::{Entry, Ran, Ws};

/// A preToolUse guard in the spirit of the reference's "block dangerous commands" example: it
/// keeps its input, reads `toolArgs` as the JSON text it is, and denies recursive deletes.
const COMMAND_GUARD: &str = r#"
import json, sys
data = json.load(sys.stdin)
with open("copilot-seen.json", "w") as seen:
    json.dump(data, seen)
args = json.loads(data["toolArgs"])
if "rm -rf" in args.get("command", ""):
    print(json.dumps({"permissionDecision": "deny",
                      "permissionDecisionReason": "Dangerous command detected"}))
"#;

/// The reference's "enforce file permissions" example: edits only under src/ or test/.
const EDIT_GUARD: &str = r#"
import json, sys
data = json.load(sys.stdin)
path = json.loads(data["toolArgs"]).get("path", "")
if not (path.startswith("src/") or path.startswith("test/")):
    print(json.dumps({"permissionDecision": "deny",
                      "permissionDecisionReason": "Can only edit files in src/ or test/ directories"}))
"#;

/// agentStop: one more turn to run the tests, unless this turn was already forced.
const STOP_GUARD: &str = r#"
import json, sys
data = json.load(sys.stdin)
if not data.get("stop_hook_active") and data.get("stopReason") == "end_turn":
    print(json.dumps({"decision": "block", "reason": "Run the test suite before you stop."}))
"#;

/// sessionStart: context for the session.
const SESSION_START: &str = r#"
import json, sys
data = json.load(sys.stdin)
print(json.dumps({"additionalContext": "Repository policy: source=" + data["source"]}))
"#;

/// postToolUse: a note for the model after a shell command.
const POST_NOTE: &str = r#"
import json, sys
data = json.load(sys.stdin)
if data["toolResult"]["resultType"] == "success":
    print(json.dumps({"additionalContext": "Remember to run the linter."}))
"#;

fn copilot_ws() -> Ws {
    let ws = Ws::new()
        .master(true)
        .py("scripts/guard.py", COMMAND_GUARD)
        .py("scripts/edit-guard.py", EDIT_GUARD)
        .py("scripts/stop.py", STOP_GUARD)
        .py("scripts/start.py", SESSION_START)
        .py("scripts/post.py", POST_NOTE);
    let hooks = json!({
        "version": 1,
        "hooks": {
            "preToolUse": [
                {"type": "command", "bash": "./scripts/guard.py", "powershell": "./scripts/guard.ps1",
                 "timeoutSec": 15, "matcher": "bash", "comment": "security validation"},
                {"type": "command", "bash": "./scripts/edit-guard.py", "matcher": "edit"},
            ],
            "agentStop": [{"type": "command", "bash": "./scripts/stop.py"}],
            "sessionStart": [{"type": "command", "bash": "./scripts/start.py"}],
            "postToolUse": [{"type": "command", "bash": "./scripts/post.py", "matcher": "bash"}],
        }
    });
    let ws = ws.file(".github/hooks/policy.json", &hooks.to_string());
    for command in [
        "./scripts/guard.py",
        "./scripts/edit-guard.py",
        "./scripts/stop.py",
        "./scripts/start.py",
        "./scripts/post.py",
    ] {
        ws.approve(command);
    }
    ws
}

fn bash(command: &str) -> Value {
    json!({"session_id": "s-1", "tool_name": "bash", "tool_input": {"command": command}})
}

/// A camelCase Copilot hook input as the reference shows it: a Unix timestamp in milliseconds,
/// the working directory, and the event's own fields (no event name).
fn copilot_input(fields: Value) -> Value {
    let mut input = json!({
        "sessionId": "sess-123",
        "timestamp": 1_704_614_600_000_u64,
        "cwd": "/tmp/project",
    });
    if let (Value::Object(target), Value::Object(extra)) = (&mut input, fields) {
        target.extend(extra);
    }
    input
}

fn pre_tool(tool: &str, args: &Value) -> Value {
    copilot_input(json!({"toolName": tool, "toolArgs": args.to_string()}))
}

fn copilot_hook(ws: &Ws, input: &Value) -> Ran {
    Ran::of(ws.command(&["copilot-hook"]), input.to_string().as_bytes())
}

#[cfg_attr(
    not(have_python3),
    ignore = "needs python3 on PATH (.ci/run installs it)"
)]
#[test]
fn copilot_hooks_run_here_with_copilots_input_and_answers() {
    let ws = copilot_ws();
    let fired = ws.fire("pre_tool_call", bash("rm -rf dist"));
    assert_eq!(fired.decision(), "block");
    assert_eq!(fired.reason(), "Dangerous command detected");
    // The script ran from the repository root and saw Copilot's own input.
    let seen: Value = serde_json::from_str(&ws.read("copilot-seen.json")).expect("stdin JSON");
    assert_eq!(seen["toolName"], "bash");
    assert_eq!(seen["sessionId"], "s-1");
    assert!(seen["timestamp"].is_u64(), "{seen}");
    assert_eq!(seen["cwd"], ws.root().to_string_lossy().as_ref());
    let args: Value =
        serde_json::from_str(seen["toolArgs"].as_str().expect("toolArgs is JSON text"))
            .expect("toolArgs parses");
    assert_eq!(args, json!({"command": "rm -rf dist"}));
    assert!(seen.get("hook_event_name").is_none(), "{seen}");

    // The matchers are Copilot's: anchored regexes on its tool names (`edit`, not edit_file).
    let outside = ws.fire(
        "pre_tool_call",
        json!({"tool_name": "edit_file", "tool_input": {"path": "etc/passwd", "old_str": "a", "new_str": "b"}}),
    );
    assert_eq!(outside.decision(), "block");
    assert_eq!(
        outside.reason(),
        "Can only edit files in src/ or test/ directories"
    );
    // The bash guard's matcher does not match `edit`.
    assert_eq!(outside.status("./scripts/guard.py"), "skipped");
    let inside = ws.fire(
        "pre_tool_call",
        json!({"tool_name": "edit_file", "tool_input": {"path": "src/app.py"}}),
    );
    assert_eq!(inside.decision(), "continue");
    assert_eq!(ws.fire("pre_tool_call", bash("ls")).decision(), "continue");
}

#[cfg_attr(
    not(have_python3),
    ignore = "needs python3 on PATH (.ci/run installs it)"
)]
#[test]
fn stop_session_start_and_post_tool_answers_take_effect() {
    let ws = copilot_ws();
    let stop = ws.fire(
        "on_stop",
        json!({"session_id": "s-2", "response": "Done.", "stop_hook_active": false}),
    );
    assert_eq!(stop.decision(), "block");
    assert_eq!(stop.reason(), "Run the test suite before you stop.");
    let again = ws.fire(
        "on_stop",
        json!({"session_id": "s-2", "response": "Done.", "stop_hook_active": true}),
    );
    assert_eq!(again.decision(), "continue");
    let start = ws.fire("on_session_start", json!({"session_id": "s-3"}));
    assert_eq!(
        start.context(),
        vec!["Repository policy: source=new".to_owned()]
    );
    let post = ws.fire(
        "post_tool_call",
        json!({"tool_name": "bash", "tool_input": {"command": "ls"}, "tool_result": "a b",
               "status": "success"}),
    );
    assert!(
        post.strings("notes")
            .contains(&"Remember to run the linter.".to_owned()),
        "{:?}",
        post.outcome
    );
}

#[test]
fn exit_two_and_a_crash_deny_a_tool_call_as_copilot_does_and_elsewhere_go_on() {
    let ws = Ws::new()
        .master(true)
        .sh(
            "scripts/two.sh",
            "echo 'policy says no' >&2\necho '{\"permissionDecision\":\"allow\"}'\nexit 2\n",
        )
        .sh(
            "scripts/crash.sh",
            "echo 'Traceback: KeyError' >&2\nexit 1\n",
        )
        .sh("scripts/post-crash.sh", "exit 1\n");
    let hooks = json!({"version": 1, "hooks": {
        "preToolUse": [
            {"type": "command", "bash": "./scripts/two.sh", "matcher": "bash"},
            {"type": "command", "bash": "./scripts/crash.sh", "matcher": "view"},
        ],
        "postToolUse": [{"bash": "./scripts/post-crash.sh"}],
    }});
    let ws = ws.file(".github/hooks/hooks.json", &hooks.to_string());
    for command in [
        "./scripts/two.sh",
        "./scripts/crash.sh",
        "./scripts/post-crash.sh",
    ] {
        ws.approve(command);
    }
    let two = ws.fire("pre_tool_call", bash("ls"));
    assert_eq!(
        two.decision(),
        "block",
        "exit 2 outranks the allow it printed"
    );
    assert_eq!(two.reason(), "policy says no");
    let crashed = ws.fire(
        "pre_tool_call",
        json!({"tool_name": "read_file", "tool_input": {"path": "README.md"}}),
    );
    assert_eq!(crashed.decision(), "block");
    assert!(
        crashed.reason().contains("hook errored") && crashed.reason().contains("KeyError"),
        "{}",
        crashed.reason()
    );
    let post = ws.fire(
        "post_tool_call",
        json!({"tool_name": "bash", "tool_input": {"command": "ls"}, "tool_result": "", "status": "success"}),
    );
    assert_eq!(post.decision(), "continue");
    assert_eq!(post.status("./scripts/post-crash.sh"), "error");
}

#[test]
fn user_level_hooks_load_after_the_repositorys_and_need_approval() {
    let home = tempfile::tempdir().expect("a home");
    let user_hooks = home.path().join(".copilot/hooks");
    std::fs::create_dir_all(&user_hooks).expect("create ~/.copilot/hooks");
    std::fs::write(
        user_hooks.join("personal.json"),
        json!({"version": 1, "hooks": {"preToolUse": [
            {"type": "command", "bash": "echo '{\"permissionDecision\":\"deny\",\"permissionDecisionReason\":\"personal policy\"}'"}
        ]}})
        .to_string(),
    )
    .expect("write the user's hooks");
    let ws = Ws::new().master(true);
    let fire = |ws: &Ws| {
        let mut cmd = ws.command(&["fire", "pre_tool_call"]);
        cmd.env("HOME", home.path()).env_remove("COPILOT_HOME");
        Ran::of(cmd, bash("ls").to_string().as_bytes()).json()
    };
    let unapproved = fire(&ws);
    assert_eq!(unapproved["decision"], "continue");
    assert_eq!(unapproved["hooks"][0]["status"], "skipped", "{unapproved}");
    let mut approve = ws.command(&[
        "approve",
        "echo '{\"permissionDecision\":\"deny\",\"permissionDecisionReason\":\"personal policy\"}'",
    ]);
    approve.env("HOME", home.path()).env_remove("COPILOT_HOME");
    assert!(approve.output().expect("approve").status.success());
    let approved = fire(&ws);
    assert_eq!(approved["decision"], "block", "{approved}");
    assert_eq!(approved["reason"], "personal policy");
}

#[test]
fn unmapped_events_and_the_vs_code_form_are_listed_not_run() {
    let ws = Ws::new().master(true).file(
        ".github/hooks/mixed.json",
        &json!({"version": 1, "hooks": {
            "errorOccurred": [{"bash": "./log-error.sh"}],
            "PreToolUse": [{"type": "command", "command": "./claude-style.sh"}],
            "sessionStart": [{"type": "prompt", "prompt": "/status"}],
        }})
        .to_string(),
    );
    let list = support::list_text(&ws);
    assert!(
        list.contains("errorOccurred hooks never fire in this host"),
        "{list}"
    );
    assert!(
        list.contains("PreToolUse hooks never fire in this host"),
        "{list}"
    );
    assert!(list.contains("\"prompt\" hook submits text"), "{list}");
    let bad = ws.file(
        ".github/hooks/mixed.json",
        &json!({"version": 2, "hooks": {}}).to_string(),
    );
    let list = support::list_text(&bad);
    assert!(list.contains("\"version\" must be 1"), "{list}");
}

fn guarded() -> Ws {
    let ws = Ws::new();
    let out = ws.run(&["install", "security_guard"]);
    assert!(out.status.success(), "{out:?}");
    ws
}

fn rm_root() -> Value {
    pre_tool(
        "bash",
        &json!({"command": "rm -rf /", "description": "Clean up"}),
    )
}

fn assert_copilot_deny(answer: &Value) {
    assert_eq!(answer["permissionDecision"], "deny", "{answer}");
    assert!(
        answer["permissionDecisionReason"]
            .as_str()
            .is_some_and(|r| !r.trim().is_empty()),
        "{answer}"
    );
    let keys: Vec<&String> = answer.as_object().expect("an object").keys().collect();
    assert_eq!(keys.len(), 2, "only the fields Copilot reads: {answer}");
}

#[test]
fn the_security_guard_denies_rm_rf_root_through_copilot_hook() {
    let ws = guarded();
    let ran = copilot_hook(&ws, &rm_root());
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert_copilot_deny(&ran.json());
    let harmless = copilot_hook(&ws, &pre_tool("bash", &json!({"command": "ls"})));
    assert_eq!(harmless.code, 0);
    // Never an explicit allow, which could skip Copilot's own permission prompt.
    assert_eq!(harmless.json(), json!({}));
}

#[test]
fn the_security_guard_denies_rm_rf_root_through_the_copilot_route() {
    let ws = guarded();
    let server = support::Server::start(&ws);
    let (status, answer) = server.post("/v1/hooks/copilot", rm_root());
    assert_eq!(status, 200);
    assert_copilot_deny(&answer);
    let (status, answer) = server.post(
        "/v1/hooks/copilot",
        copilot_input(json!({"error": {"message": "x", "name": "E"}, "errorContext": "system", "recoverable": true})),
    );
    // errorOccurred has no counterpart: no policy to evaluate, no opinion.
    assert_eq!(status, 200);
    assert!(answer == Value::Null || answer == json!(""), "{answer}");
}

/// The same AWS-key check as a hook of this workspace (shell dialect).
const WORKSPACE_PROMPT_GUARD: &str = r#"if grep -q 'AKIA'; then
  printf '{"decision":"block","reason":"Your prompt contains an AWS key."}'
else
  printf '{}'
fi
"#;

const WORKSPACE_STOP: &str = r#"if grep -q '"redo_count": *0'; then
  printf '{"decision":"block","reason":"Summarise what changed."}'
else
  printf '{}'
fi
"#;

#[cfg_attr(
    not(have_python3),
    ignore = "needs python3 on PATH (.ci/run installs it)"
)]
#[test]
fn the_bridge_says_what_copilot_cannot_block_and_redoes_a_stop() {
    let ws = copilot_ws()
        .sh("hooks/prompt.sh", WORKSPACE_PROMPT_GUARD)
        .sh("hooks/stop.sh", WORKSPACE_STOP)
        .hook(Entry::new("on_user_message", "hooks/prompt.sh"))
        .hook(Entry::new("on_stop", "hooks/stop.sh"))
        .approve_all();
    // Copilot ignores a userPromptSubmitted hook's output: exit 2 shows stderr to the user.
    let prompt = copilot_hook(&ws, &copilot_input(json!({"prompt": "use AKIA123"})));
    assert_eq!(prompt.code, 2, "{}", prompt.stderr);
    assert!(prompt.stdout.trim().is_empty());
    assert!(
        prompt.stderr.contains("Copilot cannot block it")
            && prompt.stderr.contains("Your prompt contains an AWS key."),
        "{}",
        prompt.stderr
    );
    let fine = copilot_hook(&ws, &copilot_input(json!({"prompt": "hello"})));
    assert_eq!((fine.code, fine.json()), (0, json!({})));
    let stop = copilot_hook(
        &ws,
        &copilot_input(
            json!({"transcriptPath": "/tmp/t.jsonl", "stopReason": "end_turn",
                              "stop_hook_active": false}),
        ),
    );
    assert_eq!(
        stop.json(),
        json!({"decision": "block", "reason": "Summarise what changed."})
    );
    // Copilot runs its own hooks itself: the bridge skips them.
    let shell = copilot_hook(&ws, &pre_tool("bash", &json!({"command": "rm -rf dist"})));
    assert_eq!(shell.json(), json!({}));
    assert!(!ws.exists("copilot-seen.json"));
}

/// A workspace hook on pre_tool_call that fails as `body` says.
fn failing(body: &str, timeout: Option<u64>) -> Ws {
    let mut entry = Entry::new("pre_tool_call", "hooks/failing.sh").name("failing");
    if let Some(secs) = timeout {
        entry = entry.timeout(secs);
    }
    Ws::new()
        .master(true)
        .sh("hooks/failing.sh", body)
        .hook(entry)
        .approve_all()
}

#[test]
fn a_failing_hook_is_told_and_fail_closed_denies() {
    let kinds = [
        ("crash", "echo boom >&2\nexit 3\n", None),
        ("timeout", "exec sleep 30\n", Some(1)),
        ("bad JSON", "printf '{\"decision\": '\n", None),
    ];
    for (kind, body, timeout) in kinds {
        let ws = failing(body, timeout);
        let input = pre_tool("bash", &json!({"command": "ls"}));
        let open = copilot_hook(&ws, &input);
        assert_eq!(open.code, 0, "{kind}: {}", open.stderr);
        assert_eq!(open.json(), json!({}), "{kind}");
        assert!(open.stderr.contains("failing"), "{kind}: {}", open.stderr);
        let closed = Ran::of(
            ws.command(&["copilot-hook", "--fail-closed"]),
            input.to_string().as_bytes(),
        );
        assert_eq!(closed.code, 0, "{kind}: {}", closed.stderr);
        let answer = closed.json();
        assert_eq!(answer["permissionDecision"], "deny", "{kind}: {answer}");
        assert!(
            answer["permissionDecisionReason"]
                .as_str()
                .is_some_and(|r| r.contains("failing")),
            "{kind}: {answer}"
        );
    }
    // Input that is not Copilot's: told in its log and in additionalContext; denied closed.
    let ws = failing("printf '{}'\n", None);
    let open = Ran::of(ws.command(&["copilot-hook"]), b"{\"toolName\": ");
    assert_eq!(open.code, 0);
    assert!(
        open.json()["additionalContext"]
            .as_str()
            .is_some_and(|m| m.contains("could not read GitHub Copilot's hook input")),
        "{}",
        open.stdout
    );
    let closed = Ran::of(
        ws.command(&["copilot-hook", "--fail-closed"]),
        b"{\"toolName\": ",
    );
    assert_eq!(closed.code, 2);
    assert!(
        closed.stderr.contains("denied (fail closed)"),
        "{}",
        closed.stderr
    );
}

/// A user's own Copilot hooks file, formatted as they wrote it.
const USER_FILE: &str = "{\n\t\"version\": 1,\n\t\"hooks\": {\n\t\t\"sessionStart\": [ { \"type\": \"command\", \"bash\": \"./audit/log-session-start.sh\" } ],\n\t\t\"errorOccurred\": [ { \"type\": \"command\", \"bash\": \"./audit/log-error.sh\" } ]\n\t}\n}\n";

fn bridged(settings: &Value, event: &str, ws: &Ws) -> usize {
    settings["hooks"][event]
        .as_array()
        .expect("a list of hooks")
        .iter()
        .filter(|h| {
            h["bash"].as_str().is_some_and(|c| {
                c.ends_with(&support::bridge_command("agent-hooks", ws, "copilot-hook"))
            })
        })
        .count()
}

#[test]
fn copilot_install_merges_is_idempotent_and_uninstall_restores_the_file_byte_for_byte() {
    let ws = Ws::new().file(".github/hooks/agent-hooks.json", USER_FILE);
    let first = ws.run(&["copilot-install"]);
    assert!(first.status.success(), "{first:?}");
    let after: Value =
        serde_json::from_str(&ws.read(".github/hooks/agent-hooks.json")).expect("JSON");
    assert_eq!(after["version"], 1);
    assert_eq!(
        after["hooks"]["errorOccurred"][0]["bash"],
        "./audit/log-error.sh"
    );
    assert_eq!(
        after["hooks"]["sessionStart"][0]["bash"],
        "./audit/log-session-start.sh"
    );
    for event in [
        "sessionStart",
        "sessionEnd",
        "userPromptSubmitted",
        "preToolUse",
        "postToolUse",
        "postToolUseFailure",
        "agentStop",
    ] {
        assert_eq!(bridged(&after, event, &ws), 1, "{event}: {after}");
    }
    let handler = &after["hooks"]["preToolUse"][0];
    assert_eq!(handler["type"], "command");
    assert_eq!(handler["timeoutSec"], 120);
    let written = ws.read(".github/hooks/agent-hooks.json");
    let second = ws.run(&["copilot-install"]);
    assert!(second.status.success());
    assert_eq!(ws.read(".github/hooks/agent-hooks.json"), written);
    assert!(String::from_utf8_lossy(&second.stdout).contains("nothing changed"));
    let list = support::list_text(&ws);
    assert!(
        list.contains("the GitHub Copilot bridge on 7 events"),
        "{list}"
    );
    let removed = ws.run(&["copilot-uninstall"]);
    assert!(removed.status.success(), "{removed:?}");
    assert_eq!(ws.read(".github/hooks/agent-hooks.json"), USER_FILE);
}

#[test]
fn a_record_an_earlier_version_kept_in_state_still_restores_the_file() {
    let ws = Ws::new().file(".github/hooks/agent-hooks.json", USER_FILE);
    assert!(ws.run(&["copilot-install"]).status.success());
    assert!(
        !ws.exists("state"),
        "the record is the runtime's, not the workspace's"
    );
    // Where earlier versions kept it.
    let legacy = ws.path("state/installed/copilot.json");
    std::fs::create_dir_all(ws.path("state/installed")).expect("mkdir");
    std::fs::rename(ws.runtime_path("installed/copilot.json"), &legacy).expect("move the record");
    assert!(ws.run(&["copilot-uninstall"]).status.success());
    assert_eq!(ws.read(".github/hooks/agent-hooks.json"), USER_FILE);
    assert!(!ws.exists("state/installed"), "the old record is consumed");
}

#[test]
fn without_a_file_before_install_uninstall_leaves_nothing_behind() {
    let ws = Ws::new();
    let out = ws.run(&["copilot-install", "--fail-closed"]);
    assert!(out.status.success(), "{out:?}");
    let installed: Value =
        serde_json::from_str(&ws.read(".github/hooks/agent-hooks.json")).expect("JSON");
    assert!(
        installed["hooks"]["preToolUse"][0]["bash"]
            .as_str()
            .is_some_and(|c| c.ends_with("copilot-hook --fail-closed")),
        "{installed}"
    );
    let removed = ws.run(&["copilot-uninstall"]);
    assert!(removed.status.success(), "{removed:?}");
    assert!(!ws.exists(".github"), "nothing of the install is left");
}

#[test]
fn a_file_edited_since_keeps_the_users_edits_on_uninstall() {
    let ws = Ws::new().file(".github/hooks/agent-hooks.json", USER_FILE);
    assert!(ws.run(&["copilot-install"]).status.success());
    let mut edited: Value =
        serde_json::from_str(&ws.read(".github/hooks/agent-hooks.json")).expect("JSON");
    edited["hooks"]["sessionEnd"]
        .as_array_mut()
        .expect("a list")
        .push(json!({"type": "command", "bash": "./audit/log-session-end.sh"}));
    let ws = ws.file(".github/hooks/agent-hooks.json", &edited.to_string());
    assert!(ws.run(&["copilot-uninstall"]).status.success());
    let back: Value =
        serde_json::from_str(&ws.read(".github/hooks/agent-hooks.json")).expect("JSON");
    assert_eq!(
        back["hooks"]["sessionEnd"],
        json!([{"type": "command", "bash": "./audit/log-session-end.sh"}])
    );
    assert!(back["hooks"].get("preToolUse").is_none(), "{back}");
}

fn convert(ws: &Ws, from: &str, to: &str, file: &str) -> (Value, String) {
    let path = ws.path(file);
    let path = path.to_string_lossy();
    let out = ws.run(&["convert", "--from", from, "--to", to, &path]);
    assert!(out.status.success(), "{out:?}");
    let stdout: Value = serde_json::from_slice(&out.stdout).expect("stdout is JSON");
    (stdout, String::from_utf8_lossy(&out.stderr).into_owned())
}

/// Converts `original` (Copilot's) to `other` and back; what comes back is the original but
/// for what the notes name.
fn round_trip(other: &str, original: &Value) -> (Value, Value, String) {
    let ws = Ws::new().file("copilot.json", &original.to_string());
    let (there, notes_there) = convert(&ws, "copilot", other, "copilot.json");
    let ws = ws.file("other.json", &there.to_string());
    let (back, notes_back) = convert(&ws, other, "copilot", "other.json");
    (there, back, format!("{notes_there}\n{notes_back}"))
}

fn policy() -> Value {
    json!({"version": 1, "hooks": {
        "preToolUse": [{"type": "command", "bash": "./scripts/guard.sh", "matcher": "bash", "timeoutSec": 10}],
        "postToolUse": [{"type": "command", "bash": "./scripts/format.sh", "matcher": "edit|create"}],
        "agentStop": [{"type": "command", "bash": "./scripts/stop.sh"}],
    }})
}

#[test]
fn convert_copilot_claude_round_trips() {
    let mut original = policy();
    original["hooks"]["sessionStart"] = json!([{"type": "command", "bash": "./scripts/start.sh"}]);
    let (claude, back, notes) = round_trip("claude", &original);
    assert_eq!(claude["hooks"]["PreToolUse"][0]["matcher"], "Bash");
    assert_eq!(claude["hooks"]["PostToolUse"][0]["matcher"], "Edit|Write");
    assert_eq!(back, original, "{notes}");
}

#[test]
fn convert_copilot_codex_round_trips() {
    let (codex, back, notes) = round_trip("codex", &policy());
    // Codex runs hooks from the session's directory: the path is rooted at the repository.
    assert_eq!(
        codex["hooks"]["PreToolUse"][0]["hooks"][0]["command"],
        "\"$(git rev-parse --show-toplevel)\"/scripts/guard.sh"
    );
    assert_eq!(back, widened_policy(), "{notes}");
    assert!(notes.contains("widened:"), "{notes}");
}

/// The policy after a trip through an agent whose after-tool event also runs after failed
/// calls (Codex, Gemini CLI): the success-only hook comes back for failures too, and the
/// conversion said so (`widened`).
fn widened_policy() -> Value {
    let mut policy = policy();
    policy["hooks"]["postToolUseFailure"] = policy["hooks"]["postToolUse"].clone();
    policy
}

#[test]
fn convert_copilot_gemini_round_trips() {
    let (gemini, back, notes) = round_trip("gemini", &policy());
    assert_eq!(
        gemini["hooks"]["BeforeTool"][0]["matcher"],
        "run_shell_command"
    );
    assert_eq!(
        gemini["hooks"]["BeforeTool"][0]["hooks"][0]["timeout"],
        10_000
    );
    assert_eq!(back, widened_policy(), "{notes}");
    assert!(notes.contains("widened:"), "{notes}");
}

#[test]
fn convert_copilot_cursor_round_trips_what_cursor_has_and_names_the_rest() {
    let mut original = policy();
    original["hooks"]["sessionEnd"] = json!([{"type": "command", "bash": "./scripts/end.sh"}]);
    let (cursor, back, notes) = round_trip("cursor", &original);
    // Cursor runs a project's hooks from `.cursor/`, Copilot from the repository root.
    assert_eq!(
        cursor["hooks"]["beforeShellExecution"][0]["command"],
        "../scripts/guard.sh"
    );
    assert!(notes.contains("rewritten for Cursor"), "{notes}");
    assert!(
        cursor["hooks"].get("beforeMCPExecution").is_none(),
        "{cursor}"
    );
    assert_eq!(
        cursor["hooks"]["sessionEnd"][0]["command"], "../scripts/end.sh",
        "{cursor}"
    );
    // `afterFileEdit` is not for successful edits alone: the hook comes back widened, said so.
    let mut expected = widened_policy();
    expected["hooks"]["sessionEnd"] = original["hooks"]["sessionEnd"].clone();
    assert_eq!(back, expected, "{notes}");
    assert!(notes.contains("widened:"), "{notes}");
}

#[test]
fn convert_copilot_windsurf_round_trips_what_windsurf_can_say() {
    let mut original = policy();
    // No matcher in Windsurf: a hook for every tool keeps its meaning, one for some MCP tools
    // would not.
    original["hooks"]["postToolUse"] =
        json!([{"type": "command", "bash": "./scripts/format.sh", "matcher": "edit|create"}]);
    original["hooks"]["preToolUse"]
        .as_array_mut()
        .expect("a list")
        .push(json!({"type": "command", "bash": "./scripts/gh-only.sh", "matcher": "github_create_issue"}));
    let ws = Ws::new().file("copilot.json", &original.to_string());
    let (windsurf, notes) = convert(&ws, "copilot", "windsurf", "copilot.json");
    assert_eq!(
        windsurf["hooks"]["pre_run_command"][0]["command"],
        "./scripts/guard.sh"
    );
    assert_eq!(
        windsurf["hooks"]["post_write_code"][0]["command"],
        "./scripts/format.sh"
    );
    assert!(
        notes.contains("not converted") && notes.contains("./scripts/gh-only.sh"),
        "{notes}"
    );
    assert!(notes.contains("timeout"), "{notes}");
    assert!(!windsurf.to_string().contains("gh-only"), "{windsurf}");
    let ws = ws.file("windsurf.json", &windsurf.to_string());
    let (back, _) = convert(&ws, "windsurf", "copilot", "windsurf.json");
    assert_eq!(back["hooks"]["preToolUse"][0]["matcher"], "bash");
    assert_eq!(back["hooks"]["postToolUse"][0]["matcher"], "edit|create");
    // Cascade has no event at the end of a turn.
    assert!(notes.contains("not converted: hooks.agentStop"), "{notes}");
    assert!(back["hooks"].get("agentStop").is_none(), "{back}");
}

/// The decision log's lines, as `agent-hooks audit` reads them.
fn decisions(ws: &Ws) -> Vec<Value> {
    ws.read_runtime("decisions.jsonl")
        .lines()
        .map(|line| serde_json::from_str(line).expect("a JSON line"))
        .collect()
}

#[test]
fn every_bridged_tool_call_is_a_line_of_the_decision_log() {
    let ws = guarded();
    assert_eq!(copilot_hook(&ws, &rm_root()).code, 0);
    let lines = decisions(&ws);
    let line = lines.last().expect("a line");
    assert_eq!(line["agent"], "copilot");
    assert_eq!(line["surface"], "bridge");
    assert_eq!(line["session_id"], "sess-123");
    assert_eq!(line["tool_name"], "bash");
    assert_eq!(line["decision"], "block");
    // Copilot sends no tool call id: the line is found by session, tool and input.
    assert!(line["tool_call_id"].is_null(), "{line}");
    assert!(line["input_sha256"].is_string(), "{line}");
}

#[test]
fn an_http_hook_gets_copilots_input_and_its_answer_counts() {
    use crate::loopback::{Response, Server};
    let server = Server::start(|_| {
        Response::json(r#"{"decision": "block", "reason": "Open a pull request first."}"#)
    });
    let url = server.url("/copilot/stop");
    let ws = Ws::new().master(true).file(
        ".github/hooks/remote.json",
        &json!({"version": 1, "hooks": {
            "agentStop": [{"type": "http", "url": url, "timeoutSec": 5}],
            "preToolUse": [{"type": "http", "url": server.url("/copilot/pre")}],
        }})
        .to_string(),
    );
    let local = |mut cmd: std::process::Command| {
        cmd.env("COPILOT_HOOK_ALLOW_LOCALHOST", "1")
            .env("AGENT_HOOKS_HTTP_ALLOW_LOCAL", "1");
        cmd
    };
    let approved = local(ws.command(&["approve", &url]))
        .output()
        .expect("approve");
    assert!(approved.status.success(), "{approved:?}");
    let fired = Ran::of(
        local(ws.command(&["fire", "on_stop"])),
        json!({"session_id": "s-9", "response": "Done."})
            .to_string()
            .as_bytes(),
    )
    .json();
    assert_eq!(fired["decision"], "block", "{fired}");
    assert_eq!(fired["reason"], "Open a pull request first.");
    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    let sent: Value = serde_json::from_slice(&requests[0].body).expect("a JSON body");
    assert_eq!(sent["stopReason"], "end_turn");
    assert_eq!(sent["sessionId"], "s-9");
    // Copilot takes a preToolUse hook's answer over https:// only: so does this reader.
    let mut list = local(ws.command(&["list"]));
    let listed = String::from_utf8_lossy(&list.output().expect("list").stdout)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(listed.contains("is not https://"), "{listed}");
}
