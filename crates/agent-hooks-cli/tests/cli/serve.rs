//! The sidecar, `agent-hooks serve`, as a real process on an ephemeral loopback port: every
//! route, the loopback guards, self-approve without a restart, hot reload, concurrency with a
//! hanging hook, and a clean SIGTERM that runs the shutdown hooks and leaves no hook behind.

use crate::support;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use support::{Entry, Server, Ws, eventually, http, process_running};

const GUARD: &str = r#"
    case "$(cat)" in
      *'rm -rf'*) echo '{"decision": "block", "reason": "no rm -rf"}' ;;
    esac
"#;

fn guarded() -> Ws {
    support::guarded_by(GUARD)
}

#[test]
fn dispatch_route_returns_the_outcome_of_fire() {
    let ws = guarded();
    let server = Server::start(&ws);
    let (status, outcome) = server.post(
        "/v1/events/pre_tool_call",
        json!({"tool_name": "bash", "tool_input": {"command": "rm -rf /"}}),
    );
    assert_eq!(status, 200);
    assert_eq!(outcome["decision"], "block");
    assert_eq!(outcome["reason"], "no rm -rf");
    assert_eq!(
        outcome["display"],
        json!({"summary": "No rm -rf", "evidence": null})
    );
    assert_eq!(outcome["hooks"][0]["hook"], "guard");
    let (_, ok) = server.post(
        "/v1/events/pre_tool_call",
        json!({"tool_name": "bash", "tool_input": {"command": "ls"}}),
    );
    assert_eq!(ok["decision"], "continue");
    assert_eq!(ok["display"], Value::Null);
}

#[test]
fn errors_are_json_with_the_right_status() {
    let ws = guarded();
    let server = Server::start(&ws);
    let (status, body) = server.post("/v1/events/pre_tool", json!({}));
    assert_eq!(status, 404);
    assert_eq!(body["ok"], false);
    assert!(
        body["error"]
            .as_str()
            .unwrap_or("")
            .contains("pre_tool_call"),
        "{body}"
    );

    let (status, body) = server.request("POST", "/v1/events/on_stop", b"[1,2]");
    assert_eq!(status, 400);
    assert_eq!(body["ok"], false);

    let (status, body) = server.request("GET", "/nowhere", b"");
    assert_eq!(status, 404);
    assert_eq!(body["ok"], false);

    let (status, body) = server.request("GET", "/v1/events/on_stop", b"");
    assert_eq!(status, 405);
    assert_eq!(body["ok"], false);

    // A tool input far larger than agents send passes by default (64 MiB)...
    let mut large = br#"{"tool_name": "write", "tool_input": {"text": ""#.to_vec();
    large.extend(std::iter::repeat_n(b'a', 5 * 1024 * 1024));
    large.extend_from_slice(br#""}}"#);
    let (status, body) = server.request("POST", "/v1/events/pre_tool_call", &large);
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["decision"], "continue");
    // ... and one past the cap is refused, no hook run.
    let big = vec![b' '; 64 * 1024 * 1024 + 1];
    let (status, body) = server.request("POST", "/v1/events/on_stop", &big);
    assert_eq!(status, 413);
    assert_eq!(body["ok"], false);
}

#[test]
fn a_non_loopback_host_header_is_refused() {
    let ws = guarded();
    let server = Server::start(&ws);
    let (status, body) = server.request_with_host("GET", "/v1/health", b"", "attacker.example.com");
    assert_eq!(status, 403);
    assert_eq!(body["ok"], false);
    let (status, _) = server.request_with_host("GET", "/v1/health", b"", "localhost:1234");
    assert_eq!(status, 200);
}

#[test]
fn serve_refuses_a_non_loopback_address() {
    let ws = guarded();
    let out = ws.run(&["serve", "--listen", "0.0.0.0:0"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("loopback"));
}

#[test]
fn self_approve_takes_effect_without_a_restart() {
    let ws = Ws::new()
        .master(false)
        .sh("hooks/guard.sh", GUARD)
        .hook(Entry::new("pre_tool_call", "hooks/guard.sh").name("guard"));
    let server = Server::start(&ws);
    let rm = json!({"tool_name": "bash", "tool_input": {"command": "rm -rf /"}});
    let (_, before) = server.post("/v1/events/pre_tool_call", rm.clone());
    assert_eq!(before["decision"], "continue");
    assert_eq!(before["hooks"][0]["status"], "skipped");

    let (status, body) = server.post(
        "/internal/runtime/hooks/approve",
        json!({"command": "hooks/guard.sh"}),
    );
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body,
        json!({"ok": true, "events": ["pre_tool_call"], "mounted": 1, "master_enabled": true})
    );
    let (_, after) = server.post("/v1/events/pre_tool_call", rm.clone());
    assert_eq!(after["decision"], "block");

    let (status, body) = server.post(
        "/internal/runtime/hooks/approve",
        json!({"command": "hooks/undeclared.py"}),
    );
    // Not 404, which the seeds read as "no self-approve API here".
    assert_eq!(status, 422);
    assert_eq!(body["ok"], false, "{body}");
    assert!(
        body["error"]
            .as_str()
            .unwrap_or("")
            .contains("not declared")
    );

    let (status, body) = server.post(
        "/internal/runtime/hooks/revoke",
        json!({"command": "hooks/guard.sh"}),
    );
    assert_eq!(status, 200);
    assert_eq!(body["removed"], 1);
    let (_, revoked) = server.post("/v1/events/pre_tool_call", rm);
    assert_eq!(revoked["decision"], "continue");
}

