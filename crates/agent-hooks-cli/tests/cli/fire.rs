//! The real `agent-hooks` binary against real hook processes in throwaway workspaces: one test
//! per behaviour the foundation promises (the acceptance list of the engine's first issue).
//! Hooks are small Python 3 and POSIX sh scripts written into each workspace.

use crate::support;

use std::collections::BTreeSet;
use std::time::Duration;

use serde_json::{Value, json};
use support::{Entry, Fired, Ws};

/// Wall-clock ceiling for things that must return "about when the timeout says" (1 s). Generous:
/// the machine running the tests may be loaded.
const PROMPT: Duration = Duration::from_secs(5);

fn bash(command: &str) -> Value {
    json!({"tool_name": "bash", "tool_input": {"command": command}})
}

/// A workspace with the master switch on and one approved sh hook on `event` that prints
/// `answer` (read from a file, so no shell quoting can alter it).
fn answering(event: &str, answer: &str) -> Ws {
    Ws::new()
        .master(true)
        .file("answer.json", answer)
        .sh(
            "hooks/answer.sh",
            r#"
            cat > /dev/null
            cat "$AGENT_HOOKS_WORKSPACE/answer.json"
            "#,
        )
        .hook(Entry::new(event, "hooks/answer.sh").name("answer"))
        .approve_all()
}

// ---------------------------------------------------------------------------------------------
// A guard, and chains of rewriting hooks

const GUARD: &str = r#"
    case "$(cat)" in
      *'rm -rf /'*) echo '{"decision": "block", "reason": "refusing to delete the filesystem root"}' ;;
    esac
"#;

fn guarded() -> Ws {
    support::guarded_by(GUARD)
}

#[test]
fn guard_blocks_rm_rf_root_with_its_reason() {
    let fired = guarded().fire("pre_tool_call", bash("rm -rf /"));
    assert_eq!(fired.decision(), "block");
    assert_eq!(fired.reason(), "refusing to delete the filesystem root");
    assert_eq!(fired.status("guard"), "blocked");
}

#[test]
fn a_reason_in_the_seeds_shape_is_split_for_display() {
    let ws = answering(
        "pre_tool_call",
        r#"{"decision": "block", "reason": "[security] Blocked (recursive force-delete): rm -rf /"}"#,
    );
    let fired = ws.fire("pre_tool_call", bash("rm -rf /"));
    assert_eq!(
        fired.outcome["display"],
        json!({"summary": "Blocked (recursive force-delete)", "evidence": "rm -rf /"})
    );
    // A short tail after the colon reads as part of the sentence: no evidence box.
    let ws = answering(
        "pre_tool_call",
        r#"{"decision": "block", "reason": "[policy] not allowed: today"}"#,
    );
    let fired = ws.fire("pre_tool_call", bash("ls"));
    assert_eq!(
        fired.outcome["display"],
        json!({"summary": "Not allowed: today", "evidence": null})
    );
}

#[test]
fn the_builtin_guard_writes_its_reason_for_display() {
    let ws = Ws::new().master(true).file(
        "config/shell_hooks.yaml",
        "hooks:\n  - event: pre_tool_call\n    type: builtin\n    name: security_guard\n",
    );
    ws.approve("builtin:security_guard");
    let fired = ws.fire("pre_tool_call", bash("rm -rf /"));
    assert_eq!(fired.decision(), "block");
    assert!(
        fired.reason().starts_with("[security] Blocked ("),
        "{}",
        fired.reason()
    );
    let display = &fired.outcome["display"];
    assert_eq!(display["evidence"], "rm -rf /", "{display}");
    let summary = display["summary"].as_str().unwrap_or_default();
    assert!(
        summary.starts_with("Blocked (recursive force-delete"),
        "{summary}"
    );
    // No reason, nothing to display.
    let fired = ws.fire("pre_tool_call", bash("ls -la"));
    assert_eq!(fired.outcome["display"], Value::Null);
}

#[test]
fn guard_lets_ls_through() {
    let fired = guarded().fire("pre_tool_call", bash("ls -la"));
    assert_eq!(fired.decision(), "continue");
    assert_eq!(fired.outcome["reason"], Value::Null);
    assert_eq!(fired.status("guard"), "noop");
    assert_eq!(fired.outcome["payload"]["tool_input"]["command"], "ls -la");
}

#[cfg_attr(
    not(have_python3),
    ignore = "needs python3 on PATH (.ci/run installs it)"
)]
#[test]
fn second_hook_sees_the_first_hooks_rewrite() {
    // The second hook blocks only on text that exists after the first hook's rewrite, so a
    // block proves it was given the rewritten payload.
    let ws = Ws::new()
        .master(true)
        .py(
            "hooks/tag.py",
            r#"
            import json, sys
            command = json.load(sys.stdin)["tool_input"]["command"]
            print(json.dumps({"tool_input": {"command": command + " <tagged-by-first>"}}))
            "#,
        )
        .py(
            "hooks/check.py",
            r#"
            import json, sys
            command = json.load(sys.stdin)["tool_input"]["command"]
            if "<tagged-by-first>" in command:
                print(json.dumps({"decision": "block", "reason": "second saw: " + command}))
            "#,
        )
        .hook(Entry::new("pre_tool_call", "hooks/tag.py").name("first"))
        .hook(Entry::new("pre_tool_call", "hooks/check.py").name("second"))
        .approve_all();
    let fired = ws.fire("pre_tool_call", bash("ls"));
    assert_eq!(fired.status("first"), "ok");
    assert_eq!(fired.status("second"), "blocked");
    assert_eq!(fired.decision(), "block");
    assert_eq!(fired.reason(), "second saw: ls <tagged-by-first>");
    assert_eq!(
        fired.outcome["payload"]["tool_input"]["command"],
        "ls <tagged-by-first>"
    );
}

