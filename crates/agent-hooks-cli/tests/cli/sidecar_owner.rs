//! The sidecar tried from outside, as another user of the same machine would, through the real
//! binary: over the socket the kernel's peer check refuses every other uid; over TCP every route
//! but health wants the token, loopback included; the old attack (`/hooks revoke` through
//! `POST /v1/hooks/command`) fails; the command route obeys `self_approve: false` as the approve
//! and revoke routes do; the token is rotated, guarded, and works verbatim as the docs show it;
//! and a trickled body is cut at its deadline.
//!
//! The other user is `nobody` (uid 65534), which only root can become: run as anyone else, the
//! tests that need it print why they did not try and pass.

use std::io::{Read, Write};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::{self, Entry, Server, Ws};

/// The other user.
pub(crate) const NOBODY: u32 = 65534;

const GUARD: &str = r#"
    case "$(cat)" in *'rm -rf'*) echo '{"decision": "block", "reason": "no rm -rf"}' ;; esac
"#;

/// Every route of the sidecar, each with a body that would do harm if it were obeyed.
pub(crate) const ROUTES: &[&str] = &[
    "GET:/v1/health",
    r#"POST:/v1/events/pre_tool_call:{"tool_name": "bash", "tool_input": {"command": "ls"}}"#,
    r#"POST:/internal/runtime/hooks/approve:{"command": "hooks/guard.sh"}"#,
    r#"POST:/internal/runtime/hooks/revoke:{"command": "hooks/guard.sh"}"#,
    "GET:/v1/hooks",
    r#"POST:/v1/hooks/command:{"line": "/hooks revoke hooks/guard.sh"}"#,
    r#"POST:/v1/hooks/command:{"line": "/hooks off"}"#,
    "POST:/v1/reload:{}",
    "GET:/v1/stats",
    "GET:/metrics",
    r#"POST:/v1/hooks/claude-code:{"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "ls"}}"#,
    r#"POST:/v1/hooks/codex:{"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "ls"}}"#,
    r#"POST:/v1/hooks/gemini:{"hook_event_name": "BeforeTool", "tool_name": "run_shell_command", "tool_input": {"command": "ls"}}"#,
    r#"POST:/v1/hooks/cursor:{"hook_event_name": "beforeShellExecution", "command": "ls"}"#,
    "GET:/no/such/route",
];

/// Routes that change nothing, for the owner's own checks.
const READ_ONLY: &[&str] = &["GET:/v1/health", "GET:/v1/hooks", "GET:/v1/stats"];

fn guarded_with(agent_yaml: &str) -> Ws {
    Ws::new()
        .file("config/agent.yaml", agent_yaml)
        .sh("hooks/guard.sh", GUARD)
        .hook(Entry::new("pre_tool_call", "hooks/guard.sh").name("guard"))
        .approve_all()
}

fn guarded() -> Ws {
    guarded_with("shell_hooks:\n  enabled: true\n")
}

/// The guard is still approved, the master switch still on: `rm -rf /` is still blocked.
fn assert_still_guarded(ws: &Ws) {
    let fired = ws.fire(
        "pre_tool_call",
        json!({"tool_name": "bash", "tool_input": {"command": "rm -rf /"}}),
    );
    assert_eq!(
        fired.decision(),
        "block",
        "the attack changed what runs: the guard no longer blocks `rm -rf /`"
    );
}

/// Whether this process can become `nobody`; says why not when it cannot.
pub(crate) fn can_become_nobody(test: &str) -> bool {
    let root = std::fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0);
    if !root {
        eprintln!(
            "{test}: skipped: trying the sidecar as another user (uid {NOBODY}) needs root to become that user"
        );
    }
    root
}

/// A directory of this user's, with `mode`.
pub(crate) fn dir_with_mode(prefix: &str, mode: u32) -> tempfile::TempDir {
    let dir = tempfile::Builder::new()
        .prefix(prefix)
        .tempdir_in("/tmp")
        .expect("create a directory");
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(mode))
        .expect("set its mode");
    dir
}

