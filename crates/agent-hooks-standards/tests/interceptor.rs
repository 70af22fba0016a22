//! The engine registered as an interceptor on the AGENT-HOOKS-0.1 SDK's own emitter, over a
//! workspace of real shell hooks: each point's verdict is what the hooks said, validated by
//! the SDK's gate (`validate_verdict`, `InterceptorResponse::from_wire`), and a hook that fails
//! denies, fail-closed.

use std::os::unix::fs::PermissionsExt;
use std::sync::Arc;

use agent_hooks_runtime::{Engine, Workspace};
use agent_hooks_standards::interceptor::{EXTENSION, EngineInterceptor, wire};
use agent_hooks_standards::sdk::{
    AgentContext, AgentContextBuilder, EnforcementMode, InterceptionEmitter, InterceptorResponse,
    ffi_surface,
};
use serde_json::{Value, json};

/// A workspace with one approved shell hook on every event the points fire. It answers by
/// what it reads: `rm -rf` blocks, `please confirm` asks, `secret` in a tool's input is
/// rewritten, `crash` fails the hook, `shout` in a message or reply is upper-cased, `unfinished`
/// at `on_stop` blocks.
struct Ws {
    _dir: tempfile::TempDir,
    engine: Arc<Engine>,
}

const HOOK: &str = r#"#!/bin/sh
input=$(cat)
case "$input" in
  *crash*) echo "hook crashed" >&2; exit 1 ;;
esac
case "$input" in
  *'"event": "on_stop"'*|*'"event":"on_stop"'*)
    case "$input" in *unfinished*) echo '{"decision": "block", "reason": "the reply is unfinished"}' ;; esac
    exit 0 ;;
esac
case "$input" in
  *'rm -rf'*) echo '{"decision": "block", "reason": "refusing rm -rf"}' ;;
  *'please confirm'*) echo '{"decision": "ask", "reason": "needs a person"}' ;;
  *secret*) echo '{"tool_input": {"path": "redacted.txt"}}' ;;
  *shout*) case "$input" in
      *'"event": "on_user_message"'*|*'"event":"on_user_message"'*) echo '{"message": "SHOUT"}' ;;
      *) echo '{"response": "SHOUT"}' ;;
    esac ;;
esac
"#;

impl Ws {
    fn new() -> Ws {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().canonicalize().expect("canonical");
        std::fs::create_dir_all(root.join("config")).expect("config/");
        std::fs::write(
            root.join("config/agent.yaml"),
            "shell_hooks:\n  enabled: true\n",
        )
        .expect("agent.yaml");
        let hook = root.join("hook.sh");
        std::fs::write(&hook, HOOK).expect("hook");
        std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        let events = [
            "on_session_start",
            "on_user_message",
            "pre_llm_call",
            "post_llm_call",
            "pre_tool_call",
            "post_tool_call",
            "on_response_end",
            "on_stop",
            "on_session_end",
        ];
        let mut yaml = String::from("hooks:\n");
        for event in events {
            yaml.push_str(&format!(
                "  - name: policy-{event}\n    event: {event}\n    command: {}\n",
                hook.display()
            ));
        }
        std::fs::write(root.join("config/shell_hooks.yaml"), yaml).expect("yaml");
        let engine = Engine::open(Workspace::new(&root));
        engine
            .approve(None, &hook.display().to_string())
            .expect("approve");
        Ws {
            _dir: dir,
            engine: Arc::new(engine),
        }
    }

    fn emitter(&self) -> InterceptionEmitter {
        let mut emitter = InterceptionEmitter::new(EnforcementMode::Enforce, None);
        emitter.register(Box::new(EngineInterceptor::new(self.engine.clone())));
        emitter
    }

    async fn respond(&self, ctx: &AgentContext) -> Value {
        let response = EngineInterceptor::new(self.engine.clone())
            .respond(ctx)
            .await;
        let wire = wire(&response);
        // The SDK's own gates: the response envelope and the bare verdict.
        InterceptorResponse::from_wire(&wire).expect("the SDK accepts the response");
        ffi_surface::validate_verdict(&wire["verdict"].to_string())
            .expect("the SDK validates the verdict");
        wire
    }
}

fn builder() -> AgentContextBuilder {
    AgentContextBuilder::new("agent-1", "tests", "session-1")
}