#[test]
fn self_approve_can_be_turned_off() {
    let ws = Ws::new()
        .file(
            "config/agent.yaml",
            "shell_hooks:\n  enabled: true\n  self_approve: false\n",
        )
        .sh("hooks/guard.sh", GUARD)
        .hook(Entry::new("pre_tool_call", "hooks/guard.sh"));
    let server = Server::start(&ws);
    let (status, body) = server.post(
        "/internal/runtime/hooks/approve",
        json!({"command": "hooks/guard.sh"}),
    );
    assert_eq!(status, 403);
    assert_eq!(body["ok"], false);
}

#[test]
fn an_approval_made_by_the_cli_is_picked_up_without_a_restart() {
    let ws = Ws::new()
        .master(true)
        .sh("hooks/guard.sh", GUARD)
        .hook(Entry::new("pre_tool_call", "hooks/guard.sh"));
    let server = Server::start(&ws);
    ws.approve("hooks/guard.sh");
    let rm = json!({"tool_name": "bash", "tool_input": {"command": "rm -rf /"}});
    assert!(
        eventually(Duration::from_secs(10), || {
            server.post("/v1/events/pre_tool_call", rm.clone()).1["decision"] == "block"
        }),
        "the CLI approval never reached the running server"
    );
}

#[test]
fn a_revocation_in_approvals_kept_outside_the_workspace_stops_the_hook_without_a_restart() {
    let ws = Ws::new()
        .master(true)
        .sh("hooks/guard.sh", GUARD)
        .hook(Entry::new("pre_tool_call", "hooks/guard.sh"));
    let elsewhere = tempfile::tempdir().expect("tempdir");
    let approvals = elsewhere.path().join("approvals.json");
    let cli = |args: &[&str]| {
        let out = ws
            .command(args)
            .env("AGENT_HOOKS_APPROVALS", &approvals)
            .output()
            .expect("run agent-hooks");
        assert!(out.status.success(), "{args:?}: {out:?}");
    };
    cli(&["approve", "hooks/guard.sh"]);
    let mut serve = ws.command(&["serve", "--listen", "127.0.0.1:0"]);
    serve.env("AGENT_HOOKS_APPROVALS", &approvals);
    let server = Server::spawn(serve);
    let rm = json!({"tool_name": "bash", "tool_input": {"command": "rm -rf /"}});
    assert_eq!(
        server.post("/v1/events/pre_tool_call", rm.clone()).1["decision"],
        "block"
    );
    cli(&["revoke", "hooks/guard.sh"]);
    assert!(
        eventually(Duration::from_secs(10), || {
            server.post("/v1/events/pre_tool_call", rm.clone()).1["decision"] == "continue"
        }),
        "the running server kept a hook whose approval was revoked in {}",
        approvals.display()
    );
}