/// The probe program where `nobody` can run it (the target directory may not be open to it).
pub(crate) fn probe_for_nobody() -> (tempfile::TempDir, PathBuf) {
    let dir = dir_with_mode("agent-hooks-probe", 0o755);
    let program = dir.path().join("sidecar-probe");
    std::fs::copy(support::sidecar_probe(), &program).expect("copy the probe");
    std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755))
        .expect("make the probe runnable");
    (dir, program)
}

/// Tries `routes` on `target` (`--socket PATH` or `--port N`) as `uid` (this user when
/// `None`), with `token` when given: each route and what came back (a status, or
/// `refused: ...`).
pub(crate) fn probe(
    program: &Path,
    target: &[String],
    token: Option<&str>,
    uid: Option<u32>,
    routes: &[&str],
) -> Vec<(String, String)> {
    let mut cmd = Command::new(program);
    cmd.args(target).current_dir("/").stdin(Stdio::null());
    if let Some(token) = token {
        cmd.args(["--token", token]);
    }
    cmd.args(routes);
    if let Some(uid) = uid {
        cmd.uid(uid).gid(uid);
    }
    let out = cmd.output().expect("run sidecar-probe");
    assert!(
        out.status.success(),
        "sidecar-probe failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|line| {
            let mut parts = line.splitn(3, ' ');
            let route = format!(
                "{} {}",
                parts.next().unwrap_or(""),
                parts.next().unwrap_or("")
            );
            (route, parts.next().unwrap_or("").to_owned())
        })
        .collect()
}

fn socket_target(server: &Server) -> Vec<String> {
    let socket = server.socket.as_ref().expect("the sidecar is on a socket");
    vec!["--socket".into(), socket.display().to_string()]
}

fn port_target(server: &Server) -> Vec<String> {
    vec!["--port".into(), server.port.to_string()]
}

/// `serve <args>` with its state directory at `state`.
fn serve_in(ws: &Ws, state: &Path, args: &[&str]) -> Server {
    let mut serve = ws.command(&[&["serve"], args].concat());
    serve.env(agent_hooks_server::STATE_DIR_ENV, state);
    Server::spawn(serve)
}

#[test]
fn another_user_gets_no_answer_from_any_route_over_the_socket() {
    if !can_become_nobody("another_user_gets_no_answer_from_any_route_over_the_socket") {
        return;
    }
    let (_probe_dir, program) = probe_for_nobody();
    let ws = guarded();
    let state = dir_with_mode("agent-hooks-state", 0o700);

    // The default socket, in the owner's private directory: nobody cannot even connect.
    let server = serve_in(&ws, state.path(), &[]);
    let socket = server.socket.clone().expect("the default is a socket");
    let dir = socket.parent().expect("the socket's directory");
    assert_eq!(std::fs::metadata(dir).expect("stat").mode() & 0o777, 0o700);
    assert_eq!(
        std::fs::symlink_metadata(&socket).expect("stat").mode() & 0o777,
        0o600
    );
    let tried = probe(
        &program,
        &socket_target(&server),
        None,
        Some(NOBODY),
        ROUTES,
    );
    assert_eq!(tried.len(), ROUTES.len());
    for (route, result) in &tried {
        assert!(
            result.starts_with("refused"),
            "{route} answered uid {NOBODY} on the default socket: {result}"
        );
    }
    assert_still_guarded(&ws);
    drop(server);

    // A socket anyone can reach (the allow list names a colleague, so it is 0666): the kernel's
    // peer check alone turns nobody away, on every route, before any is read.
    let open = dir_with_mode("agent-hooks-sock", 0o755);
    let path = open.path().join("s.sock");
    let allow = state.path().join(agent_hooks_server::ALLOW_FILE);
    std::fs::write(&allow, "# a colleague\n4242\n").expect("write the allow list");
    std::fs::set_permissions(&allow, std::fs::Permissions::from_mode(0o600)).expect("chmod");
    let server = serve_in(
        &ws,
        state.path(),
        &["--socket", &path.display().to_string()],
    );
    assert_eq!(
        std::fs::symlink_metadata(&path).expect("stat").mode() & 0o777,
        0o666
    );
    let tried = probe(
        &program,
        &socket_target(&server),
        None,
        Some(NOBODY),
        ROUTES,
    );
    for (route, result) in &tried {
        assert_eq!(
            result, "403",
            "{route}: uid {NOBODY} was not refused by the peer check"
        );
    }
    assert_still_guarded(&ws);
    // The same socket answers its owner.
    for (route, result) in probe(&program, &socket_target(&server), None, None, READ_ONLY) {
        assert_eq!(result, "200", "{route} did not answer the owner");
    }
    drop(server);

    // Named in the allow list, nobody gets in: the 403 above was the peer check's.
    std::fs::write(&allow, "nobody\n").expect("write the allow list");
    let server = serve_in(
        &ws,
        state.path(),
        &["--socket", &path.display().to_string()],
    );
    let tried = probe(
        &program,
        &socket_target(&server),
        None,
        Some(NOBODY),
        &["GET:/v1/health", "GET:/v1/hooks"],
    );
    for (route, result) in tried {
        assert_eq!(result, "200", "{route} refused an allowed uid");
    }
}

