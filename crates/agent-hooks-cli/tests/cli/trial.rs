//! `agent-hooks test <hook>`: one hook on one payload from stdin, explained — the dialect that
//! read it, how it ended, what it printed, the parsed answer, what the event admits and
//! ignores, the trust state — with the verdict as the exit status, and the trust gate kept.

use crate::support;

use std::process::Output;

use serde_json::{Value, json};
use support::{Entry, Ws};

/// `agent-hooks test <args>` with `payload` on stdin.
fn test(ws: &Ws, args: &[&str], payload: &Value) -> Output {
    let mut all = vec!["test"];
    all.extend_from_slice(args);
    support::run_piped(ws.command(&all), payload.to_string().as_bytes())
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn rm_payload() -> Value {
    json!({"session_id": "t-1", "tool_name": "bash", "tool_input": {"command": "rm -rf build"}})
}

/// A workspace whose approved `no-rm` hook blocks `rm` and records that it ran.
fn blocking_ws() -> Ws {
    Ws::new()
        .master(true)
        .sh(
            "hooks/no-rm.sh",
            r#"cat > /dev/null; touch "$AGENT_HOOKS_WORKSPACE/ran"; echo "checked" >&2
echo '{"decision": "block", "reason": "no rm here", "add_warning": "careful"}'"#,
        )
        .hook(
            Entry::new("pre_tool_call", "hooks/no-rm.sh")
                .name("no-rm")
                .matcher("rm "),
        )
        .approve_all()
}

#[test]
fn test_explains_a_block_and_exits_1() {
    let ws = blocking_ws();
    let out = test(&ws, &["no-rm", "--event", "pre_tool_call"], &rm_payload());
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}{}", stderr(&out));
    for expected in [
        "no-rm (config/shell_hooks.yaml)",
        "dialect    decision protocol",
        "trust      approved for pre_tool_call",
        "exit 0 after",
        "stderr     checked",
        r#""decision":"block""#,
        "answer     decision JSON",
        r#""reason":"no rm here""#,
        "admitted   block: no rm here; show the user: \"careful\"",
        "verdict    block (exit 1)",
    ] {
        assert!(text.contains(expected), "no {expected:?} in:\n{text}");
    }
    // A trial: nothing logged as a decision.
    assert!(
        ws.events_of("hook_decision").is_empty(),
        "{:?}",
        ws.events()
    );

    // By its command as well as its name, the event from the payload; JSON for programs.
    let mut payload = rm_payload();
    payload["event"] = json!("pre_tool_call");
    let out = test(&ws, &["hooks/no-rm.sh", "--json"], &payload);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let report: Value = serde_json::from_slice(&out.stdout).expect("a JSON report");
    assert_eq!(report["verdict"], "block");
    assert_eq!(report["trust"]["state"], "approved");
    assert_eq!(report["run"]["exit_code"], 0);
    assert_eq!(report["answer"]["reason"], "no rm here");
}

#[test]
fn test_says_what_the_event_ignores_and_when_the_matcher_misses() {
    let ws = Ws::new()
        .master(true)
        .sh(
            "hooks/late.sh",
            r#"cat > /dev/null; echo '{"decision": "block", "reason": "too late"}'"#,
        )
        .hook(
            Entry::new("post_tool_call", "hooks/late.sh")
                .name("late")
                .matcher("deploy"),
        )
        .approve_all();
    let out = test(
        &ws,
        &["late"],
        &json!({"tool_name": "bash", "tool_result": "ok"}),
    );
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.contains("ignored    decision \"block\" (not allowed on post_tool_call)"),
        "{text}"
    );
    assert!(text.contains("admitted   nothing"), "{text}");
    assert!(
        text.contains("matcher    does not match this payload"),
        "{text}"
    );
    assert!(text.contains("verdict    continue (exit 0)"), "{text}");
}