#[cfg_attr(
    not(have_python3),
    ignore = "needs python3 on PATH (.ci/run installs it)"
)]
#[test]
fn rewrite_adding_a_key_is_dropped_and_logged() {
    let ws = Ws::new()
        .master(true)
        .py(
            "hooks/widen.py",
            r#"
            import json, sys
            json.load(sys.stdin)
            print(json.dumps({"tool_input": {"command": "ls -l", "sudo": True}}))
            "#,
        )
        .hook(Entry::new("pre_tool_call", "hooks/widen.py").name("widen"))
        .approve_all();
    let fired = ws.fire("pre_tool_call", bash("ls"));
    assert_eq!(fired.decision(), "continue");
    assert_eq!(
        fired.outcome["payload"]["tool_input"],
        json!({"command": "ls -l"}),
        "the existing key changes, the new one is dropped"
    );
    let logged = ws.events_of("hook_invalid_mutation");
    assert_eq!(logged.len(), 1, "{logged:?}");
    assert_eq!(logged[0]["hook"], "widen");
    assert!(
        logged[0]["detail"]
            .as_str()
            .unwrap_or_default()
            .contains("sudo"),
        "{logged:?}"
    );
}

#[test]
fn first_block_ends_the_chain() {
    let ws = Ws::new()
        .master(true)
        .sh("hooks/guard.sh", GUARD)
        .sh(
            "hooks/after.sh",
            r#"
            touch "$AGENT_HOOKS_WORKSPACE/after-ran"
            "#,
        )
        .hook(Entry::new("pre_tool_call", "hooks/guard.sh").name("guard"))
        .hook(Entry::new("pre_tool_call", "hooks/after.sh").name("after"))
        .approve_all();
    let fired = ws.fire("pre_tool_call", bash("rm -rf /"));
    assert_eq!(fired.decision(), "block");
    assert_eq!(fired.status("after"), "skipped");
    assert!(!ws.exists("after-ran"), "a hook after a block must not run");
}

// ---------------------------------------------------------------------------------------------
// `docs/protocol.md`: Claude Code answers from a shell hook

#[test]
fn claude_permission_deny_blocks_with_its_reason() {
    let fired = answering(
        "pre_tool_call",
        r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "not in this repository"}}"#,
    )
    .fire("pre_tool_call", bash("git push --force"));
    assert_eq!(fired.decision(), "block");
    assert_eq!(fired.reason(), "not in this repository");
    assert_eq!(fired.status("answer"), "blocked");
}

#[test]
fn claude_additional_context_becomes_context() {
    let fired = answering(
        "on_user_message",
        r#"{"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "the repository uses tabs"}}"#,
    )
    .fire("on_user_message", json!({"message": "fix the indentation"}));
    assert_eq!(fired.decision(), "continue");
    assert_eq!(fired.context(), vec!["the repository uses tabs"]);
    assert!(fired.warnings().is_empty());
}

#[test]
fn claude_updated_input_rewrites_tool_input() {
    let fired = answering(
        "pre_tool_call",
        r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow", "updatedInput": {"command": "ls -la --color=never"}}}"#,
    )
    .fire("pre_tool_call", bash("ls -la"));
    assert_eq!(fired.decision(), "continue");
    assert_eq!(
        fired.outcome["payload"]["tool_input"],
        json!({"command": "ls -la --color=never"})
    );
    assert_eq!(fired.status("answer"), "ok");
}

#[test]
fn claude_continue_false_blocks_with_stop_reason() {
    let fired = answering(
        "pre_tool_call",
        r#"{"continue": false, "stopReason": "the build is red"}"#,
    )
    .fire("pre_tool_call", bash("make deploy"));
    assert_eq!(fired.decision(), "block");
    assert_eq!(fired.reason(), "the build is red");
}

