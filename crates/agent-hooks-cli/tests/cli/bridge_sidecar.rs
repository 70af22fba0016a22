//! A bridge process hands its call to the sidecar serving its workspace, through the real
//! binaries: the sidecar answers calls that run only built-in guards (its log says so, and the
//! answer is the one the agent expects); a call that runs a command hook is run by the bridge
//! process itself, so the hook sees the agent's environment and not the sidecar's; and
//! `AGENT_HOOKS_SIDECAR=off` keeps every call in the bridge process.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, ChildStderr, Stdio};

use serde_json::{Value, json};

use crate::support::{Entry, Ws, run_piped};

/// A sidecar on the workspace's default socket, its state directory at `state`, logging at
/// debug level to a pipe the test reads.
struct Sidecar {
    child: Child,
    log: BufReader<ChildStderr>,
}

impl Sidecar {
    fn start(ws: &Ws, state: &Path, env: &[(&str, &str)]) -> Sidecar {
        let mut serve = ws.command(&["serve"]);
        serve
            .env(agent_hooks_server::STATE_DIR_ENV, state)
            .env("AGENT_HOOKS_LOG", "agent_hooks_server=debug")
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = serve.spawn().expect("spawn agent-hooks serve");
        let stdout = child.stdout.take().expect("stdout is piped");
        let mut ready = String::new();
        BufReader::new(stdout)
            .read_line(&mut ready)
            .expect("read the ready line");
        assert!(ready.contains(" on unix:"), "not on a socket: {ready:?}");
        let log = BufReader::new(child.stderr.take().expect("stderr is piped"));
        Sidecar { child, log }
    }

    /// Stops the sidecar and returns its log. A line about a call is written before the
    /// call's answer, so before the bridge that made the call ended.
    fn stop(mut self) -> String {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let mut log = String::new();
        let _ = std::io::Read::read_to_string(&mut self.log, &mut log);
        log
    }
}

fn bridge(ws: &Ws, state: &Path, env: &[(&str, &str)], input: &Value) -> (Value, String) {
    let mut cmd = ws.command(&["claude-hook"]);
    cmd.env(agent_hooks_server::STATE_DIR_ENV, state)
        .envs(env.iter().copied());
    let out = run_piped(cmd, input.to_string().as_bytes());
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let stdout = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    let answer = if stdout.is_empty() {
        Value::Null
    } else {
        serde_json::from_str(&stdout).expect("the answer is JSON")
    };
    (answer, String::from_utf8_lossy(&out.stderr).into_owned())
}

fn pre_tool_use(command: &str) -> Value {
    json!({
        "session_id": "s1",
        "cwd": "/tmp",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
    })
}

fn deny_reason(answer: &Value) -> Option<&str> {
    let out = answer.get("hookSpecificOutput")?;
    (out.get("permissionDecision")? == "deny")
        .then(|| out.get("permissionDecisionReason")?.as_str())
        .flatten()
}

fn private_state() -> tempfile::TempDir {
    let state = tempfile::tempdir().expect("a state directory");
    std::fs::set_permissions(
        state.path(),
        std::os::unix::fs::PermissionsExt::from_mode(0o700),
    )
    .expect("chmod 700");
    state
}

fn guarded() -> Ws {
    let ws = Ws::new();
    let out = ws.run(&["install", "security_guard"]);
    assert!(out.status.success(), "{out:?}");
    ws
}

#[test]
fn a_call_that_runs_only_built_in_guards_is_answered_by_the_sidecar() {
    let ws = guarded();
    let state = private_state();
    let sidecar = Sidecar::start(&ws, state.path(), &[]);

    let (answer, _) = bridge(&ws, state.path(), &[], &pre_tool_use("rm -rf /"));
    let reason = deny_reason(&answer).unwrap_or_else(|| panic!("not denied: {answer}"));
    assert!(reason.contains("security"), "{reason}");

    // Allowed, too; each call recorded once, as the bridge's.
    let (answer, _) = bridge(&ws, state.path(), &[], &pre_tool_use("ls -la"));
    assert_eq!(answer, Value::Null, "an allowed call has no opinion");
    let id = agent_hooks_runtime::workspace::workspace_id(&ws.root());
    let log = std::fs::read_to_string(
        state
            .path()
            .join("workspaces")
            .join(id)
            .join("decisions.jsonl"),
    )
    .expect("read the decision log in the runtime's directory");
    let lines: Vec<Value> = log
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    assert_eq!(lines.len(), 2, "{log}");
    assert!(lines.iter().all(|l| l["surface"] == "bridge"), "{log}");

    // Switched off, the bridge answers itself: the same deny, and nothing in the sidecar's log.
    let off = [("AGENT_HOOKS_SIDECAR", "off")];
    let (answer, _) = bridge(&ws, state.path(), &off, &pre_tool_use("rm -rf /"));
    assert!(deny_reason(&answer).is_some(), "{answer}");
    let log = sidecar.stop();
    let answered = "answered a Claude Code call forwarded by its bridge";
    assert_eq!(log.matches(answered).count(), 2, "{log}");
}

