//! Skill hooks (`skills/**/hooks.json`) through the real binary: the source document's own
//! examples unmodified, the event-replacement chain, `_block`, `pre_prompt`, the conversation,
//! every diagnostic type the dialect logs, and skill and shell hooks sharing an event.

use crate::support;

use std::path::Path;

use serde_json::{Value, json};
use support::{Entry, Ws, python};

/// Copies a fixture skill from `tests/skill_fixtures/<name>` into the workspace's `skills/`.
fn with_fixture_skill(ws: Ws, name: &str) -> Ws {
    let from = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/skill_fixtures")
        .join(name);
    let mut ws = ws;
    for entry in std::fs::read_dir(&from).expect("read the fixture skill") {
        let entry = entry.expect("a fixture file");
        let text = std::fs::read_to_string(entry.path()).expect("read a fixture file");
        let rel = format!("skills/{name}/{}", entry.file_name().to_string_lossy());
        ws = ws.file(&rel, &text);
    }
    ws
}

/// A skill with one hooks.json whose entries are given as JSON.
fn skill(ws: Ws, name: &str, hooks: Value) -> Ws {
    ws.file(
        &format!("skills/{name}/hooks.json"),
        &json!({"hooks": hooks}).to_string(),
    )
}

/// A Python hook body that records the event it got (one JSON line per call) in `seen.jsonl`
/// of its skill directory, then runs `then` with `event` bound.
fn recorder(then: &str) -> String {
    format!(
        "import json, os, sys\nevent = json.loads(sys.stdin.readline())\nwith open(os.path.join(os.environ['STATE_DIR'], 'seen.jsonl'), 'a') as f:\n    f.write(json.dumps(event) + '\\n')\n{then}\n"
    )
}

fn seen(ws: &Ws, skill: &str) -> Vec<Value> {
    ws.read(&format!("skills/{skill}/seen.jsonl"))
        .lines()
        .map(|l| serde_json::from_str(l).expect("a recorded event"))
        .collect()
}

fn send_message(text: &str) -> Value {
    json!({"session_id": "s1", "tool_name": "send_message", "tool_input": {"text": text, "channel_id": "c1"}})
}

#[cfg_attr(
    not(have_python3),
    ignore = "needs python3 on PATH (.ci/run installs it)"
)]
#[test]
fn the_source_documents_strip_example_runs_unmodified() {
    let ws = with_fixture_skill(Ws::new(), "message-policy");
    let fired = ws.fire("pre_tool_call", send_message("   hello there  \n"));
    assert_eq!(fired.decision(), "continue");
    assert_eq!(
        fired.outcome["payload"]["tool_input"]["text"],
        "hello there"
    );
    assert_eq!(fired.status("strip-text"), "ok");
    assert_eq!(fired.status("block-shell-leak"), "noop");
    // Other tools pass untouched.
    let other = ws.fire(
        "pre_tool_call",
        json!({"tool_name": "bash", "tool_input": {"command": " ls "}}),
    );
    assert_eq!(other.outcome["payload"]["tool_input"]["command"], " ls ");
}

#[cfg_attr(
    not(have_python3),
    ignore = "needs python3 on PATH (.ci/run installs it)"
)]
#[test]
fn the_source_documents_block_example_blocks_with_its_synthetic_result() {
    let ws = with_fixture_skill(Ws::new(), "message-policy");
    let fired = ws.fire("pre_tool_call", send_message("$(cat notes.md)"));
    assert_eq!(fired.decision(), "block");
    assert_eq!(fired.reason(), "shell-leak-prefix");
    let result = fired.outcome["result"]
        .as_str()
        .expect("a synthetic result");
    assert!(result.starts_with("[hook blocked] send_message text starts with `$(...)`"));
    assert_eq!(fired.status("block-shell-leak"), "blocked");
    let logged = ws.events_of("hook_blocked_tool_call");
    assert_eq!(logged.len(), 1);
    assert_eq!(logged[0]["name"], "block-shell-leak");
    assert_eq!(logged[0]["tool"], "send_message");
    assert_eq!(logged[0]["reason"], "shell-leak-prefix");
}

#[cfg_attr(
    not(have_python3),
    ignore = "needs python3 on PATH (.ci/run installs it)"
)]
#[test]
fn post_tool_call_hooks_see_a_blocked_call_in_the_skill_shape() {
    let ws = skill(
        Ws::new(),
        "watch",
        json!([{"name": "watch", "command": format!("{} watch.py", python()), "events": ["post_tool_call"]}]),
    )
    .file("skills/watch/watch.py", &recorder(""));
    let fired = ws.fire(
        "post_tool_call",
        json!({"session_id": "s1", "tool_name": "send_message", "tool_input": {"text": "$(x)"},
               "tool_result": "[hook blocked] no", "status": "blocked"}),
    );
    assert_eq!(fired.decision(), "continue");
    let event = &seen(&ws, "watch")[0];
    assert_eq!(event["type"], "post_tool_call");
    assert_eq!(event["status"], "blocked");
    assert_eq!(event["result"], "[hook blocked] no");
    assert_eq!(event["tool"], "send_message");
    assert_eq!(event["args"], json!({"text": "$(x)"}));
    assert_eq!(event["session_id"], "s1");
    assert!(event["timestamp"].as_str().is_some_and(|t| t.contains('T')));
}

#[cfg_attr(
    not(have_python3),
    ignore = "needs python3 on PATH (.ci/run installs it)"
)]
#[test]
fn a_three_hook_chain_passes_each_rewrite_to_the_next() {
    let mut ws = Ws::new();
    let mut hooks = Vec::new();
    for letter in ["a", "b", "c"] {
        ws = ws.file(
            &format!("skills/chain/{letter}.py"),
            &recorder(&format!(
                "event['args']['trail'] = event['args']['trail'] + '{letter}'\nprint(json.dumps(event))"
            )),
        );
        hooks.push(json!({"name": letter, "command": format!("{} {letter}.py", python()), "events": ["pre_tool_call"]}));
    }
    let ws = skill(ws, "chain", Value::Array(hooks));
    let fired = ws.fire(
        "pre_tool_call",
        json!({"tool_name": "t", "tool_input": {"trail": ""}}),
    );
    assert_eq!(fired.outcome["payload"]["tool_input"]["trail"], "abc");
    let trails: Vec<Value> = seen(&ws, "chain")
        .iter()
        .map(|e| e["args"]["trail"].clone())
        .collect();
    assert_eq!(trails, vec![json!(""), json!("a"), json!("ab")]);
}

#[test]
fn a_post_tool_call_hook_replaces_the_result() {
    let ws = skill(
        Ws::new(),
        "redact",
        json!([{"name": "redact", "command": "sed 's/hunter2/[redacted]/'", "events": ["post_tool_call"]}]),
    );
    let fired = ws.fire(
        "post_tool_call",
        json!({"tool_name": "read_file", "tool_input": {"path": "x"}, "tool_result": "password: hunter2", "status": "success"}),
    );
    assert_eq!(
        fired.outcome["payload"]["tool_result"],
        "password: [redacted]"
    );
    assert_eq!(fired.status("redact"), "ok");
}

#[cfg_attr(
    not(have_python3),
    ignore = "needs python3 on PATH (.ci/run installs it)"
)]
#[test]
fn pre_prompt_replaces_and_appends_to_the_prompt() {
    let ws = Ws::new()
        .file(
            "skills/p/replace.py",
            "import json, sys\ne = json.loads(sys.stdin.readline())\ne['prompt'] = e['prompt'].upper()\nprint(json.dumps(e))\n",
        )
        .file(
            "skills/p/append.py",
            "import json, sys\ne = json.loads(sys.stdin.readline())\ne['append_prompt'] = 'Answer in English.'\nprint(json.dumps(e))\n",
        );
    let ws = skill(
        ws,
        "p",
        json!([
            {"name": "replace", "command": format!("{} replace.py", python()), "events": ["pre_prompt"]},
            {"name": "append", "command": format!("{} append.py", python()), "events": ["pre_prompt"]}
        ]),
    );
    let fired = ws.fire("pre_llm_call", json!({"prompt": "hello"}));
    assert_eq!(
        fired.outcome["payload"]["prompt"],
        "HELLO\n\nAnswer in English."
    );
}