#[test]
fn another_user_without_the_token_reaches_only_health_over_tcp() {
    if !can_become_nobody("another_user_without_the_token_reaches_only_health_over_tcp") {
        return;
    }
    let (_probe_dir, program) = probe_for_nobody();
    let ws = guarded();
    let server = Server::start(&ws);
    let tried = probe(&program, &port_target(&server), None, Some(NOBODY), ROUTES);
    assert_eq!(tried.len(), ROUTES.len());
    for (route, result) in &tried {
        let expected = if route == "GET /v1/health" {
            "200"
        } else {
            "401"
        };
        assert_eq!(
            result, expected,
            "{route} as uid {NOBODY} over loopback TCP"
        );
    }
    // The old attack: `/hooks revoke` through the command route, then the switch off.
    let wrong = "0".repeat(64);
    let tried = probe(
        &program,
        &port_target(&server),
        Some(&wrong),
        Some(NOBODY),
        &[
            r#"POST:/v1/hooks/command:{"line": "/hooks revoke hooks/guard.sh"}"#,
            r#"POST:/v1/hooks/command:{"line": "/hooks off"}"#,
        ],
    );
    for (route, result) in tried {
        assert_eq!(result, "401", "{route} with a guessed token");
    }
    assert_still_guarded(&ws);
}

#[test]
fn without_the_token_every_route_but_health_is_401_and_with_it_they_answer() {
    let ws = guarded();
    let server = Server::start(&ws);
    let program = Path::new(support::sidecar_probe());
    for (route, result) in probe(program, &port_target(&server), None, None, ROUTES) {
        let expected = if route == "GET /v1/health" {
            "200"
        } else {
            "401"
        };
        assert_eq!(
            result, expected,
            "{route} without the token, as the owner's uid"
        );
    }
    assert_still_guarded(&ws);
    let token = support::sidecar_token();
    for (route, result) in probe(
        program,
        &port_target(&server),
        Some(&token),
        None,
        READ_ONLY,
    ) {
        assert_eq!(result, "200", "{route} with the token");
    }
    // Health without the token says the sidecar is up, and nothing of the workspace.
    let (status, health) =
        support::http_with(server.port, "GET", "/v1/health", b"", "127.0.0.1", "");
    assert_eq!(status, 200);
    assert_eq!(health, json!({"ok": true, "auth": "token"}));
    let (_, health) = server.request("GET", "/v1/health", b"");
    assert_eq!(health["auth"], "token");
    assert_eq!(health["hooks"], 1, "{health}");
    // A dispatch with the token runs the guard.
    let (status, outcome) = server.post(
        "/v1/events/pre_tool_call",
        json!({"tool_name": "bash", "tool_input": {"command": "rm -rf /"}}),
    );
    assert_eq!((status, outcome["decision"].clone()), (200, json!("block")));
}

