//! HTTP hooks through the real `agent-hooks` binary against a real HTTP server on loopback.
//! Allow-local is turned on for the child processes of these tests only (never for the test
//! process), which is how a hook served on this machine is run.

use crate::loopback;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use hmac::{Hmac, Mac};
use loopback::{Response, Server};
use serde_json::{Value, json};
use sha2::Sha256;

const BIN: &str = env!("CARGO_BIN_EXE_agent-hooks");
const ALLOW_LOCAL: &str = "AGENT_HOOKS_HTTP_ALLOW_LOCAL";

/// A workspace with the master switch on and `hooks` as its `config/shell_hooks.yaml`.
struct Ws {
    dir: tempfile::TempDir,
}

impl Ws {
    fn new(hooks_yaml: &str) -> Ws {
        let dir = tempfile::tempdir().expect("temporary workspace");
        let config = dir.path().join("config");
        std::fs::create_dir_all(&config).expect("config/");
        std::fs::write(config.join("agent.yaml"), "shell_hooks:\n  enabled: true\n")
            .expect("agent.yaml");
        std::fs::write(config.join("shell_hooks.yaml"), hooks_yaml).expect("shell_hooks.yaml");
        Ws { dir }
    }

    /// One `type: http` hook on `event`, with extra YAML lines for the entry.
    fn http(event: &str, url: &str, extra: &str) -> Ws {
        let ws = Ws::new(&format!(
            "hooks:\n  - event: {event}\n    name: remote\n    type: http\n    url: \"{url}\"\n{extra}"
        ));
        ws.approve(url);
        ws
    }

    fn command(&self, args: &[&str], allow_local: bool) -> Command {
        let mut cmd = Command::new(BIN);
        cmd.arg("--workspace")
            .arg(self.dir.path())
            .args(args)
            .env_remove("AGENT_HOOKS_WORKSPACE")
            .env_remove(ALLOW_LOCAL);
        if allow_local {
            cmd.env(ALLOW_LOCAL, "1");
        }
        cmd
    }