#[tokio::test]
async fn every_point_of_a_clean_run_is_allowed_through_the_sdk_emitter() {
    let ws = Ws::new();
    let mut emitter = ws.emitter();
    let mut b = builder();
    let mut contexts = vec![
        b.agent_startup(vec!["read".into()]),
        b.input(json!("hello"), "user"),
        b.pre_model_call("m", vec![json!({"role": "user", "content": "hello"})]),
        b.post_model_call("m", json!("hi"), vec![], "stop"),
        b.pre_tool_call("c1", "read", json!({"path": "a.txt"})),
        b.post_tool_call("c1", "read", json!({"path": "a.txt"}), json!("text"), false),
        b.output(json!("done")),
        b.agent_shutdown("completed"),
    ];
    for ctx in &mut contexts {
        let outcome = emitter.emit(ctx).await.expect("allowed");
        assert_eq!(
            outcome.record.verdict.decision.as_str(),
            "allow",
            "{:?}",
            outcome.record
        );
    }
    assert_eq!(emitter.records().len(), 8);
}

#[tokio::test]
async fn a_block_denies_with_the_hook_named_and_the_tool_call_does_not_proceed() {
    let ws = Ws::new();
    let mut emitter = ws.emitter();
    let mut ctx = builder().pre_tool_call("c1", "bash", json!({"command": "rm -rf /"}));
    let blocked = emitter.emit(&mut ctx).await.expect_err("denied");
    let verdict = &blocked.record.verdict;
    assert_eq!(verdict.decision.as_str(), "deny");
    assert_eq!(verdict.reason.as_deref(), Some("hook:policy-pre_tool_call"));
    assert_eq!(verdict.message.as_deref(), Some("refusing rm -rf"));
    assert!(verdict.approval.is_none(), "a block is final");

    let wire = ws.respond(&ctx).await;
    let ours = &wire["extensions"][EXTENSION]["events"][0];
    assert_eq!(ours["event"], "pre_tool_call");
    assert_eq!(ours["hooks"][0]["status"], "blocked");
}

#[tokio::test]
async fn an_ask_is_a_deny_an_approver_may_lift() {
    let ws = Ws::new();
    let ctx = builder().pre_tool_call("c1", "bash", json!({"command": "please confirm"}));
    let wire = ws.respond(&ctx).await;
    assert_eq!(wire["verdict"]["decision"], "deny");
    assert_eq!(wire["verdict"]["approval"], json!({}));
}

#[tokio::test]
async fn a_rewrite_is_a_transform_the_emitter_applies_by_path() {
    let ws = Ws::new();
    let mut emitter = ws.emitter();
    let mut ctx = builder().pre_tool_call("c1", "read", json!({"path": "secret.txt"}));
    let outcome = emitter.emit(&mut ctx).await.expect("transformed");
    assert_eq!(outcome.record.verdict.decision.as_str(), "transform");
    assert_eq!(outcome.target, json!({"path": "redacted.txt"}));
    assert_eq!(ctx["tool_call"]["args"], json!({"path": "redacted.txt"}));

    let mut input = builder().input(json!("shout this"), "user");
    let outcome = emitter.emit(&mut input).await.expect("transformed");
    assert_eq!(outcome.target["content"], "SHOUT");
    assert_eq!(input["input"]["content"], "SHOUT");

    let mut output = builder().output(json!("shout the reply"));
    emitter.emit(&mut output).await.expect("transformed");
    assert_eq!(output["output"]["content"], "SHOUT");
}

#[tokio::test]
async fn output_that_on_stop_blocks_is_withheld() {
    let ws = Ws::new();
    let mut emitter = ws.emitter();
    let mut ctx = builder().output(json!("an unfinished reply"));
    let blocked = emitter.emit(&mut ctx).await.expect_err("withheld");
    let verdict = &blocked.record.verdict;
    assert_eq!(verdict.reason.as_deref(), Some("hook:policy-on_stop"));
    assert_eq!(
        verdict.message.as_deref(),
        Some("output withheld: the reply is unfinished")
    );
}

#[tokio::test]
async fn a_failing_hook_denies_fail_closed_at_every_point_even_where_hooks_only_observe() {
    let ws = Ws::new();
    let mut b = builder();
    let contexts = [
        b.input(json!("crash"), "user"),
        b.pre_tool_call("c1", "read", json!({"path": "crash"})),
        b.post_model_call("m", json!("crash"), vec![], "stop"),
        b.post_tool_call("c1", "read", json!({}), json!("crash"), false),
    ];
    for ctx in &contexts {
        let wire = ws.respond(ctx).await;
        assert_eq!(wire["verdict"]["decision"], "deny", "{wire}");
        assert_eq!(
            wire["verdict"]["reason"], "runtime_error:hook_failed",
            "{wire}"
        );
        let lapses = &wire["extensions"][EXTENSION]["events"][0]["lapses"];
        assert_eq!(lapses[0]["kind"], "hook_failed", "{wire}");
    }
}

