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
        // The two host dispatches and Claude Code's: every route's dispatches are counted.
        r#"agent_hooks_lapses_total{event="pre_tool_call",kind="hook_failed"} 3"#,
    ] {
        assert!(has(line), "no line {line} in:\n{text}");
    }
    assert!(
        text.contains(r#"agent_hooks_request_duration_seconds_bucket{le="0.0001",route="/v1/events/{event}",agent="-"}"#)
            || text.contains(r#"agent_hooks_request_duration_seconds_bucket{route="/v1/events/{event}",agent="-",le="0.0001"}"#),
        "no latency buckets in:\n{text}"
    );
}

/// A collector of OTLP/HTTP requests on a free loopback port: each request's path and body, as
/// it arrives.
fn collector() -> (u16, std::sync::mpsc::Receiver<(String, Vec<u8>)>) {
    use std::io::{BufRead, BufReader, Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("an address").port();
    let (send, received) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { return };
            let mut reader = BufReader::new(stream);
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 {
                    break;
                }
                let path = line.split_whitespace().nth(1).unwrap_or("").to_owned();
                let mut length = 0;
                loop {
                    let mut header = String::new();
                    reader.read_line(&mut header).unwrap_or(0);
                    if header.trim().is_empty() {
                        break;
                    }
                    if let Some((name, value)) = header.split_once(':')
                        && name.eq_ignore_ascii_case("content-length")
                    {
                        length = value.trim().parse().unwrap_or(0);
                    }
                }
                let mut body = vec![0; length];
                if reader.read_exact(&mut body).is_err() {
                    break;
                }
                let _ = reader
                    .get_mut()
                    .write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n");
                if send.send((path, body)).is_err() {
                    return;
                }
            }
        }
    });
    (port, received)
}

#[test]
fn a_span_per_dispatch_and_a_child_per_hook_reach_an_otlp_collector_without_the_tool_input() {
    use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
    use opentelemetry_proto::tonic::common::v1::any_value::Value as Any;
    use prost::Message;

    let ws = Ws::new()
        .master(true)
        .sh(
            "hooks/guard.sh",
            r#"case "$(cat)" in *'rm -rf'*) echo '{"decision": "block", "reason": "no"}' ;; esac"#,
        )
        .hook(Entry::new("pre_tool_call", "hooks/guard.sh").name("guard"))
        .approve_all();
    let (port, received) = collector();
    let mut serve = ws.command(&["serve", "--listen", "127.0.0.1:0"]);
    serve
        .env(
            "OTEL_EXPORTER_OTLP_ENDPOINT",
            format!("http://127.0.0.1:{port}"),
        )
        .env("OTEL_SERVICE_NAME", "team-policy");
    let server = Server::spawn(serve);
    let secret = "rm -rf /home/secret-project-name";
    let (status, outcome) = server.post(
        "/v1/events/pre_tool_call",
        json!({"tool_name": "bash", "tool_input": {"command": secret}}),
    );
    assert_eq!((status, outcome["decision"].as_str()), (200, Some("block")));

    let (path, body) = received
        .recv_timeout(std::time::Duration::from_secs(20))
        .expect("no spans reached the collector");
    assert_eq!(path, "/v1/traces");
    let request = ExportTraceServiceRequest::decode(body.as_slice()).expect("an OTLP request");
    let resource = &request.resource_spans[0];
    let service = resource.resource.as_ref().expect("a resource").attributes[0].clone();
    assert_eq!(service.key, "service.name");
    let spans: Vec<_> = resource
        .scope_spans
        .iter()
        .flat_map(|s| s.spans.iter())
        .collect();
    let attr = |span: &opentelemetry_proto::tonic::trace::v1::Span, key: &str| {
        span.attributes
            .iter()
            .find(|kv| kv.key == key)
            .and_then(|kv| kv.value.as_ref()?.value.clone())
            .map(|v| match v {
                Any::StringValue(s) => s,
                other => format!("{other:?}"),
            })
    };
    let dispatch = spans
        .iter()
        .find(|s| s.name == "dispatch pre_tool_call")
        .expect("a dispatch span");
    assert_eq!(
        attr(dispatch, "agent_hooks.event").as_deref(),
        Some("pre_tool_call")
    );
    assert_eq!(
        attr(dispatch, "agent_hooks.decision").as_deref(),
        Some("block")
    );
    assert!(dispatch.parent_span_id.is_empty());
    assert_eq!(dispatch.trace_id.len(), 16);
    assert!(dispatch.end_time_unix_nano >= dispatch.start_time_unix_nano);
    let hook = spans
        .iter()
        .find(|s| s.name == "guard")
        .expect("a span of the hook");
    assert_eq!(hook.parent_span_id, dispatch.span_id);
    assert_eq!(hook.trace_id, dispatch.trace_id);
    assert_eq!(
        attr(hook, "agent_hooks.hook.status").as_deref(),
        Some("blocked")
    );
    // The tool's input is in no span, not even in part.
    let text = format!("{request:?}");
    assert!(
        !text.contains("secret-project-name"),
        "the tool input was sent: {text}"
    );
    assert!(
        !body
            .windows(b"secret-project".len())
            .any(|w| w == b"secret-project"),
        "the tool input is in the bytes sent"
    );
}
