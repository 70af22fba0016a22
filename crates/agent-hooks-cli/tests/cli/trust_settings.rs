//! Trust settings live with the approvals: with approvals kept outside the workspace, whether
//! the agent may approve through the sidecar is read beside them, where the agent cannot
//! write, and `config/agent.yaml` (which it can write, and which a running sidecar reloads)
//! can only turn self-approval off. Through `agent-hooks serve`, a real process.

use std::path::PathBuf;
use std::time::Duration;

use serde_json::json;

use crate::support::{Entry, Server, Ws, eventually};

const GUARD: &str = r#"
    case "$(cat)" in
      *'rm -rf'*) echo '{"decision": "block", "reason": "no rm -rf"}' ;;
    esac
"#;

/// A workspace with one declared, unapproved hook, and a place for approvals outside it.
struct Setup {
    ws: Ws,
    _elsewhere: tempfile::TempDir,
    approvals: PathBuf,
}

impl Setup {
    fn new(workspace_self_approve: bool) -> Setup {
        let ws = Ws::new()
            .file(
                "config/agent.yaml",
                &format!(
                    "shell_hooks:\n  enabled: true\n  self_approve: {workspace_self_approve}\n"
                ),
            )
            .sh("hooks/guard.sh", GUARD)
            .hook(Entry::new("pre_tool_call", "hooks/guard.sh").name("guard"));
        let elsewhere = tempfile::tempdir().expect("tempdir");
        let approvals = elsewhere.path().join("proj-approvals.json");
        Setup {
            ws,
            _elsewhere: elsewhere,
            approvals,
        }
    }

    /// The trust settings file beside the approvals.
    fn trust_file(&self) -> PathBuf {
        self.approvals.with_extension("trust.yaml")
    }

    fn serve(&self) -> Server {
        let mut serve = self.ws.command(&["serve", "--listen", "127.0.0.1:0"]);
        serve.env("AGENT_HOOKS_APPROVALS", &self.approvals);
        Server::spawn(serve)
    }
}

fn approve(server: &Server) -> u16 {
    server
        .post(
            "/internal/runtime/hooks/approve",
            json!({"command": "hooks/guard.sh"}),
        )
        .0
}

fn blocks_rm(server: &Server) -> bool {
    let rm = json!({"tool_name": "bash", "tool_input": {"command": "rm -rf /"}});
    server.post("/v1/events/pre_tool_call", rm).1["decision"] == "block"
}

#[test]
fn the_agent_flipping_self_approve_in_the_workspace_cannot_approve() {
    let setup = Setup::new(false);
    std::fs::write(setup.trust_file(), "self_approve: false\n").expect("trust file");
    let server = setup.serve();
    assert_eq!(approve(&server), 403);
    // The attack: turn it on in config/agent.yaml, which the running sidecar reloads, approve,
    // and turn it off again.
    std::fs::write(
        setup.ws.path("config/agent.yaml"),
        "shell_hooks:\n  enabled: true\n  self_approve: true\n",
    )
    .expect("agent.yaml");
    assert_eq!(server.post("/v1/reload", json!({})).0, 200);
    assert_eq!(approve(&server), 403);
    // The command route obeys the same switch, and says which file decides.
    let (status, body) = server.post(
        "/v1/hooks/command",
        json!({"line": "/hooks approve hooks/guard.sh"}),
    );
    assert_eq!(status, 403, "{body}");
    assert!(body.to_string().contains("trust.yaml"), "{body}");
    assert!(!blocks_rm(&server), "the hook was approved");
    let approvals = std::fs::read_to_string(&setup.approvals).unwrap_or_default();
    assert!(!approvals.contains("guard.sh"), "{approvals}");
}

#[test]
fn without_trust_settings_beside_outside_approvals_self_approval_is_off() {
    let setup = Setup::new(true);
    let server = setup.serve();
    assert_eq!(approve(&server), 403);
    assert!(!blocks_rm(&server));
}

#[test]
fn the_users_trust_settings_turn_self_approval_on_without_a_restart() {
    let setup = Setup::new(true);
    let server = setup.serve();
    assert_eq!(approve(&server), 403);
    std::fs::write(setup.trust_file(), "self_approve: true\n").expect("trust file");
    assert!(
        eventually(Duration::from_secs(10), || approve(&server) == 200),
        "the trust settings beside the approvals never took effect"
    );
    assert!(blocks_rm(&server));
}

#[test]
fn the_workspace_can_only_make_self_approval_stricter() {
    let setup = Setup::new(false);
    std::fs::write(setup.trust_file(), "self_approve: true\n").expect("trust file");
    let server = setup.serve();
    assert_eq!(approve(&server), 403);
}

#[test]
fn a_broken_trust_file_keeps_self_approval_off_and_is_reported() {
    let setup = Setup::new(true);
    std::fs::write(setup.trust_file(), "self_approve: yes please\n").expect("trust file");
    let server = setup.serve();
    assert_eq!(approve(&server), 403);
    let events = setup.ws.events_of("hook_config_error");
    assert!(
        events.iter().any(|e| e["detail"]
            .as_str()
            .is_some_and(|d| d.contains("self-approval stays off"))),
        "{events:?}"
    );
    // A reload lists it with the other configuration problems.
    let (_, reloaded) = server.post("/v1/reload", json!({}));
    assert!(
        reloaded["errors"]
            .as_array()
            .is_some_and(|errors| errors.iter().any(|e| e.to_string().contains("trust.yaml"))),
        "{reloaded}"
    );
}
