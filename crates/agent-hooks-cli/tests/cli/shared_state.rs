//! Sessions shared by replicas (`serve --state redis://…`), through the real binary and a real
//! `redis-server` on a free loopback port: two replicas, each serving its own copy of the same
//! policy (as two machines would), answer one session's events in turn and keep one redo count
//! and one guard state; a replica killed mid-session loses nothing; and a store that does not
//! answer is a lapse the user is told of (a deny under `on_failure: block`), never a silent
//! allow. Where `redis-server` is not installed, each test says so and passes (`.ci/run`
//! installs it).

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

use serde_json::{Value, json};

use crate::support::{Entry, Server, Ws};

/// A `redis-server` of its own, on a free loopback port, saving nothing to disk.
pub(crate) struct Redis {
    child: Child,
    pub(crate) url: String,
}

impl Redis {
    /// Started and ready, or `None` (said on stderr) where `redis-server` is not installed.
    pub(crate) fn start() -> Option<Redis> {
        let port = free_port();
        let spawned = Command::new("redis-server")
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no", "--loglevel", "notice"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn();
        let mut child = match spawned {
            Ok(child) => child,
            Err(e) => {
                eprintln!(
                    "skipped: redis-server is not on PATH ({e}); .ci/run installs the Debian package redis-server"
                );
                return None;
            }
        };
        let stdout = child.stdout.take().expect("stdout is piped");
        let mut lines = BufReader::new(stdout).lines();
        // Its own word that it listens, rather than a sleep.
        let ready = lines
            .by_ref()
            .map_while(Result::ok)
            .any(|line| line.contains("Ready to accept connections"));
        assert!(ready, "redis-server ended before it was ready");
        // Drained in the background so its log never fills the pipe.
        std::thread::spawn(move || lines.for_each(drop));
        Some(Redis {
            child,
            url: format!("redis://127.0.0.1:{port}/0"),
        })
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

/// `verify_code_changes` installed and, with `again`, a Stop hook that always asks for a redo
/// (it then blocks before the guard is asked): the same policy in a directory of its own each
/// time it is called, as on another machine.
fn policy(agent_yaml: &str, again: bool) -> Ws {
    let always = r#"cat >/dev/null; printf '{"decision":"block","reason":"again"}'"#;
    let mut ws = Ws::new().master(true).file("config/agent.yaml", agent_yaml);
    if again {
        ws = ws
            .sh("hooks/again.sh", always)
            .hook(Entry::new("on_stop", "hooks/again.sh").name("again"))
            .approve_all();
    }
    let installed = ws.run(&["install", "verify_code_changes"]);
    assert!(installed.status.success(), "{installed:?}");
    ws
}

fn replica(ws: &Ws, store: &str) -> Server {
    Server::start_with(ws, &["--state", store])
}

fn claude(server: &Server, event: &str, fields: Value) -> Value {
    let mut input = json!({
        "session_id": "team-session-1",
        "transcript_path": "/tmp/none.jsonl",
        "cwd": "/tmp",
        "hook_event_name": event,
    });
    if let (Value::Object(target), Value::Object(extra)) = (&mut input, fields) {
        target.extend(extra);
    }
    let (status, answer) = server.post("/v1/hooks/claude-code", input);
    assert_eq!(status, 200, "{answer}");
    answer
}

fn stop(server: &Server, active: bool) -> Value {
    claude(
        server,
        "Stop",
        json!({"stop_hook_active": active, "last_assistant_message": "not yet"}),
    )
}

fn capped(answer: &Value) -> bool {
    answer["decision"].is_null()
        && answer["systemMessage"]
            .as_str()
            .unwrap_or_default()
            .contains("redo cap reached")
}

#[test]
fn a_sessions_redo_cap_holds_when_its_stops_alternate_between_replicas() {
    let Some(redis) = Redis::start() else { return };
    let (a, b) = (policy("", true), policy("", true));
    let (a, b) = (replica(&a, &redis.url), replica(&b, &redis.url));
    // The first stop and two redos are refused, alternating; the third redo is let through.
    assert_eq!(stop(&a, false)["decision"], "block");
    assert_eq!(stop(&b, true)["decision"], "block");
    assert_eq!(stop(&a, true)["decision"], "block");
    let last = stop(&b, true);
    assert!(capped(&last), "{last}");
    // The next turn starts afresh, on either replica.
    assert_eq!(stop(&b, false)["decision"], "block");
}

#[test]
fn a_replica_killed_mid_session_loses_no_state() {
    let Some(redis) = Redis::start() else { return };
    let (wa, wb) = (policy("", true), policy("", true));
    let a = replica(&wa, &redis.url);
    assert_eq!(stop(&a, false)["decision"], "block");
    assert_eq!(stop(&a, true)["decision"], "block");
    // Killed (dropping the server sends SIGKILL), as a machine that goes away: no shutdown,
    // no flush.
    drop(a);
    let b = replica(&wb, &redis.url);
    // B counts on from A's redos: one more refusal, then the cap, at the same stop as on one
    // replica.
    assert_eq!(stop(&b, true)["decision"], "block");
    let last = stop(&b, true);
    assert!(capped(&last), "{last}");

    // A guard's session state too: the edit A saw is the one B asks tests for.
    let (wa, wb) = (policy("", false), policy("", false));
    let a = replica(&wa, &redis.url);
    let edit = claude(
        &a,
        "PreToolUse",
        json!({"tool_name": "Edit", "tool_input": {"file_path": "src/app.py", "old_string": "a", "new_string": "b"}}),
    );
    assert!(
        edit["hookSpecificOutput"]["permissionDecision"] != "deny",
        "{edit}"
    );
    drop(a);
    let b = replica(&wb, &redis.url);
    let asked = claude(
        &b,
        "Stop",
        json!({"stop_hook_active": false, "last_assistant_message": "Done."}),
    );
    assert_eq!(asked["decision"], "block", "{asked}");
    assert!(
        asked["reason"]
            .as_str()
            .unwrap_or_default()
            .contains("src/app.py"),
        "{asked}"
    );
}

#[test]
fn without_a_shared_store_replicas_do_not_share_sessions() {
    // The control: the same steps with each replica's own files, and B knows nothing.
    let (wa, wb) = (policy("", false), policy("", false));
    let a = Server::start(&wa);
    claude(
        &a,
        "PreToolUse",
        json!({"tool_name": "Edit", "tool_input": {"file_path": "src/app.py", "old_string": "a", "new_string": "b"}}),
    );
    let b = Server::start(&wb);
    let asked = claude(
        &b,
        "Stop",
        json!({"stop_hook_active": false, "last_assistant_message": "Done."}),
    );
    assert!(asked["decision"].is_null(), "{asked}");
}

#[test]
fn a_store_that_does_not_answer_is_a_lapse_told_and_a_deny_under_block() {
    // Nothing listens on this port: the store is down from the start.
    let down = format!("redis://127.0.0.1:{}/0", free_port());
    let ws = policy("", false);
    let server = replica(&ws, &down);
    let edit = json!({"tool_name": "Edit", "tool_input": {"file_path": "src/app.py", "old_string": "a", "new_string": "b"}});
    let told = claude(&server, "PreToolUse", edit.clone());
    let text = told.to_string();
    assert!(
        text.contains("did not answer"),
        "the lapse is not told: {told}"
    );
    assert!(
        told["hookSpecificOutput"]["permissionDecision"] != "deny",
        "{told}"
    );
    let stopped = stop(&server, true);
    assert!(
        stopped.to_string().contains("redo cap may not hold"),
        "the unknown redo count is not told: {stopped}"
    );
    drop(server);

    // Under on_failure: block the same tool call is denied.
    let strict = policy("on_failure: block\n", false);
    let server = replica(&strict, &down);
    let denied = claude(&server, "PreToolUse", edit);
    assert_eq!(
        denied["hookSpecificOutput"]["permissionDecision"], "deny",
        "{denied}"
    );
    assert!(denied.to_string().contains("did not answer"), "{denied}");
}

#[test]
fn a_store_url_that_is_not_redis_is_refused_at_start() {
    let ws = Ws::new();
    let out = ws
        .command(&[
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--state",
            "postgres://db/x",
        ])
        .stdin(Stdio::null())
        .output()
        .expect("run serve");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("not a Redis URL"), "{err}");
}
