//! Windsurf (Cascade): hooks written for Cascade (`hooks.json` at user and workspace level,
//! merged in that order) run here unmodified with Cascade's `agent_action_name` / `tool_info`
//! stdin, and exit 2 from a pre-hook blocks with stderr as the reason; the `windsurf-hook`
//! bridge answers as Cascade reads a hook (exit 2 and stderr, output shown with
//! `show_output`); `windsurf-install` merges idempotently and `windsurf-uninstall` puts the file
//! back byte for byte. Inputs are shaped as Cascade sends them.

use crate::support;

use serde_json::{Value, json};
use support::{Entry, Ran, Ws};

/// pre_run_command, in the spirit of public Cascade command guards: keeps its input, blocks
/// force pushes and chained commands with exit 2 and a reason on stderr.
const COMMAND_GUARD: &str = r#"
import json, sys
data = json.load(sys.stdin)
with open("windsurf-seen.json", "w") as seen:
    json.dump(data, seen)
if data.get("agent_action_name") != "pre_run_command":
    sys.exit(0)
command = data.get("tool_info", {}).get("command_line", "")
if "push --force" in command:
    print("command_guard: force pushes are not allowed", file=sys.stderr)
    sys.exit(2)
"#;

/// pre_read_code: no reading secrets.
const READ_GUARD: &str = r#"
import json, sys
path = json.load(sys.stdin)["tool_info"]["file_path"]
if path.endswith(".env"):
    print(f"Blocked reading {path}: it holds secrets", file=sys.stderr)
    sys.exit(2)
"#;

/// post_write_code: prints a reminder, which Cascade shows because of `show_output`.
const AFTER_WRITE: &str = r#"
import json, sys
info = json.load(sys.stdin)["tool_info"]
print(f"Formatted {info['file_path']} ({len(info['edits'])} edit)")
"#;

fn windsurf_ws() -> Ws {
    let ws = Ws::new()
        .master(true)
        .py("tools/guard.py", COMMAND_GUARD)
        .py("tools/read-guard.py", READ_GUARD)
        .py("tools/after-write.py", AFTER_WRITE);
    let hooks = json!({"hooks": {
        "pre_run_command": [{"command": "./tools/guard.py", "show_output": true}],
        "pre_read_code": [{"command": "./tools/read-guard.py"}],
        "post_write_code": [{"command": "./tools/after-write.py", "show_output": true}],
    }});
    let ws = ws.file(".windsurf/hooks.json", &hooks.to_string());
    for command in [
        "./tools/guard.py",
        "./tools/read-guard.py",
        "./tools/after-write.py",
    ] {
        ws.approve(command);
    }
    ws
}

fn bash(command: &str) -> Value {
    json!({"session_id": "traj-1", "tool_name": "bash", "tool_input": {"command": command}})
}

/// A Cascade hook input: the common envelope and the action's `tool_info`.
fn cascade_input(action: &str, tool_info: Value) -> Value {
    json!({
        "agent_action_name": action,
        "trajectory_id": "traj-123",
        "execution_id": "exec-456",
        "timestamp": "2026-06-29T18:10:30.653398-04:00",
        "model_name": "SWE-1.5",
        "tool_info": tool_info,
    })
}

fn windsurf_hook(ws: &Ws, input: &Value) -> Ran {
    Ran::of(ws.command(&["windsurf-hook"]), input.to_string().as_bytes())
}

