//! The trust gate through the sidecar, tried as an attacker would: a web page cannot approve,
//! `self_approve: false` holds on every route, and a broken `config/agent.yaml` does not turn
//! self-approval on. Real files, real processes, the router on a real loopback socket.

use std::path::Path;

use agent_hooks_runtime::{Engine, Workspace};
use serde_json::json;

#[path = "../../agent-hooks-runtime/tests/trust_ws/mod.rs"]
mod trust_ws;
use trust_ws::{Ws, declared_but_unapproved, ran};

// -- 6, 7. the sidecar --------------------------------------------------------------------

/// The sidecar's router on a real loopback socket; returns its address.
fn serve(rt: &tokio::runtime::Runtime, root: &Path) -> std::net::SocketAddr {
    let engine = std::sync::Arc::new(Engine::open(Workspace::new(root)));
    rt.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let addr = listener.local_addr().expect("addr");
        let app = agent_hooks_server::router(engine)
            .into_make_service_with_connect_info::<std::net::SocketAddr>();
        tokio::spawn(async move { axum::serve(listener, app).await });
        addr
    })
}

/// One raw HTTP/1.1 request; returns the status code and the whole response.
fn request(
    rt: &tokio::runtime::Runtime,
    addr: std::net::SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, String) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    rt.block_on(async {
        let mut stream = tokio::net::TcpStream::connect(addr).await.expect("connect");
        let mut text = format!(
            "{method} {path} HTTP/1.1\r\nHost: localhost:{}\r\nConnection: close\r\nContent-Length: {}\r\n",
            addr.port(),
            body.len()
        );
        for (name, value) in headers {
            text.push_str(&format!("{name}: {value}\r\n"));
        }
        text.push_str("\r\n");
        text.push_str(body);
        stream.write_all(text.as_bytes()).await.expect("write");
        let mut response = String::new();
        stream.read_to_string(&mut response).await.expect("read");
        let status = response
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .expect("a status line");
        (status, response)
    })
}

fn approve_body(ws: &Ws) -> String {
    json!({"command": ws.path("hooks/guard.sh").display().to_string()}).to_string()
}

#[test]
fn a_web_page_cannot_approve_through_the_sidecar_but_the_seeds_curl_still_can() {
    let ws = declared_but_unapproved();
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let addr = serve(&rt, &ws.root);
    let route = "/internal/runtime/hooks/approve";
    let body = approve_body(&ws);

    // A no-CORS "simple" request any page can send: Origin set, text/plain.
    let (status, _) = request(
        &rt,
        addr,
        "POST",
        route,
        &[
            ("Origin", "https://evil.example"),
            ("Content-Type", "text/plain"),
        ],
        &body,
    );
    assert_eq!(status, 403);
    // Either one alone is refused too.
    let (status, _) = request(
        &rt,
        addr,
        "POST",
        route,
        &[("Content-Type", "text/plain")],
        &body,
    );
    assert_eq!(status, 415);
    let (status, _) = request(
        &rt,
        addr,
        "POST",
        route,
        &[("Origin", "null"), ("Content-Type", "application/json")],
        &body,
    );
    assert_eq!(status, 403);
    let (status, response) = request(
        &rt,
        addr,
        "OPTIONS",
        route,
        &[
            ("Origin", "https://evil.example"),
            ("Access-Control-Request-Method", "POST"),
        ],
        "",
    );
    assert!(status >= 400, "a preflight was answered: {response}");
    assert!(
        !response
            .to_ascii_lowercase()
            .contains("access-control-allow")
    );
    assert!(!ws.path("config/hook_approvals.json").exists());
    assert!(!ran(&ws.fire()));

    // The seeds' own call: curl -s -X POST … -H 'Content-Type: application/json' -d '{…}'.
    let (status, response) = request(
        &rt,
        addr,
        "POST",
        route,
        &[("Content-Type", "application/json")],
        &body,
    );
    assert_eq!(status, 200, "{response}");
    assert!(ran(&ws.fire()));
}

#[test]
fn self_approve_off_holds_on_every_route_that_approves_or_turns_hooks_on() {
    let ws = declared_but_unapproved();
    ws.write(
        "config/agent.yaml",
        "shell_hooks:\n  enabled: false\n  self_approve: false\n",
    );
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let addr = serve(&rt, &ws.root);
    let json = [("Content-Type", "application/json")];
    let command = ws.path("hooks/guard.sh").display().to_string();
    for line in [
        format!("approve {command}"),
        format!("/hooks approve pre_tool_call {command}"),
        "on".to_owned(),
        "/hooks on".to_owned(),
    ] {
        let body = json!({ "line": line }).to_string();
        let (status, response) = request(&rt, addr, "POST", "/v1/hooks/command", &json, &body);
        assert_eq!(status, 403, "{line}: {response}");
    }
    let (status, _) = request(
        &rt,
        addr,
        "POST",
        "/internal/runtime/hooks/approve",
        &json,
        &approve_body(&ws),
    );
    assert_eq!(status, 403);
    assert!(!ws.path("config/hook_approvals.json").exists());
    assert!(ws.read_agent().contains("enabled: false"));

    // agent.yaml stops parsing: the last good value (off) holds after a reload.
    ws.write("config/agent.yaml", "shell_hooks: [unclosed\n");
    let (status, _) = request(&rt, addr, "POST", "/v1/reload", &[], "");
    assert_eq!(status, 200);
    let (status, _) = request(
        &rt,
        addr,
        "POST",
        "/internal/runtime/hooks/approve",
        &json,
        &approve_body(&ws),
    );
    assert_eq!(status, 403);
}

#[test]
fn a_sidecar_started_on_a_broken_agent_yaml_does_not_self_approve() {
    let ws = declared_but_unapproved();
    ws.write("config/agent.yaml", "shell_hooks: {self_approve: false\n");
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let addr = serve(&rt, &ws.root);
    let (status, _) = request(
        &rt,
        addr,
        "POST",
        "/internal/runtime/hooks/approve",
        &[("Content-Type", "application/json")],
        &approve_body(&ws),
    );
    assert_eq!(status, 403);
}

// -- 8. no silent lapse -------------------------------------------------------------------
