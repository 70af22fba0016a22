//! A bridge call answered by the workspace's running sidecar: when `agent-hooks serve` listens
//! on the workspace's default socket, `<agent>-hook` hands it the input and prints its answer,
//! so the configuration is not loaded again for each event. Anything short of a whole answer
//! from a sidecar of this user's — no socket, another owner, a call that runs hooks that are not
//! built in (409), an older sidecar — and the bridge process answers the call itself.

use std::io::{Read, Write};
use std::os::unix::fs::MetadataExt;
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::time::Duration;

use agent_hooks_runtime::OnFailure;
use agent_hooks_runtime::bridge::{Agent, AgentAnswer};

/// `AGENT_HOOKS_SIDECAR=off` keeps every bridge call in its own process.
const SWITCH_ENV: &str = "AGENT_HOOKS_SIDECAR";

/// How long a bridge waits for the sidecar's answer before answering the call itself. The
/// built-in guards a forwarded call runs answer within their own time budget, far below it.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(30);

/// The largest answer read back (the agents' own answers are a few KiB).
const MAX_ANSWER: u64 = 16 * 1024 * 1024;

/// The sidecar's answer to `input`, or `None` when the bridge process must answer itself.
/// The second element is a note for the agent's hook log when a sidecar was there but did not
/// answer in full (the call is then answered in process, so nothing lapsed).
pub(crate) fn through_sidecar(
    agent: Agent,
    root: &Path,
    input: &[u8],
    mode: OnFailure,
) -> (Option<AgentAnswer>, Option<String>) {
    // An agent the sidecar has no route for (Windsurf) is answered in process.
    if std::env::var_os(SWITCH_ENV).is_some_and(|v| v == "off") || !agent.home().has_sidecar_route()
    {
        return (None, None);
    }
    let Ok(socket) = agent_hooks_server::default_socket(root) else {
        return (None, None);
    };
    if !owned_privately(&socket) {
        return (None, None);
    }
    let Ok(stream) = UnixStream::connect(&socket) else {
        // No sidecar (or a stale socket it left): the usual case, said nowhere.
        return (None, None);
    };
    match exchange(stream, agent, input, mode) {
        Ok(Some(answer)) => (Some(answer), None),
        Ok(None) => (None, None),
        Err(why) => (
            None,
            Some(format!(
                "agent-hooks {}: the sidecar at {} did not answer ({why}); answered in this process",
                agent.hook_command(),
                socket.display()
            )),
        ),
    }
}

/// Whether the socket and its directory are this user's and no one else can write to the
/// directory, as `serve` makes them: only a sidecar of this user's answers for it.
fn owned_privately(socket: &Path) -> bool {
    let me = nix::unistd::geteuid().as_raw();
    let Some(dir) = socket.parent() else {
        return false;
    };
    let (Ok(sock), Ok(dir)) = (
        std::fs::symlink_metadata(socket),
        std::fs::symlink_metadata(dir),
    ) else {
        return false;
    };
    sock.uid() == me && dir.uid() == me && dir.is_dir() && dir.mode() & 0o022 == 0
}

/// One request and its answer. `Ok(None)`: the sidecar declined the call (409, or a status
/// an older sidecar gives for a query it does not know); `Err`: it failed part-way.
fn exchange(
    mut stream: UnixStream,
    agent: Agent,
    input: &[u8],
    mode: OnFailure,
) -> Result<Option<AgentAnswer>, String> {
    let io = |e: std::io::Error| e.to_string();
    stream.set_read_timeout(Some(ANSWER_TIMEOUT)).map_err(io)?;
    stream.set_write_timeout(Some(ANSWER_TIMEOUT)).map_err(io)?;
    let block = if mode == OnFailure::Block {
        "&on_failure=block"
    } else {
        ""
    };
    let head = format!(
        "POST {}?caller=bridge{block} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        agent.http_route(),
        input.len()
    );
    stream.write_all(head.as_bytes()).map_err(io)?;
    stream.write_all(input).map_err(io)?;
    let mut reply = Vec::new();
    (&mut stream)
        .take(MAX_ANSWER)
        .read_to_end(&mut reply)
        .map_err(io)?;
    let mut headers = [httparse::EMPTY_HEADER; 32];
    let mut response = httparse::Response::new(&mut headers);
    let body_at = match response.parse(&reply) {
        Ok(httparse::Status::Complete(at)) => at,
        Ok(httparse::Status::Partial) => return Err("its answer ended early".into()),
        Err(e) => return Err(format!("its answer is not HTTP: {e}")),
    };
    match response.code {
        Some(200) => {}
        Some(code) if code < 500 => return Ok(None),
        Some(code) => return Err(format!("status {code}")),
        None => return Err("its answer has no status".into()),
    }
    let body = &reply[body_at..];
    let value: serde_json::Value =
        serde_json::from_slice(body).map_err(|e| format!("its answer is not JSON: {e}"))?;
    let text = |key: &str| value.get(key).and_then(serde_json::Value::as_str);
    match (
        text("stdout"),
        text("stderr"),
        value.get("exit").and_then(serde_json::Value::as_i64),
    ) {
        (Some(stdout), Some(stderr), Some(exit)) => Ok(Some(AgentAnswer {
            stdout: stdout.to_owned(),
            stderr: stderr.to_owned(),
            exit: i32::try_from(exit).unwrap_or(1),
        })),
        // A sidecar that does not know `caller=bridge` answers in the agent's HTTP form.
        _ => Ok(None),
    }
}