#[test]
fn metrics_count_decisions_hook_runs_and_run_times_in_the_prometheus_format() {
    let ws = guarded();
    let server = Server::start(&ws);
    for command in ["rm -rf /", "ls", "rm -rf ~"] {
        let payload = json!({"tool_name": "bash", "tool_input": {"command": command}});
        assert_eq!(server.post("/v1/events/pre_tool_call", payload).0, 200);
    }
    let (status, body) = server.request("GET", "/metrics", b"");
    assert_eq!(status, 200);
    let text = body.as_str().expect("a text body");
    let value = |series: &str| -> Option<f64> {
        text.lines()
            .find_map(|l| l.strip_prefix(series))
            .and_then(|v| v.trim().parse().ok())
    };
    assert_eq!(
        value(
            r#"agent_hooks_decisions_total{route="/v1/events/{event}",agent="-",event="pre_tool_call",decision="block"}"#
        ),
        Some(2.0),
        "{text}"
    );
    assert_eq!(
        value(
            r#"agent_hooks_decisions_total{route="/v1/events/{event}",agent="-",event="pre_tool_call",decision="continue"}"#
        ),
        Some(1.0),
        "{text}"
    );
    let runs: f64 = text
        .lines()
        .filter(|l| {
            l.starts_with(r#"agent_hooks_hook_runs_total{route="/v1/events/{event}",agent="-",hook="guard",source="config/shell_hooks.yaml",event="pre_tool_call","#)
        })
        .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
        .sum();
    assert_eq!(runs, 3.0, "{text}");
    assert_eq!(
        value(
            r#"agent_hooks_hook_duration_seconds_count{route="/v1/events/{event}",agent="-",hook="guard",source="config/shell_hooks.yaml",event="pre_tool_call"}"#
        ),
        Some(3.0),
        "{text}"
    );
    assert!(text.trim_end().ends_with("# EOF"), "{text}");
}

#[test]
fn command_health_stats_and_reload_routes_answer() {
    let ws = guarded();
    let server = Server::start(&ws);
    let (status, body) = server.post("/v1/hooks/command", json!({"line": "/hooks help"}));
    assert_eq!(status, 200);
    assert_eq!(body["text"], agent_hooks_runtime::commands::help());

    let (status, health) = server.request("GET", "/v1/health", b"");
    assert_eq!(status, 200);
    assert_eq!(health["ok"], true);
    assert_eq!(health["hooks"], 1);
    assert_eq!(health["master_enabled"], true);

    for _ in 0..3 {
        server.post(
            "/v1/events/pre_tool_call",
            json!({"tool_name": "bash", "tool_input": {"command": "rm -rf x"}}),
        );
    }
    let (status, stats) = server.request("GET", "/v1/stats", b"");
    assert_eq!(status, 200);
    assert_eq!(stats["dispatches"], 3);
    assert_eq!(stats["hooks"][0]["hook"], "guard");
    assert_eq!(stats["hooks"][0]["calls"], 3);
    assert!(stats["hooks"][0]["p99_ms"].as_f64().unwrap_or(0.0) > 0.0);

    let (status, reload) = server.post("/v1/reload", json!({}));
    assert_eq!(status, 200);
    assert_eq!(reload["hooks"], 1);
}

#[test]
fn hot_reload_follows_edits_keeps_hooks_through_a_typo_and_picks_up_the_fix() {
    let ws = Ws::new()
        .master(true)
        .sh("hooks/ctx.sh", "cat > /dev/null\necho '{\"context\": \"one\"}'\n")
        .hook(Entry::new("on_user_message", "hooks/ctx.sh").name("ctx"))
        .approve_all()
        .file(
            "skills/s/hooks.json",
            r#"{"hooks": [{"name": "p", "command": "sed 's/\"prompt\": *\"[^\"]*\"/\"prompt\": \"v1\"/'", "events": ["pre_prompt"]}]}"#,
        );
    let server = Server::start(&ws);
    let context = |s: &Server| {
        s.post("/v1/events/on_user_message", json!({"message": "hi"}))
            .1["context"]
            .clone()
    };
    let prompt = |s: &Server| {
        s.post("/v1/events/pre_llm_call", json!({"prompt": "x"})).1["payload"]["prompt"].clone()
    };
    assert_eq!(context(&server), json!(["one"]));
    assert_eq!(prompt(&server), json!("v1"));

    // An edit that adds a second hook.
    let ws = ws
        .sh(
            "hooks/ctx2.sh",
            "cat > /dev/null\necho '{\"context\": \"two\"}'\n",
        )
        .hook(Entry::new("on_user_message", "hooks/ctx2.sh").name("ctx2"));
    ws.approve("hooks/ctx2.sh");
    assert!(
        eventually(Duration::from_secs(10), || context(&server)
            == json!(["one", "two"])),
        "the edit was never picked up"
    );

    // A typo: the previous good hooks keep running, and the error is logged.
    let ws = ws.file(
        "config/shell_hooks.yaml",
        "hooks:\n  - event: on_user_message\n   command: [\n",
    );
    let ws = ws.file("skills/s/hooks.json", "{\"hooks\": [");
    assert!(
        eventually(Duration::from_secs(10), || {
            ws.events_of("hook_config_error").iter().any(|r| {
                r["detail"]
                    .as_str()
                    .unwrap_or("")
                    .contains("config/shell_hooks.yaml:3")
            }) && !ws.events_of("hook_invalid_json").is_empty()
        }),
        "the broken files were never reported"
    );
    assert_eq!(context(&server), json!(["one", "two"]));
    assert_eq!(prompt(&server), json!("v1"));

    // The fix is picked up.
    let ws = ws.file(
        "config/shell_hooks.yaml",
        "hooks:\n  - event: on_user_message\n    command: hooks/ctx2.sh\n",
    );
    let _ws = ws.file(
        "skills/s/hooks.json",
        r#"{"hooks": [{"name": "p", "command": "sed 's/\"prompt\": *\"[^\"]*\"/\"prompt\": \"v2\"/'", "events": ["pre_prompt"]}]}"#,
    );
    assert!(
        eventually(Duration::from_secs(10), || context(&server)
            == json!(["two"])
            && prompt(&server) == json!("v2")),
        "the fix was never picked up"
    );
}

#[test]
fn a_hanging_hook_does_not_delay_other_requests() {
    let ws = Ws::new()
        .master(true)
        .sh(
            "hooks/slow.sh",
            r#"
            payload=$(cat)
            case "$payload" in *slow*) sleep 10 ;; esac
            "#,
        )
        .hook(
            Entry::new("on_outbound_message", "hooks/slow.sh")
                .name("slow")
                .timeout(30),
        )
        .approve_all();
    let server = Server::start(&ws);
    let port = server.port;
    let slow = std::thread::spawn(move || {
        let (_, outcome) = http(
            port,
            "POST",
            "/v1/events/on_outbound_message",
            json!({"notification": "slow"}).to_string().as_bytes(),
            "127.0.0.1",
        );
        (Instant::now(), outcome)
    });
    std::thread::sleep(Duration::from_millis(300));
    let mut fast_done = Instant::now();
    for _ in 0..100 {
        let (status, outcome) = server.post("/v1/events/on_session_end", json!({"status": "x"}));
        assert_eq!(status, 200);
        assert_eq!(outcome["decision"], "continue");
        fast_done = Instant::now();
    }
    let (slow_done, outcome) = slow.join().expect("the slow request");
    assert_eq!(outcome["hooks"][0]["status"], "noop");
    assert!(
        fast_done < slow_done,
        "the 100 quick dispatches finished after the hanging one"
    );
}

