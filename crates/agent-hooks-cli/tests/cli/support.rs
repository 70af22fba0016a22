//! A throwaway workspace and the real `agent-hooks` binary, behind a chainable builder:
//!
//! ```ignore
//! let ws = Ws::new()
//!     .master(true)
//!     .py("hooks/guard.py", GUARD)
//!     .hook(Entry::new("pre_tool_call", "hooks/guard.py").name("guard"))
//!     .approve_all();
//! let fired = ws.fire("pre_tool_call", json!({"tool_name": "bash"}));
//! assert_eq!(fired.decision(), "block");
//! ```
//!
//! Every builder step writes to disk at once, so the order of the chain is the order in which a
//! user would have done things (write the script, declare it, approve it).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// The binary under test.
pub(crate) const BIN: &str = env!("CARGO_BIN_EXE_agent-hooks");

/// The real Python interpreter (not a version-manager shim, which costs a process per run).
pub(crate) fn python() -> &'static str {
    static PYTHON: OnceLock<String> = OnceLock::new();
    PYTHON.get_or_init(|| {
        let out = Command::new("python3")
            .args(["-c", "import sys; print(sys.executable)"])
            .output()
            .expect("python3 is needed to run the hook scripts of these tests");
        String::from_utf8(out.stdout)
            .expect("python path is UTF-8")
            .trim()
            .to_owned()
    })
}

/// `test-helpers/src/bin/hook-misbehave.rs` compiled with the toolchain that builds the tests,
/// once per test process ([`std_helper`]).
pub(crate) fn misbehave() -> &'static str {
    static HELPER: OnceLock<String> = OnceLock::new();
    HELPER.get_or_init(|| std_helper("hook-misbehave"))
}

/// `test-helpers/src/bin/sidecar-probe.rs` compiled once per test process: tries routes of a
/// sidecar as one client would ([`std_helper`]).
pub(crate) fn sidecar_probe() -> &'static str {
    static HELPER: OnceLock<String> = OnceLock::new();
    HELPER.get_or_init(|| std_helper("sidecar-probe"))
}

