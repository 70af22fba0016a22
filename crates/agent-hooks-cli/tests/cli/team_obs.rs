//! What an SRE reads of the agents' and the standards' routes, through the real `serve`: each
//! call is counted in `GET /metrics` by route, agent, event, hook and decision, with the hook's
//! run time and the lapses, exactly as `POST /v1/events/<event>` is; and an OTLP collector
//! decodes a dispatch span with a child per hook — never the tool's input.

use std::time::Duration;

use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::trace::v1::Span;
use prost::Message;
use serde_json::{Value, json};

use crate::observability::{attribute, collector};
use crate::support::{self, Entry, Server, Ws};

const GUARD: &str =
    r#"case "$(cat)" in *'rm -rf'*) echo '{"decision": "block", "reason": "no rm -rf"}' ;; esac"#;

/// Claude Code's PreToolUse of a shell `command`.
fn claude_bash(command: &str) -> Value {
    json!({"session_id": "s", "cwd": "/tmp", "hook_event_name": "PreToolUse",
        "tool_name": "Bash", "tool_input": {"command": command}})
}

/// A command whose text must reach no metric and no span.
const SECRET: &str = "rm -rf /home/secret-project-name";

/// Sends Claude Code's PreToolUse of `command` to its route, and checks it is denied.
fn denied_on_claudes_route(server: &Server, command: &str) {
    let (status, answer) = server.post("/v1/hooks/claude-code", claude_bash(command));
    assert_eq!(status, 200);
    assert_eq!(
        answer["hookSpecificOutput"]["permissionDecision"], "deny",
        "{answer}"
    );
}

fn metrics(server: &Server) -> String {
    let (status, body) = server.request("GET", "/metrics", b"");
    assert_eq!(status, 200);
    body.as_str().unwrap_or_default().to_owned()
}

/// The value of the one series `series` (its name and labels exactly), if it is there.
fn value(text: &str, series: &str) -> Option<f64> {
    text.lines()
        .find_map(|l| l.strip_prefix(series)?.strip_prefix(' '))
        .and_then(|v| v.trim().parse().ok())
}