#[cfg_attr(
    not(have_python3),
    ignore = "needs python3 on PATH (.ci/run installs it)"
)]
#[test]
fn cascade_hooks_run_here_with_its_envelope_and_exit_two_blocks() {
    let ws = windsurf_ws();
    let fired = ws.fire("pre_tool_call", bash("git push --force origin main"));
    assert_eq!(fired.decision(), "block");
    assert_eq!(
        fired.reason(),
        "command_guard: force pushes are not allowed"
    );
    let seen: Value = serde_json::from_str(&ws.read("windsurf-seen.json")).expect("stdin JSON");
    assert_eq!(seen["agent_action_name"], "pre_run_command");
    assert_eq!(seen["trajectory_id"], "traj-1");
    assert_eq!(
        seen["tool_info"]["command_line"],
        "git push --force origin main"
    );
    assert_eq!(
        seen["tool_info"]["cwd"],
        ws.root().to_string_lossy().as_ref()
    );
    assert!(seen["timestamp"].as_str().is_some_and(|t| t.contains('T')));
    assert_eq!(
        ws.fire("pre_tool_call", bash("git status")).decision(),
        "continue"
    );

    let secret = ws.fire(
        "pre_tool_call",
        json!({"tool_name": "read_file", "tool_input": {"file_path": "/repo/.env"}}),
    );
    assert_eq!(secret.decision(), "block");
    assert_eq!(
        secret.reason(),
        "Blocked reading /repo/.env: it holds secrets"
    );
    // A write is neither a command nor a read: only the write hook sees it, after it.
    let wrote = ws.fire(
        "post_tool_call",
        json!({"tool_name": "edit_file", "status": "success", "tool_result": null,
               "tool_input": {"file_path": "src/a.py", "old_string": "a", "new_string": "b"}}),
    );
    assert_eq!(wrote.decision(), "continue");
    assert_eq!(
        wrote.warnings(),
        vec!["Formatted src/a.py (1 edit)".to_owned()]
    );
}

#[test]
fn user_and_workspace_files_merge_in_that_order() {
    let home = tempfile::tempdir().expect("a home");
    let user = home.path().join(".codeium/windsurf");
    std::fs::create_dir_all(&user).expect("create ~/.codeium/windsurf");
    let log = tempfile::NamedTempFile::new().expect("a log");
    let log_path = log.path().to_string_lossy().into_owned();
    let user_command = format!("echo user >> {log_path}");
    let workspace_command = format!("echo workspace >> {log_path}");
    std::fs::write(
        user.join("hooks.json"),
        json!({"hooks": {"post_run_command": [{"command": user_command}]}}).to_string(),
    )
    .expect("write the user's hooks");
    let ws = Ws::new().master(true).file(
        ".windsurf/hooks.json",
        &json!({"hooks": {"post_run_command": [{"command": workspace_command}]}}).to_string(),
    );
    for command in [&user_command, &workspace_command] {
        let mut approve = ws.command(&["approve", command]);
        approve.env("HOME", home.path());
        let out = approve.output().expect("approve");
        assert!(out.status.success(), "{out:?}");
    }
    let mut fire = ws.command(&["fire", "post_tool_call"]);
    fire.env("HOME", home.path());
    let payload = json!({"tool_name": "bash", "tool_input": {"command": "make"},
                         "tool_result": "ok", "status": "success"});
    let fired = Ran::of(fire, payload.to_string().as_bytes());
    assert_eq!(fired.code, 0, "{}", fired.stderr);
    // Both ran; hooks that only observe run concurrently, so the order is the outcome's (the
    // order they were merged in), not the order their lines reached the log.
    let mut lines: Vec<_> = std::fs::read_to_string(log.path())
        .expect("the log")
        .lines()
        .map(str::to_owned)
        .collect();
    lines.sort();
    assert_eq!(lines, ["user", "workspace"]);
    let outcome: serde_json::Value = serde_json::from_str(&fired.stdout).expect("fire's outcome");
    let ran: Vec<&str> = outcome["hooks"]
        .as_array()
        .expect("the hooks that ran")
        .iter()
        .filter_map(|h| h["hook"].as_str())
        .collect();
    assert_eq!(
        ran,
        [user_command.as_str(), workspace_command.as_str()],
        "{outcome}"
    );
}

