//! `agent-hooks log`: recent records of `logs/events.jsonl`, readable or as JSON, filtered by
//! hook, event and type, and `--follow` printing what is appended.

use crate::support;

use std::io::{BufRead, BufReader};
use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};
use support::{Entry, Ws};

/// A workspace whose `broken` hook exits 1 on `pre_tool_call`, fired once.
fn with_one_failure() -> Ws {
    let ws = Ws::new()
        .master(true)
        .sh(
            "hooks/broken.sh",
            "cat > /dev/null\necho oops >&2\nexit 1\n",
        )
        .hook(Entry::new("pre_tool_call", "hooks/broken.sh").name("broken"))
        .approve_all();
    ws.fire("pre_tool_call", json!({"tool_name": "bash"}));
    ws
}

fn stdout(ws: &Ws, args: &[&str]) -> String {
    let out = ws.run(args);
    assert!(out.status.success(), "{args:?}: {out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn log_shows_a_failure_readably_and_as_json() {
    let ws = with_one_failure();
    let text = stdout(&ws, &["log"]);
    let line = text
        .lines()
        .find(|l| l.contains("hook_nonzero_exit"))
        .unwrap_or_else(|| panic!("no failure line in:\n{text}"));
    assert!(
        line.contains("pre_tool_call") && line.contains("broken"),
        "{line}"
    );

    let json = stdout(&ws, &["log", "--json"]);
    let records: Vec<Value> = json
        .lines()
        .map(|l| serde_json::from_str(l).expect("each line is a record"))
        .collect();
    assert!(
        records
            .iter()
            .any(|r| r["type"] == "hook_nonzero_exit" && r["hook"] == "broken"),
        "{json}"
    );
}

#[test]
fn log_filters_by_hook_event_and_type() {
    let ws = with_one_failure();
    let kept = |args: &[&str]| {
        let mut all = vec!["log", "--json"];
        all.extend_from_slice(args);
        stdout(&ws, &all).lines().count()
    };
    assert!(kept(&["--hook", "broken"]) >= 1);
    assert_eq!(kept(&["--hook", "someone-else"]), 0);
    assert!(kept(&["--event", "pre_tool_call"]) >= 1);
    assert_eq!(kept(&["--event", "on_stop"]), 0);
    assert_eq!(kept(&["--type", "hook_nonzero_exit"]), 1);
    assert_eq!(kept(&["--type", "hook_nonzero_exit", "-n", "0"]), 0);
}

#[test]
fn log_follow_prints_what_is_appended() {
    let ws = with_one_failure();
    let mut child = ws
        .command(&[
            "log",
            "--json",
            "--follow",
            "-n",
            "0",
            "--type",
            "hook_nonzero_exit",
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()
        .expect("start log --follow");
    let stdout = child.stdout.take().expect("stdout is piped");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let _ = BufReader::new(stdout).read_line(&mut line);
        let _ = tx.send(line);
    });
    // Give it a moment to read to the end, then append a second failure.
    std::thread::sleep(Duration::from_millis(500));
    ws.fire("pre_tool_call", json!({"tool_name": "bash"}));
    let line = rx.recv_timeout(Duration::from_secs(20));
    let _ = child.kill();
    let _ = child.wait();
    let line = line.expect("log --follow printed the appended record");
    let record: Value = serde_json::from_str(&line).expect("a record");
    assert_eq!(record["hook"], "broken");
}

/// The `hook_decision` records of the workspace's log.
fn decisions(ws: &Ws) -> Vec<Value> {
    ws.events_of("hook_decision")
}

/// A pre_tool_call payload of session `s-1` running `command` in bash.
fn bash(command: &str) -> Value {
    json!({"session_id": "s-1", "tool_name": "bash", "tool_input": {"command": command}})
}

#[test]
fn a_shell_block_is_one_line_naming_hook_reason_and_session() {
    let ws = Ws::new()
        .master(true)
        .sh(
            "hooks/no-rm.sh",
            r#"cat > /dev/null; echo '{"decision": "block", "reason": "no rm here"}'"#,
        )
        .hook(
            Entry::new("pre_tool_call", "hooks/no-rm.sh")
                .name("no-rm")
                .matcher("rm "),
        )
        .approve_all();
    // A plain continue (the matcher misses) leaves no line.
    ws.fire("pre_tool_call", bash("ls"));
    assert!(decisions(&ws).is_empty(), "{:?}", ws.events());

    assert_eq!(
        ws.fire("pre_tool_call", bash("rm -rf build")).decision(),
        "block"
    );
    let logged = decisions(&ws);
    assert_eq!(logged.len(), 1, "{logged:?}");
    let line = &logged[0];
    assert_eq!(line["decision"], "block");
    assert_eq!(line["event"], "pre_tool_call");
    assert_eq!(line["hook"], "no-rm");
    assert_eq!(line["source"], "config/shell_hooks.yaml");
    assert_eq!(line["detail"], "no rm here");
    assert_eq!(line["session_id"], "s-1");
    assert!(
        line["ts"].as_str().is_some_and(|t| t.ends_with('Z')),
        "{line}"
    );
}

#[test]
fn a_built_in_block_is_logged() {
    let ws = Ws::new().master(true).file(
        "config/shell_hooks.yaml",
        "hooks:\n  - event: pre_tool_call\n    type: builtin\n    name: security_guard\n",
    );
    ws.approve("builtin:security_guard");
    assert_eq!(
        ws.fire("pre_tool_call", bash("rm -rf /")).decision(),
        "block"
    );
    let logged = decisions(&ws);
    assert_eq!(logged.len(), 1, "{logged:?}");
    assert_eq!(logged[0]["hook"], "security_guard");
    assert_eq!(logged[0]["decision"], "block");
    assert!(
        logged[0]["detail"]
            .as_str()
            .is_some_and(|d| d.contains("rm -rf /")),
        "{}",
        logged[0]
    );
}

#[test]
fn asks_rewrites_stops_and_fail_closed_blocks_are_logged() {
    let ws = Ws::new()
        .master(true)
        .sh(
            "hooks/ask.sh",
            r#"cat > /dev/null; echo '{"decision": "ask", "reason": "deploying?"}'"#,
        )
        .sh(
            "hooks/quiet.sh",
            r#"cat > /dev/null; echo '{"tool_input": {"command": "ls -la"}}'"#,
        )
        .sh(
            "hooks/same.sh",
            r#"cat > /dev/null; echo '{"tool_input": {"command": "ls -la"}}'"#,
        )
        .sh("hooks/crash.sh", "cat > /dev/null; exit 3")
        // A Claude Code hook: its `continue: false` ends the turn and blocks the call.
        .sh(
            ".claude/hooks/stop.sh",
            r#"grep -q halt && echo '{"continue": false, "stopReason": "out of budget"}'; exit 0"#,
        )
        .file(
            ".claude/settings.json",
            &json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
                {"type": "command", "command": ".claude/hooks/stop.sh"}
            ]}]}})
            .to_string(),
        )
        .hook(
            Entry::new("pre_tool_call", "hooks/ask.sh")
                .name("ask")
                .matcher("deploy"),
        )
        .hook(
            Entry::new("pre_tool_call", "hooks/quiet.sh")
                .name("quiet")
                .matcher("^ls$"),
        )
        // Gives the value the command already has: no change, so no line.
        .hook(
            Entry::new("pre_tool_call", "hooks/same.sh")
                .name("same")
                .matcher("^ls"),
        )
        .hook(
            Entry::new("on_outbound_message", "hooks/crash.sh")
                .name("crash")
                .on_error_block(),
        )
        .approve_all();
    ws.approve(".claude/hooks/stop.sh");

    let fired = ws.fire("pre_tool_call", bash("deploy prod"));
    assert_eq!(fired.decision(), "ask");
    let fired = ws.fire("pre_tool_call", bash("ls"));
    assert_eq!(fired.outcome["payload"]["tool_input"]["command"], "ls -la");
    let fired = ws.fire(
        "pre_tool_call",
        json!({"tool_name": "bash", "tool_input": {"command": "halt"}}),
    );
    assert_eq!(fired.outcome["stop"]["reason"], "out of budget");
    let fired = ws.fire("on_outbound_message", json!({"notification": "done"}));
    assert_eq!(fired.decision(), "block");

    let logged = decisions(&ws);
    let seen: Vec<(&str, &str)> = logged
        .iter()
        .map(|r| {
            (
                r["hook"].as_str().unwrap_or("?"),
                r["decision"].as_str().unwrap_or("?"),
            )
        })
        .collect();
    assert_eq!(
        seen,
        vec![
            ("ask", "ask"),
            ("quiet", "rewrite"),
            (".claude/hooks/stop.sh", "block"),
            (".claude/hooks/stop.sh", "stop"),
            ("crash", "block")
        ],
        "{logged:?}"
    );
    assert_eq!(logged[0]["detail"], "deploying?");
    assert_eq!(logged[1]["fields"], json!(["tool_input"]));
    assert_eq!(logged[3]["detail"], "out of budget");
    assert_eq!(logged[3]["source"], ".claude/settings.json");
    // The session is named only when the payload has one.
    assert!(logged[3].get("session_id").is_none(), "{}", logged[3]);
    assert!(
        logged[4]["detail"]
            .as_str()
            .is_some_and(|d| d.contains("on_error: block")),
        "{}",
        logged[4]
    );
}