#[test]
fn the_command_route_obeys_self_approve_off_exactly_as_the_approve_and_revoke_routes() {
    let ws = guarded_with("shell_hooks:\n  enabled: true\n  self_approve: false\n");
    let server = Server::start(&ws);
    for line in [
        "/hooks revoke hooks/guard.sh",
        "revoke hooks/guard.sh",
        "hooks revoke hooks/guard.sh",
        "/hooks off",
        "/hooks approve hooks/guard.sh",
        "/hooks on",
        "/hooks install security_guard",
        "/hooks 'revoke",
    ] {
        let (status, body) = server.post("/v1/hooks/command", json!({"line": line}));
        assert_eq!(status, 403, "{line:?} was obeyed: {body}");
        assert!(
            body["error"]
                .as_str()
                .is_some_and(|e| e.contains("self_approve: false")),
            "{body}"
        );
    }
    for route in [
        "/internal/runtime/hooks/revoke",
        "/internal/runtime/hooks/approve",
    ] {
        let (status, _) = server.post(route, json!({"command": "hooks/guard.sh"}));
        assert_eq!(status, 403, "{route}");
    }
    assert_still_guarded(&ws);
    let (status, listed) = server.post("/v1/hooks/command", json!({"line": "/hooks list"}));
    assert_eq!(status, 200, "{listed}");

    // With self-approval on (the default), the same line is obeyed: the refusal above was the
    // switch's.
    let open = guarded();
    let server = Server::start(&open);
    let (status, body) = server.post(
        "/v1/hooks/command",
        json!({"line": "/hooks revoke hooks/guard.sh"}),
    );
    assert_eq!(status, 200, "{body}");
    let fired = open.fire(
        "pre_tool_call",
        json!({"tool_name": "bash", "tool_input": {"command": "rm -rf /"}}),
    );
    assert_eq!(fired.decision(), "continue");
}

/// The token in `state`.
fn token_in(state: &Path) -> String {
    std::fs::read_to_string(state.join(agent_hooks_server::TOKEN_FILE))
        .expect("read the token")
        .trim()
        .to_owned()
}

fn get_hooks(server: &Server, token: &str) -> u16 {
    let auth = format!("Authorization: Bearer {token}\r\n");
    support::http_with(server.port, "GET", "/v1/hooks", b"", "127.0.0.1", &auth).0
}

#[test]
fn a_rotated_token_replaces_the_old_one_in_a_running_sidecar() {
    let ws = guarded();
    let state = dir_with_mode("agent-hooks-state", 0o700);
    let server = serve_in(&ws, state.path(), &["--listen", "127.0.0.1:0"]);
    let token_file = state.path().join(agent_hooks_server::TOKEN_FILE);
    assert_eq!(
        std::fs::metadata(&token_file).expect("stat").mode() & 0o777,
        0o600
    );
    let old = token_in(state.path());
    assert_eq!(old.len(), 64, "{old:?}");
    assert_eq!(get_hooks(&server, &old), 200);

    let rotated = ws
        .command(&["serve", "--rotate-token"])
        .env(agent_hooks_server::STATE_DIR_ENV, state.path())
        .stdin(Stdio::null())
        .output()
        .expect("run serve --rotate-token");
    assert!(rotated.status.success(), "{rotated:?}");
    assert!(String::from_utf8_lossy(&rotated.stdout).contains("a new token is in"));
    let new = token_in(state.path());
    assert_ne!(new, old);
    assert_eq!(get_hooks(&server, &old), 401, "the old token still works");
    assert_eq!(get_hooks(&server, &new), 200);
}

#[test]
fn a_token_file_others_can_read_or_another_user_owns_is_refused() {
    let ws = guarded();
    let state = dir_with_mode("agent-hooks-state", 0o700);
    let token_file = state.path().join(agent_hooks_server::TOKEN_FILE);
    std::fs::write(&token_file, format!("{}\n", "a".repeat(64))).expect("write a token");
    std::fs::set_permissions(&token_file, std::fs::Permissions::from_mode(0o644)).expect("chmod");
    let refused = ws
        .command(&["serve", "--listen", "127.0.0.1:0"])
        .env(agent_hooks_server::STATE_DIR_ENV, state.path())
        .stdin(Stdio::null())
        .output()
        .expect("run serve");
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success());
    assert!(
        stderr.contains("other users may read it (mode 0644)") && stderr.contains("chmod 600"),
        "{stderr}"
    );
    assert!(refused.stdout.is_empty(), "it announced itself");

    // A state directory others may write is refused too: they could swap the token.
    std::fs::set_permissions(&token_file, std::fs::Permissions::from_mode(0o600)).expect("chmod");
    std::fs::set_permissions(state.path(), std::fs::Permissions::from_mode(0o777)).expect("chmod");
    let refused = ws
        .command(&["serve", "--listen", "127.0.0.1:0"])
        .env(agent_hooks_server::STATE_DIR_ENV, state.path())
        .stdin(Stdio::null())
        .output()
        .expect("run serve");
    assert!(!refused.status.success());
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("other users may write into it"),
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );

    if !can_become_nobody("a_token_file_others_can_read_or_another_user_owns_is_refused") {
        return;
    }
    std::fs::set_permissions(state.path(), std::fs::Permissions::from_mode(0o700)).expect("chmod");
    std::os::unix::fs::chown(&token_file, Some(NOBODY), Some(NOBODY)).expect("chown");
    let refused = ws
        .command(&["serve", "--listen", "127.0.0.1:0"])
        .env(agent_hooks_server::STATE_DIR_ENV, state.path())
        .stdin(Stdio::null())
        .output()
        .expect("run serve");
    assert!(!refused.status.success());
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains(&format!("belongs to uid {NOBODY}")),
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );
}