#[cfg_attr(
    not(have_python3),
    ignore = "needs python3 on PATH (.ci/run installs it)"
)]
#[test]
fn a_malformed_block_is_logged_and_the_call_proceeds() {
    let ws = skill(
        Ws::new(),
        "bad",
        json!([{"name": "bad-block", "command": "python3 -c 'import json,sys; e=json.loads(sys.stdin.readline()); e[\"_block\"]={\"reason\": 5}; print(json.dumps(e))'", "events": ["pre_tool_call"]}]),
    );
    let fired = ws.fire("pre_tool_call", json!({"tool_name": "t", "tool_input": {}}));
    assert_eq!(fired.decision(), "continue");
    assert!(fired.outcome["result"].is_null());
    let logged = ws.events_of("hook_invalid_block");
    assert_eq!(logged.len(), 1, "{:?}", ws.events());
    assert_eq!(logged[0]["name"], "bad-block");
    assert_eq!(logged[0]["tool"], "t");
}

#[cfg_attr(
    not(have_python3),
    ignore = "needs python3 on PATH (.ci/run installs it)"
)]
#[test]
fn changing_the_tool_or_the_type_is_an_invalid_mutation_and_is_dropped() {
    let ws = skill(
        Ws::new(),
        "m",
        json!([{"name": "retool", "command": "python3 -c 'import json,sys; e=json.loads(sys.stdin.readline()); e[\"tool\"]=\"rm\"; e[\"type\"]=\"x\"; e[\"args\"][\"n\"]=2; print(json.dumps(e))'", "events": ["pre_tool_call"]}]),
    );
    let fired = ws.fire(
        "pre_tool_call",
        json!({"tool_name": "t", "tool_input": {"n": 1}}),
    );
    assert_eq!(fired.outcome["payload"]["tool_name"], "t");
    assert_eq!(
        fired.outcome["payload"]["tool_input"]["n"], 2,
        "the allowed change stays"
    );
    let logged = ws.events_of("hook_invalid_mutation");
    assert_eq!(logged.len(), 1);
    let detail = logged[0]["error"].as_str().unwrap_or_default();
    assert!(
        detail.contains("tool") && detail.contains("type"),
        "{detail}"
    );
}

#[cfg_attr(
    not(have_python3),
    ignore = "needs python3 on PATH (.ci/run installs it)"
)]
#[test]
fn args_that_are_no_longer_an_object_are_dropped() {
    let ws = skill(
        Ws::new(),
        "m",
        json!([{"name": "stringify", "command": "python3 -c 'import json,sys; e=json.loads(sys.stdin.readline()); e[\"args\"]=\"oops\"; print(json.dumps(e))'", "events": ["pre_tool_call"]}]),
    );
    let fired = ws.fire(
        "pre_tool_call",
        json!({"tool_name": "t", "tool_input": {"n": 1}}),
    );
    assert_eq!(fired.outcome["payload"]["tool_input"], json!({"n": 1}));
    assert_eq!(ws.events_of("hook_invalid_mutation").len(), 1);
}

#[test]
fn each_configuration_diagnostic_of_the_source_is_logged_with_its_path() {
    let ws = Ws::new()
        .file("skills/a/hooks.json", "{\"hooks\": [")
        .file("skills/b/hooks.json", "{\"hooks\": {\"name\": \"x\"}}")
        .file(
            "skills/c/hooks.json",
            r#"{"hooks": [{"name": "no-command", "events": ["pre_tool_call"]},
                          {"name": "bad-event", "command": "true", "events": ["on_stop"]},
                          {"name": "fine", "command": "true", "events": ["pre_tool_call"]}]}"#,
        );
    let fired = ws.fire("pre_tool_call", json!({"tool_name": "t", "tool_input": {}}));
    assert_eq!(
        fired.status("fine"),
        "noop",
        "the good entry of a file with bad ones still runs"
    );
    let invalid_json = ws.events_of("hook_invalid_json");
    assert!(
        invalid_json
            .iter()
            .any(|r| r["path"] == "skills/a/hooks.json"),
        "{invalid_json:?}"
    );
    let invalid_format = ws.events_of("hook_invalid_format");
    assert!(
        invalid_format
            .iter()
            .any(|r| r["path"] == "skills/b/hooks.json"),
        "{invalid_format:?}"
    );
    let missing = ws.events_of("hook_missing_fields");
    let details: Vec<&str> = missing.iter().filter_map(|r| r["error"].as_str()).collect();
    assert!(
        details
            .iter()
            .any(|d| d.contains("no-command") || d.contains("missing \"command\"")),
        "{details:?}"
    );
    assert!(
        details
            .iter()
            .any(|d| d.contains("unknown event \"on_stop\"")),
        "{details:?}"
    );
}

#[test]
fn run_time_diagnostics_are_logged_and_fail_open() {
    let ws = skill(
        Ws::new(),
        "r",
        json!([
            {"name": "noisy", "command": "cat > /dev/null; echo 'careful' >&2", "events": ["pre_tool_call"]},
            {"name": "crash", "command": "cat > /dev/null; exit 3", "events": ["pre_tool_call"]},
            {"name": "garbage", "command": "cat > /dev/null; echo 'not json'", "events": ["pre_tool_call"]},
            {"name": "array", "command": "cat > /dev/null; echo '[1]'", "events": ["pre_tool_call"]},
            {"name": "slow", "command": "sleep 30", "events": ["pre_tool_call"], "timeout_seconds": 1}
        ]),
    );
    let fired = ws.fire("pre_tool_call", json!({"tool_name": "t", "tool_input": {}}));
    assert_eq!(fired.decision(), "continue");
    assert_eq!(fired.status("noisy"), "noop");
    assert_eq!(fired.status("crash"), "error");
    assert_eq!(fired.status("garbage"), "invalid_output");
    assert_eq!(fired.status("array"), "invalid_output");
    assert_eq!(fired.status("slow"), "timeout");
    for (kind, hook) in [
        ("hook_stderr", "noisy"),
        ("hook_nonzero_exit", "crash"),
        ("hook_invalid_output", "garbage"),
        ("hook_invalid_output", "array"),
        ("hook_timeout", "slow"),
    ] {
        assert!(
            ws.events_of(kind).iter().any(|r| r["name"] == hook),
            "no {kind} for {hook}: {:?}",
            ws.events()
        );
    }
}

#[cfg_attr(
    not(all(have_python3, have_node)),
    ignore = "needs python3 and node on PATH (.ci/run installs them)"
)]
#[test]
fn skill_and_shell_hooks_on_one_event_run_in_order_each_on_its_own_view() {
    let ws = Ws::new()
        .master(true)
        .py(
            "hooks/shell_first.py",
            r#"
            import json, sys
            p = json.load(sys.stdin)
            with open("shell_saw.json", "w") as f:
                json.dump(p, f)
            print(json.dumps({"tool_input": {"command": p["tool_input"]["command"] + " --dry-run"}}))
            "#,
        )
        .hook(Entry::new("pre_tool_call", "hooks/shell_first.py").name("shell-first"))
        .approve_all()
        .file("skills/second/second.py", &recorder("print(json.dumps(event))"));
    let ws = skill(
        ws,
        "second",
        json!([{"name": "skill-second", "command": format!("{} second.py", python()), "events": ["pre_tool_call"]}]),
    );
    let fired = ws.fire(
        "pre_tool_call",
        json!({"tool_name": "bash", "tool_input": {"command": "make"}}),
    );
    let order: Vec<&str> = fired.outcome["hooks"]
        .as_array()
        .expect("hooks")
        .iter()
        .filter_map(|h| h["hook"].as_str())
        .collect();
    assert_eq!(order, vec!["shell-first", "skill-second"]);
    let shell_saw: Value = serde_json::from_str(&ws.read("shell_saw.json")).expect("shell view");
    assert_eq!(shell_saw["tool_name"], "bash");
    assert_eq!(shell_saw["event"], "pre_tool_call");
    let skill_saw = &seen(&ws, "second")[0];
    assert_eq!(skill_saw["type"], "pre_tool_call");
    assert_eq!(skill_saw["tool"], "bash");
    assert_eq!(skill_saw["args"]["command"], "make --dry-run");
    assert_eq!(
        fired.outcome["payload"]["tool_input"]["command"],
        "make --dry-run"
    );
}