#[test]
fn sigterm_finishes_in_flight_dispatches_runs_shutdown_hooks_and_leaves_no_process() {
    let ws = Ws::new()
        .master(true)
        .sh(
            "hooks/busy.sh",
            r#"
            cat > /dev/null
            echo $$ > "$AGENT_HOOKS_WORKSPACE/busy.pid"
            sleep 2
            echo '{"add_warning": "finished"}'
            "#,
        )
        .hook(
            Entry::new("on_session_end", "hooks/busy.sh")
                .name("busy")
                .timeout(30),
        )
        .sh(
            "hooks/mark.sh",
            "cat > /dev/null\ntouch \"$AGENT_HOOKS_WORKSPACE/$HOOK_EVENT.ran\"\n",
        )
        .hook(Entry::new("pre_startup", "hooks/mark.sh"))
        .hook(Entry::new("post_startup", "hooks/mark.sh"))
        .hook(Entry::new("pre_shutdown", "hooks/mark.sh"))
        .hook(Entry::new("post_shutdown", "hooks/mark.sh"))
        .approve_all();
    let mut server = Server::start(&ws);
    assert!(ws.exists("pre_startup.ran") && ws.exists("post_startup.ran"));
    let port = server.port;
    let in_flight = std::thread::spawn(move || {
        http(
            port,
            "POST",
            "/v1/events/on_session_end",
            b"{}",
            "127.0.0.1",
        )
    });
    assert!(
        eventually(Duration::from_secs(10), || ws.exists("busy.pid")),
        "the in-flight hook never started"
    );
    let status = server.terminate();
    assert!(status.success(), "the server exited with {status}");
    let (code, outcome) = in_flight.join().expect("the in-flight request");
    assert_eq!(code, 200);
    assert_eq!(outcome["warnings"], json!(["finished"]));
    assert!(ws.exists("pre_shutdown.ran") && ws.exists("post_shutdown.ran"));
    let pid: u32 = ws.read("busy.pid").trim().parse().expect("a pid");
    assert!(
        !process_running(pid),
        "the hook process outlived the server"
    );
}

#[test]
fn a_sidecar_stopped_as_soon_as_it_announces_its_address_still_shuts_down_gracefully() {
    // A host may send SIGTERM the moment it has read the address line: the signal must be
    // caught by then, not kill the process with its default action.
    let ws = Ws::new().master(true);
    for round in 0..20 {
        let mut server = Server::start(&ws);
        let status = server.terminate();
        assert!(
            status.success(),
            "round {round}: the sidecar exited with {status}"
        );
    }
}

/// A workspace whose four lifecycle hooks each append their event's name to `lifecycle.log`.
fn lifecycle_logged(agent_yaml: &str) -> Ws {
    let mut ws = Ws::new().file("config/agent.yaml", agent_yaml).sh(
        "hooks/append.sh",
        "cat > /dev/null\necho \"$HOOK_EVENT\" >> \"$AGENT_HOOKS_WORKSPACE/lifecycle.log\"\n",
    );
    for event in [
        "pre_startup",
        "post_startup",
        "pre_shutdown",
        "post_shutdown",
    ] {
        ws = ws.hook(Entry::new(event, "hooks/append.sh"));
    }
    ws.approve_all()
}