#[test]
fn test_runs_an_unapproved_hook_only_when_told_to() {
    let ws = Ws::new()
        .master(true)
        .sh(
            "hooks/new.sh",
            r#"cat > /dev/null; touch "$AGENT_HOOKS_WORKSPACE/ran""#,
        )
        .hook(Entry::new("pre_tool_call", "hooks/new.sh").name("new"));
    let out = test(&ws, &["new"], &rm_payload());
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(5), "{text}");
    assert!(text.contains("not approved for pre_tool_call"), "{text}");
    assert!(text.contains("agent-hooks approve hooks/new.sh"), "{text}");
    assert!(text.contains("--run-unapproved"), "{text}");
    assert!(!ws.exists("ran"), "an unapproved hook ran");

    let out = test(&ws, &["new", "--run-unapproved"], &rm_payload());
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(ws.exists("ran"));
    assert!(
        text.contains("run although the trust gate would refuse it"),
        "{text}"
    );

    // Edited after approval: refused again, with the reason.
    ws.approve("hooks/new.sh");
    let ws = ws.sh("hooks/new.sh", "cat > /dev/null; exit 0");
    let out = test(&ws, &["new"], &rm_payload());
    assert_eq!(out.status.code(), Some(5), "{}", stdout(&out));
    assert!(
        stdout(&out).contains("changed since approval"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn test_reads_claude_code_hooks_and_reports_failures() {
    let ws = Ws::new()
        .master(true)
        .sh(
            ".claude/hooks/deny.sh",
            "cat > /dev/null; echo 'not on main' >&2; exit 2",
        )
        .file(
            ".claude/settings.json",
            &json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
                {"type": "command", "command": ".claude/hooks/deny.sh"}
            ]}]}})
            .to_string(),
        )
        .sh("hooks/crash.sh", "cat > /dev/null; echo boom >&2; exit 3")
        .hook(Entry::new("on_user_message", "hooks/crash.sh").name("crash"))
        .approve_all();
    ws.approve(".claude/hooks/deny.sh");

    let out = test(&ws, &[".claude/hooks/deny.sh"], &rm_payload());
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("dialect    Claude Code"), "{text}");
    assert!(text.contains("exit 2 after"), "{text}");
    assert!(text.contains("block: not on main"), "{text}");

    let out = test(&ws, &["crash"], &json!({"message": "hi"}));
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(4), "{text}");
    assert!(text.contains("exit 3 after"), "{text}");
    assert!(text.contains("stderr     boom"), "{text}");
    assert!(text.contains("problem"), "{text}");
}

#[test]
fn a_built_in_guard_under_test_keeps_no_records() {
    let ws = Ws::new().master(true).file(
        "config/shell_hooks.yaml",
        "hooks:\n  - event: post_tool_call\n    type: builtin\n    name: tool_audit_log\n  \
         - event: pre_tool_call\n    type: builtin\n    name: security_guard\n",
    );
    ws.approve("builtin:tool_audit_log");
    ws.approve("builtin:security_guard");
    let out = test(
        &ws,
        &["builtin:security_guard"],
        &json!({"tool_name": "bash", "tool_input": {"command": "rm -rf /"}}),
    );
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let out = test(
        &ws,
        &["tool_audit_log"],
        &json!({"tool_name": "bash", "tool_result": "ok"}),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(
        !ws.exists("logs/tool_audit.jsonl"),
        "the trial wrote an audit line"
    );
}

#[test]
fn test_usage_errors_exit_2_and_say_what_to_do() {
    let ws = blocking_ws()
        .sh("hooks/both.sh", "cat > /dev/null")
        .hook(Entry::new("pre_tool_call", "hooks/both.sh").name("both"))
        .hook(Entry::new("on_stop", "hooks/both.sh").name("both"));
    let cases: [(&[&str], Value, &str); 5] = [
        (
            &["nobody"],
            rm_payload(),
            "no hook \"nobody\" in this workspace (known: no-rm",
        ),
        (
            &["both"],
            rm_payload(),
            "declared for pre_tool_call, on_stop: say which with --event",
        ),
        (
            &["no-rm", "--event", "on_stop"],
            rm_payload(),
            "not declared for on_stop",
        ),
        (
            &["no-rm", "--event", "PreToolUse"],
            rm_payload(),
            "pre_tool_call",
        ),
        (&["no-rm"], json!([1]), "must be a JSON object"),
    ];
    for (args, payload, expected) in cases {
        let out = test(&ws, args, &payload);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(
            stderr(&out).contains(expected),
            "{args:?}: {}",
            stderr(&out)
        );
    }
    assert!(!ws.exists("ran"));
}