#[cfg_attr(
    not(all(have_python3, have_node)),
    ignore = "needs python3 and node on PATH (.ci/run installs them)"
)]
#[test]
fn include_conversation_reads_the_history_once_skipping_bad_lines() {
    let history = [
        r#"{"type": "message", "channel_id": "c1", "content": "first"}"#,
        "this line is not JSON",
        r#"{"type": "tool", "channel_id": "c1"}"#,
        r#"{"type": "message", "channel_id": "c2", "content": "elsewhere"}"#,
        r#"{"type": "message", "channel_id": "c1", "content": "second"}"#,
    ]
    .join("\n");
    let ws = Ws::new()
        .file("logs/chat-history.jsonl", &history)
        .file("skills/conv/h.py", &recorder(""));
    let ws = skill(
        ws,
        "conv",
        json!([{"name": "conv", "command": format!("{} h.py", python()), "events": ["pre_tool_call"], "include_conversation": true}]),
    );
    ws.fire(
        "pre_tool_call",
        json!({"tool_name": "t", "tool_input": {}, "channel_id": "c1"}),
    );
    let conversation = &seen(&ws, "conv")[0]["conversation"];
    assert_eq!(conversation["current_channel_id"], "c1");
    assert_eq!(
        conversation["all_messages"].as_array().map(Vec::len),
        Some(3)
    );
    let texts: Vec<&str> = conversation["channel_messages"]
        .as_array()
        .expect("channel messages")
        .iter()
        .filter_map(|m| m["content"].as_str())
        .collect();
    assert_eq!(texts, vec!["first", "second"]);
}

#[test]
fn lifecycle_events_reach_skill_hooks_with_their_names() {
    let ws = skill(
        Ws::new(),
        "life",
        json!([{"name": "life", "command": "cat > /dev/null; echo \"$HOOK_EVENT $HOOK_NAME $STATE_DIR\" >> life.txt", "events": ["pre_startup", "post_startup", "pre_shutdown", "post_shutdown"]}]),
    );
    for event in [
        "pre_startup",
        "post_startup",
        "pre_shutdown",
        "post_shutdown",
    ] {
        let fired = ws.fire(event, json!({"status": "x"}));
        assert_eq!(fired.status("life"), "noop");
    }
    let dir = ws.path("skills/life");
    let lines: Vec<String> = ws
        .read("skills/life/life.txt")
        .lines()
        .map(str::to_owned)
        .collect();
    assert_eq!(
        lines,
        [
            "pre_startup",
            "post_startup",
            "pre_shutdown",
            "post_shutdown"
        ]
        .map(|e| format!("{e} life {}", dir.display()))
    );
}

// ---------------------------------------------------------------------------------------------
// The scenarios of open-strix's own hook tests, and the behaviours that make its skills run
// here unmodified. The hooks are `sh` one-liners: the event arrives as one JSON line as
// Python's `json.dumps` writes it (`", "` and `": "`), so `sed` on it is an honest edit of the
// event.

/// Answers nothing; appends the event it got to `seen.jsonl` in its skill directory.
const RECORD: &str = "cat >> seen.jsonl";
/// Answers the event unchanged, and appends it to `seen.jsonl`.
const RECORD_AND_ECHO: &str = "tee -a seen.jsonl";

/// A skill hook entry running `command` on `events`.
fn entry(name: &str, command: &str, events: &[&str]) -> Value {
    json!({"name": name, "command": command, "events": events})
}

/// Adds `"key":value` (raw JSON) as the last field of the event and answers it.
fn adding(key: &str, raw_value: &str) -> String {
    format!(r#"sed 's/}}$/,"{key}":{raw_value}}}/'"#)
}

fn tool_call(tool: &str, args: Value) -> Value {
    json!({"session_id": "s1", "tool_name": tool, "tool_input": args, "channel_id": "c1"})
}

fn hook_names(fired: &support::Fired) -> Vec<String> {
    fired.outcome["hooks"]
        .as_array()
        .expect("hooks")
        .iter()
        .filter_map(|h| h["hook"].as_str().map(str::to_owned))
        .collect()
}

fn kill(pid: u32) {
    let _ = nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(pid as i32),
        nix::sys::signal::Signal::SIGKILL,
    );
}

#[test]
fn every_field_of_an_entry_is_read() {
    let ws = skill(
        Ws::new().file(
            "logs/chat-history.jsonl",
            r#"{"type": "message", "channel_id": "c1", "content": "hi"}"#,
        ),
        "audit",
        json!([{"name": "tool-audit", "command": format!("echo \"$MODE $PWD\" > env.txt; {RECORD}"),
                "events": ["pre_tool_call", "post_tool_call"], "env": {"MODE": "audit"},
                "timeout_seconds": 3, "include_conversation": true}]),
    );
    let pre = ws.fire("pre_tool_call", tool_call("echo", json!({"text": "hello"})));
    assert_eq!(pre.status("tool-audit"), "noop");
    let post = ws.fire(
        "post_tool_call",
        json!({"tool_name": "echo", "tool_input": {"text": "hello"}, "tool_result": "hello", "status": "success"}),
    );
    assert_eq!(post.status("tool-audit"), "noop");
    let dir = ws.path("skills/audit");
    assert_eq!(
        ws.read("skills/audit/env.txt").trim(),
        format!("audit {}", dir.display())
    );
    let seen = seen(&ws, "audit");
    assert_eq!(
        seen.iter().map(|e| e["type"].clone()).collect::<Vec<_>>(),
        vec![json!("pre_tool_call"), json!("post_tool_call")]
    );
    assert!(seen.iter().all(|e| e["conversation"].is_object()));
}