#[test]
fn claude_system_message_becomes_a_warning() {
    let fired = answering("pre_tool_call", r#"{"systemMessage": "this tool is slow"}"#)
        .fire("pre_tool_call", bash("ls"));
    assert_eq!(fired.decision(), "continue");
    assert_eq!(fired.warnings(), vec!["this tool is slow"]);
    assert!(
        fired.context().is_empty(),
        "a warning never reaches the model"
    );
}

#[test]
fn claude_suppress_output_changes_nothing() {
    let ws = answering("pre_tool_call", r#"{"suppressOutput": true}"#);
    let fired = ws.fire("pre_tool_call", bash("ls"));
    assert_eq!(fired.decision(), "continue");
    assert_eq!(fired.status("answer"), "noop");
    assert_eq!(fired.outcome["payload"], bash("ls"));
    assert!(fired.warnings().is_empty() && fired.context().is_empty());
    assert!(
        ws.events().is_empty(),
        "suppressOutput is not an error: {:?}",
        ws.events()
    );
}

#[test]
fn exit_2_blocks_with_stderr_as_the_reason() {
    let ws = Ws::new()
        .master(true)
        .sh(
            "hooks/exit2.sh",
            r#"
            cat > /dev/null
            echo "rm is forbidden here" >&2
            exit 2
            "#,
        )
        .hook(Entry::new("pre_tool_call", "hooks/exit2.sh").name("exit2"))
        .approve_all();
    let fired = ws.fire("pre_tool_call", bash("rm notes.txt"));
    assert_eq!(fired.decision(), "block");
    assert_eq!(fired.reason(), "rm is forbidden here");
    assert_eq!(fired.status("exit2"), "blocked");
}

#[test]
fn top_level_decision_block_blocks_with_its_reason() {
    let fired = answering(
        "on_stop",
        r#"{"decision": "block", "reason": "the tests have not been run"}"#,
    )
    .fire("on_stop", json!({"response": "done", "redo_count": 0}));
    assert_eq!(fired.decision(), "block");
    assert_eq!(fired.reason(), "the tests have not been run");
}

#[test]
fn claude_permission_ask_becomes_ask() {
    let fired = answering(
        "pre_tool_call",
        r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask", "permissionDecisionReason": "pushing to main"}}"#,
    )
    .fire("pre_tool_call", bash("git push origin main"));
    assert_eq!(fired.decision(), "ask");
    assert_eq!(fired.reason(), "pushing to main");
}

#[test]
fn legacy_decision_approve_is_continue() {
    let fired =
        answering("pre_tool_call", r#"{"decision": "approve"}"#).fire("pre_tool_call", bash("ls"));
    assert_eq!(fired.decision(), "continue");
    assert_eq!(fired.outcome["reason"], Value::Null);
    assert_eq!(fired.status("answer"), "noop");
}

// ---------------------------------------------------------------------------------------------
// Failures: open by default, closed with `on_error: block`

/// A way for a hook to fail: what to put in the workspace and how to declare it.
type Failing = fn(Ws) -> (Ws, Entry);

fn not_executable(ws: Ws) -> (Ws, Entry) {
    let ws = ws.file("hooks/plain.sh", "#!/bin/sh\necho '{}'\n");
    support::set_mode(&ws.path("hooks/plain.sh"), 0o644);
    (ws, Entry::new("pre_tool_call", "hooks/plain.sh"))
}

fn exit_1(ws: Ws) -> (Ws, Entry) {
    let ws = ws.sh(
        "hooks/exit1.sh",
        "cat > /dev/null\necho 'something broke' >&2\nexit 1\n",
    );
    (ws, Entry::new("pre_tool_call", "hooks/exit1.sh"))
}

fn times_out(ws: Ws) -> (Ws, Entry) {
    let command = format!("{} sleep 30", support::misbehave());
    (ws, Entry::new("pre_tool_call", &command).timeout(1))
}

fn prints_non_json(ws: Ws) -> (Ws, Entry) {
    let ws = ws.sh(
        "hooks/chatty.sh",
        "cat > /dev/null\necho 'all good, carry on'\n",
    );
    (ws, Entry::new("pre_tool_call", "hooks/chatty.sh"))
}

fn prints_an_array(ws: Ws) -> (Ws, Entry) {
    let ws = ws.sh("hooks/array.sh", "cat > /dev/null\necho '[1, 2, 3]'\n");
    (ws, Entry::new("pre_tool_call", "hooks/array.sh"))
}

fn prints_5_mib(ws: Ws) -> (Ws, Entry) {
    // A well-formed object: only its size makes it unusable.
    let command = format!("{} flood {}", support::misbehave(), 5 * 1024 * 1024);
    (ws, Entry::new("pre_tool_call", &command))
}

fn prints_invalid_utf8(ws: Ws) -> (Ws, Entry) {
    let ws = ws.sh(
        "hooks/latin1.sh",
        "cat > /dev/null\nprintf '{\"reason\": \"caf\\351\"}\\n'\n",
    );
    (ws, Entry::new("pre_tool_call", "hooks/latin1.sh"))
}

fn with_failing_hook(failing: Failing, on_error_block: bool) -> Ws {
    let (ws, entry) = failing(Ws::new().master(true));
    let entry = entry.name("fragile");
    let entry = if on_error_block {
        entry.on_error_block()
    } else {
        entry
    };
    ws.hook(entry).approve_all()
}

/// The hook fails, the action proceeds, the outcome and the log both say what happened.
fn fails_open(failing: Failing, status: &str, log_type: &str) {
    let ws = with_failing_hook(failing, false);
    let fired = ws.fire("pre_tool_call", bash("ls"));
    assert_eq!(fired.decision(), "continue", "{}", fired.outcome);
    assert_eq!(fired.status("fragile"), status, "{}", fired.outcome);
    assert!(
        !fired.detail("fragile").is_empty(),
        "a failure says why: {}",
        fired.outcome
    );
    let logged = ws.events_of(log_type);
    assert_eq!(
        logged.len(),
        1,
        "one {log_type} line expected: {:?}",
        ws.events()
    );
    assert_eq!(logged[0]["hook"], "fragile");
    assert_eq!(logged[0]["event"], "pre_tool_call");
    assert_eq!(logged[0]["source"], "config/shell_hooks.yaml");
    assert!(logged[0]["ts"].is_string());
}

/// A script cannot be approved while it is missing (`docs/trust.md`); one removed after approval is
/// drift: skipped, logged and warned about, and never an attempt to run it.
#[test]
fn a_script_removed_after_approval_is_drift_not_an_exec_error() {
    let ws = Ws::new()
        .master(true)
        .sh("hooks/gone.sh", "echo '{}'")
        .hook(Entry::new("pre_tool_call", "hooks/gone.sh").name("fragile"))
        .approve_all();
    std::fs::remove_file(ws.path("hooks/gone.sh")).expect("rm");
    let fired = ws.fire("pre_tool_call", bash("ls"));
    assert_eq!(fired.decision(), "continue", "{}", fired.outcome);
    assert_eq!(fired.status("fragile"), "skipped", "{}", fired.outcome);
    assert_eq!(fired.detail("fragile"), "drift", "{}", fired.outcome);
    assert!(
        fired
            .warnings()
            .iter()
            .any(|w| w.contains("fragile") && w.contains("is gone")),
        "{}",
        fired.outcome
    );
    assert_eq!(ws.events_of("hook_drift").len(), 1, "{:?}", ws.events());
    assert!(ws.events_of("hook_exec_error").is_empty());
}

/// The same failure with `on_error: block` blocks, and the reason names the hook.
fn fails_closed(failing: Failing) {
    let ws = with_failing_hook(failing, true);
    let fired = ws.fire("pre_tool_call", bash("ls"));
    assert_eq!(fired.decision(), "block", "{}", fired.outcome);
    assert!(
        fired.reason().contains("fragile"),
        "the reason names the hook: {}",
        fired.reason()
    );
}

macro_rules! failure {
    ($failing:ident: $open:ident => $status:literal, $log:literal; $closed:ident) => {
        #[test]
        fn $open() {
            fails_open($failing, $status, $log);
        }

        #[test]
        fn $closed() {
            fails_closed($failing);
        }
    };
}

failure!(not_executable: non_executable_script_fails_open_as_error => "error", "hook_exec_error";
    non_executable_script_with_on_error_block_blocks);
failure!(exit_1: exit_1_fails_open_as_error => "error", "hook_nonzero_exit";
    exit_1_with_on_error_block_blocks);
failure!(times_out: timeout_fails_open_as_timeout => "timeout", "hook_timeout";
    timeout_with_on_error_block_blocks);
failure!(prints_non_json: non_json_stdout_fails_open_as_invalid_output => "invalid_output", "hook_invalid_json";
    non_json_stdout_with_on_error_block_blocks);
failure!(prints_an_array: json_array_fails_open_as_invalid_output => "invalid_output", "hook_invalid_format";
    json_array_with_on_error_block_blocks);
failure!(prints_5_mib: five_mib_of_stdout_fails_open_as_invalid_output => "invalid_output", "hook_invalid_output";
    five_mib_of_stdout_with_on_error_block_blocks);
failure!(prints_invalid_utf8: invalid_utf8_fails_open_as_invalid_output => "invalid_output", "hook_invalid_json";
    invalid_utf8_with_on_error_block_blocks);

// ---------------------------------------------------------------------------------------------
// Processes: timeouts kill the whole group, big payloads, concurrency

/// Reads a pid a hook wrote into the workspace.
fn pid_in(ws: &Ws, rel: &str) -> u32 {
    ws.read(rel)
        .trim()
        .parse()
        .unwrap_or_else(|e| panic!("{rel} does not hold a pid: {e}"))
}

fn assert_no_process_left(ws: &Ws) {
    let hook = pid_in(ws, "hook.pid");
    let grandchild = pid_in(ws, "grandchild.pid");
    assert!(
        support::eventually(Duration::from_secs(3), || !support::process_running(
            grandchild
        )),
        "the grandchild {grandchild} outlived the timeout"
    );
    assert!(
        support::eventually(Duration::from_secs(3), || {
            support::live_members_of_group(hook).is_empty()
        }),
        "processes of the hook's group are still running: {:?}",
        support::live_members_of_group(hook)
    );
}

/// An approved `pre_tool_call` hook with a 1 s timeout that records its pid, starts a
/// grandchild sleeping 1000 s holding its stdout (recording that pid too), then answers and
/// exits (`answer`) or waits for the grandchild (`hang`).
fn forking_hook(name: &str, then: &str) -> Ws {
    let command = format!("{} fork {then}", support::misbehave());
    Ws::new()
        .master(true)
        .hook(Entry::new("pre_tool_call", &command).name(name).timeout(1))
        .approve_all()
}

#[test]
fn grandchild_holding_stdout_is_killed_at_the_timeout() {
    // The hook answers and exits at once; the sleep it forked keeps the stdout pipe open.
    let ws = forking_hook("leaky", "answer");
    let fired = ws.fire("pre_tool_call", bash("ls"));
    assert!(
        fired.elapsed < PROMPT,
        "fire took {:?} with a 1 s timeout",
        fired.elapsed
    );
    assert_eq!(fired.decision(), "continue");
    assert_no_process_left(&ws);
    assert!(
        !ws.events_of("hook_timeout").is_empty(),
        "the left-behind process is reported: {:?}",
        ws.events()
    );
}

#[test]
fn hanging_hook_and_its_grandchild_are_killed_at_the_timeout() {
    let ws = forking_hook("hang", "hang");
    let fired = ws.fire("pre_tool_call", bash("ls"));
    assert!(
        fired.elapsed < PROMPT,
        "fire took {:?} with a 1 s timeout",
        fired.elapsed
    );
    assert_eq!(fired.status("hang"), "timeout");
    assert_no_process_left(&ws);
}

#[test]
fn sixteen_mib_payload_to_a_hook_that_never_reads_stdin() {
    let ws = Ws::new()
        .master(true)
        .sh(
            "hooks/deaf.sh",
            r#"
            echo '{"systemMessage": "answered without reading"}'
            "#,
        )
        .hook(
            Entry::new("pre_tool_call", "hooks/deaf.sh")
                .name("deaf")
                .timeout(60),
        )
        .approve_all();
    let mut payload = bash("cat big.txt");
    payload["blob"] = json!("a".repeat(16 * 1024 * 1024));
    let fired = ws.fire("pre_tool_call", payload);
    assert_eq!(fired.status("deaf"), "ok", "{}", fired.hook("deaf"));
    assert_eq!(fired.warnings(), vec!["answered without reading"]);
    assert!(
        fired.elapsed < Duration::from_secs(30),
        "a hook that ignores its stdin must not hold the dispatch to its 60 s timeout ({:?})",
        fired.elapsed
    );
    assert!(
        ws.events_of("hook_exec_error").is_empty(),
        "a broken pipe is not an error"
    );
}

#[test]
fn a_hook_starts_with_sigpipe_at_its_default() {
    // agent-hooks ignores SIGPIPE itself (a hook that stops reading must not kill it), but a
    // hook it runs must not inherit that: `yes | head -1` would never end.
    let ws = Ws::new()
        .master(true)
        .sh(
            "hooks/signals.sh",
            r#"
            grep '^SigIgn:' /proc/$$/status > sigign.txt
            echo '{}'
            "#,
        )
        .hook(Entry::new("pre_tool_call", "hooks/signals.sh").name("signals"))
        .approve_all();
    let fired = ws.fire("pre_tool_call", bash("ls"));
    assert_eq!(fired.status("signals"), "noop", "{}", fired.hook("signals"));
    let line = ws.read("sigign.txt");
    let mask = line
        .trim()
        .strip_prefix("SigIgn:")
        .and_then(|hex| u64::from_str_radix(hex.trim(), 16).ok())
        .unwrap_or_else(|| panic!("not a signal mask: {line:?}"));
    let sigpipe = 1 << (nix::sys::signal::Signal::SIGPIPE as u64 - 1);
    assert_eq!(
        mask & sigpipe,
        0,
        "the hook started with SIGPIPE ignored: {line}"
    );
}

#[test]
fn observer_hooks_run_concurrently() {
    let observe = format!("{} observe 1", support::misbehave());
    let mut ws = Ws::new().master(true);
    for i in 0..4 {
        ws = ws.hook(Entry::new("on_session_start", &observe).name(&format!("observer{i}")));
    }
    let ws = ws.approve_all();
    let fired = ws.fire("on_session_start", json!({"status": "started"}));
    let intervals: Vec<(f64, f64)> = (0..4)
        .map(|i| {
            assert_eq!(fired.status(&format!("observer{i}")), "noop");
            let pair: Vec<f64> = serde_json::from_str(&ws.read(&format!("intervals/observer{i}")))
                .expect("an interval");
            (pair[0], pair[1])
        })
        .collect();
    let last_start = intervals.iter().map(|i| i.0).fold(f64::MIN, f64::max);
    let first_end = intervals.iter().map(|i| i.1).fold(f64::MAX, f64::min);
    assert!(
        last_start < first_end,
        "all four observers should have been running at once: {intervals:?}"
    );
}

// ---------------------------------------------------------------------------------------------
// `docs/protocol.md`: the redo cap

fn always_refusing_to_stop() -> Ws {
    answering(
        "on_stop",
        r#"{"decision": "block", "reason": "run the tests first"}"#,
    )
}

#[test]
fn on_stop_block_is_honoured_below_the_redo_cap() {
    let ws = always_refusing_to_stop();
    for redo_count in 0..3 {
        let fired = ws.fire(
            "on_stop",
            json!({"response": "done", "redo_count": redo_count}),
        );
        assert_eq!(fired.decision(), "block", "redo_count {redo_count}");
        assert_eq!(fired.reason(), "run the tests first");
        assert!(fired.warnings().is_empty());
    }
}

#[test]
fn on_stop_block_at_the_redo_cap_continues_with_a_warning() {
    let fired =
        always_refusing_to_stop().fire("on_stop", json!({"response": "done", "redo_count": 3}));
    assert_eq!(fired.decision(), "continue");
    assert_eq!(fired.outcome["reason"], Value::Null);
    let warnings = fired.warnings();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].contains("redo cap"), "{warnings:?}");
}

// ---------------------------------------------------------------------------------------------
// `docs/trust.md`: trust

const MARKING: &str = r#"
    cat > /dev/null
    touch "$AGENT_HOOKS_WORKSPACE/ran"
"#;

fn marking(master: bool) -> Ws {
    Ws::new()
        .master(master)
        .sh("hooks/mark.sh", MARKING)
        .hook(Entry::new("pre_tool_call", "hooks/mark.sh").name("mark"))
}

#[test]
fn unapproved_hook_is_skipped() {
    let ws = marking(true);
    let fired = ws.fire("pre_tool_call", bash("ls"));
    assert_eq!(fired.status("mark"), "skipped");
    assert_eq!(fired.detail("mark"), "not approved");
    assert!(!ws.exists("ran"));
}

#[test]
fn approved_hook_runs() {
    let ws = marking(true).approve_all();
    let fired = ws.fire("pre_tool_call", bash("ls"));
    assert_eq!(fired.status("mark"), "noop");
    assert!(ws.exists("ran"));
}

/// Edits the approved script and puts its mtime back, as someone hiding an edit would.
fn edit_keeping_mtime(ws: &Ws, rel: &str, new_source: &str) {
    let path = ws.path(rel);
    let mtime = std::fs::metadata(&path)
        .and_then(|m| m.modified())
        .expect("mtime of the script");
    std::fs::write(&path, new_source).expect("edit the script");
    std::fs::File::options()
        .write(true)
        .open(&path)
        .and_then(|f| f.set_modified(mtime))
        .expect("restore the mtime");
    assert_eq!(
        std::fs::metadata(&path)
            .and_then(|m| m.modified())
            .expect("mtime"),
        mtime
    );
}

const EDITED: &str = "#!/bin/sh\ncat > /dev/null\ntouch \"$AGENT_HOOKS_WORKSPACE/edited-ran\"\n";

#[test]
fn script_edited_with_mtime_restored_is_skipped_as_drift() {
    let ws = marking(true).approve_all();
    edit_keeping_mtime(&ws, "hooks/mark.sh", EDITED);
    let fired = ws.fire("pre_tool_call", bash("ls"));
    assert_eq!(fired.status("mark"), "skipped");
    assert_eq!(fired.detail("mark"), "drift");
    assert!(!ws.exists("ran") && !ws.exists("edited-ran"));
    let logged = ws.events_of("hook_drift");
    assert_eq!(logged.len(), 1, "{:?}", ws.events());
    assert_eq!(logged[0]["hook"], "mark");
}

#[test]
fn drifted_hook_runs_again_once_reapproved() {
    let ws = marking(true).approve_all();
    edit_keeping_mtime(&ws, "hooks/mark.sh", EDITED);
    assert_eq!(ws.fire("pre_tool_call", bash("ls")).detail("mark"), "drift");
    ws.approve("hooks/mark.sh");
    let fired = ws.fire("pre_tool_call", bash("ls"));
    assert_eq!(fired.status("mark"), "noop");
    assert!(
        ws.exists("edited-ran"),
        "the edited script is what runs now"
    );
}

#[test]
fn master_switch_off_runs_nothing() {
    let ws = marking(false).approve_all();
    let fired = ws.fire("pre_tool_call", bash("ls"));
    assert_eq!(fired.status("mark"), "skipped");
    assert_eq!(fired.detail("mark"), "master switch off");
    assert!(!ws.exists("ran"));
}

#[test]
fn missing_agent_yaml_means_master_switch_off() {
    let ws = Ws::new()
        .sh("hooks/mark.sh", MARKING)
        .hook(Entry::new("pre_tool_call", "hooks/mark.sh").name("mark"))
        .approve_all();
    let fired = ws.fire("pre_tool_call", bash("ls"));
    assert_eq!(fired.detail("mark"), "master switch off");
    assert!(!ws.exists("ran"));
}

const AGENT_YAML: &str = "\
# The host's settings; only shell_hooks.enabled belongs to agent-hooks.
model: claude-sonnet   # the default model
limits:
  max_turns: 40
  tools: [bash, edit]

shell_hooks:
  enabled: true
  # keep this comment
  self_approve: false
telemetry: off
";

#[test]
fn on_and_off_keep_every_other_key_and_comment() {
    let ws = Ws::new()
        .file("config/agent.yaml", AGENT_YAML)
        .sh("hooks/mark.sh", MARKING)
        .hook(Entry::new("pre_tool_call", "hooks/mark.sh").name("mark"))
        .approve_all();

    let off = ws.run(&["off"]);
    assert!(off.status.success(), "{off:?}");
    assert_eq!(
        ws.read("config/agent.yaml"),
        AGENT_YAML.replace("  enabled: true", "  enabled: false")
    );
    assert_eq!(
        ws.fire("pre_tool_call", bash("ls")).detail("mark"),
        "master switch off"
    );

    let on = ws.run(&["on"]);
    assert!(on.status.success(), "{on:?}");
    assert_eq!(ws.read("config/agent.yaml"), AGENT_YAML);
    assert_eq!(ws.fire("pre_tool_call", bash("ls")).status("mark"), "noop");
    assert!(ws.exists("ran"));
}

#[test]
fn twenty_concurrent_approvals_all_land() {
    let mut ws = Ws::new().master(true);
    for i in 0..20 {
        ws = ws
            .sh(&format!("hooks/h{i}.sh"), "cat > /dev/null\n")
            .hook(Entry::new("pre_tool_call", &format!("hooks/h{i}.sh")).name(&format!("h{i}")));
    }
    let children: Vec<_> = (0..20)
        .map(|i| {
            ws.command(&["approve", &format!("hooks/h{i}.sh")])
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .expect("spawn approve")
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().expect("wait for approve");
        assert!(
            out.status.success(),
            "approve failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    let list: Value = serde_json::from_str(&ws.read("config/hook_approvals.json"))
        .expect("the approvals file is valid JSON");
    let approvals = list["approvals"].as_array().expect("an approvals list");
    let commands: BTreeSet<&str> = approvals
        .iter()
        .map(|a| a["command"].as_str().expect("a command"))
        .collect();
    assert_eq!(approvals.len(), 20, "{list:#}");
    assert_eq!(commands.len(), 20, "{commands:?}");
    for approval in approvals {
        assert_eq!(approval["event"], "pre_tool_call");
        assert_eq!(
            approval["files"][0]["sha256"].as_str().map(str::len),
            Some(64),
            "{approval}"
        );
    }
    let fired = ws.fire("pre_tool_call", bash("ls"));
    for i in 0..20 {
        assert_eq!(fired.status(&format!("h{i}")), "noop");
    }
}

// ---------------------------------------------------------------------------------------------
// Matchers

#[test]
fn non_matching_matcher_spawns_nothing() {
    let ws = Ws::new()
        .master(true)
        .sh("hooks/mark.sh", MARKING)
        .hook(
            Entry::new("pre_tool_call", "hooks/mark.sh")
                .name("mark")
                .matcher("rm -rf|mkfs"),
        )
        .approve_all();
    let fired = ws.fire("pre_tool_call", bash("ls -la"));
    assert_eq!(fired.status("mark"), "skipped");
    assert_eq!(fired.detail("mark"), "no match");
    assert!(!ws.exists("ran"), "the hook must not have been spawned");
}

#[test]
fn matcher_searches_nested_string_values() {
    let ws = Ws::new()
        .master(true)
        .sh("hooks/mark.sh", MARKING)
        .hook(
            Entry::new("pre_tool_call", "hooks/mark.sh")
                .name("mark")
                .matcher("/etc/shadow"),
        )
        .approve_all();
    let fired = ws.fire(
        "pre_tool_call",
        json!({"tool_name": "edit", "tool_input": {"files": [{"path": "/etc/shadow"}]}}),
    );
    assert_eq!(fired.status("mark"), "noop");
    assert!(ws.exists("ran"));
}

// ---------------------------------------------------------------------------------------------
// `fire` usage errors and configuration errors

fn assert_usage_error(fired: &Fired) {
    assert_eq!(fired.code, 2, "stderr: {}", fired.stderr);
    assert_eq!(fired.outcome, Value::Null, "nothing on stdout");
    let lines: Vec<&str> = fired.stderr.lines().collect();
    assert_eq!(
        lines.len(),
        1,
        "exactly one line on stderr: {:?}",
        fired.stderr
    );
    assert!(lines[0].starts_with("agent-hooks"), "{:?}", lines[0]);
}

#[test]
fn fire_with_an_unknown_event_exits_2_with_one_line() {
    let fired = guarded().fire_raw("pre_tool", bash("ls").to_string().as_bytes());
    assert_usage_error(&fired);
    assert!(
        fired.stderr.contains("pre_tool_call"),
        "suggests the event: {}",
        fired.stderr
    );
}

#[test]
fn fire_with_a_non_object_payload_exits_2_with_one_line() {
    let ws = guarded();
    assert_usage_error(&ws.fire_raw("pre_tool_call", b"[1, 2, 3]"));
    assert_usage_error(&ws.fire_raw("pre_tool_call", b"\"ls\""));
}

#[test]
fn fire_with_a_payload_that_is_not_json_exits_2_with_one_line() {
    assert_usage_error(&guarded().fire_raw("pre_tool_call", b"{\"tool_name\": "));
}

#[test]
fn broken_shell_hooks_yaml_is_logged_with_line_and_column() {
    let ws = Ws::new().master(true).file(
        "config/shell_hooks.yaml",
        "hooks:\n  - event: pre_tool_call\n   command: [\n",
    );
    let fired = ws.fire("pre_tool_call", bash("ls"));
    assert_eq!(fired.decision(), "continue");
    assert_eq!(fired.outcome["hooks"], json!([]));
    let logged = ws.events_of("hook_config_error");
    assert_eq!(logged.len(), 1, "{:?}", ws.events());
    let detail = logged[0]["detail"].as_str().expect("a detail");
    let located = detail
        .strip_prefix("config/shell_hooks.yaml:")
        .and_then(|rest| rest.split_once(':'))
        .and_then(|(line, rest)| Some((line.parse::<u32>().ok()?, rest.split_once(':')?)))
        .and_then(|(line, (col, _))| Some((line, col.parse::<u32>().ok()?)));
    assert!(
        matches!(located, Some((line, col)) if line > 0 && col > 0),
        "expected config/shell_hooks.yaml:LINE:COL: ..., got {detail}"
    );
}

#[test]
fn a_bad_entry_loses_only_itself() {
    let ws = Ws::new()
        .master(true)
        .sh("hooks/mark.sh", MARKING)
        .file(
            "config/shell_hooks.yaml",
            "hooks:\n  - event: pre_tool\n    command: hooks/other.sh\n  - name: mark\n    event: pre_tool_call\n    command: hooks/mark.sh\n",
        );
    ws.approve("hooks/mark.sh");
    let fired = ws.fire("pre_tool_call", bash("ls"));
    assert_eq!(fired.status("mark"), "noop");
    assert!(ws.exists("ran"));
    // Logged once, by the first load (the approval), not again by every later one.
    let logged = ws.events_of("hook_config_error");
    assert_eq!(logged.len(), 1, "{:?}", ws.events());
    let detail = logged[0]["detail"].as_str().expect("a detail");
    assert!(
        detail.starts_with("config/shell_hooks.yaml:2:")
            && detail.contains("did you mean \"pre_tool_call\""),
        "{detail}"
    );
}

// ---------------------------------------------------------------------------------------------
// What a command hook is given: environment, paths, argv

#[cfg_attr(
    not(have_python3),
    ignore = "needs python3 on PATH (.ci/run installs it)"
)]
#[test]
fn hook_gets_its_environment() {
    let ws = Ws::new()
        .master(true)
        .py(
            "hooks/env.py",
            r#"
            import json, os, sys
            sys.stdin.read()
            seen = {k: os.environ.get(k) for k in ["HOOK_NAME", "HOOK_EVENT", "AGENT_HOOKS_WORKSPACE", "STATE_DIR", "GREETING"]}
            seen["state_dir_exists"] = os.path.isdir(os.environ.get("STATE_DIR", ""))
            print(json.dumps({"systemMessage": json.dumps(seen)}))
            "#,
        )
        .hook(
            Entry::new("pre_tool_call", "hooks/env.py")
                .name("env probe")
                .env("GREETING", "hello"),
        )
        .approve_all();
    let fired = ws.fire("pre_tool_call", bash("ls"));
    let seen: Value = serde_json::from_str(&fired.warnings()[0]).expect("the hook's report");
    let root = ws.root();
    assert_eq!(seen["HOOK_NAME"], "env probe");
    assert_eq!(seen["HOOK_EVENT"], "pre_tool_call");
    assert_eq!(
        seen["AGENT_HOOKS_WORKSPACE"],
        root.to_str().expect("utf-8 path")
    );
    let state_dir = seen["STATE_DIR"].as_str().expect("STATE_DIR is set");
    assert!(
        state_dir.starts_with(root.join("state").to_str().expect("utf-8 path")),
        "{state_dir}"
    );
    assert_eq!(seen["state_dir_exists"], true);
    assert_eq!(seen["GREETING"], "hello");
}

#[test]
fn relative_command_paths_resolve_against_the_workspace() {
    // `fire` runs from another directory (see `Ws::command`); both a relative program and a
    // relative script argument must still be found in the workspace.
    let ws = Ws::new()
        .master(true)
        .sh(
            "hooks/where.sh",
            r#"
            cat > /dev/null
            echo '{"systemMessage": "found"}'
            "#,
        )
        .hook(Entry::new("pre_tool_call", "hooks/where.sh").name("program"))
        .hook(Entry::new("pre_tool_call", "sh hooks/where.sh").name("argument"))
        .approve_all();
    let fired = ws.fire("pre_tool_call", bash("ls"));
    assert_eq!(fired.status("program"), "ok", "{}", fired.hook("program"));
    assert_eq!(fired.status("argument"), "ok", "{}", fired.hook("argument"));
    assert_eq!(fired.warnings(), vec!["found", "found"]);
}

#[cfg_attr(
    not(have_python3),
    ignore = "needs python3 on PATH (.ci/run installs it)"
)]
#[test]
fn argv_has_no_shell_expansion() {
    let command = r#"hooks/args.py $HOME * "a b" 'c d' ~ $(id)"#;
    let ws = Ws::new()
        .master(true)
        .py(
            "hooks/args.py",
            r#"
            import json, sys
            sys.stdin.read()
            print(json.dumps({"systemMessage": json.dumps(sys.argv[1:])}))
            "#,
        )
        .hook(Entry::new("pre_tool_call", command).name("args"))
        .approve_all();
    let fired = ws.fire("pre_tool_call", bash("ls"));
    let argv: Vec<String> = serde_json::from_str(&fired.warnings()[0]).expect("argv");
    assert_eq!(argv, ["$HOME", "*", "a b", "c d", "~", "$(id)"]);
}

