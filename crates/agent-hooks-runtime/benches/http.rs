//! The cost of the HTTP transport over a bare POST: a full dispatch of `pre_tool_call` to one
//! approved HTTP hook on loopback, against a bare POST of the same body with the same client
//! settings (no proxy, no redirects, guarded resolver), to the same server, in the same run.
//! Target: the dispatch costs at most 1.2× the bare POST.

#[path = "../../agent-hooks-transports/tests/loopback/mod.rs"]
mod loopback;

use agent_hooks_runtime::internals::{ALLOW_LOCAL_ENV, transport_client};
use agent_hooks_runtime::{Engine, Event, Workspace};
use criterion::{Criterion, criterion_group};
use loopback::{Response, Server};
use serde_json::{Map, Value, json};

const ANSWER: &str = r#"{"decision": "allow"}"#;

fn payload() -> Map<String, Value> {
    match json!({"tool_name": "bash", "tool_input": {"command": "ls -la", "timeout": 5}}) {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

fn http_hook(c: &mut Criterion) {
    let server = Server::start(|_| Response::json(ANSWER));
    let url = server.url("/hook");
    let dir = tempfile::tempdir().expect("workspace");
    let root = dir.path();
    std::fs::create_dir_all(root.join("config")).expect("config/");
    std::fs::write(
        root.join("config/agent.yaml"),
        "shell_hooks:\n  enabled: true\n",
    )
    .expect("agent.yaml");
    std::fs::write(
        root.join("config/shell_hooks.yaml"),
        format!("hooks:\n  - event: pre_tool_call\n    type: http\n    url: \"{url}\"\n"),
    )
    .expect("shell_hooks.yaml");
    let engine = Engine::open(Workspace::new(root));
    engine.approve(None, &url).expect("approve the hook");

    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let outcome = rt.block_on(engine.dispatch(Event::PreToolCall, payload()));
    assert_eq!(outcome.hooks.len(), 1);
    assert_eq!(
        outcome.hooks[0].status.as_str(),
        "noop",
        "{:?}",
        outcome.hooks
    );

    let bare = transport_client().expect("client");
    let body = serde_json::to_vec(&payload()).expect("payload bytes");

    let mut group = c.benchmark_group("http_hook");
    group.bench_function("bare_post", |b| {
        b.to_async(&rt).iter(|| async {
            let response = bare
                .post(&url)
                .header("content-type", "application/json")
                .body(body.clone())
                .send()
                .await
                .expect("bare POST");
            let bytes = response.bytes().await.expect("answer body");
            assert_eq!(bytes.len(), ANSWER.len());
        });
    });
    group.bench_function("dispatch", |b| {
        b.to_async(&rt).iter(|| async {
            let outcome = engine.dispatch(Event::PreToolCall, payload()).await;
            assert_eq!(outcome.hooks.len(), 1);
        });
    });
    group.finish();
}

criterion_group!(benches, http_hook);

fn main() {
    // SAFETY: the first thing the process does, before any other thread exists. The engine's
    // config loader and its shared client read it; the loopback hook needs it.
    unsafe { std::env::set_var(ALLOW_LOCAL_ENV, "1") };
    benches();
    criterion::Criterion::default()
        .configure_from_args()
        .final_summary();
}
