//! The sidecar's routes on any request body: byte 0 picks the route (every event by its
//! canonical, skill or Claude Code name, an unknown one, approve, revoke, a `/hooks` command
//! line, the Claude Code route, reload); the rest is the body, sent as the seeds' `curl`
//! sends it (loopback Host, `Content-Type: application/json`). Each input gets a fresh,
//! empty workspace, so a body that changes the workspace changes it for that input only.
//!
//! Invariants: nothing panics or hangs; no body is a server error (5xx); every answer but the
//! Claude Code route's is one JSON object, an error's with a message; an event's outcome
//! decides continue, block or ask; the Claude Code route answers nothing or one object.

#![no_main]

use std::sync::{Arc, LazyLock};

use agent_hooks_runtime::{EVENTS, Engine, Workspace};
use axum::body::Body;
use axum::http::{Request, header};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use tower::ServiceExt as _;

const CLAUDE_ROUTE: &str = "/v1/hooks/claude-code";

static ROUTES: LazyLock<Vec<String>> = LazyLock::new(|| {
    let mut routes: Vec<String> = EVENTS
        .iter()
        .map(|spec| format!("/v1/events/{}", spec.name))
        .collect();
    for other in [
        "/v1/events/PreToolUse",
        "/v1/events/pre_prompt",
        "/v1/events/no_such_event",
        "/internal/runtime/hooks/approve",
        "/internal/runtime/hooks/revoke",
        "/v1/hooks/command",
        CLAUDE_ROUTE,
        "/v1/reload",
    ] {
        routes.push(other.to_owned());
    }
    routes
});

static RT: LazyLock<tokio::runtime::Runtime> = LazyLock::new(|| {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
});

fuzz_target!(|data: &[u8]| {
    let Some((&pick, body)) = data.split_first() else {
        return;
    };
    let route = &ROUTES[usize::from(pick) % ROUTES.len()];
    let dir = tempfile::tempdir().expect("tempdir");
    let engine = Arc::new(Engine::open(Workspace::new(dir.path())));
    let request = Request::post(route.as_str())
        .header(header::HOST, "127.0.0.1:7777")
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from(body.to_vec()))
        .expect("a request");
    let (status, bytes) = RT.block_on(async {
        let response = agent_hooks_server::router(engine)
            .oneshot(request)
            .await
            .expect("the router never fails");
        let status = response.status();
        let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
            .await
            .expect("the body is read");
        (status, bytes)
    });
    let text = String::from_utf8_lossy(&bytes);
    assert!(!status.is_server_error(), "{route}: {status} {text}");
    if route == CLAUDE_ROUTE && status.is_success() {
        if !bytes.is_empty() {
            let answer: Value = serde_json::from_slice(&bytes).expect("the answer is JSON");
            assert!(answer.is_object(), "{route}: {text}");
        }
        return;
    }
    let answer: Value = serde_json::from_slice(&bytes)
        .unwrap_or_else(|e| panic!("{route}: {status}: the answer is not JSON ({e}): {text}"));
    assert!(answer.is_object(), "{route}: {text}");
    if status.is_client_error() {
        let message = answer.get("error").and_then(Value::as_str).unwrap_or("");
        assert!(
            !message.is_empty(),
            "{route}: {status} without a message: {text}"
        );
    } else if route.starts_with("/v1/events/") {
        let decision = answer.get("decision").and_then(Value::as_str);
        assert!(
            matches!(decision, Some("continue" | "block" | "ask")),
            "{route}: {text}"
        );
    }
});