// ---------------------------------------------------------------------------------------------
// The outcome, capabilities, merging and the log

#[test]
fn outcome_has_the_shape_of_spec_11() {
    let fired = guarded().fire("pre_tool_call", bash("ls -la"));
    let keys: Vec<&str> = fired
        .outcome
        .as_object()
        .expect("an object")
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "event",
            "decision",
            "reason",
            "result",
            "payload",
            "context",
            "notes",
            "warnings",
            "model",
            "display",
            "stop",
            "hooks",
            "changed",
            "diagnostics",
            "lapses"
        ]
    );
    assert_eq!(fired.outcome["event"], "pre_tool_call");
    assert_eq!(fired.outcome["stop"], Value::Null);
    let report = fired.hook("guard");
    let keys: Vec<&str> = report
        .as_object()
        .expect("an object")
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys, ["hook", "source", "status", "detail", "ms"]);
    assert_eq!(report["source"], "config/shell_hooks.yaml");
    assert!(report["ms"].as_f64().is_some_and(|ms| ms > 0.0), "{report}");
}

#[test]
fn ask_does_not_end_the_chain_and_a_later_block_wins() {
    let ws = Ws::new()
        .master(true)
        .file(
            "ask.json",
            r#"{"decision": "ask", "reason": "are you sure?"}"#,
        )
        .sh(
            "hooks/ask.sh",
            "cat > /dev/null\ncat \"$AGENT_HOOKS_WORKSPACE/ask.json\"\n",
        )
        .sh("hooks/guard.sh", GUARD)
        .hook(Entry::new("pre_tool_call", "hooks/ask.sh").name("ask"))
        .hook(Entry::new("pre_tool_call", "hooks/guard.sh").name("guard"));
    let ws = ws.approve_all();

    let asked = ws.fire("pre_tool_call", bash("ls"));
    assert_eq!(asked.decision(), "ask");
    assert_eq!(asked.reason(), "are you sure?");
    assert_eq!(
        asked.status("guard"),
        "noop",
        "the chain went on after the ask"
    );

    let blocked = ws.fire("pre_tool_call", bash("rm -rf /"));
    assert_eq!(blocked.decision(), "block");
    assert_eq!(blocked.reason(), "refusing to delete the filesystem root");
}

