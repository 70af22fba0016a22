//! The agent hook standards against the real binary, with the standards' own SDKs: the Python
//! client's AGENT-HOOKS-0.1 interceptor on the SDK's emitter through `agent-hooks serve`
//! (`clients/python/tests/test_standards.py`); `agent-hooks ahp-serve` as a stdio backend of the
//! Agent Hooks Protocol SDK's harness, its frames checked against the protocol's schemas
//! (`test_standards_ahp.py`); and AGENT-HOOKS-0.1's conformance kit run against the Python
//! client's host (`tests/agent_hooks_ctk.py`).
//!
//! The Python ones need an interpreter with the pinned SDKs (`agent-hooks-sdk==0.1.0b3`,
//! `agenthooksprotocol[http]==0.10.1`) in `AGENT_HOOKS_STANDARDS_PYTHON`; `.ci/run` makes one. Without
//! it they are compiled as ignored (the crate's `build.rs`).

use crate::support;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::json;
use support::{Entry, Server, Ws};

const GUARD: &str = r#"case "$(cat)" in
  *'rm -rf'*) echo '{"decision": "block", "reason": "no rm -rf"}' ;;
  *secret.txt*) echo '{"tool_input": {"path": "redacted.txt"}}' ;;
esac
"#;

fn guarded() -> Ws {
    support::guarded_by(GUARD)
}

fn tool_call(args: serde_json::Value) -> serde_json::Value {
    json!({
        "spec": "agent-hooks/0.1", "interception_point": "pre_tool_call", "sequence": 0,
        "timestamp": "2026-01-01T00:00:00Z",
        "agent": {"id": "a", "framework": "tests"}, "session": {"id": "s"},
        "target": args, "tool_call": {"id": "c", "name": "bash", "args": args},
    })
}

#[test]
fn the_sidecar_answers_agent_hooks_contexts_with_verdicts() {
    let ws = guarded();
    let server = Server::start(&ws);
    let route = "/v1/standards/agent-hooks/intercept";
    let (status, answer) = server.post(route, tool_call(json!({"command": "rm -rf /"})));
    assert_eq!(status, 200);
    assert_eq!(answer["verdict"]["decision"], "deny", "{answer}");
    assert_eq!(answer["verdict"]["reason"], "hook:guard");
    assert_eq!(answer["verdict"]["message"], "no rm -rf");
    assert_eq!(
        answer["extensions"]["agent_hooks_runtime"]["events"][0]["hooks"][0]["hook"],
        "guard"
    );
    let (_, answer) = server.post(route, tool_call(json!({"path": "secret.txt"})));
    assert_eq!(
        answer["verdict"]["transform"],
        json!({"path": "$target", "value": {"path": "redacted.txt"}})
    );
    // Not a context: judged, and denied, rather than refused.
    let (status, answer) = server.request("POST", route, b"[]");
    assert_eq!(status, 200);
    assert_eq!(answer["verdict"]["reason"], "runtime_error:context_invalid");
}

#[test]
fn the_sidecar_answers_agent_hooks_protocol_messages() {
    let ws = guarded();
    let server = Server::start(&ws);
    let event = json!({
        "id": "e-1", "source": "urn:tests", "type": "tool.before",
        "time": "2026-01-01T00:00:00Z", "harness": {"name": "tests", "version": "1"},
        "call": {"id": "c"}, "path": "native",
        "tool": {"name": "bash", "input": {"command": "rm -rf /"}, "origin": "native"},
    });
    let (status, answer) = server.post(
        "/v1/standards/ahp",
        json!({"jsonrpc": "2.0", "id": "e-1", "method": "hooks/intercept", "params": {
            "protocolVersion": "draft", "event": event,
            "capabilities": {"effects": ["deny"]}}}),
    );
    assert_eq!(status, 200);
    assert_eq!(
        answer,
        json!({"jsonrpc": "2.0", "id": "e-1", "result": {"protocolVersion": "draft",
            "effects": [{"type": "deny", "reason": "no rm -rf"}]}})
    );
    // A notification is taken, and not answered.
    let (status, _) = server.post(
        "/v1/standards/ahp",
        json!({"jsonrpc": "2.0", "method": "hooks/observe",
            "params": {"protocolVersion": "draft", "event": event}}),
    );
    assert_eq!(status, 202);
}