#[test]
fn a_hook_skipped_for_trust_is_logged_with_why() {
    let ws = Ws::new()
        .master(true)
        .sh("hooks/guard.sh", "cat > /dev/null")
        .hook(Entry::new("pre_tool_call", "hooks/guard.sh").name("guard"));
    ws.fire("pre_tool_call", bash("ls"));
    let ws = ws.master(false);
    ws.approve("hooks/guard.sh");
    ws.fire("pre_tool_call", bash("ls"));
    let logged = decisions(&ws);
    let why: Vec<&Value> = logged.iter().map(|r| &r["trust"]).collect();
    assert_eq!(
        why,
        vec![&json!("not approved"), &json!("master switch off")],
        "{logged:?}"
    );
    assert!(logged.iter().all(|r| r["decision"] == "skip_trust"));
    assert!(
        logged[0]["detail"]
            .as_str()
            .is_some_and(|d| d.contains("approve hooks/guard.sh")),
        "{}",
        logged[0]
    );
}

#[test]
fn a_redo_block_the_cap_overrules_says_so() {
    let ws = Ws::new()
        .master(true)
        .sh(
            "hooks/redo.sh",
            r#"cat > /dev/null; echo '{"decision": "block", "reason": "run the tests"}'"#,
        )
        .hook(Entry::new("on_stop", "hooks/redo.sh").name("redo"))
        .approve_all();
    let fired = ws.fire("on_stop", json!({"response": "done", "redo_count": 3}));
    assert_eq!(fired.decision(), "continue");
    let logged = decisions(&ws);
    assert_eq!(logged.len(), 1, "{logged:?}");
    assert_eq!(logged[0]["decision"], "block");
    assert!(
        logged[0]["overruled"]
            .as_str()
            .is_some_and(|o| o.contains("redo cap")),
        "{}",
        logged[0]
    );
}