#[test]
fn block_where_the_event_cannot_block_is_ignored_and_logged() {
    let ws = answering(
        "post_tool_call",
        r#"{"decision": "block", "reason": "too late to block"}"#,
    );
    let fired = ws.fire(
        "post_tool_call",
        json!({"tool_name": "bash", "tool_input": {"command": "ls"}, "tool_result": "a b", "status": "success"}),
    );
    assert_eq!(fired.decision(), "continue");
    assert_eq!(fired.outcome["reason"], Value::Null);
    let logged = ws.events_of("hook_invalid_output");
    assert_eq!(logged.len(), 1, "{:?}", ws.events());
    assert_eq!(logged[0]["event"], "post_tool_call");
}

#[test]
fn context_and_warnings_accumulate_in_hook_order() {
    let mut ws = Ws::new().master(true);
    for name in ["one", "two", "three"] {
        ws = ws
            .file(
                &format!("{name}.json"),
                &json!({"context": format!("context {name}"), "systemMessage": format!("warning {name}")})
                    .to_string(),
            )
            .sh(
                &format!("hooks/{name}.sh"),
                &format!("cat > /dev/null\ncat \"$AGENT_HOOKS_WORKSPACE/{name}.json\"\n"),
            )
            .hook(Entry::new("on_user_message", &format!("hooks/{name}.sh")).name(name));
    }
    let fired = ws
        .approve_all()
        .fire("on_user_message", json!({"message": "hi"}));
    assert_eq!(
        fired.context(),
        ["context one", "context two", "context three"]
    );
    assert_eq!(
        fired.warnings(),
        ["warning one", "warning two", "warning three"]
    );
}