#[test]
fn each_subscriptions_deadline_is_what_its_hooks_may_take() {
    let ws = Ws::new()
        .master(true)
        .sh("hooks/guard.sh", GUARD)
        .hook(
            Entry::new("pre_tool_call", "hooks/guard.sh")
                .name("guard")
                .timeout(7),
        )
        .hook(
            Entry::new("pre_tool_call", "hooks/guard.sh")
                .name("second")
                .timeout(20),
        )
        .hook(
            Entry::new("on_user_message", "hooks/guard.sh")
                .name("words")
                .timeout(3),
        )
        .approve_all();
    let server = Server::start(&ws);
    let (status, answer) = server.post(
        "/v1/standards/ahp",
        json!({"jsonrpc": "2.0", "id": 1, "method": "hooks/configuration",
            "params": {"protocolVersion": "draft"}}),
    );
    assert_eq!(status, 200);
    let deadlines: Vec<(String, u64)> = answer["result"]["configuration"]["subscriptions"]
        .as_array()
        .expect("subscriptions")
        .iter()
        .map(|s| {
            (
                s["events"][0].as_str().unwrap_or("").to_owned(),
                s["timeoutMs"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    // Both tool hooks may run one after the other: 7 s + 20 s, and a second for the runtime.
    assert_eq!(
        deadlines,
        [
            ("tool.before".to_owned(), 28_000),
            ("user.message.inbound".to_owned(), 4_000),
            ("user.message.outbound".to_owned(), 1_000)
        ],
        "{answer}"
    );
}

/// A hook that appends what it was given to `seen.jsonl`, and refuses anything secret.
const RECORDER: &str = r#"input=$(cat)
printf '%s\n' "$input" >> seen.jsonl
case "$input" in *secret*) echo '{"decision": "block", "reason": "no secrets out"}' ;; esac
"#;

#[test]
fn every_draft_event_with_a_canonical_counterpart_reaches_its_hooks_and_the_rest_are_unsupported() {
    let mut ws = Ws::new().master(true).sh("hooks/record.sh", RECORDER);
    for event in [
        "on_outbound_message",
        "pre_llm_call",
        "post_llm_call",
        "on_response_end",
        "on_stop",
    ] {
        ws = ws.hook(Entry::new(event, "hooks/record.sh").name(&format!("record_{event}")));
    }
    let ws = ws.approve_all();
    let server = Server::start(&ws);
    let envelope = |kind: &str, extra: serde_json::Value| {
        let mut event = json!({
            "id": format!("e-{kind}"), "source": "urn:tests", "type": kind,
            "time": "2026-01-01T00:00:00Z", "harness": {"name": "tests", "version": "1"},
            "session": {"id": "s-1"},
        });
        if let (Some(event), Some(extra)) = (event.as_object_mut(), extra.as_object()) {
            event.extend(extra.clone());
        }
        event
    };
    let said =
        |text: &str| json!([{"role": "assistant", "parts": [{"type": "text", "text": text}]}]);
    let intercept = |event: serde_json::Value| {
        let id = event["id"].clone();
        server.post(
            "/v1/standards/ahp",
            json!({"jsonrpc": "2.0", "id": id, "method": "hooks/intercept", "params": {
                "protocolVersion": "draft", "event": event,
                "capabilities": {"effects": ["deny"]}}}),
        )
    };
    let outbound = |text: &str| {
        envelope(
            "user.message.outbound",
            json!({"message": {"channel": "slack", "messages": said(text)}}),
        )
    };
    let (status, answer) = intercept(outbound("the secret is 42"));
    assert_eq!(status, 200);
    assert_eq!(
        answer["result"]["effects"],
        json!([{"type": "deny", "reason": "no secrets out"}]),
        "{answer}"
    );
    let (_, answer) = intercept(outbound("done"));
    assert_eq!(answer["result"]["effects"], json!([]), "{answer}");
    // No canonical counterpart: the documented error.
    let (_, answer) = intercept(envelope(
        "model.switch.before",
        json!({"model": {"id": "m", "provider": "p"}}),
    ));
    assert_eq!(answer["error"]["code"], -32002, "{answer}");
    assert_eq!(answer["error"]["message"], "Unsupported event", "{answer}");

    let model = json!({"id": "m-1", "provider": "tests"});
    for event in [
        envelope(
            "model.request.before",
            json!({"model": model, "items": [{"role": "user", "parts": [{"type": "text", "text": "fix it"}]}]}),
        ),
        envelope(
            "model.response.after",
            json!({"model": model, "items": said("fixed")}),
        ),
        envelope(
            "turn.end",
            json!({"items": said("all fixed"), "continuationCount": 0}),
        ),
        envelope(
            "turn.finish.before",
            json!({"items": said("all fixed"), "continuationCount": 2}),
        ),
    ] {
        let (status, _) = server.post(
            "/v1/standards/ahp",
            json!({"jsonrpc": "2.0", "method": "hooks/observe",
                "params": {"protocolVersion": "draft", "event": event}}),
        );
        assert_eq!(status, 202);
    }
    let seen: Vec<serde_json::Value> = std::fs::read_to_string(ws.root().join("seen.jsonl"))
        .expect("the hooks ran")
        .lines()
        .map(|l| serde_json::from_str(l).expect("a payload"))
        .collect();
    let of = |event: &str| {
        seen.iter()
            .find(|p| p["event"] == event || p["hook_event_name"] == event)
            .unwrap_or_else(|| panic!("no {event} in {seen:?}"))
    };
    assert_eq!(
        of("on_outbound_message")["notification"],
        "the secret is 42"
    );
    assert_eq!(of("on_outbound_message")["type"], "slack");
    assert_eq!(of("pre_llm_call")["last_user_message"], "fix it");
    assert_eq!(of("pre_llm_call")["model"], "m-1");
    assert_eq!(of("post_llm_call")["response"], "fixed");
    assert_eq!(of("on_response_end")["response"], "all fixed");
    assert_eq!(of("on_stop")["redo_count"], 2);
    assert_eq!(of("on_stop")["stop_hook_active"], true);
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn python() -> String {
    std::env::var("AGENT_HOOKS_STANDARDS_PYTHON")
        .expect("AGENT_HOOKS_STANDARDS_PYTHON: an interpreter with the pinned standards SDKs")
}

#[cfg_attr(
    not(have_standards_python),
    ignore = "needs AGENT_HOOKS_STANDARDS_PYTHON with agent-hooks-sdk (.ci/run makes one)"
)]
#[test]
fn the_interceptor_and_the_ahp_backend_answer_the_standards_own_sdks() {
    let out = Command::new(python())
        .args([
            "-m",
            "unittest",
            "-v",
            "tests.test_standards",
            "tests.test_standards_ahp",
        ])
        .current_dir(repo().join("clients/python"))
        .env("AGENT_HOOKS_BIN", support::BIN)
        .env("AGENT_HOOKS_STANDARDS_TESTS", "1")
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .expect("run the standards tests");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stderr.contains("Ran 19 tests") && stderr.contains("\nOK"),
        "the standards tests failed:\n{stderr}"
    );
}

#[cfg_attr(
    not(have_standards_python),
    ignore = "needs AGENT_HOOKS_STANDARDS_PYTHON with agent-hooks-sdk (.ci/run makes one)"
)]
#[test]
fn the_python_host_passes_every_conformance_vector_the_reference_harness_passes() {
    let out = Command::new(python())
        .arg(repo().join("tests/agent_hooks_ctk.py"))
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .expect("run tests/agent_hooks_ctk.py");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let last = stdout.lines().last().unwrap_or_default();
    assert!(
        out.status.success() && last == "71 passed, 0 failed, 4 skipped",
        "the conformance kit:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The four skips are the kit's incremental-output vectors, for the reason the kit gives.
    let skips: Vec<&str> = stdout.lines().filter(|l| l.starts_with("skip ")).collect();
    assert_eq!(skips.len(), 4, "{stdout}");
    assert!(
        skips
            .iter()
            .all(|l| l.ends_with("missing capabilities: [\"incremental_output\"]")),
        "{stdout}"
    );
}

#[test]
fn a_type_ahp_hook_is_for_pre_tool_call_and_is_not_pre_forked() {
    let ws = Ws::new().master(true).file(
        "config/shell_hooks.yaml",
        "hooks:\n  - {event: on_stop, type: ahp, command: python3 backend.py}\n  - {event: pre_tool_call, type: ahp, command: python3 backend.py, prefork: true}\n",
    );
    let out = ws.run(&["list"]);
    // `list` wraps its lines: read the words.
    let text = String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        text.contains("a type: ahp hook runs at pre_tool_call (AHP's tool.before), not on_stop"),
        "{text}"
    );
    assert!(
        text.contains("prefork: a type: ahp hook is an Agent Hooks Protocol backend"),
        "{text}"
    );
}