#[test]
fn a_call_that_runs_a_command_hook_is_run_by_the_bridge_with_the_agents_environment() {
    let ws = Ws::new()
        .master(true)
        .sh(
            "hooks/probe.sh",
            r#"cat >/dev/null; printf '%s' "$PROBE_WHO" >> "$(dirname "$0")/../seen""#,
        )
        .hook(Entry::new("pre_tool_call", "hooks/probe.sh").name("probe"))
        .approve_all();
    let state = private_state();
    let sidecar = Sidecar::start(&ws, state.path(), &[("PROBE_WHO", "sidecar")]);

    let (answer, _) = bridge(
        &ws,
        state.path(),
        &[("PROBE_WHO", "agent")],
        &pre_tool_use("ls"),
    );
    assert_eq!(answer, Value::Null, "{answer}");
    assert_eq!(
        ws.read("seen"),
        "agent",
        "the hook ran with the sidecar's environment"
    );
    // The sidecar declined it (409) and answered nothing itself.
    let log = sidecar.stop();
    assert!(!log.contains("forwarded by its bridge"), "{log}");
}

/// Where `serve` would listen for `ws` with its state directory at `state`
/// (`agent_hooks_server::default_socket`, computed here without changing this process's
/// environment).
fn default_socket(ws: &Ws, state: &Path) -> std::path::PathBuf {
    use sha2::Digest;
    let digest = sha2::Sha256::digest(ws.root().as_os_str().as_encoded_bytes());
    let id: String = digest.iter().take(8).map(|b| format!("{b:02x}")).collect();
    state.join("run").join(format!("{id}.sock"))
}

/// A listener at `socket` standing in for a sidecar someone else put there: whatever the
/// bridge does, the test then sees whether it connected (a connection waits in the backlog).
fn assert_never_asked(listener: &std::os::unix::net::UnixListener) {
    listener.set_nonblocking(true).expect("non-blocking");
    match listener.accept() {
        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
        Ok(_) => panic!("the bridge asked a socket that is not its user's sidecar's"),
        Err(e) => panic!("accept: {e}"),
    }
}

#[test]
fn a_bridge_never_asks_a_socket_another_user_could_have_put_there() {
    use std::os::unix::fs::PermissionsExt;
    let ws = guarded();
    let state = private_state();
    let socket = default_socket(&ws, state.path());
    let run = socket.parent().expect("a directory");

    // A run directory anyone can write to: whoever bound the socket there, it is not asked.
    std::fs::create_dir(run).expect("mkdir run");
    std::fs::set_permissions(run, std::fs::Permissions::from_mode(0o777)).expect("chmod 777");
    let listener = std::os::unix::net::UnixListener::bind(&socket).expect("bind");
    let (answer, _) = bridge(&ws, state.path(), &[], &pre_tool_use("rm -rf /"));
    assert!(deny_reason(&answer).is_some(), "not denied: {answer}");
    assert_never_asked(&listener);

    // A private directory, but a socket another user owns (only root can make one).
    std::fs::set_permissions(run, std::fs::Permissions::from_mode(0o700)).expect("chmod 700");
    let root =
        std::fs::metadata("/proc/self").is_ok_and(|m| std::os::unix::fs::MetadataExt::uid(&m) == 0);
    if !root {
        eprintln!("a socket of another user's: skipped: making one needs root");
        return;
    }
    std::os::unix::fs::lchown(&socket, Some(65534), Some(65534)).expect("chown to nobody");
    let (answer, _) = bridge(&ws, state.path(), &[], &pre_tool_use("rm -rf /"));
    assert!(deny_reason(&answer).is_some(), "not denied: {answer}");
    assert_never_asked(&listener);
}
