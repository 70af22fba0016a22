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
    assert_eq!(logged[0]["hook"], "block-shell-leak");
}

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
    assert_eq!(logged[0]["hook"], "bad-block");
}

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
    let detail = logged[0]["detail"].as_str().unwrap_or_default();
    assert!(
        detail.contains("tool") && detail.contains("type"),
        "{detail}"
    );
}

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
            .any(|r| r["source"] == "skills/a/hooks.json"),
        "{invalid_json:?}"
    );
    let invalid_format = ws.events_of("hook_invalid_format");
    assert!(
        invalid_format
            .iter()
            .any(|r| r["source"] == "skills/b/hooks.json"),
        "{invalid_format:?}"
    );
    let missing = ws.events_of("hook_missing_fields");
    let details: Vec<&str> = missing
        .iter()
        .filter_map(|r| r["detail"].as_str())
        .collect();
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
        ("hook_invalid_json", "garbage"),
        ("hook_invalid_output", "array"),
        ("hook_timeout", "slow"),
    ] {
        assert!(
            ws.events_of(kind).iter().any(|r| r["hook"] == hook),
            "no {kind} for {hook}: {:?}",
            ws.events()
        );
    }
}

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

#[test]
fn include_conversation_reads_the_history_once_skipping_bad_lines() {
    let history = [
        r#"{"type": "message", "channel_id": "c1", "text": "first"}"#,
        "this line is not JSON",
        r#"{"type": "tool", "channel_id": "c1"}"#,
        r#"{"type": "message", "channel_id": "c2", "text": "elsewhere"}"#,
        r#"{"type": "message", "channel_id": "c1", "text": "second"}"#,
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
        .filter_map(|m| m["text"].as_str())
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