#[test]
fn a_hooks_json_of_the_wrong_shape_loads_nothing_and_is_logged() {
    let ws = Ws::new()
        .file("skills/list/hooks.json", r#"[{"name": "x"}]"#)
        .file("skills/object/hooks.json", r#"{"name": "x"}"#)
        .file("skills/map/hooks.json", r#"{"hooks": {"name": "x"}}"#);
    let fired = ws.fire("pre_tool_call", tool_call("t", json!({})));
    assert!(hook_names(&fired).is_empty());
    let paths: Vec<Value> = ws
        .events_of("hook_invalid_format")
        .iter()
        .map(|r| r["path"].clone())
        .collect();
    assert_eq!(
        paths,
        vec![
            json!("skills/list/hooks.json"),
            json!("skills/map/hooks.json"),
            json!("skills/object/hooks.json")
        ]
    );
}

#[test]
fn entries_without_a_name_a_command_or_valid_events_are_dropped() {
    let ws = skill(
        Ws::new(),
        "incomplete",
        json!([
            {"name": "missing-command", "events": ["pre_tool_call"]},
            {"command": "true", "events": ["pre_tool_call"]},
            {"name": "bad-event", "command": "true", "events": ["sometimes"]},
            {"name": "ok", "command": "cat > /dev/null", "event": "post_startup"}
        ]),
    );
    let fired = ws.fire("post_startup", json!({}));
    assert_eq!(hook_names(&fired), vec!["ok"]);
    assert_eq!(ws.events_of("hook_missing_fields").len(), 3);
}

#[test]
fn an_empty_answer_changes_nothing_and_logs_nothing() {
    let ws = skill(
        Ws::new(),
        "quiet",
        json!([entry(
            "quiet",
            "cat > /dev/null",
            &["pre_tool_call", "post_tool_call"]
        )]),
    );
    let pre = ws.fire("pre_tool_call", tool_call("echo", json!({"text": "hello"})));
    assert_eq!(
        pre.outcome["payload"]["tool_input"],
        json!({"text": "hello"})
    );
    let post = ws.fire(
        "post_tool_call",
        json!({"tool_name": "echo", "tool_input": {"text": "hello"}, "tool_result": "hello"}),
    );
    assert_eq!(post.outcome["payload"]["tool_result"], "hello");
    assert_eq!(ws.events(), Vec::<Value>::new());
}

#[test]
fn stderr_is_logged_with_open_strix_field_names() {
    let ws = skill(
        Ws::new(),
        "stderr",
        json!([entry(
            "stderr-hook",
            "cat; echo 'minor hook warning' >&2",
            &["pre_prompt"]
        )]),
    );
    let fired = ws.fire(
        "pre_llm_call",
        json!({"session_id": "s1", "prompt": "hello"}),
    );
    assert_eq!(fired.outcome["payload"]["prompt"], "hello");
    let records = ws.events();
    assert_eq!(records.len(), 1, "{records:?}");
    let record = &records[0];
    assert_eq!(record["type"], "hook_stderr");
    assert_eq!(record["name"], "stderr-hook");
    assert_eq!(record["hook_event_type"], "pre_prompt");
    assert_eq!(record["stderr"], "minor hook warning");
    assert_eq!(record["session_id"], "s1");
    assert_eq!(record["source"], "skills/stderr/hooks.json");
    assert!(record["timestamp"].is_string());
    for canonical in ["ts", "hook", "event", "detail"] {
        assert!(record.get(canonical).is_none(), "{canonical} in {record}");
    }
}

#[test]
fn run_time_records_carry_open_strix_fields() {
    let ws = skill(
        Ws::new(),
        "r",
        json!([
            entry("crash", "cat > /dev/null; exit 3", &["pre_tool_call"]),
            entry("garbage", "cat > /dev/null; echo 'not json'", &["pre_tool_call"]),
            {"name": "slow", "command": "sleep 30", "events": ["pre_tool_call"], "timeout_seconds": 1}
        ]),
    );
    ws.fire("pre_tool_call", tool_call("t", json!({})));
    let exit = &ws.events_of("hook_nonzero_exit")[0];
    assert_eq!(exit["returncode"], 3);
    assert_eq!(exit["name"], "crash");
    let invalid = &ws.events_of("hook_invalid_output")[0];
    assert_eq!(invalid["output"], "not json");
    assert!(invalid["error"].is_string());
    let timeout = &ws.events_of("hook_timeout")[0];
    assert_eq!(timeout["timeout_seconds"], 1.0);
    assert_eq!(timeout["hook_event_type"], "pre_tool_call");
    assert!(ws.events_of("hook_invalid_json").is_empty());
}

#[test]
fn include_conversation_is_opt_in_and_carries_open_strix_message_keys() {
    let history = [
        r#"{"type": "message", "channel_id": "channel-1", "author": "alice", "content": "vector search should see this", "source": "web", "internal": "kept private"}"#,
        r#"{"type": "message", "channel_id": "channel-2", "author": "bob", "content": "other channel", "source": "discord"}"#,
        r#"{"type": "tool_call", "channel_id": "channel-1"}"#,
    ]
    .join("\n");
    let ws = skill(
        Ws::new().file("logs/chat-history.jsonl", &history),
        "conversation",
        json!([
            entry("without-conversation", RECORD_AND_ECHO, &["pre_prompt"]),
            {"name": "with-conversation", "command": RECORD_AND_ECHO, "events": ["pre_prompt"], "include_conversation": true}
        ]),
    );
    let fired = ws.fire(
        "pre_llm_call",
        json!({"prompt": "hello", "channel_id": "channel-1"}),
    );
    assert_eq!(fired.outcome["payload"]["prompt"], "hello");
    let seen = seen(&ws, "conversation");
    assert!(seen[0].get("conversation").is_none());
    let conversation = &seen[1]["conversation"];
    assert_eq!(conversation["source"], "chat_history_log");
    assert_eq!(conversation["current_channel_id"], "channel-1");
    assert_eq!(
        conversation["all_messages"].as_array().map(Vec::len),
        Some(2)
    );
    assert_eq!(
        conversation["channel_messages"],
        json!([{"channel_id": "channel-1", "author": "alice", "content": "vector search should see this", "source": "web"}])
    );
}

#[test]
fn without_messages_in_the_history_the_conversation_falls_back_to_memory() {
    let ws = skill(
        Ws::new(),
        "conv",
        json!([{"name": "conv", "command": RECORD, "events": ["pre_prompt"], "include_conversation": true}]),
    );
    ws.fire("pre_llm_call", json!({"prompt": "hello"}));
    let conversation = &seen(&ws, "conv")[0]["conversation"];
    assert_eq!(
        conversation,
        &json!({"current_channel_id": null, "source": "memory", "all_messages": [], "channel_messages": []})
    );
}

#[test]
fn the_event_timestamp_is_what_pythons_fromisoformat_reads() {
    let ws = skill(
        Ws::new(),
        "t",
        json!([entry("t", RECORD, &["pre_tool_call"])]),
    );
    ws.fire("pre_tool_call", tool_call("t", json!({})));
    let stamp = seen(&ws, "t")[0]["timestamp"]
        .as_str()
        .expect("a timestamp")
        .to_owned();
    // Python 3.10 reads `isoformat()`'s own output: 6 fraction digits and `+00:00`, no `Z`.
    let (local, offset) = stamp.split_at(stamp.len().saturating_sub(6));
    let shape: String = local
        .chars()
        .map(|c| if c.is_ascii_digit() { '9' } else { c })
        .collect();
    assert_eq!(
        (shape.as_str(), offset),
        ("9999-99-99T99:99:99.999999", "+00:00"),
        "{stamp}"
    );
}

#[test]
fn symlinked_skill_directories_are_not_descended_and_a_loop_does_not_hang() {
    let ws = skill(
        Ws::new(),
        "real",
        json!([entry("real", "cat > /dev/null", &["pre_tool_call"])]),
    )
    .file(
        "outside/hooks.json",
        &json!({"hooks": [entry("outside", "cat > /dev/null", &["pre_tool_call"])]}).to_string(),
    );
    let link = |target: &str, at: &str| {
        std::os::unix::fs::symlink(target, ws.path(at)).expect("make a symlink");
    };
    link("../outside", "skills/linked");
    link("..", "skills/real/loop");
    link("../../skills", "skills/real/skills-again");
    std::fs::create_dir_all(ws.path("skills/file-link")).expect("mkdir");
    link("../../outside/hooks.json", "skills/file-link/hooks.json");
    let fired = ws.fire("pre_tool_call", tool_call("t", json!({})));
    // As open-strix's `rglob`: a symlinked hooks.json counts, a symlinked directory is not entered.
    assert_eq!(hook_names(&fired), vec!["outside", "real"]);
    assert!(fired.elapsed < std::time::Duration::from_secs(10));
}

#[test]
fn a_skill_hooks_background_process_outlives_its_normal_exit() {
    let ws = skill(
        Ws::new(),
        "sidecar",
        json!([entry(
            "start-sidecar",
            "nohup sleep 30 >/dev/null 2>&1 & echo $! > sidecar.pid; cat > /dev/null",
            &["post_startup"]
        )]),
    );
    let fired = ws.fire("post_startup", json!({}));
    assert_eq!(fired.status("start-sidecar"), "noop");
    let pid: u32 = ws
        .read("skills/sidecar/sidecar.pid")
        .trim()
        .parse()
        .expect("a pid");
    std::thread::sleep(std::time::Duration::from_millis(300));
    let alive = support::process_running(pid);
    kill(pid);
    assert!(alive, "the sidecar {pid} died with the hook");
}

#[test]
fn a_skill_hooks_background_process_is_killed_at_its_timeout() {
    let ws = skill(
        Ws::new(),
        "hang",
        json!([{"name": "hang", "command": "sleep 30 >/dev/null 2>&1 & echo $! > bg.pid; sleep 30",
                "events": ["post_startup"], "timeout_seconds": 1}]),
    );
    let fired = ws.fire("post_startup", json!({}));
    assert_eq!(fired.status("hang"), "timeout");
    let pid: u32 = ws.read("skills/hang/bg.pid").trim().parse().expect("a pid");
    let gone = support::eventually(std::time::Duration::from_secs(3), || {
        !support::process_running(pid)
    });
    kill(pid);
    assert!(gone, "the background process {pid} outlived the timeout");
}

#[test]
fn an_answer_printed_before_a_setsid_grandchild_holds_stdout_is_kept_in_every_dialect() {
    // Each hook answers with a block, then leaves a `setsid` process (outside its group, so it
    // cannot be killed with it) holding stdout open past the 1 s timeout.
    let leave =
        |pidfile: &str| format!("setsid sleep 30 & echo $! > \"$AGENT_HOOKS_WORKSPACE/{pidfile}\"");
    let shell = format!(
        "cat > /dev/null\necho '{{\"decision\": \"block\", \"reason\": \"kept\"}}'\n{}\n",
        leave("shell.pid")
    );
    let claude = format!(
        "cat > /dev/null\necho '{{\"hookSpecificOutput\": {{\"hookEventName\": \"PreToolUse\", \"permissionDecision\": \"deny\", \"permissionDecisionReason\": \"kept\"}}}}'\n{}\n",
        leave("claude.pid")
    );
    let skill_line = format!(
        "cat > /dev/null; echo '{{\"_block\": {{\"reason\": \"kept\", \"result\": \"R\"}}}}'; {}",
        leave("skill.pid")
    );
    let cases: Vec<(&str, Ws)> = vec![
        (
            "shell.pid",
            Ws::new()
                .master(true)
                .sh("hooks/leave.sh", &shell)
                .hook(
                    Entry::new("pre_tool_call", "hooks/leave.sh")
                        .name("leave")
                        .timeout(1)
                        .on_error_block(),
                )
                .approve_all(),
        ),
        ("claude.pid", {
            let ws = Ws::new().master(true).sh("hooks/leave.sh", &claude);
            let command = ws.path("hooks/leave.sh").display().to_string();
            let ws = ws.file(
                ".claude/settings.json",
                &json!({"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": command, "timeout": 1}]}]}}).to_string(),
            );
            ws.approve(&command);
            ws
        }),
        (
            "skill.pid",
            skill(
                Ws::new(),
                "leave",
                json!([{"name": "leave", "command": skill_line, "events": ["pre_tool_call"], "timeout_seconds": 1}]),
            ),
        ),
    ];
    for (pidfile, ws) in cases {
        let fired = ws.fire("pre_tool_call", tool_call("bash", json!({"command": "ls"})));
        let pid: u32 = ws.read(pidfile).trim().parse().expect("a pid");
        kill(pid);
        assert_eq!(fired.decision(), "block", "{pidfile}: {}", fired.outcome);
        assert_eq!(fired.reason(), "kept", "{pidfile}");
        assert!(
            fired.elapsed < std::time::Duration::from_secs(8),
            "{pidfile}: {:?}",
            fired.elapsed
        );
    }
}