#[test]
fn a_trickled_body_is_answered_408_at_its_deadline_and_health_answers_meanwhile() {
    let ws = guarded();
    let server = Server::start_with(&ws, &["--body-timeout", "1"]);
    let mut slow = std::net::TcpStream::connect(("127.0.0.1", server.port)).expect("connect");
    slow.set_read_timeout(Some(Duration::from_secs(30)))
        .expect("timeout");
    let head = format!(
        "POST /v1/events/pre_tool_call HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\nAuthorization: Bearer {}\r\n\r\n{{",
        support::sidecar_token()
    );
    let started = Instant::now();
    slow.write_all(head.as_bytes()).expect("send the head");
    let (status, _) = server.request("GET", "/v1/health", b"");
    assert_eq!(status, 200);
    let mut answer = String::new();
    let _ = slow.read_to_string(&mut answer);
    let waited = started.elapsed();
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains("--body-timeout"), "{answer}");
    assert!(
        waited >= Duration::from_millis(900) && waited < Duration::from_secs(20),
        "answered after {waited:?}"
    );
}

/// The fenced `sh` block of `text` that holds the self-approve call with the token.
fn self_approve_block(text: &str) -> Option<String> {
    text.split("```sh")
        .skip(1)
        .filter_map(|rest| rest.split_once('\n').map(|(_, body)| body))
        .filter_map(|rest| rest.split("\n```").next())
        .find(|block| {
            block.contains("internal/runtime/hooks/approve")
                && block.contains("Authorization: Bearer")
                && !block.contains("--unix-socket")
        })
        .map(str::to_owned)
}

#[test]
fn the_docs_self_approve_curl_works_verbatim_with_the_token() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let read = |rel: &str| std::fs::read_to_string(repo.join(rel)).expect("read a doc");
    let line = self_approve_block(&read("README.md"))
        .expect("README.md shows the self-approve curl with the token");
    for doc in ["docs/sidecar.md", "docs/trust.md"] {
        assert_eq!(
            self_approve_block(&read(doc)).as_deref(),
            Some(line.as_str()),
            "{doc} shows another self-approve call than the README"
        );
    }
    if Command::new("curl").arg("--version").output().is_err() {
        eprintln!(
            "the_docs_self_approve_curl_works_verbatim_with_the_token: skipped: no curl on PATH"
        );
        return;
    }
    // The line names port 8787; another sidecar of this machine may hold it.
    if std::net::TcpListener::bind("127.0.0.1:8787").is_err() {
        eprintln!(
            "the_docs_self_approve_curl_works_verbatim_with_the_token: skipped: 127.0.0.1:8787 is in use"
        );
        return;
    }
    let ws = Ws::new()
        .master(false)
        .sh("hooks/my_guard.sh", GUARD)
        .hook(Entry::new("pre_tool_call", "hooks/my_guard.sh").name("mine"));
    // A home of its own, so the token the line reads is this sidecar's.
    let home = dir_with_mode("agent-hooks-home", 0o700);
    let env = |cmd: &mut Command| {
        cmd.env("HOME", home.path())
            .env_remove("XDG_STATE_HOME")
            .env_remove(agent_hooks_server::STATE_DIR_ENV);
    };
    let mut serve = ws.command(&["serve", "--listen"]);
    env(&mut serve);
    let server = Server::spawn(serve);
    assert_eq!(server.port, 8787);
    let mut sh = Command::new("sh");
    sh.arg("-c").arg(&line).current_dir(home.path());
    env(&mut sh);
    let out = sh.output().expect("run the docs' curl line");
    let answer: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "the docs' line printed no JSON ({e}): {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    assert_eq!(answer["ok"], true, "{answer}");
    assert_eq!(answer["events"], json!(["pre_tool_call"]), "{answer}");
    let fired = ws.fire(
        "pre_tool_call",
        json!({"tool_name": "bash", "tool_input": {"command": "rm -rf /"}}),
    );
    assert_eq!(fired.decision(), "block", "the approved hook does not run");
}