/// Starts the sidecar with `flags`, fires `post_startup` through it as a host that owns its
/// lifecycle does, stops it, and returns the lines the hooks appended.
fn lifecycle_lines(ws: &Ws, flags: &[&str]) -> Vec<String> {
    let mut server = Server::start_with(ws, flags);
    let (code, outcome) = server.post("/v1/events/post_startup", json!({"status": "started"}));
    assert_eq!(code, 200, "{outcome}");
    assert!(server.terminate().success());
    let log = if ws.exists("lifecycle.log") {
        ws.read("lifecycle.log")
    } else {
        String::new()
    };
    log.lines().map(str::to_owned).collect()
}

#[test]
fn with_host_lifecycle_a_host_firing_post_startup_runs_its_hook_once() {
    let ws = lifecycle_logged("shell_hooks:\n  enabled: true\n");
    assert_eq!(
        lifecycle_lines(&ws, &["--host-lifecycle"]),
        ["post_startup"],
        "serve fired a lifecycle event the host owns"
    );
}

#[test]
fn the_host_lifecycle_setting_in_agent_yaml_does_what_the_flag_does() {
    let ws = lifecycle_logged("shell_hooks:\n  enabled: true\nsidecar:\n  host_lifecycle: true\n");
    assert_eq!(lifecycle_lines(&ws, &[]), ["post_startup"]);
}

#[test]
fn by_default_serve_fires_the_lifecycle_so_a_host_firing_it_too_runs_hooks_twice() {
    let ws = lifecycle_logged("shell_hooks:\n  enabled: true\n");
    assert_eq!(
        lifecycle_lines(&ws, &[]),
        [
            "pre_startup",
            "post_startup",
            "post_startup",
            "pre_shutdown",
            "post_shutdown"
        ]
    );
}

#[test]
fn idle_half_sent_requests_starve_neither_health_nor_hook_spawning() {
    let ws = Ws::new()
        .master(true)
        .sh(
            "hooks/guard.sh",
            r#"
            cat > /dev/null
            echo '{"decision": "block", "reason": "the hook was spawned"}'
            "#,
        )
        .hook(Entry::new("pre_tool_call", "hooks/guard.sh").name("guard"))
        .approve_all();
    let server = Server::start_with_open_files(&ws, 64);
    // More connections than the server has descriptors, each stuck halfway through its head.
    let idle: Vec<std::net::TcpStream> = (0..120)
        .map(|_| {
            let mut stream =
                std::net::TcpStream::connect(("127.0.0.1", server.port)).expect("connect");
            std::io::Write::write_all(
                &mut stream,
                b"POST /v1/events/pre_tool_call HTTP/1.1\r\nHost: 127.0.0.1\r\n",
            )
            .expect("send half a head");
            stream
        })
        .collect();

    // Before the cap, these waited behind the idle ones until the client gave up.
    let (status, health) = server.request("GET", "/v1/health", b"");
    assert_eq!(status, 200, "{health}");
    let (status, outcome) = server.post(
        "/v1/events/pre_tool_call",
        json!({"tool_name": "bash", "tool_input": {"command": "ls"}}),
    );
    assert_eq!(status, 200, "{outcome}");
    assert_eq!(
        outcome["decision"], "block",
        "the hook must spawn: {outcome}"
    );
    drop(idle);
}

/// A pre_tool_call hook that writes to stderr and rewrites `tool_input`, adding a key it may not
/// add; and one whose decision is not a decision.
fn noisy() -> Ws {
    Ws::new()
        .master(true)
        .sh(
            "hooks/noisy.sh",
            r#"
            cat > /dev/null
            echo "careful with that" >&2
            echo '{"tool_input": {"command": "ls -l", "invented": 1}}'
            "#,
        )
        .hook(Entry::new("pre_tool_call", "hooks/noisy.sh").name("noisy"))
        .sh(
            "hooks/confused.sh",
            "cat > /dev/null\necho '{\"decision\": \"perhaps\"}'\n",
        )
        .hook(Entry::new("pre_tool_call", "hooks/confused.sh").name("confused"))
        .approve_all()
}