#[test]
fn a_skill_hook_may_echo_an_event_larger_than_a_mebibyte() {
    let ws = skill(
        Ws::new(),
        "big",
        json!([entry(
            "big",
            r#"sed 's/"text": "a/"text": "b/'"#,
            &["pre_tool_call"]
        )]),
    );
    let text = "a".repeat(1536 * 1024);
    let fired = ws.fire("pre_tool_call", tool_call("t", json!({"text": text})));
    assert_eq!(fired.status("big"), "ok", "{}", fired.hook("big"));
    let out = fired.outcome["payload"]["tool_input"]["text"]
        .as_str()
        .expect("text");
    assert_eq!(out.len(), text.len());
    assert!(out.starts_with("ba"));
}

/// A hook that reads its event and answers it with `args.blob` set to `bytes` bytes of `a`.
fn blob_answer(bytes: usize) -> String {
    format!(
        r#"cat >/dev/null; printf '{{"type": "pre_tool_call", "tool": "t", "args": {{"blob": "'; head -c {bytes} /dev/zero | tr '\0' a; printf '"}}}}'"#
    )
}

#[test]
fn a_three_mebibyte_answer_is_accepted_through_the_sidecar() {
    let size = 3 * 1024 * 1024;
    let ws = skill(
        Ws::new(),
        "big",
        json!([entry("big", &blob_answer(size), &["pre_tool_call"])]),
    );
    let server = support::Server::start(&ws);
    let (code, outcome) = server.post("/v1/events/pre_tool_call", tool_call("t", json!({})));
    assert_eq!(code, 200);
    assert_eq!(outcome["hooks"][0]["status"], "ok", "{}", outcome["hooks"]);
    let blob = outcome["payload"]["tool_input"]["blob"]
        .as_str()
        .unwrap_or_default();
    assert_eq!(blob.len(), size);
}

#[test]
fn an_answer_beyond_the_input_plus_sixteen_mebibytes_fails_the_hook_visibly_not_the_call() {
    let ws = skill(
        Ws::new(),
        "flood",
        json!([entry(
            "flood",
            &blob_answer(16 * 1024 * 1024 + 4096),
            &["pre_tool_call"]
        )]),
    );
    let fired = ws.fire("pre_tool_call", tool_call("t", json!({})));
    assert_eq!(fired.status("flood"), "invalid_output");
    assert_eq!(fired.decision(), "continue", "the call goes on");
    assert!(
        fired.warnings().iter().any(|w| w.contains("flood")),
        "the user is told: {:?}",
        fired.warnings()
    );
    let logged = ws.events_of("hook_invalid_output");
    assert_eq!(logged.len(), 1, "{logged:?}");
    assert!(
        logged[0]["error"]
            .as_str()
            .unwrap_or_default()
            .contains("larger than"),
        "{logged:?}"
    );
}

#[test]
fn lifecycle_hooks_chain_in_order_each_seeing_the_previous_output() {
    let ws = skill(
        Ws::new(),
        "boot",
        json!([
            entry(
                "first",
                &format!("sleep 0.3; {}", adding("first", "\"done\"")),
                &["pre_startup"]
            ),
            entry("second", RECORD, &["pre_startup"])
        ]),
    );
    let fired = ws.fire("pre_startup", json!({"status": "starting"}));
    assert_eq!(hook_names(&fired), vec!["first", "second"]);
    let seen = seen(&ws, "boot");
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0]["first"], "done", "{}", seen[0]);
    assert_eq!(seen[0]["type"], "pre_startup");
}

#[test]
fn loose_values_load_as_python_reads_them_each_with_a_warning() {
    let ws = skill(
        Ws::new().file(
            "logs/chat-history.jsonl",
            r#"{"type": "message", "channel_id": "c1", "content": "hi"}"#,
        ),
        "loose",
        json!([
            {"name": 7, "command": "echo \"$N|$F|$B|$Z|$L|$O|$STATE_DIR|$HOOK_NAME|$HOOK_EVENT\" > env.txt; cat > /dev/null",
             "events": [" post_startup "],
             "env": {"N": 1, "F": 1.0, "B": true, "Z": null, "L": [1, "a"], "O": {"k": "v"},
                     "STATE_DIR": "/elsewhere", "HOOK_NAME": "other", "HOOK_EVENT": "other"}},
            {"name": "env-string", "command": "cat > /dev/null", "events": ["post_startup"], "env": "x"},
            {"name": "truthy", "command": "cat > truthy.json", "events": ["post_startup"], "include_conversation": "yes"},
            {"name": "falsy", "command": "cat > falsy.json", "events": ["post_startup"], "include_conversation": 0},
            {"name": "t-string", "command": "cat > /dev/null; sleep 5", "events": ["post_startup"], "timeout_seconds": "1"},
            {"name": "t-zero", "command": "cat > /dev/null; sleep 1.1", "events": ["post_startup"], "timeout_seconds": 0},
            {"name": "t-negative", "command": "cat > /dev/null; sleep 1.1", "events": ["post_startup"], "timeout_seconds": -1},
            {"name": "t-word", "command": "cat > /dev/null; sleep 1.1", "events": ["post_startup"], "timeout_seconds": "abc"}
        ]),
    );
    let fired = ws.fire("post_startup", json!({"channel_id": "c1"}));
    let statuses: Vec<(&str, &str)> = [
        "7",
        "env-string",
        "truthy",
        "falsy",
        "t-string",
        "t-zero",
        "t-negative",
        "t-word",
    ]
    .into_iter()
    .map(|name| (name, fired.status(name)))
    .collect();
    assert_eq!(
        statuses,
        vec![
            ("7", "noop"),
            ("env-string", "noop"),
            ("truthy", "noop"),
            ("falsy", "noop"),
            ("t-string", "timeout"),
            ("t-zero", "noop"),
            ("t-negative", "noop"),
            ("t-word", "noop")
        ]
    );
    let dir = ws.path("skills/loose");
    assert_eq!(
        ws.read("skills/loose/env.txt").trim(),
        format!(
            "1|1.0|True|None|[1, 'a']|{{'k': 'v'}}|{}|7|post_startup",
            dir.display()
        )
    );
    let truthy: Value = serde_json::from_str(&ws.read("skills/loose/truthy.json")).expect("json");
    assert!(truthy["conversation"].is_object());
    let falsy: Value = serde_json::from_str(&ws.read("skills/loose/falsy.json")).expect("json");
    assert!(falsy.get("conversation").is_none());
    let listed: Value =
        serde_json::from_slice(&ws.run(&["list", "--json"]).stdout).expect("list --json");
    let warnings = listed["files"]
        .as_array()
        .expect("files")
        .iter()
        .find(|f| f["file"] == "skills/loose/hooks.json")
        .map(|f| f["warnings"].as_array().map_or(0, Vec::len))
        .unwrap_or(0);
    // name, six env values, three reserved names, env, two include_conversation, four timeouts
    assert!(warnings >= 17, "{warnings} warnings: {listed}");
}

