//! What an SRE reads from a running service, through the real binary: `GET /metrics` counts
//! every routed request by route (as declared), agent and status, with a latency histogram, and
//! counts each lapse by event and kind.

use serde_json::json;

use crate::support::{Entry, Server, Ws};

#[test]
fn metrics_count_requests_by_route_agent_and_status_with_latency_and_lapses() {
    let ws = Ws::new()
        .master(true)
        .sh("hooks/broken.sh", "cat >/dev/null; exit 3")
        .hook(Entry::new("pre_tool_call", "hooks/broken.sh").name("broken"))
        .approve_all();
    let server = Server::start(&ws);
    for command in ["ls", "pwd"] {
        let (status, _) = server.post(
            "/v1/events/pre_tool_call",
            json!({"tool_name": "bash", "tool_input": {"command": command}}),
        );
        assert_eq!(status, 200);
    }
    let (status, _) = server.post("/v1/events/no_such_event", json!({}));
    assert_eq!(status, 404);
    let (status, _) = server.post(
        "/v1/hooks/claude-code",
        json!({"session_id": "s", "cwd": "/tmp", "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "ls"}}),
    );
    assert_eq!(status, 200);
    let (status, body) = server.request("GET", "/metrics", b"");
    assert_eq!(status, 200);
    let text = body.as_str().unwrap_or_default().to_owned();
    let has = |line: &str| text.lines().any(|l| l == line);
    for line in [
        r#"agent_hooks_requests_total{route="/v1/events/{event}",agent="-",status="200"} 2"#,
        r#"agent_hooks_requests_total{route="/v1/events/{event}",agent="-",status="404"} 1"#,
        r#"agent_hooks_requests_total{route="/v1/hooks/claude-code",agent="claude-code",status="200"} 1"#,
        r#"agent_hooks_request_duration_seconds_count{route="/v1/events/{event}",agent="-"} 3"#,
        r#"agent_hooks_lapses_total{event="pre_tool_call",kind="hook_failed"} 2"#,
    ] {
        assert!(has(line), "no line {line} in:\n{text}");
    }
    assert!(
        text.contains(r#"agent_hooks_request_duration_seconds_bucket{le="0.0001",route="/v1/events/{event}",agent="-"}"#)
            || text.contains(r#"agent_hooks_request_duration_seconds_bucket{route="/v1/events/{event}",agent="-",le="0.0001"}"#),
        "no latency buckets in:\n{text}"
    );
}