/// A workspace whose `no-rm` hook blocks `rm`, for the entry points other than `fire`.
fn blocking_ws() -> Ws {
    Ws::new()
        .master(true)
        .sh(
            "hooks/no-rm.sh",
            r#"cat > /dev/null; echo '{"decision": "block", "reason": "no rm here"}'"#,
        )
        .hook(
            Entry::new("pre_tool_call", "hooks/no-rm.sh")
                .name("no-rm")
                .matcher("rm "),
        )
        .approve_all()
}

#[test]
fn a_block_in_a_bridged_claude_code_session_is_logged() {
    let ws = blocking_ws();
    let input = json!({
        "hook_event_name": "PreToolUse",
        "session_id": "claude-1",
        "tool_name": "Bash",
        "tool_input": {"command": "rm -rf build"},
    });
    let out = support::run_piped(ws.command(&["claude-hook"]), input.to_string().as_bytes());
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("deny"),
        "{out:?}"
    );
    let logged = decisions(&ws);
    assert_eq!(logged.len(), 1, "{logged:?}");
    assert_eq!(logged[0]["hook"], "no-rm");
    assert_eq!(logged[0]["session_id"], "claude-1");
}

#[test]
fn a_block_through_the_sidecar_is_logged() {
    let ws = blocking_ws();
    let server = support::Server::start(&ws);
    let (status, outcome) = server.post("/v1/events/pre_tool_call", bash("rm -rf build"));
    assert_eq!(status, 200, "{outcome}");
    assert_eq!(outcome["decision"], "block");
    drop(server);
    let logged = decisions(&ws);
    assert_eq!(logged.len(), 1, "{logged:?}");
    assert_eq!(logged[0]["hook"], "no-rm");
}