#[cfg_attr(
    not(have_python3),
    ignore = "needs python3 on PATH (.ci/run installs it)"
)]
#[test]
fn unmapped_events_are_listed_and_hooks_need_approval() {
    let ws = Ws::new()
        .master(true)
        .py("tools/guard.py", COMMAND_GUARD)
        .file(
            ".windsurf/hooks.json",
            &json!({"hooks": {
                "pre_run_command": [{"command": "./tools/guard.py"}],
                "post_setup_worktree": [{"command": "./tools/setup.sh"}],
            }})
            .to_string(),
        );
    let fired = ws.fire("pre_tool_call", bash("git push --force"));
    assert_eq!(fired.decision(), "continue");
    assert_eq!(fired.status("./tools/guard.py"), "skipped");
    let list = support::list_text(&ws);
    assert!(
        list.contains("post_setup_worktree hooks never fire in this host"),
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
    cascade_input(
        "pre_run_command",
        json!({"command_line": "rm -rf /", "cwd": "/tmp/project"}),
    )
}

#[test]
fn the_security_guard_blocks_rm_rf_root_through_windsurf_hook() {
    let ws = guarded();
    let ran = windsurf_hook(&ws, &rm_root());
    assert_eq!(ran.code, 2, "exit 2 is Cascade's block: {}", ran.stderr);
    assert!(ran.stdout.trim().is_empty(), "{}", ran.stdout);
    assert!(ran.stderr.contains("rm -rf /"), "{}", ran.stderr);
    let harmless = windsurf_hook(
        &ws,
        &cascade_input(
            "pre_run_command",
            json!({"command_line": "ls", "cwd": "/tmp/project"}),
        ),
    );
    assert_eq!(harmless.code, 0, "{}", harmless.stderr);
    assert!(harmless.stdout.trim().is_empty(), "{}", harmless.stdout);
    // Cascade calls no HTTP hook: the sidecar has no route for it.
    let server = support::Server::start(&ws);
    let (status, _) = server.post("/v1/hooks/windsurf", rm_root());
    assert_eq!(status, 404);
}

const WORKSPACE_ASK: &str = r#"if grep -q 'git push'; then
  printf '{"decision":"ask","reason":"Pushing needs confirmation."}'
else
  printf '{}'
fi
"#;

const WORKSPACE_PROMPT_GUARD: &str = r#"if grep -q 'AKIA'; then
  printf '{"decision":"block","reason":"Your prompt contains an AWS key."}'
else
  printf '{}'
fi
"#;

#[cfg_attr(
    not(have_python3),
    ignore = "needs python3 on PATH (.ci/run installs it)"
)]
#[test]
fn an_ask_cascade_cannot_ask_is_refused_and_a_prompt_is_blocked() {
    let ws = windsurf_ws()
        .sh("hooks/ask.sh", WORKSPACE_ASK)
        .sh("hooks/prompt.sh", WORKSPACE_PROMPT_GUARD)
        .hook(Entry::new("pre_tool_call", "hooks/ask.sh"))
        .hook(Entry::new("on_user_message", "hooks/prompt.sh"))
        .approve_all();
    let push = windsurf_hook(
        &ws,
        &cascade_input(
            "pre_run_command",
            json!({"command_line": "git push origin main", "cwd": "/tmp/p"}),
        ),
    );
    assert_eq!(push.code, 2);
    assert!(
        push.stderr.contains("Pushing needs confirmation.")
            && push.stderr.contains("Windsurf cannot ask"),
        "{}",
        push.stderr
    );
    let prompt = windsurf_hook(
        &ws,
        &cascade_input("pre_user_prompt", json!({"user_prompt": "key AKIA123"})),
    );
    assert_eq!(prompt.code, 2);
    assert!(prompt.stderr.contains("AWS key"), "{}", prompt.stderr);
    // Cascade runs its own hooks itself: the bridge skips them.
    let force = windsurf_hook(
        &ws,
        &cascade_input(
            "pre_run_command",
            json!({"command_line": "git status --force", "cwd": "/tmp/p"}),
        ),
    );
    assert_eq!(force.code, 0, "{}", force.stderr);
    assert!(!ws.exists("windsurf-seen.json"));
    let response = windsurf_hook(
        &ws,
        &cascade_input("post_cascade_response", json!({"response": "Done."})),
    );
    assert_eq!(response.code, 0, "{}", response.stderr);
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
fn a_failing_hook_is_shown_and_fail_closed_blocks() {
    let kinds = [
        ("crash", "echo boom >&2\nexit 3\n", None),
        ("timeout", "exec sleep 30\n", Some(1)),
        ("bad JSON", "printf '{\"decision\": '\n", None),
    ];
    let input = cascade_input(
        "pre_run_command",
        json!({"command_line": "ls", "cwd": "/tmp/p"}),
    );
    for (kind, body, timeout) in kinds {
        let ws = failing(body, timeout);
        let open = windsurf_hook(&ws, &input);
        assert_eq!(open.code, 0, "{kind}: {}", open.stderr);
        // Printed, which the installed entry's show_output shows in Cascade.
        assert!(open.stdout.contains("failing"), "{kind}: {}", open.stdout);
        let closed = Ran::of(
            ws.command(&["windsurf-hook", "--fail-closed"]),
            input.to_string().as_bytes(),
        );
        assert_eq!(closed.code, 2, "{kind}: {}", closed.stderr);
        assert!(
            closed.stderr.contains("failing"),
            "{kind}: {}",
            closed.stderr
        );
    }
    let ws = failing("printf '{}'\n", None);
    let open = Ran::of(ws.command(&["windsurf-hook"]), b"{\"agent_action_name\": ");
    assert_eq!(open.code, 0);
    assert!(
        open.stdout.contains("could not read Windsurf's hook input"),
        "{}",
        open.stdout
    );
    let closed = Ran::of(
        ws.command(&["windsurf-hook", "--fail-closed"]),
        b"{\"agent_action_name\": ",
    );
    assert_eq!(closed.code, 2);
    assert!(
        closed.stderr.contains("denied (fail closed)"),
        "{}",
        closed.stderr
    );
}

/// A user's own Cascade hooks file, formatted as they wrote it.
const USER_FILE: &str = "{\n  \"hooks\": {\n    \"post_write_code\": [\n      { \"command\": \"npx prettier --write\", \"show_output\": false }\n    ],\n    \"post_setup_worktree\": [ { \"command\": \"./setup.sh\" } ]\n  }\n}\n";

#[test]
fn windsurf_install_merges_is_idempotent_and_uninstall_restores_the_file_byte_for_byte() {
    let ws = Ws::new().file(".windsurf/hooks.json", USER_FILE);
    let first = ws.run(&["windsurf-install"]);
    assert!(first.status.success(), "{first:?}");
    let after: Value = serde_json::from_str(&ws.read(".windsurf/hooks.json")).expect("JSON");
    assert!(after.get("version").is_none(), "{after}");
    assert_eq!(
        after["hooks"]["post_setup_worktree"],
        json!([{"command": "./setup.sh"}])
    );
    assert_eq!(
        after["hooks"]["post_write_code"][0],
        json!({"command": "npx prettier --write", "show_output": false})
    );
    let bridge = support::bridge_command("agent-hooks", &ws, "windsurf-hook");
    for event in [
        "pre_user_prompt",
        "pre_read_code",
        "pre_write_code",
        "pre_run_command",
        "pre_mcp_tool_use",
        "post_read_code",
        "post_write_code",
        "post_run_command",
        "post_mcp_tool_use",
        "post_cascade_response",
    ] {
        let bridged: Vec<&Value> = after["hooks"][event]
            .as_array()
            .expect("a list of hooks")
            .iter()
            .filter(|h| h["command"].as_str().is_some_and(|c| c.ends_with(&bridge)))
            .collect();
        assert_eq!(bridged.len(), 1, "{event}: {after}");
        assert_eq!(bridged[0]["show_output"], true, "{event}");
    }
    let written = ws.read(".windsurf/hooks.json");
    let second = ws.run(&["windsurf-install"]);
    assert!(second.status.success());
    assert_eq!(ws.read(".windsurf/hooks.json"), written);
    assert!(String::from_utf8_lossy(&second.stdout).contains("nothing changed"));
    let list = support::list_text(&ws);
    assert!(list.contains("the Windsurf bridge on 10 events"), "{list}");
    let removed = ws.run(&["windsurf-uninstall"]);
    assert!(removed.status.success(), "{removed:?}");
    assert_eq!(ws.read(".windsurf/hooks.json"), USER_FILE);
}

#[test]
fn without_a_file_before_install_uninstall_leaves_nothing_behind() {
    let ws = Ws::new();
    assert!(ws.run(&["windsurf-install"]).status.success());
    assert!(ws.exists(".windsurf/hooks.json"));
    assert!(ws.run(&["windsurf-uninstall"]).status.success());
    assert!(!ws.exists(".windsurf"), "nothing of the install is left");
}

fn convert(ws: &Ws, from: &str, to: &str, file: &str) -> (Value, String) {
    let path = ws.path(file);
    let path = path.to_string_lossy();
    let out = ws.run(&["convert", "--from", from, "--to", to, &path]);
    assert!(out.status.success(), "{out:?}");
    let stdout: Value = serde_json::from_slice(&out.stdout).expect("stdout is JSON");
    (stdout, String::from_utf8_lossy(&out.stderr).into_owned())
}

/// A Cascade policy whose every hook another agent can say as it is: the command, a file
/// read, a file write, and the prompt.
fn policy() -> Value {
    json!({"hooks": {
        "pre_run_command": [{"command": "./hooks/guard.sh", "show_output": true}],
        "pre_read_code": [{"command": "./hooks/read-guard.sh"}],
        "post_write_code": [{"command": "./hooks/format.sh"}],
        "pre_user_prompt": [{"command": "./hooks/prompt.sh"}],
    }})
}

/// Converts `policy()` to `other` and back.
fn round_trip(other: &str) -> (Value, Value, String) {
    let ws = Ws::new().file("windsurf.json", &policy().to_string());
    let (there, notes_there) = convert(&ws, "windsurf", other, "windsurf.json");
    let ws = ws.file("other.json", &there.to_string());
    let (back, notes_back) = convert(&ws, other, "windsurf", "other.json");
    (there, back, format!("{notes_there}\n{notes_back}"))
}

#[test]
fn convert_windsurf_claude_round_trips() {
    let (claude, back, notes) = round_trip("claude");
    let matchers: Vec<&str> = claude["hooks"]["PreToolUse"]
        .as_array()
        .expect("groups")
        .iter()
        .filter_map(|g| g["matcher"].as_str())
        .collect();
    assert_eq!(matchers, vec!["Bash", "Read"]);
    assert_eq!(claude["hooks"]["PostToolUse"][0]["matcher"], "Edit|Write");
    // Claude Code has no show_output; it is kept, and said to be ignored there.
    assert!(notes.contains("show_output"), "{notes}");
    assert_eq!(back, policy(), "{notes}");
}

#[test]
fn convert_windsurf_codex_round_trips() {
    let (_, back, notes) = round_trip("codex");
    assert_eq!(back, policy(), "{notes}");
}

#[test]
fn convert_windsurf_gemini_round_trips() {
    let (gemini, back, notes) = round_trip("gemini");
    assert_eq!(
        gemini["hooks"]["BeforeTool"][0]["matcher"],
        "run_shell_command"
    );
    assert_eq!(back, policy(), "{notes}");
}

#[test]
fn convert_windsurf_cursor_names_what_cursor_has_no_hook_for() {
    let (cursor, back, notes) = round_trip("cursor");
    // Cursor runs a project's hooks from `.cursor/`, Cascade from the workspace: rebased.
    assert_eq!(
        cursor["hooks"]["beforeShellExecution"][0]["command"],
        "../hooks/guard.sh"
    );
    assert_eq!(
        cursor["hooks"]["afterFileEdit"][0]["command"],
        "../hooks/format.sh"
    );
    let mut expected = policy();
    // Cursor reads files before the call and edits them after, as Cascade does: all four
    // keep their meaning.
    assert_eq!(back, expected, "{notes}");
    // An MCP hook of Cascade's runs for every tool Cascade has no event of its own for; with
    // no such set in another agent's terms, it becomes an every-tool hook, said so.
    expected["hooks"]["pre_mcp_tool_use"] = json!([{"command": "./hooks/mcp-audit.sh"}]);
    let ws = Ws::new().file("windsurf.json", &expected.to_string());
    let (_, notes) = convert(&ws, "windsurf", "cursor", "windsurf.json");
    assert!(
        notes.contains("converted for every tool") && notes.contains("./hooks/mcp-audit.sh"),
        "{notes}"
    );
}

#[test]
fn every_bridged_tool_call_is_a_line_of_the_decision_log() {
    let ws = guarded();
    assert_eq!(windsurf_hook(&ws, &rm_root()).code, 2);
    let lines: Vec<Value> = ws
        .read_runtime("decisions.jsonl")
        .lines()
        .map(|line| serde_json::from_str(line).expect("a JSON line"))
        .collect();
    let line = lines.last().expect("a line");
    assert_eq!(line["agent"], "windsurf");
    assert_eq!(line["session_id"], "traj-123");
    assert_eq!(line["tool_name"], "bash");
    assert_eq!(line["decision"], "block");
    assert!(line["tool_call_id"].is_null(), "{line}");
}