#[test]
fn hook_stderr_is_logged() {
    let ws = Ws::new()
        .master(true)
        .sh(
            "hooks/noisy.sh",
            "cat > /dev/null\necho 'checked 3 files' >&2\n",
        )
        .hook(Entry::new("pre_tool_call", "hooks/noisy.sh").name("noisy"))
        .approve_all();
    let fired = ws.fire("pre_tool_call", bash("ls"));
    assert_eq!(fired.status("noisy"), "noop");
    let logged = ws.events_of("hook_stderr");
    assert_eq!(logged.len(), 1, "{:?}", ws.events());
    assert_eq!(logged[0]["detail"], "checked 3 files");
}

#[cfg_attr(
    not(have_python3),
    ignore = "needs python3 on PATH (.ci/run installs it)"
)]
#[test]
fn concurrent_fires_append_whole_log_lines() {
    // Each fire logs a long record; `Ws::events` fails on any torn or interleaved line.
    let ws = Ws::new()
        .master(true)
        .py(
            "hooks/loud.py",
            r#"
            import sys
            sys.stdin.read()
            sys.stderr.write("x" * 3000)
            "#,
        )
        .hook(Entry::new("on_session_end", "hooks/loud.py").name("loud"))
        .approve_all();
    let children: Vec<_> = (0..12)
        .map(|_| {
            let mut child = ws
                .command(&["fire", "on_session_end"])
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::null())
                .spawn()
                .expect("spawn fire");
            use std::io::Write;
            child
                .stdin
                .take()
                .expect("stdin")
                .write_all(b"{\"status\": \"ended\"}")
                .expect("write the payload");
            child
        })
        .collect();
    for mut child in children {
        assert!(child.wait().expect("wait for fire").success());
    }
    let logged = ws.events_of("hook_stderr");
    assert_eq!(logged.len(), 12);
    assert!(
        logged
            .iter()
            .all(|r| r["detail"].as_str().map(str::len) == Some(3000))
    );
}