#[test]
fn a_claude_pre_tool_use_a_hook_denies_is_counted_by_route_agent_hook_and_decision() {
    let ws = support::guarded_by(GUARD)
        .sh("hooks/broken.sh", "cat >/dev/null; exit 3")
        .hook(Entry::new("post_tool_call", "hooks/broken.sh").name("broken"))
        .approve_all();
    let server = Server::start(&ws);
    denied_on_claudes_route(&server, SECRET);
    let (status, _) = server.post("/v1/hooks/claude-code", claude_bash("ls"));
    assert_eq!(status, 200);
    let (status, _) = server.post(
        "/v1/hooks/claude-code",
        json!({"session_id": "s", "cwd": "/tmp", "hook_event_name": "PostToolUse",
            "tool_name": "Bash", "tool_input": {"command": "ls"},
            "tool_response": {"stdout": "a", "stderr": "", "interrupted": false}}),
    );
    assert_eq!(status, 200);

    let text = metrics(&server);
    let claude = r#"route="/v1/hooks/claude-code",agent="claude""#;
    let guard = r#"hook="guard",source="config/shell_hooks.yaml",event="pre_tool_call""#;
    for (series, expected) in [
        (
            format!(
                r#"agent_hooks_decisions_total{{{claude},event="pre_tool_call",decision="block"}}"#
            ),
            1.0,
        ),
        (
            format!(
                r#"agent_hooks_decisions_total{{{claude},event="pre_tool_call",decision="continue"}}"#
            ),
            1.0,
        ),
        (
            format!(r#"agent_hooks_hook_runs_total{{{claude},{guard},status="blocked"}}"#),
            1.0,
        ),
        (
            format!(r#"agent_hooks_hook_runs_total{{{claude},{guard},status="noop"}}"#),
            1.0,
        ),
        (
            format!(r#"agent_hooks_hook_duration_seconds_count{{{claude},{guard}}}"#),
            2.0,
        ),
        (
            format!(
                r#"agent_hooks_lapses_total{{{claude},event="post_tool_call",kind="hook_failed"}}"#
            ),
            1.0,
        ),
    ] {
        assert_eq!(
            value(&text, &series),
            Some(expected),
            "{series} in:\n{text}"
        );
    }
    // The same hook on the host's route is another series: the routes are told apart.
    assert!(
        !text.contains(r#"route="/v1/events/{event}",agent="-",hook="guard""#),
        "{text}"
    );
    assert!(!text.contains("secret-project"), "the tool input: {text}");
    // `GET /v1/stats` counts the agents' dispatches too.
    let (_, stats) = server.request("GET", "/v1/stats", b"");
    assert_eq!(stats["dispatches"], 3, "{stats}");
}

#[test]
fn every_agent_route_and_the_standards_routes_count_their_decisions() {
    let ws = support::guarded_by(GUARD);
    let server = Server::start(&ws);
    let rm = "rm -rf /";
    let calls = [
        (
            "/v1/hooks/codex",
            "codex",
            json!({"session_id": "s", "turn_id": "t1", "cwd": "/tmp",
            "hook_event_name": "PreToolUse", "model": "gpt-5", "permission_mode": "default",
            "tool_name": "Bash", "tool_input": {"command": rm}, "tool_use_id": "c1"}),
        ),
        (
            "/v1/hooks/gemini",
            "gemini",
            json!({"session_id": "s", "cwd": "/tmp",
            "hook_event_name": "BeforeTool", "timestamp": "2026-12-01T10:00:00Z",
            "tool_name": "run_shell_command", "tool_input": {"command": rm}}),
        ),
        (
            "/v1/hooks/cursor",
            "cursor",
            json!({"conversation_id": "s", "generation_id": "g1",
            "hook_event_name": "beforeShellExecution", "workspace_roots": ["/tmp"],
            "command": rm, "cwd": "/tmp"}),
        ),
        (
            "/v1/hooks/copilot",
            "copilot",
            json!({"sessionId": "s", "timestamp": 1704614600000_u64,
            "cwd": "/tmp", "toolName": "bash", "toolArgs": "{\"command\":\"rm -rf /\"}"}),
        ),
        (
            "/v1/standards/agent-hooks/intercept",
            "-",
            json!({
            "spec": "agent-hooks/0.1", "interception_point": "pre_tool_call", "sequence": 0,
            "timestamp": "2026-01-01T00:00:00Z",
            "agent": {"id": "a", "framework": "tests"}, "session": {"id": "s"},
            "target": {"command": rm},
            "tool_call": {"id": "c", "name": "bash", "args": {"command": rm}}}),
        ),
        (
            "/v1/standards/ahp",
            "-",
            json!({"jsonrpc": "2.0", "id": "e-1",
            "method": "hooks/intercept", "params": {"protocolVersion": "draft",
            "capabilities": {"effects": ["deny"]}, "event": {
                "id": "e-1", "source": "urn:tests", "type": "tool.before",
                "time": "2026-01-01T00:00:00Z", "harness": {"name": "tests", "version": "1"},
                "call": {"id": "c"}, "path": "native",
                "tool": {"name": "bash", "input": {"command": rm}, "origin": "native"}}}}),
        ),
    ];
    for (route, _, body) in &calls {
        let (status, answer) = server.post(route, body.clone());
        assert_eq!(status, 200, "{route}: {answer}");
    }
    let text = metrics(&server);
    for (route, agent, _) in &calls {
        let labels = format!(r#"route="{route}",agent="{agent}""#);
        let decided = format!(
            r#"agent_hooks_decisions_total{{{labels},event="pre_tool_call",decision="block"}}"#
        );
        assert_eq!(value(&text, &decided), Some(1.0), "{decided} in:\n{text}");
        let ran = format!(
            r#"agent_hooks_hook_runs_total{{{labels},hook="guard",source="config/shell_hooks.yaml",event="pre_tool_call",status="blocked"}}"#
        );
        assert_eq!(value(&text, &ran), Some(1.0), "{ran} in:\n{text}");
    }
}

/// The spans of every OTLP request the collector receives within `limit`, until `enough`
/// holds of them.
fn spans_until(
    received: &std::sync::mpsc::Receiver<(String, Vec<u8>)>,
    enough: impl Fn(&[Span]) -> bool,
) -> (Vec<Span>, Vec<u8>) {
    let mut spans = Vec::new();
    let mut bytes = Vec::new();
    while !enough(&spans) {
        let (path, body) = received
            .recv_timeout(Duration::from_secs(20))
            .unwrap_or_else(|_| panic!("the collector did not get the spans; it has {spans:?}"));
        assert_eq!(path, "/v1/traces");
        let request = ExportTraceServiceRequest::decode(body.as_slice()).expect("an OTLP request");
        spans.extend(
            request
                .resource_spans
                .into_iter()
                .flat_map(|r| r.scope_spans)
                .flat_map(|s| s.spans),
        );
        bytes.extend(body);
    }
    (spans, bytes)
}

#[test]
fn a_claude_call_reaches_an_otlp_collector_as_a_dispatch_span_with_a_child_per_hook() {
    // The audit first: the guard's block ends the chain, and a hook after it would not run.
    let ws = Ws::new()
        .master(true)
        .sh("hooks/audit.sh", "cat >/dev/null")
        .hook(Entry::new("pre_tool_call", "hooks/audit.sh").name("audit"))
        .sh("hooks/guard.sh", GUARD)
        .hook(Entry::new("pre_tool_call", "hooks/guard.sh").name("guard"))
        .approve_all();
    let (port, received) = collector();
    let mut serve = ws.command(&["serve", "--listen", "127.0.0.1:0"]);
    serve.env(
        "OTEL_EXPORTER_OTLP_ENDPOINT",
        format!("http://127.0.0.1:{port}"),
    );
    let server = Server::spawn(serve);
    denied_on_claudes_route(&server, SECRET);

    let dispatch_of = |spans: &[Span]| {
        spans
            .iter()
            .find(|s| s.name == "dispatch pre_tool_call")
            .cloned()
    };
    let (spans, bytes) = spans_until(&received, |spans| {
        dispatch_of(spans).is_some_and(|d| {
            spans
                .iter()
                .filter(|s| s.parent_span_id == d.span_id)
                .count()
                >= 2
        })
    });
    let dispatch = dispatch_of(&spans).expect("a dispatch span");
    for (key, expected) in [
        ("http.route", "/v1/hooks/claude-code"),
        ("agent_hooks.agent", "claude"),
        ("agent_hooks.event", "pre_tool_call"),
        ("agent_hooks.decision", "block"),
    ] {
        assert_eq!(
            attribute(&dispatch, key).as_deref(),
            Some(expected),
            "{key}"
        );
    }
    assert!(dispatch.parent_span_id.is_empty());
    let mut children: Vec<&Span> = spans
        .iter()
        .filter(|s| s.parent_span_id == dispatch.span_id)
        .collect();
    children.sort_by(|a, b| a.name.cmp(&b.name));
    let names: Vec<&str> = children.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["audit", "guard"]);
    for child in &children {
        assert_eq!(child.trace_id, dispatch.trace_id);
        assert_eq!(
            attribute(child, "agent_hooks.agent").as_deref(),
            Some("claude")
        );
        assert_eq!(
            attribute(child, "agent_hooks.event").as_deref(),
            Some("pre_tool_call")
        );
        assert!(child.end_time_unix_nano >= child.start_time_unix_nano);
    }
    assert_eq!(
        attribute(children[1], "agent_hooks.hook.status").as_deref(),
        Some("blocked")
    );
    assert!(
        !bytes
            .windows(b"secret-project".len())
            .any(|w| w == b"secret-project"),
        "the tool input is in the spans sent"
    );
}

/// The series of a metrics text: every sample's name and labels, without its value.
fn series(text: &str) -> std::collections::BTreeSet<String> {
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.rsplit_once(' ').map(|(series, _)| series.to_owned()))
        .collect()
}

/// Calls every route with an event named `crafted`, as a caller who wants a series of its own
/// would: the agents' routes, the host's, and both standards'.
fn call_with_crafted_names(server: &Server, crafted: &str) {
    let claude = json!({"session_id": "s", "cwd": "/tmp", "hook_event_name": crafted,
        "tool_name": "Bash", "tool_input": {"command": "ls"}});
    assert_eq!(server.post("/v1/hooks/claude-code", claude).0, 200);
    let codex = json!({"session_id": "s", "cwd": "/tmp", "hook_event_name": crafted,
        "tool_name": crafted, "tool_input": {"command": "ls"}});
    assert_eq!(server.post("/v1/hooks/codex", codex).0, 200);
    // Not JSON at all: read as nothing, under the same word.
    let (status, _) = server.request("POST", "/v1/hooks/gemini", crafted.as_bytes());
    assert_eq!(status, 200);
    let (status, _) = server.post(&format!("/v1/events/{crafted}"), json!({}));
    assert_eq!(status, 404);
    let ahp = json!({"jsonrpc": "2.0", "id": crafted, "method": "hooks/intercept",
        "params": {"protocolVersion": "draft", "capabilities": {"effects": ["deny"]},
            "event": {"id": crafted, "type": crafted, "tool": {"name": crafted}}}});
    assert_eq!(server.post("/v1/standards/ahp", ahp).0, 200);
    let context = json!({"spec": "agent-hooks/0.1", "interception_point": crafted,
        "sequence": 0, "timestamp": "2026-01-01T00:00:00Z",
        "agent": {"id": crafted, "framework": crafted}, "session": {"id": crafted}});
    assert_eq!(
        server
            .post("/v1/standards/agent-hooks/intercept", context)
            .0,
        200
    );
}

#[test]
fn an_event_name_crafted_by_a_caller_creates_no_series_of_its_own() {
    let ws = support::guarded_by(GUARD);
    let server = Server::start(&ws);
    // Scraped once first: a scrape is counted itself, from the second one on.
    metrics(&server);
    call_with_crafted_names(&server, "Crafted-1");
    let first = metrics(&server);
    call_with_crafted_names(&server, "Crafted-2");
    call_with_crafted_names(&server, "Crafted-3");
    let then = metrics(&server);
    assert_eq!(series(&first), series(&then), "new series:\n{then}");
    assert!(!then.contains("Crafted"), "{then}");
    // The answers are counted, under the one word for an event not known here.
    let claude = r#"route="/v1/hooks/claude-code",agent="claude""#;
    assert_eq!(
        value(
            &then,
            &format!(
                r#"agent_hooks_decisions_total{{{claude},event="other",decision="continue"}}"#
            )
        ),
        Some(3.0),
        "{then}"
    );
    let gemini = r#"route="/v1/hooks/gemini",agent="gemini""#;
    assert_eq!(
        value(
            &then,
            &format!(
                r#"agent_hooks_lapses_total{{{gemini},event="other",kind="unreadable_input"}}"#
            )
        ),
        Some(3.0),
        "{then}"
    );
}

/// Claude Code's PreToolUse of [`SECRET`] sent to a team service's `route` with `token`.
fn claude_call_to_team(server: &Server, route: &str, token: &str) -> (u16, Value) {
    let body = claude_bash(SECRET).to_string();
    support::http_with(
        server.port,
        "POST",
        route,
        body.as_bytes(),
        "127.0.0.1",
        &format!("Authorization: Bearer {token}\r\n"),
    )
}

/// A team service's metrics, scraped with the operator's `token`.
fn team_metrics(server: &Server, token: &str) -> String {
    let (status, text) = support::http_with(
        server.port,
        "GET",
        "/metrics",
        b"",
        "127.0.0.1",
        &format!("Authorization: Bearer {token}\r\n"),
    );
    assert_eq!(status, 200);
    text.as_str().unwrap_or_default().to_owned()
}

#[test]
fn the_agents_metrics_and_spans_carry_no_token_and_no_tool_input() {
    let team = crate::team::Team::new();
    let ws = crate::team::guarded();
    let (port, received) = collector();
    let mut serve = team.serve(&ws, "127.0.0.1:0", &[]);
    serve.env(
        "OTEL_EXPORTER_OTLP_ENDPOINT",
        format!("http://127.0.0.1:{port}"),
    );
    let server = Server::spawn(serve);
    let (status, _) = claude_call_to_team(&server, "/v1/hooks/claude-code", &team.agent);
    assert_eq!(status, 200);
    let text = team_metrics(&server, &team.operator);
    assert!(
        text.contains(r#"agent="claude",hook="guard""#),
        "the hook's run is not counted: {text}"
    );
    let (_, bytes) = spans_until(&received, |spans| spans.iter().any(|s| s.name == "guard"));
    let spans = String::from_utf8_lossy(&bytes).into_owned();
    for token in [&team.agent, &team.operator] {
        let secret = &token[4..];
        assert!(!text.contains(secret), "a token in the metrics");
        assert!(!spans.contains(secret), "a token in the spans");
    }
    assert!(!text.contains("secret-project"), "the tool input: {text}");
    assert!(
        !spans.contains("secret-project"),
        "the tool input in the spans"
    );
}

#[test]
fn a_call_a_bridge_process_forwards_to_the_team_service_is_counted_on_its_agents_route() {
    let team = crate::team::Team::new();
    let ws = crate::team::guarded();
    let server = Server::spawn(team.serve(&ws, "127.0.0.1:0", &[]));
    // What `claude-hook` sends when it is pointed at the service.
    let (status, answer) =
        claude_call_to_team(&server, "/v1/hooks/claude-code?caller=bridge", &team.agent);
    assert_eq!(status, 200, "{answer}");
    assert!(
        answer["stdout"]
            .as_str()
            .is_some_and(|out| out.contains("deny")),
        "{answer}"
    );
    let text = team_metrics(&server, &team.operator);
    let series = r#"agent_hooks_decisions_total{route="/v1/hooks/claude-code",agent="claude",event="pre_tool_call",decision="block"}"#;
    assert_eq!(value(&text, series), Some(1.0), "{text}");
}