#[test]
fn a_block_does_not_end_the_chain_and_a_later_hook_may_lift_it() {
    let block = adding("_block", r#"{"reason":"r1","result":"R1"}"#);
    let lift = r#"tee -a seen.jsonl | sed 's/, "_block": {[^}]*}//'"#;
    let ws = skill(
        Ws::new(),
        "chain",
        json!([
            entry("blocker", &block, &["pre_tool_call"]),
            entry("lifter", lift, &["pre_tool_call"])
        ]),
    );
    let fired = ws.fire("pre_tool_call", tool_call("t", json!({"n": 1})));
    assert_eq!(
        seen(&ws, "chain")[0]["_block"]["reason"],
        "r1",
        "the second hook ran on the block"
    );
    assert_eq!(fired.decision(), "continue", "{}", fired.outcome);
    assert!(fired.outcome["result"].is_null());
    assert!(ws.events_of("hook_blocked_tool_call").is_empty());

    // Passed on unchanged, the block stands, logged once for the hook that made it.
    let ws = skill(
        Ws::new(),
        "chain",
        json!([
            entry("blocker", &block, &["pre_tool_call"]),
            entry("echo", RECORD_AND_ECHO, &["pre_tool_call"])
        ]),
    );
    let fired = ws.fire("pre_tool_call", tool_call("t", json!({"n": 1})));
    assert_eq!(fired.decision(), "block");
    assert_eq!(fired.reason(), "r1");
    assert_eq!(fired.outcome["result"], "R1");
    let logged = ws.events_of("hook_blocked_tool_call");
    assert_eq!(logged.len(), 1, "{logged:?}");
    assert_eq!(logged[0]["name"], "blocker");
}

#[test]
fn fields_a_hook_adds_reach_the_next_hook() {
    let ws = skill(
        Ws::new(),
        "chain",
        json!([
            entry("adder", &adding("added", "\"x\""), &["pre_tool_call"]),
            entry("reader", RECORD, &["pre_tool_call"])
        ]),
    );
    let fired = ws.fire("pre_tool_call", tool_call("t", json!({})));
    assert_eq!(seen(&ws, "chain")[0]["added"], "x");
    assert!(ws.events_of("hook_invalid_mutation").is_empty());
    assert_eq!(fired.outcome["payload"]["tool_input"], json!({}));
}

#[test]
fn a_partial_answer_replaces_the_event() {
    let ws = skill(
        Ws::new(),
        "chain",
        json!([
            entry(
                "shrink",
                r#"sed 's/"n":1/"n":2/' > /dev/null; echo '{"args": {"n": 3}}'"#,
                &["pre_tool_call"]
            ),
            entry("reader", RECORD_AND_ECHO, &["pre_tool_call"]),
            entry(
                "empty-object",
                r#"cat > /dev/null; echo '{}'"#,
                &["pre_tool_call"]
            )
        ]),
    );
    let fired = ws.fire("pre_tool_call", tool_call("t", json!({"n": 1})));
    assert_eq!(seen(&ws, "chain")[0], json!({"args": {"n": 3}}));
    // The last answer has no `args`: the tool gets its own arguments back, as there.
    assert_eq!(fired.outcome["payload"]["tool_input"], json!({"n": 1}));
    assert_eq!(fired.outcome["payload"]["tool_name"], "t");
}

#[test]
fn the_last_append_prompt_wins() {
    let ws = skill(
        Ws::new(),
        "p",
        json!([
            entry("first", &adding("append_prompt", "\"A1\""), &["pre_prompt"]),
            entry(
                "second",
                r#"sed 's/"append_prompt": "A1"/"append_prompt": "A2"/'"#,
                &["pre_prompt"]
            )
        ]),
    );
    let fired = ws.fire("pre_llm_call", json!({"prompt": "hello"}));
    assert_eq!(fired.outcome["payload"]["prompt"], "hello\n\nA2");
}

#[test]
fn a_post_tool_call_hook_cannot_rewrite_the_result_of_a_blocked_or_failed_call() {
    let ws = skill(
        Ws::new(),
        "post",
        json!([entry(
            "rewrite",
            r#"tee -a seen.jsonl | sed 's/}$/,"result":"rewritten"}/'"#,
            &["post_tool_call"]
        )]),
    );
    let blocked = ws.fire(
        "post_tool_call",
        json!({"tool_name": "t", "tool_input": {}, "tool_result": "synthetic", "status": "blocked", "block_reason": "r1"}),
    );
    assert_eq!(blocked.outcome["payload"]["tool_result"], "synthetic");
    let failed = ws.fire(
        "post_tool_call",
        json!({"tool_name": "t", "tool_input": {}, "tool_result": "boom", "status": "error", "error": "boom", "error_class": "ValueError"}),
    );
    assert_eq!(failed.outcome["payload"]["tool_result"], "boom");
    assert_eq!(ws.events_of("hook_invalid_mutation").len(), 2);
    let seen = seen(&ws, "post");
    assert_eq!(seen[0]["block_reason"], "r1");
    assert_eq!(seen[0]["result"], "synthetic");
    // After an error the event has the error and its class, and no result.
    assert!(seen[1].get("result").is_none(), "{}", seen[1]);
    assert_eq!(seen[1]["error"], "boom");
    assert_eq!(seen[1]["error_class"], "ValueError");
    assert_eq!(seen[1]["status"], "error");
}

#[test]
fn a_broken_hooks_json_is_logged_once_per_change() {
    let ws = Ws::new().file("skills/a/hooks.json", "{\"hooks\": [");
    let count = |ws: &Ws| ws.events_of("hook_invalid_json").len();
    ws.fire("pre_tool_call", tool_call("t", json!({})));
    ws.fire("pre_tool_call", tool_call("t", json!({})));
    assert!(ws.run(&["list"]).status.success());
    assert_eq!(count(&ws), 1, "{:?}", ws.events());
    let ws = ws.file("skills/a/hooks.json", "{\"hooks\": [{");
    ws.fire("pre_tool_call", tool_call("t", json!({})));
    assert_eq!(count(&ws), 2, "a change is logged");
    let ws = ws.file("skills/a/hooks.json", "{\"hooks\": []}");
    ws.fire("pre_tool_call", tool_call("t", json!({})));
    let ws = ws.file("skills/a/hooks.json", "{\"hooks\": [");
    ws.fire("pre_tool_call", tool_call("t", json!({})));
    assert_eq!(count(&ws), 3, "broken again after a fix is logged again");
}

#[test]
fn serve_does_not_log_a_broken_hooks_json_continuously() {
    let ws = Ws::new().file("skills/a/hooks.json", "{\"hooks\": [").file(
        "skills/b/hooks.json",
        &json!({"hooks": [entry("writer", RECORD, &["pre_tool_call"])]}).to_string(),
    );
    let mut server = support::Server::start(&ws);
    // A hook writing into its skill directory changes skills/ and so triggers reloads.
    for _ in 0..3 {
        let (code, _) = server.post("/v1/events/pre_tool_call", tool_call("t", json!({})));
        assert_eq!(code, 200);
        std::thread::sleep(std::time::Duration::from_millis(400));
    }
    std::thread::sleep(std::time::Duration::from_millis(1500));
    server.terminate();
    assert_eq!(
        ws.events_of("hook_invalid_json").len(),
        1,
        "{:?}",
        ws.events()
    );
}

// ---------------------------------------------------------------------------------------------
// The bytes on a skill hook's stdin are those open-strix writes: `json.dumps(event,
// ensure_ascii=True) + "\n"`, its fields in its order, and no field it does not send.

#[test]
fn a_hook_matching_pythons_separators_in_its_raw_input_blocks_the_call() {
    // The shape real policy hooks take: a grep on the raw line, not a JSON parse.
    let block = r#"if grep -q '"tool": "send_message"'; then echo '{"_block": {"reason": "no-send", "result": "sending is off"}}'; fi"#;
    let ws = skill(
        Ws::new(),
        "policy",
        json!([entry("no-send", block, &["pre_tool_call"])]),
    );
    let fired = ws.fire("pre_tool_call", send_message("hi"));
    assert_eq!(fired.decision(), "block", "{}", fired.outcome);
    assert_eq!(fired.outcome["result"], "sending is off");
    let blocked = ws.events_of("hook_blocked_tool_call");
    assert_eq!(blocked.len(), 1, "{blocked:?}");
    assert_eq!(blocked[0]["tool"], "send_message");
    // Another tool is not matched by the same hook.
    let other = ws.fire("pre_tool_call", tool_call("bash", json!({"command": "ls"})));
    assert_eq!(other.decision(), "continue");
}

#[cfg_attr(
    not(have_python3),
    ignore = "needs python3 on PATH (.ci/run installs it)"
)]
#[test]
fn stdin_is_byte_for_byte_what_pythons_json_dumps_writes() {
    let ws = skill(
        Ws::new(),
        "raw",
        json!([entry(
            "raw",
            "cat >> raw.bin",
            &[
                "pre_tool_call",
                "post_tool_call",
                "pre_prompt",
                "pre_startup"
            ]
        )]),
    );
    let text = "h\u{e9}llo \u{1F600} \u{2028} \"q\" \\ \t\u{7f}";
    let payloads = [
        (
            "pre_tool_call",
            json!({"timestamp": "2026-01-02T03:04:05+00:00", "session_id": "s1", "tool_name": "send_message",
                   "tool_input": {"text": text, "n": [1, 2.5, 1e16, 1e-5, 100.0, -0.0, null, true, {}]},
                   "channel_id": "c1", "current_event": null}),
            // The event as open-strix builds it: type, timestamp, session_id, then its own fields.
            json!({"type": "pre_tool_call", "timestamp": "2026-01-02T03:04:05+00:00", "session_id": "s1",
                   "tool": "send_message", "args": {"text": text, "n": [1, 2.5, 1e16, 1e-5, 100.0, -0.0, null, true, {}]},
                   "channel_id": "c1", "current_event": null}),
        ),
        (
            "post_tool_call",
            json!({"timestamp": "2026-01-02T03:04:06+00:00", "session_id": "s1", "tool_name": "bash",
                   "tool_input": {"command": "false"}, "status": "error", "error": "boom",
                   "error_class": "RuntimeError", "channel_id": "c1", "current_event": "x"}),
            json!({"type": "post_tool_call", "timestamp": "2026-01-02T03:04:06+00:00", "session_id": "s1",
                   "tool": "bash", "args": {"command": "false"}, "status": "error", "error": "boom",
                   "error_class": "RuntimeError", "channel_id": "c1", "current_event": "x"}),
        ),
        (
            "pre_prompt",
            json!({"timestamp": "2026-01-02T03:04:07+00:00", "session_id": "s1", "prompt": "p\u{e9}",
                   "source_event_type": "discord_message", "channel_id": "c1", "author": "u"}),
            json!({"type": "pre_prompt", "timestamp": "2026-01-02T03:04:07+00:00", "session_id": "s1",
                   "prompt": "p\u{e9}", "source_event_type": "discord_message", "channel_id": "c1", "author": "u"}),
        ),
        (
            "pre_startup",
            json!({"timestamp": "2026-01-02T03:04:08+00:00", "session_id": "s1", "home": "/h"}),
            json!({"type": "pre_startup", "timestamp": "2026-01-02T03:04:08+00:00", "session_id": "s1", "home": "/h"}),
        ),
    ];
    let mut expected = Vec::new();
    for (event, payload, open_strix) in &payloads {
        let fired = ws.fire(event, payload.clone());
        assert_eq!(fired.status("raw"), "noop", "{}", fired.outcome);
        // What Python writes for the same event, from Python itself.
        let out = std::process::Command::new(python())
            .args([
                "-c",
                "import json, sys; sys.stdout.write(json.dumps(json.loads(sys.argv[1]), ensure_ascii=True, default=str) + '\\n')",
                &open_strix.to_string(),
            ])
            .output()
            .expect("run python3");
        assert!(out.status.success());
        expected.extend_from_slice(&out.stdout);
    }
    let got = std::fs::read(ws.path("skills/raw/raw.bin")).expect("the hook wrote its stdin");
    assert_eq!(
        String::from_utf8_lossy(&got),
        String::from_utf8_lossy(&expected)
    );
}