#[cfg_attr(
    not(have_python3),
    ignore = "needs python3 on PATH (.ci/run installs it)"
)]
#[test]
fn hooks_see_stop_hook_active_from_redo_count() {
    let ws = Ws::new()
        .master(true)
        .py(
            "hooks/stop.py",
            r#"
            import json, sys
            payload = json.load(sys.stdin)
            print(json.dumps({"systemMessage": json.dumps([payload["redo_count"], payload["stop_hook_active"]])}))
            "#,
        )
        .hook(Entry::new("on_stop", "hooks/stop.py").name("stop"))
        .approve_all();
    let first = ws.fire("on_stop", json!({"response": "done"}));
    assert_eq!(first.warnings(), ["[0, false]"]);
    let redo = ws.fire("on_stop", json!({"response": "done", "redo_count": 1}));
    assert_eq!(redo.warnings(), ["[1, true]"]);
}

/// A Python host's numbers that a JSON value cannot hold: a 100-bit integer, `NaN`, both
/// infinities and `1e400` (Python's `inf`).
const PYTHON_NUMBERS: &str = r#"{"tool_name": "bash", "tool_input": {"command": "ls", "id": 1267650600228229401496703205376, "ratio": NaN, "low": -Infinity, "high": 1e400}}"#;

#[test]
fn fire_keeps_a_python_hosts_big_integers_nan_and_infinities_exactly() {
    // The hook keeps the bytes it was given, and gives the input back as its rewrite.
    let ws = Ws::new()
        .master(true)
        .sh(
            "hooks/keep.sh",
            r#"input=$(cat)
printf '%s' "$input" > seen.json
printf '%s' "$input" | sed -n 's/.*"tool_input": *\({[^}]*}\).*/{"tool_input": \1}/p'
"#,
        )
        .hook(Entry::new("pre_tool_call", "hooks/keep.sh").name("keep"))
        .approve_all();
    let out = support::run_piped(
        ws.command(&["fire", "pre_tool_call"]),
        PYTHON_NUMBERS.as_bytes(),
    );
    let printed = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{printed}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let seen = std::fs::read_to_string(ws.root().join("seen.json")).expect("the hook ran");
    for exact in [
        "\"id\":1267650600228229401496703205376",
        "\"ratio\":NaN",
        "\"low\":-Infinity",
        "\"high\":Infinity",
    ] {
        assert!(seen.contains(exact), "the hook was given {seen}");
        // The outcome gives them back as the host sent them.
        assert!(printed.contains(exact), "fire printed {printed}");
    }
    assert!(!printed.contains("number:"), "{printed}");
}