#[test]
fn the_guard_command_logs_its_block_once() {
    let claude_input = json!({
        "hook_event_name": "PreToolUse",
        "session_id": "claude-2",
        "tool_name": "Bash",
        "tool_input": {"command": "rm -rf /"},
    });
    // Called by Claude Code directly: the guard's dispatch logs the block.
    let ws = Ws::new();
    let out = support::run_piped(
        ws.command(&["guard", "security_guard", "--format", "claude"]),
        claude_input.to_string().as_bytes(),
    );
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("deny"),
        "{out:?}"
    );
    let logged = decisions(&ws);
    assert_eq!(logged.len(), 1, "{logged:?}");
    assert_eq!(logged[0]["hook"], "security_guard");
    assert_eq!(logged[0]["session_id"], "claude-2");

    // Run as a hook by agent-hooks: the dispatch that ran it logs the block, the guard does not.
    let command = format!("{} guard security_guard --format claude", support::BIN);
    let ws = Ws::new()
        .master(true)
        .hook(Entry::new("pre_tool_call", &command).name("guard-cmd"))
        .approve_all();
    assert_eq!(
        ws.fire("pre_tool_call", bash("rm -rf /")).decision(),
        "block"
    );
    let logged = decisions(&ws);
    assert_eq!(logged.len(), 1, "{logged:?}");
    assert_eq!(logged[0]["hook"], "guard-cmd");
}

#[test]
fn log_filters_by_decision_and_reads_skill_blocks_as_blocks() {
    let ws = blocking_ws()
        .file(
            "skills/s/hooks.json",
            &json!({"hooks": [{
                "name": "skill-block",
                "command": r#"sed 's/}$/,"_block":{"reason":"skill says no","result":"nope"}}/'"#,
                "events": ["pre_tool_call"],
            }]})
            .to_string(),
        )
        .sh("hooks/unapproved.sh", "cat > /dev/null");
    ws.fire("pre_tool_call", bash("rm -rf build"));
    ws.fire("pre_tool_call", bash("ls"));
    let text = stdout(&ws, &["log", "--decision", "block"]);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert!(
        lines[0].contains("block") && lines[0].contains("no-rm") && lines[0].contains("no rm here"),
        "{text}"
    );
    // The skill hook's block, in its source runtime's record shape, reads the same way.
    assert!(
        lines[1].contains("pre_tool_call")
            && lines[1].contains("skill-block")
            && lines[1].contains("skill says no"),
        "{text}"
    );
    assert_eq!(
        stdout(&ws, &["log", "--json", "--decision", "ask"])
            .lines()
            .count(),
        0
    );
    assert_eq!(
        stdout(
            &ws,
            &[
                "log",
                "--json",
                "--decision",
                "block",
                "--hook",
                "skill-block"
            ]
        )
        .lines()
        .count(),
        1
    );
    let out = ws.run(&["log", "--decision", "maybe"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("block"));
}

#[test]
fn decisions_live_in_the_runtimes_own_file_and_log_merges_them_in_time_order() {
    let ws = Ws::new()
        .master(true)
        .sh(
            "hooks/no-rm.sh",
            r#"cat > /dev/null; echo noted >&2; echo '{"decision": "block", "reason": "no rm here"}'"#,
        )
        .hook(Entry::new("pre_tool_call", "hooks/no-rm.sh").name("no-rm"))
        .approve_all();
    ws.fire("pre_tool_call", bash("rm -rf a"));
    ws.fire("pre_tool_call", bash("rm -rf b"));
    // The workspace's log has the diagnostics only; the decisions are the runtime's.
    let diagnostics = ws.read("logs/events.jsonl");
    assert!(!diagnostics.contains("hook_decision"), "{diagnostics}");
    assert_eq!(diagnostics.lines().count(), 2, "{diagnostics}");
    let own = ws.read_runtime("hook-decisions.jsonl");
    assert_eq!(own.lines().count(), 2, "{own}");
    // `log` reads both: each call's stderr, then its block, in the order they happened.
    let kinds: Vec<String> = stdout(&ws, &["log", "--json"])
        .lines()
        .map(|l| {
            let record: Value = serde_json::from_str(l).expect("a record");
            record["decision"]
                .as_str()
                .or(record["type"].as_str())
                .unwrap_or_default()
                .to_owned()
        })
        .collect();
    assert_eq!(kinds, ["hook_stderr", "block", "hook_stderr", "block"]);
    let blocks = stdout(&ws, &["log", "--decision", "block", "--json"]);
    assert_eq!(blocks.lines().count(), 2, "{blocks}");
}