#[test]
fn without_a_token_only_by_explicit_opt_in_and_it_says_so_at_start_and_in_health() {
    let ws = guarded();
    let mut child = ws
        .command(&["serve", "--listen", "127.0.0.1:0", "--insecure-no-token"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn serve");
    let mut ready = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(child.stdout.take().expect("stdout")),
        &mut ready,
    )
    .expect("the ready line");
    let port: u16 = ready
        .trim()
        .rsplit(':')
        .next()
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("no port in {ready:?}"));
    let (status, health) = support::http_with(port, "GET", "/v1/health", b"", "127.0.0.1", "");
    assert_eq!(status, 200);
    assert_eq!(health["auth"], "none", "{health}");
    assert!(
        health["warning"]
            .as_str()
            .is_some_and(|w| w.contains("any user of this machine")),
        "{health}"
    );
    let (status, _) = support::http_with(port, "GET", "/v1/hooks", b"", "127.0.0.1", "");
    assert_eq!(status, 200, "the opt-in did not open the routes");
    let _ = child.kill();
    let _ = child.wait();
    let mut stderr = String::new();
    let _ = child
        .stderr
        .take()
        .expect("stderr")
        .read_to_string(&mut stderr);
    assert!(stderr.contains("WARNING: no token"), "{stderr}");
}

#[test]
fn at_its_cap_a_clients_newcomer_cuts_one_of_its_connections_waiting_on_a_body() {
    let ws = guarded();
    let server = Server::start_with(&ws, &["--max-client-connections", "2"]);
    let head = format!(
        "POST /v1/events/pre_tool_call HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\nAuthorization: Bearer {}\r\n\r\n{{",
        support::sidecar_token()
    );
    let stalled: Vec<std::net::TcpStream> = (0..2)
        .map(|_| {
            let mut s = std::net::TcpStream::connect(("127.0.0.1", server.port)).expect("connect");
            s.set_read_timeout(Some(Duration::from_secs(30)))
                .expect("timeout");
            s.write_all(head.as_bytes())
                .expect("send a head and a byte");
            s
        })
        .collect();
    let started = Instant::now();
    let (status, _) = server.request("GET", "/v1/health", b"");
    assert_eq!(status, 200);
    assert!(started.elapsed() < Duration::from_secs(5));
    // One of the two was closed to make room (its task closes it a moment after the newcomer
    // is let in; one cut before its head was read is told 503 first); the other still waits
    // for its body, which is not due for 10 s.
    let closed = |s: &std::net::TcpStream| {
        s.set_nonblocking(true).expect("non-blocking");
        let mut answer = [0u8; 12];
        match (&*s).read(&mut answer) {
            Ok(0) => true,
            Ok(n) => {
                let text = String::from_utf8_lossy(&answer[..n]);
                assert!(
                    "HTTP/1.1 503".starts_with(&*text) || text.starts_with("HTTP/1.1 503"),
                    "a stalled connection got another answer: {text}"
                );
                true
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => false,
            Err(_) => true,
        }
    };
    // Each connection is read only until it shows it was cut.
    let mut cut = [false, false];
    let mut look = || {
        for (stream, cut) in stalled.iter().zip(cut.iter_mut()) {
            *cut = *cut || closed(stream);
        }
        cut
    };
    assert!(
        support::eventually(Duration::from_secs(5), || look().contains(&true)),
        "no connection was cut"
    );
    let cut = look();
    assert_eq!(cut.iter().filter(|c| **c).count(), 1, "{cut:?}");
}