fn types_of(outcome: &Value) -> Vec<(String, String)> {
    outcome["diagnostics"]
        .as_array()
        .expect("a diagnostics list")
        .iter()
        .map(|d| {
            (
                d["type"].as_str().unwrap_or("?").to_owned(),
                d["hook"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect()
}

#[test]
fn an_outcome_carries_the_diagnostics_of_its_dispatch_and_the_fields_that_changed() {
    let ws = noisy();
    let server = Server::start(&ws);
    let (code, outcome) = server.post(
        "/v1/events/pre_tool_call",
        json!({"tool_name": "bash", "tool_input": {"command": "ls"}}),
    );
    assert_eq!(code, 200, "{outcome}");
    let types = types_of(&outcome);
    for expected in [
        ("hook_stderr", "noisy"),
        ("hook_invalid_mutation", "noisy"),
        ("hook_invalid_output", "confused"),
    ] {
        assert!(
            types.contains(&(expected.0.to_owned(), expected.1.to_owned())),
            "{expected:?} missing from {outcome}"
        );
    }
    let stderr = outcome["diagnostics"]
        .as_array()
        .and_then(|d| d.iter().find(|d| d["type"] == "hook_stderr"))
        .expect("the stderr diagnostic");
    assert_eq!(stderr["source"], "config/shell_hooks.yaml");
    assert_eq!(stderr["detail"], "careful with that");
    assert_eq!(outcome["changed"], json!(["tool_input"]));
    assert_eq!(
        outcome["payload"]["tool_input"],
        json!({"command": "ls -l"})
    );
    // The same problems are in the event log, which stays on by default.
    assert!(!ws.events_of("hook_stderr").is_empty());
}

#[test]
fn an_outcome_whose_hooks_changed_nothing_says_so() {
    let ws = guarded();
    let server = Server::start(&ws);
    let (_, outcome) = server.post(
        "/v1/events/pre_tool_call",
        json!({"tool_name": "bash", "tool_input": {"command": "ls"}}),
    );
    assert_eq!(outcome["changed"], json!([]));
    assert_eq!(outcome["diagnostics"], json!([]));
}

#[test]
fn the_reload_answer_lists_configuration_errors_as_diagnostics() {
    let ws = guarded();
    let server = Server::start(&ws);
    std::fs::write(
        ws.path("config/shell_hooks.yaml"),
        "hooks:\n  - event: pre_tool\n    command: hooks/guard.sh\n",
    )
    .expect("break the file");
    let (code, answer) = server.post("/v1/reload", json!({}));
    assert_eq!(code, 200, "{answer}");
    let diagnostics = answer["diagnostics"].as_array().expect("diagnostics");
    let error = diagnostics
        .iter()
        .find(|d| d["source"] == "config/shell_hooks.yaml")
        .unwrap_or_else(|| panic!("no diagnostic about the broken file in {answer}"));
    assert_eq!(error["type"], "hook_config_error");
    assert_eq!(error["hook"], Value::Null);
    let detail = error["detail"].as_str().unwrap_or("");
    assert!(
        detail.contains("pre_tool") && detail.contains(":2:"),
        "{detail}"
    );
}

#[test]
fn with_the_event_log_off_diagnostics_still_reach_the_host_and_nothing_is_written() {
    let ws = noisy().file(
        "config/agent.yaml",
        "shell_hooks:\n  enabled: true\nlogs:\n  events: false\n",
    );
    let server = Server::start(&ws);
    let (_, outcome) = server.post(
        "/v1/events/pre_tool_call",
        json!({"tool_name": "bash", "tool_input": {"command": "ls"}}),
    );
    assert!(types_of(&outcome).iter().any(|(t, _)| t == "hook_stderr"));
    assert!(!ws.exists("logs/events.jsonl"), "the log was written");
}

#[test]
fn the_event_log_goes_where_agent_yaml_says() {
    let ws = noisy().file(
        "config/agent.yaml",
        "shell_hooks:\n  enabled: true\nlogs:\n  events: host-logs/hooks.jsonl\n",
    );
    let server = Server::start(&ws);
    server.post(
        "/v1/events/pre_tool_call",
        json!({"tool_name": "bash", "tool_input": {"command": "ls"}}),
    );
    assert!(!ws.exists("logs/events.jsonl"));
    assert!(
        ws.read("host-logs/hooks.jsonl").contains("hook_stderr"),
        "the configured log has no stderr record"
    );
    let out = ws.run(&["log", "--json"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("hook_stderr"));
}

/// A workspace whose `on_session_end` hook records its pid and sleeps `secs` seconds.
fn sleeper(secs: u32) -> Ws {
    Ws::new()
        .master(true)
        .sh(
            "hooks/sleep.sh",
            &format!(
                "cat > /dev/null\necho $$ > \"$AGENT_HOOKS_WORKSPACE/hook.pid\"\nsleep {secs}\n"
            ),
        )
        .hook(Entry::new("on_session_end", "hooks/sleep.sh").timeout(60))
        .approve_all()
}

/// Starts `sh` as the parent of `serve <flags>` (sh waits for it), with a dispatch of the
/// sleeping hook in flight; returns the parent, the sidecar's pid and the hook's pid.
fn serve_under_a_parent(ws: &Ws, flags: &str, stdin: Stdio) -> (std::process::Child, u32, u32) {
    let serve = ws.command(&[]);
    // A background command's stdin is /dev/null in sh, even when written `<&0`: the parent's
    // stdin goes through descriptor 3.
    let script = format!(
        "exec 3<&0; \"$0\" \"$@\" serve --listen 127.0.0.1:0 {flags} <&3 3<&- & echo $! > \"$PIDFILE\"; wait"
    );
    let mut parent = Command::new("sh")
        .arg("-c")
        .arg(script)
        .arg(serve.get_program())
        .args(serve.get_args())
        .env("PIDFILE", ws.path("serve.pid"))
        .stdin(stdin)
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn the parent");
    let mut line = String::new();
    BufReader::new(parent.stdout.take().expect("piped"))
        .read_line(&mut line)
        .expect("the ready line");
    let port: u16 = line
        .rsplit(':')
        .next()
        .and_then(|p| p.trim().parse().ok())
        .unwrap_or_else(|| panic!("no port in {line:?}"));
    std::thread::spawn(move || {
        http(
            port,
            "POST",
            "/v1/events/on_session_end",
            b"{}",
            "127.0.0.1",
        )
    });
    assert!(
        eventually(Duration::from_secs(10), || ws.exists("hook.pid")),
        "the hook never started"
    );
    let serve_pid = ws
        .read("serve.pid")
        .trim()
        .parse()
        .expect("the sidecar's pid");
    let hook_pid = ws.read("hook.pid").trim().parse().expect("the hook's pid");
    (parent, serve_pid, hook_pid)
}

#[test]
fn with_exit_with_parent_killing_the_parent_ends_the_sidecar_and_its_hooks() {
    let ws = sleeper(3);
    let (mut parent, serve_pid, hook_pid) =
        serve_under_a_parent(&ws, "--exit-with-parent", Stdio::null());
    assert!(process_running(serve_pid));
    parent.kill().expect("kill the parent");
    parent.wait().expect("reap the parent");
    assert!(
        eventually(Duration::from_secs(20), || !process_running(serve_pid)),
        "the sidecar outlived its parent"
    );
    assert!(
        !process_running(hook_pid),
        "a hook process outlived the sidecar"
    );
}

#[test]
fn with_exit_on_stdin_eof_closing_stdin_ends_the_sidecar() {
    let ws = sleeper(1);
    let (mut parent, serve_pid, hook_pid) =
        serve_under_a_parent(&ws, "--exit-on-stdin-eof", Stdio::piped());
    assert!(process_running(serve_pid));
    drop(parent.stdin.take());
    assert!(
        eventually(Duration::from_secs(20), || !process_running(serve_pid)),
        "the sidecar kept running after its stdin closed"
    );
    assert!(!process_running(hook_pid));
    parent.wait().expect("the parent ends with the sidecar");
}

#[test]
fn without_exit_with_parent_the_sidecar_outlives_its_parent() {
    let ws = sleeper(0);
    let (mut parent, serve_pid, _) = serve_under_a_parent(&ws, "", Stdio::null());
    parent.kill().expect("kill the parent");
    parent.wait().expect("reap the parent");
    std::thread::sleep(Duration::from_millis(800));
    let still_running = process_running(serve_pid);
    let _ = nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(serve_pid as i32),
        nix::sys::signal::Signal::SIGTERM,
    );
    assert!(still_running, "the sidecar stopped without being asked to");
}

#[test]
fn an_event_may_be_named_in_any_dialect_and_an_unknown_name_gets_a_suggestion() {
    let ws = guarded();
    let server = Server::start(&ws);
    let rm = json!({"tool_name": "bash", "tool_input": {"command": "rm -rf /"}});
    let (code, outcome) = server.post("/v1/events/PreToolUse", rm.clone());
    assert_eq!(code, 200, "{outcome}");
    assert_eq!(outcome["event"], "pre_tool_call");
    assert_eq!(outcome["decision"], "block");
    let (code, outcome) = server.post("/v1/events/pre_prompt", json!({"prompt": "hi"}));
    assert_eq!(code, 200, "{outcome}");
    assert_eq!(outcome["event"], "pre_llm_call");
    let (code, answer) = server.post("/v1/events/pre_tool", rm);
    assert_eq!(code, 404);
    assert!(
        answer["error"]
            .as_str()
            .is_some_and(|e| e.contains("did you mean \"pre_tool_call\"")),
        "{answer}"
    );
}

#[test]
fn a_conversation_sent_with_the_request_reaches_only_hooks_that_ask_for_it() {
    let ws = Ws::new()
        .file(
            "logs/chat-history.jsonl",
            r#"{"type": "message", "channel_id": "c1", "content": "from the file"}"#,
        )
        .file(
            "skills/conv/hooks.json",
            &json!({"hooks": [
                {"name": "without", "command": "cat >> without.jsonl", "events": ["pre_prompt"]},
                {"name": "with", "command": "cat >> with.jsonl", "events": ["pre_prompt"],
                 "include_conversation": true}
            ]})
            .to_string(),
        );
    let server = Server::start(&ws);
    let (code, outcome) = server.post(
        "/v1/events/pre_llm_call",
        json!({
            "prompt": "hello",
            "channel_id": "c1",
            "conversation": [
                {"channel_id": "c1", "author": "alice", "content": "from the host", "secret": "dropped"},
                {"channel_id": "c2", "content": "elsewhere"}
            ]
        }),
    );
    assert_eq!(code, 200, "{outcome}");
    assert!(
        outcome["payload"].get("conversation").is_none(),
        "{outcome}"
    );
    let with: Value = serde_json::from_str(ws.read("skills/conv/with.jsonl").trim()).expect("json");
    assert_eq!(with["conversation"]["source"], "host");
    assert_eq!(
        with["conversation"]["channel_messages"],
        json!([{"channel_id": "c1", "author": "alice", "content": "from the host"}])
    );
    assert_eq!(
        with["conversation"]["all_messages"]
            .as_array()
            .map(Vec::len),
        Some(2)
    );
    let without: Value =
        serde_json::from_str(ws.read("skills/conv/without.jsonl").trim()).expect("json");
    assert!(without.get("conversation").is_none(), "{without}");
    let (code, answer) = server.post("/v1/events/pre_llm_call", json!({"conversation": "hi"}));
    assert_eq!(code, 400, "{answer}");
}

#[test]
fn the_request_size_limit_is_a_setting_and_a_refused_request_runs_no_hook() {
    let ws = Ws::new()
        .file(
            "config/agent.yaml",
            "shell_hooks:\n  enabled: true\nsidecar:\n  max_body: 2000\n",
        )
        .sh(
            "hooks/mark.sh",
            "cat > /dev/null\necho x >> \"$AGENT_HOOKS_WORKSPACE/ran\"\n",
        )
        .hook(Entry::new("on_user_message", "hooks/mark.sh"))
        .approve_all();
    let server = Server::start(&ws);
    let small = json!({"message": "a".repeat(1000)});
    let (code, _) = server.post("/v1/events/on_user_message", small);
    assert_eq!(code, 200);
    let large = json!({"message": "a".repeat(3000)});
    let (code, answer) = server.post("/v1/events/on_user_message", large);
    assert_eq!(code, 413, "{answer}");
    assert!(
        answer["error"]
            .as_str()
            .is_some_and(|e| e.contains("sidecar.max_body")),
        "{answer}"
    );
    assert_eq!(
        ws.read("ran").lines().count(),
        1,
        "a refused request ran a hook"
    );
}

#[test]
fn get_hooks_lists_every_hook_with_its_dialect_names_timeout_env_names_and_health() {
    let ws = Ws::new()
        .master(true)
        .sh("hooks/guard.sh", GUARD)
        .hook(
            Entry::new("pre_tool_call", "hooks/guard.sh")
                .name("guard")
                .matcher("bash")
                .timeout(7)
                .env("API_TOKEN", "s3cret-value"),
        )
        .sh("hooks/unapproved.sh", "cat > /dev/null\n")
        .hook(Entry::new("on_stop", "hooks/unapproved.sh").name("unapproved"))
        .file(
            "skills/conv/hooks.json",
            &json!({"hooks": [{"name": "prompt-reader", "command": "cat", "events": ["pre_prompt"],
                               "include_conversation": true}]})
            .to_string(),
        );
    ws.approve("hooks/guard.sh");
    let server = Server::start(&ws);
    let (code, answer) = server.request("GET", "/v1/hooks", b"");
    assert_eq!(code, 200, "{answer}");
    assert!(
        !answer.to_string().contains("s3cret-value"),
        "an env value leaked: {answer}"
    );
    let hooks = answer["hooks"].as_array().expect("hooks");
    let find = |name: &str| {
        hooks
            .iter()
            .find(|h| h["name"] == name)
            .unwrap_or_else(|| panic!("{name} missing from {answer}"))
    };
    let guard = find("guard");
    assert_eq!(guard["source"], "shell_hooks");
    assert_eq!(guard["file"], "config/shell_hooks.yaml");
    assert_eq!(guard["events"], json!(["pre_tool_call"]));
    assert_eq!(guard["matcher"], "bash");
    assert_eq!(guard["timeout_s"], 7.0);
    assert_eq!(guard["env"], json!(["API_TOKEN"]));
    assert_eq!(guard["include_conversation"], false);
    assert_eq!(guard["health"], "approved");
    assert_eq!(guard["approved_events"], json!(["pre_tool_call"]));
    let unapproved = find("unapproved");
    assert_eq!(unapproved["health"], "not_approved");
    assert!(
        unapproved["fix"]
            .as_str()
            .is_some_and(|f| f.contains("approve"))
    );
    let skill = find("prompt-reader");
    assert_eq!(skill["events"], json!(["pre_llm_call"]));
    assert_eq!(skill["dialect_events"], json!(["pre_prompt"]));
    assert_eq!(skill["include_conversation"], true);
    assert_eq!(skill["health"], "no_approval_needed");
    assert_eq!(answer["diagnostics"], json!([]));
}