/// `test-helpers/src/bin/<name>.rs` compiled with the toolchain that builds the tests (a bare
/// `rustc`: the program needs only the standard library). Each process compiles to its own name
/// and renames into place, so parallel runs never see half a binary.
fn std_helper(name: &str) -> String {
    let source =
        Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../../test-helpers/src/bin/{name}.rs"));
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("test-helpers");
    std::fs::create_dir_all(&dir).expect("create the helper directory");
    let partial = dir.join(format!("{name}.{}", std::process::id()));
    // Beside the cargo that runs the tests is the rustc of the same toolchain.
    let rustc = Path::new(env!("CARGO")).with_file_name("rustc");
    let rustc = if rustc.is_file() {
        rustc
    } else {
        PathBuf::from("rustc")
    };
    let out = Command::new(&rustc)
        .args([
            "--edition",
            "2024",
            "-O",
            "--crate-name",
            &name.replace('-', "_"),
        ])
        .arg(&source)
        .arg("-o")
        .arg(&partial)
        .output()
        .unwrap_or_else(|e| panic!("run {}: {e}", rustc.display()));
    assert!(
        out.status.success(),
        "cannot compile {}: {}",
        source.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let path = dir.join(name);
    std::fs::rename(&partial, &path).expect("move the helper into place");
    path.display().to_string()
}

/// One entry of `config/shell_hooks.yaml`.
#[derive(Debug, Clone)]
pub(crate) struct Entry {
    event: String,
    command: String,
    fields: Vec<(String, Value)>,
}

impl Entry {
    pub(crate) fn new(event: &str, command: &str) -> Entry {
        Entry {
            event: event.to_owned(),
            command: command.to_owned(),
            fields: Vec::new(),
        }
    }

    pub(crate) fn name(self, name: &str) -> Entry {
        self.field("name", json!(name))
    }

    pub(crate) fn matcher(self, regex: &str) -> Entry {
        self.field("matcher", json!(regex))
    }

    pub(crate) fn timeout(self, secs: u64) -> Entry {
        self.field("timeout", json!(secs))
    }

    pub(crate) fn on_error_block(self) -> Entry {
        self.field("on_error", json!("block"))
    }

    pub(crate) fn env(self, key: &str, value: &str) -> Entry {
        let mut entry = self;
        match entry.fields.iter_mut().find(|(k, _)| k == "env") {
            Some((_, Value::Object(map))) => {
                map.insert(key.to_owned(), json!(value));
            }
            _ => entry.fields.push(("env".to_owned(), json!({ key: value }))),
        }
        entry
    }

    /// `prefork: <value>` (`true`, or `{"warmup": ...}`).
    pub(crate) fn prefork(self, value: Value) -> Entry {
        self.field("prefork", value)
    }

    fn field(mut self, key: &str, value: Value) -> Entry {
        self.fields.push((key.to_owned(), value));
        self
    }

    /// The entry as a YAML list item. JSON scalars are valid YAML flow scalars, so every value is
    /// written as JSON and no quoting rule of YAML can change what the command is.
    fn to_yaml(&self) -> String {
        let mut text = format!(
            "  - event: {}\n    command: {}\n",
            json!(self.event),
            json!(self.command)
        );
        for (key, value) in &self.fields {
            text.push_str(&format!("    {key}: {value}\n"));
        }
        text
    }
}

/// The command an installer writes for `ws`'s bridge `hook` (`claude-hook`, ...), run as
/// `program`: it names the workspace by its absolute path.
pub(crate) fn bridge_command(program: &str, ws: &Ws, hook: &str) -> String {
    format!("{program} --workspace {} {hook}", ws.root().display())
}

/// A temporary workspace.
#[derive(Debug)]
pub(crate) struct Ws {
    dir: tempfile::TempDir,
    entries: Vec<Entry>,
}

impl Ws {
    pub(crate) fn new() -> Ws {
        Ws::named("agent-hooks-test")
    }

    /// A temporary workspace whose directory's name starts with `prefix`.
    pub(crate) fn named(prefix: &str) -> Ws {
        let dir = tempfile::Builder::new()
            .prefix(prefix)
            .tempdir()
            .expect("create a temporary workspace");
        std::fs::create_dir_all(dir.path().join("config")).expect("create config/");
        Ws {
            dir,
            entries: Vec::new(),
        }
    }

    /// The workspace root as the binary sees it (symlinks resolved, as the engine does).
    pub(crate) fn root(&self) -> PathBuf {
        self.dir.path().canonicalize().expect("canonical workspace")
    }

    pub(crate) fn path(&self, rel: &str) -> PathBuf {
        self.root().join(rel)
    }

    /// Writes `config/agent.yaml` with the master switch set.
    pub(crate) fn master(self, enabled: bool) -> Ws {
        self.file(
            "config/agent.yaml",
            &format!("shell_hooks:\n  enabled: {enabled}\n"),
        )
    }

    /// Writes a file (parents created), replacing any previous one.
    pub(crate) fn file(self, rel: &str, contents: &str) -> Ws {
        self.bytes(rel, contents.as_bytes())
    }

    pub(crate) fn bytes(self, rel: &str, contents: &[u8]) -> Ws {
        let path = self.path(rel);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).expect("create parent directory");
        }
        std::fs::write(&path, contents).expect("write workspace file");
        self
    }

    /// Writes an executable script; `source` must start with its `#!` line.
    pub(crate) fn script(self, rel: &str, source: &str) -> Ws {
        let ws = self.file(rel, source);
        set_mode(&ws.path(rel), 0o755);
        ws
    }

    /// An executable Python 3 script with `body` after the `#!` line.
    pub(crate) fn py(self, rel: &str, body: &str) -> Ws {
        let source = format!("#!{}\n{}", python(), dedent(body));
        self.script(rel, &source)
    }

    /// An executable POSIX sh script with `body` after the `#!` line.
    pub(crate) fn sh(self, rel: &str, body: &str) -> Ws {
        let source = format!("#!/bin/sh\n{}", dedent(body));
        self.script(rel, &source)
    }

    /// Declares a hook in `config/shell_hooks.yaml` (rewriting the file with every entry so far).
    pub(crate) fn hook(mut self, entry: Entry) -> Ws {
        self.entries.push(entry);
        let mut text = String::from("hooks:\n");
        for entry in &self.entries {
            text.push_str(&entry.to_yaml());
        }
        self.file("config/shell_hooks.yaml", &text)
    }

    /// Approves every declared command through the CLI, as a user would.
    pub(crate) fn approve_all(self) -> Ws {
        let mut done: Vec<&str> = Vec::new();
        for entry in &self.entries {
            if done.contains(&entry.command.as_str()) {
                continue;
            }
            done.push(&entry.command);
            self.approve(&entry.command);
        }
        self
    }

    /// `agent-hooks approve <command>`, which must succeed.
    pub(crate) fn approve(&self, command: &str) {
        let out = self.run(&["approve", command]);
        assert!(
            out.status.success(),
            "approve {command} failed: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// Runs `agent-hooks --workspace <ws> <args...>` from a directory that is not the workspace,
    /// so nothing can lean on the current directory by accident.
    pub(crate) fn run(&self, args: &[&str]) -> Output {
        self.command(args)
            .stdin(Stdio::null())
            .output()
            .expect("run agent-hooks")
    }

    pub(crate) fn command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(BIN);
        cmd.arg("--workspace")
            .arg(self.dir.path())
            .args(args)
            .current_dir(std::env::temp_dir())
            .env_remove("AGENT_HOOKS_WORKSPACE")
            .env_remove("AGENT_HOOKS_LOG");
        cmd
    }

    /// `agent-hooks fire <event>` with `payload` on stdin; expects the outcome JSON.
    pub(crate) fn fire(&self, event: &str, payload: Value) -> Fired {
        let fired = self.fire_raw(event, payload.to_string().as_bytes());
        assert_eq!(
            fired.code, 0,
            "fire {event} exited {}; stderr: {}",
            fired.code, fired.stderr
        );
        fired
    }

    /// `agent-hooks fire <event>` with raw bytes on stdin, whatever it exits with. Stdin is
    /// written from its own thread so a large payload cannot deadlock against the outcome.
    pub(crate) fn fire_raw(&self, event: &str, stdin: &[u8]) -> Fired {
        let started = Instant::now();
        let out = run_piped(self.command(&["fire", event]), stdin);
        let elapsed = started.elapsed();
        let outcome = if out.stdout.is_empty() {
            Value::Null
        } else {
            serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
                panic!(
                    "fire printed something that is not JSON ({e}): {}",
                    String::from_utf8_lossy(&out.stdout[..out.stdout.len().min(2000)])
                )
            })
        };
        Fired {
            outcome,
            code: out.status.code().unwrap_or(-1),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            elapsed,
        }
    }

    /// The runtime's own directory for this workspace (locks, the decision log, the
    /// `hook_decision` records), as the binary run with this process's environment finds it.
    pub(crate) fn runtime_path(&self, rel: &str) -> PathBuf {
        agent_hooks_runtime::Workspace::new(self.root())
            .runtime_dir()
            .join(rel)
    }

    /// A file of the runtime's own directory for this workspace ([`Ws::runtime_path`]).
    pub(crate) fn read_runtime(&self, rel: &str) -> String {
        std::fs::read_to_string(self.runtime_path(rel))
            .unwrap_or_else(|e| panic!("cannot read {rel} of the runtime's directory: {e}"))
    }

    /// Every record of `logs/events.jsonl`, then every `hook_decision` record of the runtime's
    /// own file, each line checked to be one JSON object.
    pub(crate) fn events(&self) -> Vec<Value> {
        let read = |path: PathBuf| match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(e) => panic!("cannot read {}: {e}", path.display()),
        };
        let text =
            read(self.path("logs/events.jsonl")) + &read(self.runtime_path("hook-decisions.jsonl"));
        text.lines()
            .map(|line| {
                let record: Value = serde_json::from_str(line)
                    .unwrap_or_else(|e| panic!("torn or invalid log line ({e}): {line}"));
                assert!(record.is_object(), "log line is not an object: {line}");
                record
            })
            .collect()
    }

    /// The log records of one `type`.
    pub(crate) fn events_of(&self, kind: &str) -> Vec<Value> {
        self.events()
            .into_iter()
            .filter(|r| r["type"] == kind)
            .collect()
    }

    pub(crate) fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.path(rel)).unwrap_or_else(|e| panic!("cannot read {rel}: {e}"))
    }

    pub(crate) fn exists(&self, rel: &str) -> bool {
        self.path(rel).exists()
    }
}