#[tokio::test]
async fn a_hook_kept_from_running_by_the_trust_gate_denies() {
    let ws = Ws::new();
    ws.engine.set_master(false).expect("master off");
    let ctx = builder().pre_tool_call("c1", "read", json!({"path": "a.txt"}));
    let wire = ws.respond(&ctx).await;
    assert_eq!(
        wire["verdict"]["reason"], "runtime_error:untrusted",
        "{wire}"
    );
}

#[tokio::test]
async fn a_context_that_cannot_be_read_denies_with_a_runtime_error() {
    let ws = Ws::new();
    let mut ctx = builder().pre_tool_call("c1", "read", json!({}));
    ctx.remove("tool_call");
    let wire = ws.respond(&ctx).await;
    assert_eq!(wire["verdict"]["decision"], "deny");
    assert_eq!(wire["verdict"]["reason"], "runtime_error:context_invalid");
    let body = agent_hooks_standards::interceptor::respond_json(ws.engine.clone(), b"[1]").await;
    assert_eq!(body["verdict"]["reason"], "runtime_error:context_invalid");
}

#[tokio::test]
async fn evidence_points_at_the_logs_and_stays_under_the_cap() {
    let ws = Ws::new();
    let ctx = builder().pre_tool_call("c1", "read", json!({"path": "a.txt"}));
    let wire = ws.respond(&ctx).await;
    let pointers = &wire["verdict"]["evidence"]["verification_pointers"];
    assert!(
        pointers["event_log"]
            .as_str()
            .is_some_and(|p| p.starts_with("file://") && p.ends_with("events.jsonl")),
        "{wire}"
    );
    let many: Vec<(&str, String)> = (0..40)
        .map(|i| {
            let name: &'static str = Box::leak(format!("p{i}").into_boxed_str());
            (name, format!("file:///{}", "x".repeat(400)))
        })
        .collect();
    let evidence = agent_hooks_standards::mapping::evidence(&many).expect("some fit");
    let size =
        agent_hooks_standards::sdk::canonical_json(&serde_json::to_value(&evidence).expect("json"))
            .len();
    assert!(
        size <= agent_hooks_standards::sdk::EVIDENCE_MAX_BYTES,
        "{size}"
    );
    assert!(evidence.verification_pointers.len() < 40);
}

#[tokio::test]
async fn the_rust_host_runs_the_workspace_hooks_at_each_point() {
    use agent_hooks_standards::host::{StandardsHost, ToolResult};

    let ws = Ws::new();
    let mut host = StandardsHost::with_hooks(ws.engine.clone(), EnforcementMode::Enforce, "s1");
    host.startup(vec!["read".into(), "bash".into()])
        .await
        .expect("started");
    assert_eq!(
        host.input(json!("shout it"), "user").await.expect("input"),
        json!("SHOUT")
    );
    let ran = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = ran.clone();
    let value = host
        .call_tool("c1", "read", json!({"path": "secret.txt"}), |args| {
            seen.lock().expect("seen").push(args);
            std::future::ready(ToolResult {
                value: json!("contents"),
                is_error: false,
            })
        })
        .await
        .expect("the call ran");
    assert_eq!(value, json!("contents"));
    assert_eq!(*ran.lock().expect("ran"), [json!({"path": "redacted.txt"})]);
    let blocked = host
        .call_tool("c2", "bash", json!({"command": "rm -rf /"}), |_| {
            std::future::ready(ToolResult {
                value: json!("must not run"),
                is_error: false,
            })
        })
        .await
        .expect_err("blocked");
    assert_eq!(
        blocked.record.verdict.reason.as_deref(),
        Some("hook:policy-pre_tool_call")
    );
    host.output(json!("an unfinished reply"))
        .await
        .expect_err("withheld");
    host.shutdown("completed").await;
    let points: Vec<&str> = host
        .records()
        .iter()
        .map(|r| r.interception_point.as_str())
        .collect();
    assert_eq!(
        points,
        [
            "agent_startup",
            "input",
            "pre_tool_call",
            "post_tool_call",
            "pre_tool_call",
            "output",
            "agent_shutdown"
        ]
    );
}