    fn approve(&self, url: &str) {
        let out = self.run(&["approve", url], true);
        assert!(
            out.status.success(),
            "approve {url}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }

    fn run(&self, args: &[&str], allow_local: bool) -> Output {
        self.command(args, allow_local)
            .stdin(Stdio::null())
            .output()
            .expect("run agent-hooks")
    }

    fn fire_with(
        &self,
        event: &str,
        payload: Value,
        envs: &[(&str, &str)],
        allow_local: bool,
    ) -> Value {
        let mut child = self
            .command(&["fire", event], allow_local)
            .envs(envs.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn agent-hooks fire");
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(payload.to_string().as_bytes())
            .expect("write the payload");
        let out = child.wait_with_output().expect("fire");
        assert!(
            out.status.success(),
            "fire: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).expect("the outcome is JSON")
    }

    fn fire(&self, event: &str, payload: Value) -> Value {
        self.fire_with(event, payload, &[], true)
    }

    fn events_of(&self, kind: &str) -> Vec<Value> {
        let path = self.dir.path().join("logs/events.jsonl");
        std::fs::read_to_string(path)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter(|r| r["type"] == kind)
            .collect()
    }

    fn root(&self) -> &Path {
        self.dir.path()
    }
}

fn report(outcome: &Value) -> &Value {
    &outcome["hooks"][0]
}

fn bash(command: &str) -> Value {
    json!({"tool_name": "bash", "tool_input": {"command": command, "timeout": 5}})
}

#[test]
fn a_block_answer_blocks_and_the_payload_is_posted_as_json() {
    let server =
        Server::start(|_| Response::json(r#"{"decision": "block", "reason": "policy says no"}"#));
    let ws = Ws::http("pre_tool_call", &server.url("/hook"), "");
    let outcome = ws.fire("pre_tool_call", bash("rm -rf /"));
    assert_eq!(outcome["decision"], "block");
    assert_eq!(outcome["reason"], "policy says no");
    assert_eq!(report(&outcome)["status"], "blocked");

    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    let request = &requests[0];
    assert_eq!(
        (request.method.as_str(), request.path.as_str()),
        ("POST", "/hook")
    );
    assert_eq!(request.header("content-type"), Some("application/json"));
    let sent: Value = serde_json::from_slice(&request.body).expect("the body is JSON");
    assert_eq!(sent["event"], "pre_tool_call");
    assert_eq!(sent["tool_input"]["command"], "rm -rf /");
}

#[test]
fn a_tool_input_answer_rewrites_existing_keys() {
    let server = Server::start(|_| Response::json(r#"{"tool_input": {"command": "ls -la"}}"#));
    let ws = Ws::http("pre_tool_call", &server.url("/"), "");
    let outcome = ws.fire("pre_tool_call", bash("ls"));
    assert_eq!(outcome["decision"], "continue");
    assert_eq!(outcome["payload"]["tool_input"]["command"], "ls -la");
    assert_eq!(outcome["payload"]["tool_input"]["timeout"], 5);
}

#[test]
fn a_context_answer_is_injected() {
    let server =
        Server::start(|_| Response::json(r#"{"context": "the user prefers metric units"}"#));
    let ws = Ws::http("on_user_message", &server.url("/"), "");
    let outcome = ws.fire(
        "on_user_message",
        json!({"message": "how far?", "channel": "cli"}),
    );
    assert_eq!(outcome["context"], json!(["the user prefers metric units"]));
}

#[test]
fn claude_code_answers_are_translated() {
    let server = Server::start(|_| {
        Response::json(
            r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "not on prod"}, "systemMessage": "denied by policy"}"#,
        )
    });
    let ws = Ws::http("pre_tool_call", &server.url("/"), "");
    let outcome = ws.fire("pre_tool_call", bash("kubectl delete"));
    assert_eq!(outcome["decision"], "block");
    assert_eq!(outcome["reason"], "not on prod");
    assert_eq!(outcome["warnings"], json!(["denied by policy"]));

    let server = Server::start(|_| {
        Response::json(
            r#"{"hookSpecificOutput": {"updatedInput": {"command": "echo safe"}, "additionalContext": "rewritten"}}"#,
        )
    });
    let ws = Ws::http("pre_tool_call", &server.url("/"), "");
    let outcome = ws.fire("pre_tool_call", bash("echo unsafe"));
    assert_eq!(outcome["payload"]["tool_input"]["command"], "echo safe");
}

#[test]
fn an_empty_2xx_answer_is_no_change() {
    let server = Server::start(|_| Response::status(204));
    let ws = Ws::http("pre_tool_call", &server.url("/"), "");
    let outcome = ws.fire("pre_tool_call", bash("ls"));
    assert_eq!(outcome["decision"], "continue");
    assert_eq!(report(&outcome)["status"], "noop");
}

#[test]
fn a_non_2xx_answer_fails_open_and_is_logged_with_its_status() {
    let server = Server::start(|_| Response::status(503));
    let ws = Ws::http("pre_tool_call", &server.url("/"), "");
    let outcome = ws.fire("pre_tool_call", bash("ls"));
    assert_eq!(outcome["decision"], "continue");
    assert_eq!(report(&outcome)["status"], "error");
    let detail = report(&outcome)["detail"].as_str().unwrap_or_default();
    assert!(detail.contains("503"), "{detail}");
    let logged = ws.events_of("hook_exec_error");
    assert!(
        logged
            .iter()
            .any(|r| r["detail"].as_str().is_some_and(|d| d.contains("503"))),
        "{logged:?}"
    );
}

#[test]
fn a_failure_blocks_with_on_error_block() {
    let server = Server::start(|_| Response::status(500));
    let ws = Ws::http("pre_tool_call", &server.url("/"), "    on_error: block\n");
    let outcome = ws.fire("pre_tool_call", bash("ls"));
    assert_eq!(outcome["decision"], "block");
    let reason = outcome["reason"].as_str().unwrap_or_default();
    assert!(
        reason.contains("remote") && reason.contains("500"),
        "{reason}"
    );
}

#[test]
fn a_non_json_answer_is_unusable() {
    let server = Server::start(|_| Response::json("<html>oops</html>"));
    let ws = Ws::http("pre_tool_call", &server.url("/"), "    on_error: block\n");
    let outcome = ws.fire("pre_tool_call", bash("ls"));
    assert_eq!(report(&outcome)["status"], "invalid_output");
    assert_eq!(outcome["decision"], "block");
    assert_eq!(ws.events_of("hook_invalid_json").len(), 1);
}

#[test]
fn a_slow_server_times_out() {
    let server = Server::start(|_| Response::json("{}").delay(Duration::from_secs(4)));
    let ws = Ws::http("pre_tool_call", &server.url("/"), "    timeout: 1\n");
    let started = Instant::now();
    let outcome = ws.fire("pre_tool_call", bash("ls"));
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "took {:?}",
        started.elapsed()
    );
    assert_eq!(report(&outcome)["status"], "timeout");
    assert_eq!(outcome["decision"], "continue");
    assert_eq!(ws.events_of("hook_timeout").len(), 1);
}

#[test]
fn an_oversized_answer_is_a_failure() {
    let body = format!("{{\"context\": \"{}\"}}", "x".repeat(2 * 1024 * 1024));
    let server = Server::start(move |_| Response::json(&body));
    let ws = Ws::http("on_user_message", &server.url("/"), "");
    let outcome = ws.fire("on_user_message", json!({"message": "hi"}));
    assert_eq!(report(&outcome)["status"], "error");
    let detail = report(&outcome)["detail"].as_str().unwrap_or_default();
    assert!(detail.contains("larger than 1048576 bytes"), "{detail}");
    assert_eq!(outcome["context"], json!([]));
}

#[test]
fn the_body_is_signed_and_headers_expand_allowed_variables() {
    let server = Server::start(|request| {
        let mut mac = Hmac::<Sha256>::new_from_slice(b"s3cret").expect("any key length");
        mac.update(&request.body);
        let expected: String = mac
            .finalize()
            .into_bytes()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        let signed =
            request.header("x-agent-hooks-signature") == Some(&format!("sha256={expected}"));
        let authorised = request.header("authorization") == Some("Bearer t0ken");
        if signed && authorised {
            Response::json(r#"{"context": "verified"}"#)
        } else {
            Response::status(401)
        }
    });
    let ws = Ws::http(
        "on_user_message",
        &server.url("/"),
        "    secret: \"${HOOK_SECRET}\"\n    headers: {Authorization: \"Bearer ${HOOK_TOKEN}\"}\n    allowed_env: [HOOK_SECRET, HOOK_TOKEN]\n",
    );
    let outcome = ws.fire_with(
        "on_user_message",
        json!({"message": "hi"}),
        &[("HOOK_SECRET", "s3cret"), ("HOOK_TOKEN", "t0ken")],
        true,
    );
    assert_eq!(outcome["context"], json!(["verified"]), "{outcome}");
}

#[test]
fn approval_is_keyed_on_the_url() {
    let server = Server::start(|_| Response::json(r#"{"decision": "block"}"#));
    let url = server.url("/hook");
    let ws = Ws::new(&format!(
        "hooks:\n  - event: pre_tool_call\n    name: remote\n    type: http\n    url: \"{url}\"\n  - event: on_stop\n    name: remote-stop\n    type: http\n    url: \"{url}\"\n"
    ));
    let outcome = ws.fire("pre_tool_call", bash("ls"));
    assert_eq!(report(&outcome)["status"], "skipped");
    assert_eq!(report(&outcome)["detail"], "not approved");
    assert!(server.requests().is_empty());

    ws.approve(&url);
    let approvals = std::fs::read_to_string(ws.root().join("config/hook_approvals.json"))
        .expect("approvals written");
    let approvals: Value = serde_json::from_str(&approvals).expect("approvals JSON");
    let pairs: Vec<(&str, &str)> = approvals["approvals"]
        .as_array()
        .expect("a list")
        .iter()
        .map(|a| {
            (
                a["event"].as_str().unwrap_or(""),
                a["command"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(
        pairs,
        vec![("pre_tool_call", url.as_str()), ("on_stop", url.as_str())]
    );
    assert_eq!(ws.fire("pre_tool_call", bash("ls"))["decision"], "block");

    let out = ws.run(&["revoke", &url], true);
    assert!(out.status.success());
    assert_eq!(
        report(&ws.fire("pre_tool_call", bash("ls")))["detail"],
        "not approved"
    );
}

#[test]
fn without_allow_local_a_loopback_url_is_a_config_error_and_never_called() {
    let server = Server::start(|_| Response::json(r#"{"decision": "block"}"#));
    let ws = Ws::http("pre_tool_call", &server.url("/"), "");
    let outcome = ws.fire_with("pre_tool_call", bash("ls"), &[], false);
    assert_eq!(outcome["decision"], "continue");
    assert_eq!(outcome["hooks"], json!([]));
    assert!(server.requests().is_empty());
    let errors = ws.events_of("hook_config_error");
    assert!(
        errors.iter().any(|r| r["detail"]
            .as_str()
            .is_some_and(|d| d.contains("url refused") && d.contains("loopback"))),
        "{errors:?}"
    );
}