impl Drop for Ws {
    /// The runtime's directory for the workspace lives outside it, in the user's state
    /// directory: it goes with the workspace.
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(self.runtime_path(""));
    }
}

/// Runs `cmd` with `stdin` and collects its output. Stdin is written from its own thread so a
/// large input cannot deadlock against a child that answers before reading all of it.
pub(crate) fn run_piped(mut cmd: Command, stdin: &[u8]) -> Output {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn agent-hooks");
    let mut input = child.stdin.take().expect("stdin is piped");
    let bytes = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&bytes);
    });
    let out = child.wait_with_output().expect("wait for agent-hooks");
    writer.join().expect("stdin writer thread");
    out
}

/// What one `fire` did.
#[derive(Debug)]
pub(crate) struct Fired {
    pub(crate) outcome: Value,
    pub(crate) code: i32,
    pub(crate) stderr: String,
    pub(crate) elapsed: Duration,
}

impl Fired {
    pub(crate) fn decision(&self) -> &str {
        self.outcome["decision"]
            .as_str()
            .unwrap_or_else(|| panic!("no decision in {}", self.outcome))
    }

    pub(crate) fn reason(&self) -> &str {
        self.outcome["reason"].as_str().unwrap_or_default()
    }

    /// The report of the hook named `name`.
    pub(crate) fn hook(&self, name: &str) -> &Value {
        self.outcome["hooks"]
            .as_array()
            .and_then(|hooks| hooks.iter().find(|h| h["hook"] == name))
            .unwrap_or_else(|| panic!("no report for hook {name} in {}", self.outcome))
    }