#[test]
fn fire_takes_the_skill_event_names() {
    let ws = skill(
        Ws::new(),
        "p",
        json!([entry("p", "cat >> seen.jsonl", &["pre_prompt"])]),
    );
    let fired = ws.fire("pre_prompt", json!({"session_id": "s1", "prompt": "hi"}));
    assert_eq!(fired.status("p"), "noop");
    let seen = seen(&ws, "p");
    assert_eq!(seen[0]["type"], "pre_prompt");
    assert_eq!(seen[0]["prompt"], "hi");
}

#[test]
fn an_answer_with_pythons_nan_and_infinity_is_read_as_python_reads_it() {
    let ws = skill(
        Ws::new(),
        "nan",
        json!([entry(
            "nan",
            r#"cat > /dev/null; echo '{"type": "pre_tool_call", "tool": "calc", "args": {"x": NaN, "y": Infinity, "z": 1}}'"#,
            &["pre_tool_call"]
        )]),
    );
    // The outcome carries them as Python wrote them, so it is Python's JSON, not strict JSON.
    let out = support::run_piped(
        ws.command(&["fire", "pre_tool_call"]),
        tool_call("calc", json!({"z": 0})).to_string().as_bytes(),
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(r#""tool_input":{"x":NaN,"y":Infinity,"z":1}"#),
        "{text}"
    );
    assert!(text.contains(r#""status":"ok""#), "{text}");
    assert!(ws.events_of("hook_invalid_output").is_empty());
}

#[test]
fn sh_is_bin_sh_whatever_path_the_skills_env_sets() {
    let ws = skill(
        Ws::new(),
        "nopath",
        json!([{"name": "nopath", "command": "read line; echo ran > ran.txt", "events": ["pre_tool_call"],
                "env": {"PATH": "/nonexistent"}}]),
    );
    let fired = ws.fire("pre_tool_call", tool_call("bash", json!({"command": "ls"})));
    assert_eq!(fired.status("nopath"), "noop", "{}", fired.outcome);
    assert_eq!(ws.read("skills/nopath/ran.txt").trim(), "ran");
}

#[test]
fn a_hooks_json_with_pythons_infinite_numbers_loads_as_python_loads_it() {
    let ws = Ws::new().file(
        "skills/inf/hooks.json",
        r#"{"hooks": [{"name": "inf", "command": "cat > /dev/null", "events": ["pre_tool_call"], "timeout_seconds": 1e400},
                      {"name": "nan", "command": "cat > /dev/null", "events": ["pre_tool_call"], "timeout_seconds": NaN}]}"#,
    );
    let fired = ws.fire("pre_tool_call", tool_call("t", json!({})));
    assert_eq!(hook_names(&fired), ["inf", "nan"], "{}", fired.outcome);
    assert_eq!(fired.status("inf"), "noop");
    assert!(ws.events_of("hook_invalid_json").is_empty());
}

#[test]
fn upstream_semantics_carry_block_along_and_the_tool_runs() {
    let block = adding("_block", r#"{"reason":"r1","result":"R1"}"#);
    let hooks = json!([
        entry("blocker", &block, &["pre_tool_call"]),
        entry("reader", RECORD_AND_ECHO, &["pre_tool_call"])
    ]);
    let upstream = skill(
        Ws::new().file("config/agent.yaml", "skill_hooks:\n  block: upstream\n"),
        "chain",
        hooks.clone(),
    );
    let fired = upstream.fire("pre_tool_call", tool_call("t", json!({"n": 1})));
    assert_eq!(fired.decision(), "continue", "{}", fired.outcome);
    assert!(fired.outcome["result"].is_null());
    assert_eq!(fired.outcome["payload"]["tool_input"], json!({"n": 1}));
    // The field is there for the next hook, as upstream passes every field on.
    assert_eq!(seen(&upstream, "chain")[0]["_block"]["reason"], "r1");
    assert!(upstream.events_of("hook_blocked_tool_call").is_empty());

    // The fork's verb is the default.
    let fork = skill(Ws::new(), "chain", hooks.clone());
    assert_eq!(
        fork.fire("pre_tool_call", tool_call("t", json!({"n": 1})))
            .decision(),
        "block"
    );

    // A value that is neither is told, and the fork's verb applies.
    let typo = skill(
        Ws::new().file("config/agent.yaml", "skill_hooks:\n  block: downstream\n"),
        "chain",
        hooks,
    );
    let fired = typo.fire("pre_tool_call", tool_call("t", json!({"n": 1})));
    assert_eq!(fired.decision(), "block");
    let told = fired.warnings().join("\n");
    assert!(told.contains("skill_hooks.block"), "{told}");
}

#[test]
fn diagnostics_in_the_outcome_carry_the_records_facts() {
    let ws = skill(
        Ws::new(),
        "s",
        json!([
            entry("err", "cat > /dev/null; echo oops >&2; exit 3", &["pre_tool_call"]),
            {"name": "slow", "command": "sleep 5", "events": ["pre_tool_call"], "timeout_seconds": 0.2},
            entry("bad", r#"cat > /dev/null; echo '{"_block": 1}'"#, &["pre_tool_call"])
        ]),
    );
    let fired = ws.fire("pre_tool_call", tool_call("send", json!({})));
    let diagnostics = fired.outcome["diagnostics"]
        .as_array()
        .expect("diagnostics");
    let of = |kind: &str| {
        diagnostics
            .iter()
            .find(|d| d["type"] == kind)
            .unwrap_or_else(|| panic!("no {kind} in {diagnostics:?}"))
    };
    assert_eq!(of("hook_nonzero_exit")["returncode"], 3);
    assert_eq!(of("hook_nonzero_exit")["event"], "pre_tool_call");
    assert_eq!(of("hook_timeout")["timeout_seconds"], 0.2);
    assert_eq!(of("hook_invalid_block")["tool"], "send");
    assert_eq!(of("hook_stderr")["detail"], "oops");
    // The same facts as the log's record.
    let logged = ws.events_of("hook_nonzero_exit");
    assert_eq!(logged[0]["returncode"], 3);
}

// ---------------------------------------------------------------------------------------------
// The host's own files get only what open-strix itself writes there: its diagnostics in
// `logs/events.jsonl`, in its schema. The runtime's bookkeeping (locks, the decision log, the
// `hook_decision` records, the memory of logged configuration errors) is in its own directory.

/// `git` in `dir`, its output; the test fails on a failed command.
fn git(dir: &Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run git");
    assert!(out.status.success(), "git {args:?}: {out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn a_sidecar_session_on_an_open_strix_home_leaves_only_what_open_strix_writes() {
    let block = r#"if grep -q '"tool": "send_message"'; then echo '{"_block": {"reason": "no-send", "result": "sending is off"}}'; fi"#;
    let rewrite = r#"sed 's/"command": "ls"/"command": "ls -l"/'"#;
    let ws = skill(
        Ws::new(),
        "policy",
        json!([
            entry("no-send", block, &["pre_tool_call"]),
            entry("longer", rewrite, &["pre_tool_call"]),
            entry(
                "noisy",
                "cat >/dev/null; echo warned >&2; exit 3",
                &["post_tool_call"]
            ),
            entry("prompt", "cat", &["pre_prompt"]),
        ]),
    )
    .file("skills/broken/hooks.json", "{\"hooks\": [")
    .file("memory.md", "an open-strix home is a git repository\n");
    let home = ws.root();
    git(&home, &["init", "-q"]);
    git(&home, &["add", "-A"]);
    git(&home, &["commit", "-q", "-m", "home"]);

    let mut server = support::Server::start(&ws);
    let posts = [
        ("pre_startup", json!({"session_id": "s1", "home": home})),
        ("pre_prompt", json!({"session_id": "s1", "prompt": "hi"})),
        ("pre_tool_call", send_message("hi")),
        ("pre_tool_call", tool_call("bash", json!({"command": "ls"}))),
        (
            "post_tool_call",
            json!({"session_id": "s1", "tool_name": "bash", "tool_input": {"command": "ls -l"},
                   "tool_result": "a b", "status": "success"}),
        ),
    ];
    let mut decisions = Vec::new();
    for (event, payload) in posts {
        let (code, outcome) = server.post(&format!("/v1/events/{event}"), payload);
        assert_eq!(code, 200, "{event}: {outcome}");
        decisions.push(outcome["decision"].as_str().unwrap_or_default().to_owned());
    }
    assert_eq!(decisions[2], "block");
    server.terminate();

    let status = git(&home, &["status", "--porcelain", "--untracked-files=all"]);
    assert_eq!(
        status, "?? logs/events.jsonl\n",
        "the home holds only what open-strix writes"
    );
    let records = ws.events();
    let types: Vec<&str> = records.iter().filter_map(|r| r["type"].as_str()).collect();
    for kind in [
        "hook_invalid_json",
        "hook_blocked_tool_call",
        "hook_stderr",
        "hook_nonzero_exit",
    ] {
        assert!(types.contains(&kind), "{kind} is logged: {types:?}");
    }
    let text = ws.read("logs/events.jsonl");
    for line in text.lines() {
        let record: Value = serde_json::from_str(line).expect("a JSON line");
        assert!(
            record.get("timestamp").is_some() && record.get("ts").is_none(),
            "each line in open-strix's schema: {line}"
        );
        assert_ne!(record["type"], "hook_decision", "{line}");
    }
    // The runtime's own records are kept, in its own directory for the workspace.
    let rewrites: Vec<&Value> = records
        .iter()
        .filter(|r| r["type"] == "hook_decision" && r["decision"] == "rewrite")
        .collect();
    assert_eq!(rewrites.len(), 1, "{records:?}");
    let calls = ws.read_runtime("decisions.jsonl");
    assert_eq!(calls.lines().count(), 3, "{calls}");
    assert!(ws.runtime_path("logged-config-errors.json").is_file());
    // `agent-hooks log` reads both files, in time order.
    let out = ws.run(&["log", "--json", "--last", "100"]);
    let logged: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON record"))
        .collect();
    assert_eq!(logged.len(), records.len(), "{logged:?}");
    assert!(logged.iter().any(|r| r["decision"] == "rewrite"));
    assert!(logged.iter().any(|r| r["type"] == "hook_invalid_json"));
}

// ---------------------------------------------------------------------------------------------
// Python's exact numbers: an integer beyond 64 bits, `NaN` and the infinities, as a Python host
// sends them, reach a skill hook as the bytes `json.dumps` writes and come back unchanged.

#[test]
fn pythons_big_integers_nan_and_infinities_reach_the_hook_and_come_back_unchanged() {
    let ws = skill(
        Ws::new(),
        "raw",
        json!([entry("raw", "tee -a raw.bin", &["pre_tool_call"])]),
    );
    let server = support::Server::start(&ws);
    let body = br#"{"session_id": "s1", "tool_name": "t", "tool_input": {"id": 123456789012345678901234567890, "neg": -98765432109876543210, "x": NaN, "up": Infinity, "down": -Infinity, "huge": 1e400, "f": 2.5, "s": "\u0000\u0001number:5"}}"#;
    let (code, answer) = server.request("POST", "/v1/events/pre_tool_call", body);
    assert_eq!(code, 200, "{answer}");
    let args = r#"{"id": 123456789012345678901234567890, "neg": -98765432109876543210, "x": NaN, "up": Infinity, "down": -Infinity, "huge": Infinity, "f": 2.5, "s": "\u0000\u0001number:5"}"#;
    let stdin = ws.read("skills/raw/raw.bin");
    assert!(
        stdin.contains(&format!("\"args\": {args}")),
        "the hook reads what json.dumps writes: {stdin}"
    );
    // The outcome is not strict JSON (it holds NaN), so the test reads its text.
    let text = answer.as_str().unwrap_or_default();
    let compact = args.replace(", ", ",").replace(": ", ":");
    assert!(
        text.contains(&format!("\"tool_input\":{compact}")),
        "the host gets the numbers it sent: {text}"
    );
}