    pub(crate) fn status(&self, name: &str) -> &str {
        self.hook(name)["status"].as_str().unwrap_or_default()
    }

    pub(crate) fn detail(&self, name: &str) -> &str {
        self.hook(name)["detail"].as_str().unwrap_or_default()
    }

    pub(crate) fn strings(&self, field: &str) -> Vec<String> {
        self.outcome[field]
            .as_array()
            .unwrap_or_else(|| panic!("{field} is not a list in {}", self.outcome))
            .iter()
            .map(|v| v.as_str().expect("a string").to_owned())
            .collect()
    }

    pub(crate) fn warnings(&self) -> Vec<String> {
        self.strings("warnings")
    }

    pub(crate) fn context(&self) -> Vec<String> {
        self.strings("context")
    }
}

pub(crate) fn set_mode(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).expect("chmod");
}

/// Whether a process exists and is not a zombie (a zombie has finished running; only its exit
/// status waits for a parent, which for an orphan is whatever reaper the machine has).
pub(crate) fn process_running(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().next())
            .is_some_and(|state| state != "Z" && state != "X"),
        Err(_) => false,
    }
}

/// The live (non-zombie) processes whose process group is `pgid`.
pub(crate) fn live_members_of_group(pgid: u32) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
                return false;
            };
            let Some((_, rest)) = stat.rsplit_once(')') else {
                return false;
            };
            let fields: Vec<&str> = rest.split_whitespace().collect();
            // After the command name: state, ppid, pgrp.
            fields.len() > 2 && fields[0] != "Z" && fields[2] == pgid.to_string()
        })
        .collect()
}

/// Waits up to `limit` for `check` to hold; reaping and signal delivery take a moment on a
/// loaded machine.
pub(crate) fn eventually(limit: Duration, mut check: impl FnMut() -> bool) -> bool {
    let started = Instant::now();
    loop {
        if check() {
            return true;
        }
        if started.elapsed() > limit {
            return false;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Removes the common leading indentation, so scripts can be written indented in Rust source.
pub(crate) fn dedent(text: &str) -> String {
    let text = text.strip_prefix('\n').unwrap_or(text);
    let indent = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    let mut out = String::new();
    for line in text.lines() {
        out.push_str(line.get(indent..).unwrap_or(line.trim_start()));
        out.push('\n');
    }
    out
}

/// A running `agent-hooks serve` on an ephemeral loopback port; killed on drop if a test fails
/// before stopping it.
pub(crate) struct Server {
    child: Child,
    /// The TCP port; 0 for a sidecar on a socket.
    pub(crate) port: u16,
    /// The socket, for a sidecar on one.
    pub(crate) socket: Option<PathBuf>,
}

impl Server {
    pub(crate) fn start(ws: &Ws) -> Server {
        Server::start_with(ws, &[])
    }

    /// Starts the server with `flags` after `serve --listen 127.0.0.1:0`.
    pub(crate) fn start_with(ws: &Ws, flags: &[&str]) -> Server {
        let mut args = vec!["serve", "--listen", "127.0.0.1:0"];
        args.extend_from_slice(flags);
        Server::spawn(ws.command(&args))
    }

    /// Starts the server under `ulimit -n files` (the soft and the hard limit), as on a
    /// machine with a low descriptor limit.
    pub(crate) fn start_with_open_files(ws: &Ws, files: u32) -> Server {
        let serve = ws.command(&["serve", "--listen", "127.0.0.1:0"]);
        let mut cmd = Command::new("sh");
        cmd.arg("-c")
            .arg(format!("ulimit -n {files} && exec \"$@\""))
            .arg("sh")
            .arg(serve.get_program())
            .args(serve.get_args())
            .current_dir(std::env::temp_dir())
            .env_remove("AGENT_HOOKS_WORKSPACE")
            .env_remove("AGENT_HOOKS_LOG");
        Server::spawn(cmd)
    }

    pub(crate) fn spawn(mut command: Command) -> Server {
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("spawn agent-hooks serve");
        let stdout = child.stdout.take().expect("stdout is piped");
        let mut line = String::new();
        BufReader::new(stdout)
            .read_line(&mut line)
            .expect("read the ready line");
        if let Some((_, path)) = line.trim_end().split_once(" on unix:") {
            return Server {
                child,
                port: 0,
                socket: Some(PathBuf::from(path)),
            };
        }
        let port = line
            .rsplit(':')
            .next()
            .and_then(|p| p.trim().parse().ok())
            .unwrap_or_else(|| panic!("no port in the ready line {line:?}"));
        Server {
            child,
            port,
            socket: None,
        }
    }

    pub(crate) fn request(&self, method: &str, path: &str, body: &[u8]) -> (u16, Value) {
        self.request_with_host(method, path, body, &format!("127.0.0.1:{}", self.port))
    }

    pub(crate) fn request_with_host(
        &self,
        method: &str,
        path: &str,
        body: &[u8],
        host: &str,
    ) -> (u16, Value) {
        http(self.port, method, path, body, host)
    }

    pub(crate) fn post(&self, path: &str, body: Value) -> (u16, Value) {
        self.request("POST", path, body.to_string().as_bytes())
    }

    pub(crate) fn terminate(&mut self) -> std::process::ExitStatus {
        let pid = nix::unistd::Pid::from_raw(self.child.id() as i32);
        nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM).expect("send SIGTERM");
        self.child.wait().expect("wait for the server")
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The sidecar's bearer token, as every client reads it: from the token file in the user's
/// state directory (the one a `serve --listen` started by these tests made or found).
pub(crate) fn sidecar_token() -> String {
    let dir = agent_hooks_server::state_dir().expect("a state directory");
    std::fs::read_to_string(dir.join(agent_hooks_server::TOKEN_FILE))
        .expect("read the sidecar's token file")
        .trim()
        .to_owned()
}

/// One HTTP/1.1 request on a fresh connection, with the sidecar's token, as a client of the
/// owner sends it; the answer's status and JSON body.
pub(crate) fn http(port: u16, method: &str, path: &str, body: &[u8], host: &str) -> (u16, Value) {
    let auth = format!("Authorization: Bearer {}\r\n", sidecar_token());
    http_with(port, method, path, body, host, &auth)
}

/// One HTTP/1.1 request on a fresh connection with `extra` header lines (each ending in CRLF).
pub(crate) fn http_with(
    port: u16,
    method: &str,
    path: &str,
    body: &[u8],
    host: &str,
    extra: &str,
) -> (u16, Value) {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connect to the sidecar");
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .expect("set a read timeout");
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n{extra}\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).expect("send the head");
    // A refused oversized body may close the connection before it is all sent.
    let _ = stream.write_all(body);
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    let text = String::from_utf8_lossy(&answer);
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status line in {head:?}"));
    let body = if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        dechunk(body)
    } else {
        body.to_owned()
    };
    let json = serde_json::from_str(&body).unwrap_or(Value::String(body));
    (status, json)
}

fn dechunk(body: &str) -> String {
    let mut out = String::new();
    let mut rest = body;
    while let Some((size, tail)) = rest.split_once("\r\n") {
        let Ok(n) = usize::from_str_radix(size.trim(), 16) else {
            break;
        };
        if n == 0 || tail.len() < n {
            break;
        }
        out.push_str(&tail[..n]);
        rest = tail[n..].strip_prefix("\r\n").unwrap_or(&tail[n..]);
    }
    out
}

/// What a process printed and how it exited, for commands that answer an agent (a bridge).
#[derive(Debug)]
pub(crate) struct Ran {
    pub(crate) stdout: String,
    pub(crate) stderr: String,
    pub(crate) code: i32,
}

impl Ran {
    /// Runs `cmd` with `stdin`.
    pub(crate) fn of(cmd: Command, stdin: &[u8]) -> Ran {
        let out = run_piped(cmd, stdin);
        Ran {
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            code: out.status.code().unwrap_or(-1),
        }
    }

    /// Stdout as the one JSON object an agent reads; `Null` when empty.
    pub(crate) fn json(&self) -> Value {
        if self.stdout.trim().is_empty() {
            return Value::Null;
        }
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not one JSON object ({e}): {}", self.stdout))
    }
}

/// `agent-hooks list` with its line wrapping undone, for substring checks.
pub(crate) fn list_text(ws: &Ws) -> String {
    let out = ws.run(&["list"]);
    String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// The handlers of `event` in a settings file of Claude Code's layout (event → groups →
/// handlers) whose command ends with `command_suffix` (`agent-hooks codex-hook`).
pub(crate) fn handlers_ending_with(
    settings: &Value,
    event: &str,
    command_suffix: &str,
) -> Vec<Value> {
    settings["hooks"][event]
        .as_array()
        .expect("a list of groups")
        .iter()
        .flat_map(|g| g["hooks"].as_array().cloned().unwrap_or_default())
        .filter(|h| {
            h["command"]
                .as_str()
                .is_some_and(|c| c.ends_with(command_suffix))
        })
        .collect()
}

/// A workspace whose one approved hook, `guard`, is the sh script `script` on `pre_tool_call`:
/// the guarded workspace the sidecar, `fire` and standards tests start from.
pub(crate) fn guarded_by(script: &str) -> Ws {
    Ws::new()
        .master(true)
        .sh("hooks/guard.sh", script)
        .hook(Entry::new("pre_tool_call", "hooks/guard.sh").name("guard"))
        .approve_all()
}

/// How the browser tests start Chromium (with a new `--user-data-dir` of their own): headless,
/// and without the background connections a closed network refuses many at a time.
#[cfg_attr(not(have_chromium), allow(dead_code))]
pub(crate) const HEADLESS_CHROMIUM: &[&str] = &[
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
];
