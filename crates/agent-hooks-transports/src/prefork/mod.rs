//! `prefork`: a Python hook run in a forked child of an interpreter that has already compiled
//! the script and imported what it imports, instead of a fresh interpreter per call.
//!
//! The forker is `forker.py` (embedded), run by the interpreter the command names with the
//! command's interpreter options. It reads the script, checks its bytes against the SHA-256 the
//! trust gate verified against the approval, compiles them, imports the modules the script
//! imports (and, with `prefork: {warmup: …}`, runs the script once on that payload), and then
//! forks one child per call. The runtime hands each call three pipe ends (the child's stdin,
//! stdout, stderr) and a call socket over `SCM_RIGHTS`; the child puts itself in its own process
//! group, takes the pipes as its standard streams, closes every other descriptor, and runs the
//! compiled script as `python3 script.py` would. The forker answers the child's pid on the call
//! socket, and then how it ended: as the child tells it on a page they share once nothing of
//! the script is left to run and its streams are closed (the kernel's teardown of a forked
//! interpreter, most of a millisecond, then goes on beside the caller), else as the forker
//! reaps it. From the pid on, the call is supervised exactly like a spawned hook
//! ([`super::command::supervise`]): the same capped readers, the same timeout that kills the
//! child's whole group. The call's input is written into its stdin pipe as soon as the
//! request is sent, so the script finds it there when it starts.
//!
//! Where the forker lives ([`Home`]): in a process that stays (the sidecar, an embedding host)
//! it is a child of the engine, talked to over a socket pair on its stdin, and dies with it; a
//! reload stops every forker. In a process per event (`fire`, the bridges) it serves the
//! workspace on a Unix socket in `prefork/` of the runtime's own directory for the workspace
//! (`0700`, the socket `0600`, peers of another user refused), found again by the next process,
//! and it exits when its script or the approvals file changes, or after [`IDLE`] without a
//! call. Its socket is named after everything it was started with, the approved hash included,
//! so a call never reaches a forker holding other content.
//! Those sockets, and how a process reaches or starts its forker, are `socket`'s.
//!
//! A forker that cannot be started or reached is never silent: the call runs as a plain spawn
//! and says so ([`Ran::fallback`]), in the outcome's warnings and in `logs/events.jsonl`.

use std::collections::HashMap;
use std::io::{self, IoSlice, Write};
use std::os::fd::{AsFd, AsRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use nix::sys::socket::{AddressFamily, ControlMessage, MsgFlags, SockFlag, SockType};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use tokio::io::{AsyncBufReadExt, BufReader};

pub use super::command::Prefork;
use super::command::{CommandSpec, RunPolicy, Started, Streams, supervise};
use super::{Exit, Failure, Ran};
use crate::command_line::PythonCall;
use crate::pinned::Pinned;
use agent_hooks_core::workspace::Workspace;
use socket::{connect_or_start, connect_serving, socket_path};

mod socket;

/// The forker program.
const FORKER: &str = include_str!("forker.py");
/// How long a forker may take to compile the script, import its modules and warm up.
const START_TIMEOUT: Duration = Duration::from_secs(20);
/// How long a forker serving the workspace waits for a call before it exits.
pub const IDLE: Duration = Duration::from_secs(600);
/// Overrides [`IDLE`] (in seconds) for the forkers a process starts.
pub const IDLE_ENV: &str = "AGENT_HOOKS_PREFORK_IDLE";

/// Where a process keeps its forkers.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Home {
    /// Children of this process, which outlives its dispatches (the sidecar, a host).
    #[default]
    Children,
    /// Serving the workspace over Unix sockets, outliving this process (`fire`, bridges).
    Workspace,
}

/// One forker child, or why it could not be started and when (kept for [`RETRY_AFTER`], so a
/// script that does not compile is not started again at every call).
type Slot = Arc<tokio::sync::OnceCell<Result<Arc<Forker>, (Refused, std::time::Instant)>>>;

/// Why no forker takes a call.
#[derive(Debug, Clone)]
enum Refused {
    /// None can be started or reached: the call runs as a plain process that says why.
    Unavailable(String),
    /// The script on disk is no longer the content whose approval the trust gate checked
    /// (edited in between): the call is not run at all.
    Drifted(String),
}

impl From<String> for Refused {
    fn from(why: String) -> Refused {
        Refused::Unavailable(why)
    }
}

/// How long a forker that failed to start is not tried again (its calls run as plain
/// processes, each saying so).
const RETRY_AFTER: Duration = Duration::from_secs(30);

/// The forkers of one engine.
#[derive(Debug, Default)]
pub struct Pool {
    home: Home,
    children: Mutex<HashMap<String, Slot>>,
}

/// One call of a `prefork` hook.
#[derive(Debug)]
pub struct Job<'a> {
    /// The workspace the hook runs in.
    pub ws: &'a Workspace,
    /// The hook's name and its entry's `env`: two hooks on one script get forkers of their own.
    pub hook: &'a str,
    /// The entry's own `env:`, which keys the forker with the name.
    pub entry_env: &'a [(String, String)],
    /// The hook's command, as the trust gate verified it.
    pub spec: &'a CommandSpec,
    /// The entry's `prefork` settings.
    pub prefork: &'a Prefork,
    /// The hook's environment on top of the runtime's.
    pub env: &'a [(String, String)],
    /// What the gate verified: the program, and the approved hashes of the files.
    pub program: Option<&'a Pinned>,
}

impl Pool {
    /// A pool whose forkers live in `home`.
    pub fn new(home: Home) -> Pool {
        Pool {
            home,
            children: Mutex::default(),
        }
    }

    /// Stops every forker child (the configuration or the approvals changed).
    pub fn clear(&self) {
        self.children
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clear();
    }

    /// Drops the forker of `key` when it is still the one in `slot` (a call that found it dead
    /// may have replaced it already).
    fn forget(&self, key: &str, slot: &Slot) {
        let mut children = self.children.lock().unwrap_or_else(|p| p.into_inner());
        if children.get(key).is_some_and(|now| Arc::ptr_eq(now, slot)) {
            children.remove(key);
        }
    }

    /// Runs `job` in a forked child; when no forker can take it, as a plain spawn that says why.
    pub async fn run(
        &self,
        job: &Job<'_>,
        input: Arc<[u8]>,
        timeout: Duration,
        policy: RunPolicy,
    ) -> Ran {
        let deadline = tokio::time::Instant::now() + timeout;
        match self.launch(job, &input, deadline).await {
            Ok(Launched::Started(child)) => Ran {
                result: child.supervise(deadline, timeout, policy).await,
                fallback: None,
            },
            Ok(Launched::TimedOut) => Ran {
                result: Err(Failure::Timeout(timeout)),
                fallback: None,
            },
            // Edited after the trust gate checked it: a plain spawn would run the new
            // content just the same.
            Err(Refused::Drifted(why)) => Ran {
                result: Err(Failure::Exec(format!(
                    "prefork: {why}: the script changed after its approval was checked, and was not run"
                ))),
                fallback: None,
            },
            Err(Refused::Unavailable(why)) => {
                // In what is left of the call's time (a forker may have taken some to fail).
                let left = deadline.saturating_duration_since(tokio::time::Instant::now());
                let result = if left.is_zero() {
                    Err(Failure::Timeout(timeout))
                } else {
                    match job
                        .spec
                        .run(input, job.env, left, job.program, policy)
                        .await
                    {
                        Err(Failure::Timeout(_)) => Err(Failure::Timeout(timeout)),
                        other => other,
                    }
                };
                Ran {
                    result,
                    fallback: Some(format!(
                        "prefork: {why}; the hook ran as a plain process instead"
                    )),
                }
            }
        }
    }

    async fn launch(
        &self,
        job: &Job<'_>,
        input: &Arc<[u8]>,
        deadline: tokio::time::Instant,
    ) -> Result<Launched, Refused> {
        let call = crate::command_line::python_call(job.spec, job.env)?;
        let interpreter = call
            .interpreter
            .clone()
            .ok_or_else(|| format!("{} is not on PATH", call.interpreter_word))?;
        let sha256 = approved_hash(job.program, &call.script)?;
        let start = Start {
            call,
            interpreter,
            sha256,
            cwd: job.spec.cwd.clone(),
            env: full_env(job.env),
            warmup: job.prefork.warmup.clone(),
        };
        let key = start.key(job.hook, job.entry_env);
        let request = start.request();
        match self.home {
            Home::Children => {
                let start = Arc::new(start);
                let mut again = true;
                loop {
                    let slot = self
                        .children
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .entry(key.clone())
                        .or_default()
                        .clone();
                    let Some(started) = started_in(&slot, &start, deadline).await? else {
                        return Ok(Launched::TimedOut);
                    };
                    let forker = match started {
                        Ok(forker) => forker,
                        Err((why, when)) => {
                            // A script edited under the forker is not a forker that cannot
                            // start: the next call, checked again, may start one.
                            if matches!(why, Refused::Drifted(_)) || when.elapsed() > RETRY_AFTER {
                                self.forget(&key, &slot);
                            }
                            return Err(why);
                        }
                    };
                    match forker.call(&request, input, deadline).await {
                        Ok(Launched::TimedOut) => {
                            // Not one fork in the call's whole time: stopped or wedged. The
                            // call is over; the next one starts a fresh forker.
                            self.forget(&key, &slot);
                            return Ok(Launched::TimedOut);
                        }
                        Ok(launched) => return Ok(launched),
                        Err(why) => {
                            // Dead or wedged: the next call starts a fresh one. Refused before
                            // any pid was answered, nothing of the hook ran: a forker that died
                            // since its last call (killed, out of memory) is replaced for this
                            // call too, once.
                            self.forget(&key, &slot);
                            if !std::mem::take(&mut again) {
                                return Err(why.into());
                            }
                        }
                    }
                }
            }
            Home::Workspace => {
                if let Some(conn) = connect_serving(&socket_path(job.ws, &key)) {
                    match call_on(conn, None, &request, input, deadline).await {
                        // Refused before any pid was answered, so nothing of the hook ran: the
                        // forker stopped listening (an approval, an edit, its idle time) with
                        // this call still queued, or the spare that took it died before it
                        // started the script. The call goes once more the way that finds, or
                        // starts, the forker serving now.
                        Err(_) => {}
                        Ok(launched) => return Ok(launched),
                    }
                }
                let ws = job.ws.clone();
                let within = deadline.saturating_duration_since(tokio::time::Instant::now());
                let conn = tokio::task::spawn_blocking(move || {
                    connect_or_start(&ws, &key, &start, within)
                })
                .await
                .map_err(|e| format!("cannot reach the forker: {e}"))??;
                match conn {
                    Some(conn) => Ok(call_on(conn, None, &request, input, deadline).await?),
                    // The call's time ran out while its forker started.
                    None => Ok(Launched::TimedOut),
                }
            }
        }
    }
}

/// The forker of `slot`, started by a task of its own when it has none yet, which a call whose
/// time runs out first leaves to finish: the forker is ready for the calls that follow. `None`
/// when `deadline` passed first.
async fn started_in(
    slot: &Slot,
    start: &Arc<Start>,
    deadline: tokio::time::Instant,
) -> Result<Option<Result<Arc<Forker>, (Refused, std::time::Instant)>>, Refused> {
    let (slot, start) = (slot.clone(), start.clone());
    let starting = tokio::spawn(async move {
        slot.get_or_init(|| async move {
            tokio::task::spawn_blocking(move || Forker::start(&start))
                .await
                .map_err(|e| Refused::from(format!("cannot start the forker: {e}")))
                .and_then(|started| started.map(Arc::new))
                .map_err(|why| (why, std::time::Instant::now()))
        })
        .await
        .clone()
    });
    match tokio::time::timeout_at(deadline, starting).await {
        Err(_) => Ok(None),
        Ok(joined) => Ok(Some(
            joined.map_err(|e| format!("cannot start the forker: {e}"))?,
        )),
    }
}

/// What a forker is started with.
struct Start {
    call: PythonCall,
    interpreter: PathBuf,
    sha256: String,
    cwd: PathBuf,
    env: serde_json::Map<String, Value>,
    warmup: Option<String>,
}

impl Start {
    /// Everything that decides what the forker holds: the interpreter and its options, the
    /// script and its approved hash, the warm-up, the working directory, and the hook.
    fn key(&self, hook: &str, entry_env: &[(String, String)]) -> String {
        let mut hash = Sha256::new();
        for part in [
            self.interpreter.to_string_lossy().as_ref(),
            &self.call.options.join("\0"),
            self.call.script.to_string_lossy().as_ref(),
            &self.sha256,
            self.warmup.as_deref().unwrap_or("\0none"),
            self.cwd.to_string_lossy().as_ref(),
            hook,
            &format!("{entry_env:?}"),
        ] {
            hash.update(part.as_bytes());
            hash.update([0xff]);
        }
        hash.finalize()[..12]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }

    /// The forker's configuration; `listen` for a forker serving the workspace. It holds the
    /// environment (the runtime's, secrets included, and the entry's `env:`), so it never goes
    /// on the command line, which every user can read in `/proc`: [`Start::command`] starts the
    /// forker with none, and the configuration follows on its stdin ([`config_frames`]).
    fn config(&self, listen: Option<Value>) -> Vec<u8> {
        let mut config = json!({
            "script": self.call.script,
            "sha256": self.sha256,
            "orig_argv": std::iter::once(&self.call.interpreter_word)
                .chain(&self.call.options)
                .chain([&self.call.script_word])
                .collect::<Vec<_>>(),
            "env": self.env,
            "cwd": self.cwd,
            "argv": self.argv(),
            "warmup": self.warmup,
            // What a call sends when it comes from the same environment, as it is sent.
            "request": String::from_utf8_lossy(&self.request()),
        });
        if let (Some(Value::Object(extra)), Some(config)) = (listen, config.as_object_mut()) {
            config.extend(extra);
        }
        config.to_string().into_bytes()
    }

    /// The forker's command line: the interpreter, the command's own interpreter options, and
    /// the forker program; nothing of the hook's configuration or environment.
    fn command(&self) -> std::process::Command {
        let mut cmd = std::process::Command::new(&self.interpreter);
        cmd.arg0(&self.call.interpreter_word)
            .args(&self.call.options)
            .arg("-c")
            .arg(FORKER)
            .current_dir(&self.cwd)
            .env_clear()
            .envs(
                self.env
                    .iter()
                    .map(|(k, v)| (k.as_str(), v.as_str().unwrap_or_default())),
            )
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0);
        cmd
    }

    fn argv(&self) -> Vec<&str> {
        std::iter::once(self.call.script_word.as_str())
            .chain(self.call.args.iter().map(String::as_str))
            .collect()
    }

    /// What each call sends: the child's environment, working directory and `sys.argv`.
    fn request(&self) -> Vec<u8> {
        json!({"env": self.env, "cwd": self.cwd, "argv": self.argv()})
            .to_string()
            .into_bytes()
    }
}

/// `config` as the forker reads it from its stdin: its length (8 bytes, big-endian), then the
/// bytes in pieces of at most [`CONFIG_PIECE`]. On a `SOCK_SEQPACKET` socket each piece is one
/// message, and the forker reads each whole (it asks for all that is left, never less than a
/// piece); on a pipe the pieces simply follow each other.
fn config_frames(config: &[u8]) -> impl Iterator<Item = Vec<u8>> + '_ {
    std::iter::once((config.len() as u64).to_be_bytes().to_vec())
        .chain(config.chunks(CONFIG_PIECE).map(<[u8]>::to_vec))
}

/// The largest piece of the configuration sent as one message (well under a socket's buffer).
const CONFIG_PIECE: usize = 32 * 1024;

/// The hash the approval recorded for `script`, which the forker checks the bytes it compiles
/// against. A hook that needs no approval (a skill hook) is hashed as it is now.
fn approved_hash(program: Option<&Pinned>, script: &Path) -> Result<String, String> {
    if let Some(pinned) = program {
        return pinned
            .approved
            .iter()
            .find(|(path, _)| path == script)
            .map(|(_, sha)| sha.clone())
            .ok_or_else(|| format!("the approval does not pin {}", script.display()));
    }
    crate::pinned::hash_file(script).map_err(|e| format!("cannot read {}: {e}", script.display()))
}

/// The environment a plain spawn would give the hook: this process's, plus the hook's.
fn full_env(env: &[(String, String)]) -> serde_json::Map<String, Value> {
    let mut all: serde_json::Map<String, Value> = std::env::vars_os()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, Value::String(v.into_string().ok()?))))
        .collect();
    for (k, v) in env {
        all.insert(k.clone(), Value::String(v.clone()));
    }
    all
}

/// A forker child of this process.
#[derive(Debug)]
struct Forker {
    /// A `SOCK_SEQPACKET` socket: one message per call, the request and four descriptors.
    control: OwnedFd,
    process: Mutex<std::process::Child>,
}

impl Forker {
    /// Starts the forker and waits until it has compiled and loaded the script.
    fn start(start: &Start) -> Result<Forker, Refused> {
        let (ours, theirs) = nix::sys::socket::socketpair(
            AddressFamily::Unix,
            SockType::SeqPacket,
            None,
            SockFlag::SOCK_CLOEXEC,
        )
        .map_err(|e| format!("cannot make the forker's socket: {e}"))?;
        let mut cmd = start.command();
        cmd.stdin(Stdio::from(theirs));
        let process = cmd
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", start.interpreter.display()))?;
        let forker = Forker {
            control: ours,
            process: Mutex::new(process),
        };
        for frame in config_frames(&start.config(None)) {
            nix::sys::socket::send(forker.control.as_raw_fd(), &frame, MsgFlags::MSG_NOSIGNAL)
                .map_err(|e| format!("the forker did not take its configuration: {e}"))?;
        }
        let mut buf = vec![0u8; 64 * 1024];
        if !readable(forker.control.as_fd(), START_TIMEOUT) {
            return Err(Refused::Unavailable(format!(
                "the forker did not load the script within {} s",
                START_TIMEOUT.as_secs()
            )));
        }
        let n = nix::sys::socket::recv(forker.control.as_raw_fd(), &mut buf, MsgFlags::empty())
            .map_err(|e| format!("the forker did not start: {e}"))?;
        ready(&buf[..n])?;
        Ok(forker)
    }

    /// Hands the forker one call.
    async fn call(
        &self,
        request: &[u8],
        input: &Arc<[u8]>,
        deadline: tokio::time::Instant,
    ) -> Result<Launched, String> {
        let (ours, theirs) = std::os::unix::net::UnixStream::pair()
            .map_err(|e| format!("cannot make a call socket: {e}"))?;
        call_on(ours, Some((self, theirs.into())), request, input, deadline).await
    }
}

impl Drop for Forker {
    fn drop(&mut self) {
        let mut process = self.process.lock().unwrap_or_else(|p| p.into_inner());
        let _ = process.kill();
        let _ = process.wait();
    }
}

/// Reads a forker's first message: ready, or why not.
fn ready(message: &[u8]) -> Result<(), Refused> {
    let value: Value = serde_json::from_slice(message.trim_ascii()).map_err(|_| {
        if message.is_empty() {
            "the forker exited while starting".to_owned()
        } else {
            format!(
                "the forker answered {}",
                String::from_utf8_lossy(message).trim()
            )
        }
    })?;
    if value.get("ready") == Some(&Value::Bool(true)) {
        return Ok(());
    }
    let error = value.get("error").and_then(Value::as_str);
    if let (Some(why), Some(Value::Bool(true))) = (error, value.get("drifted")) {
        return Err(Refused::Drifted(why.to_owned()));
    }
    Err(Refused::Unavailable(error.map_or_else(
        || format!("the forker answered {value}"),
        |e| format!("the forker cannot run the script: {e}"),
    )))
}

fn readable(fd: std::os::fd::BorrowedFd<'_>, within: Duration) -> bool {
    use nix::poll::{PollFd, PollFlags, PollTimeout};
    let mut fds = [PollFd::new(fd, PollFlags::POLLIN)];
    let ms = u16::try_from(within.as_millis()).unwrap_or(u16::MAX);
    matches!(nix::poll::poll(&mut fds, PollTimeout::from(ms)), Ok(n) if n > 0)
}

/// A call the forker took, or the deadline passed before it said so.
enum Launched {
    Started(Forked),
    TimedOut,
}

/// A hook process a forker forked: its group, the runtime's ends of its streams, the part of
/// its input still to write, and how the forker reports its end.
struct Forked {
    pid: u32,
    input: Arc<[u8]>,
    streams: Streams<
        tokio::net::unix::pipe::Sender,
        tokio::net::unix::pipe::Receiver,
        tokio::net::unix::pipe::Receiver,
    >,
    status: Status,
}

impl Forked {
    async fn supervise(
        self,
        deadline: tokio::time::Instant,
        timeout: Duration,
        policy: RunPolicy,
    ) -> Result<super::Reply, Failure> {
        supervise(
            self.status,
            self.pid,
            self.streams,
            self.input,
            deadline,
            timeout,
            policy,
        )
        .await
    }
}

/// The forker's report of how the child ended, read from the call socket by a task of its own.
struct Status {
    report: Option<tokio::sync::oneshot::Receiver<io::Result<Exit>>>,
    ended: Option<Exit>,
    reader: tokio::task::AbortHandle,
}

impl Started for Status {
    async fn ended(&mut self) -> io::Result<Exit> {
        if let Some(exit) = self.ended {
            return Ok(exit);
        }
        let Some(report) = self.report.as_mut() else {
            return Err(io::Error::other("the forker reported no exit status"));
        };
        let result = report
            .await
            .unwrap_or_else(|_| Err(io::Error::other("the forker reported no exit status")));
        self.report = None;
        let exit = result?;
        self.ended = Some(exit);
        Ok(exit)
    }
}

impl Drop for Status {
    fn drop(&mut self) {
        self.reader.abort();
    }
}

/// Sends `request` and the child's three stream ends on `conn` — for a forker child, through
/// its control socket with `conn`'s other end — and reads back the child's pid.
async fn call_on(
    conn: std::os::unix::net::UnixStream,
    via: Option<(&Forker, OwnedFd)>,
    request: &[u8],
    input: &Arc<[u8]>,
    deadline: tokio::time::Instant,
) -> Result<Launched, String> {
    let (stdin_r, stdin_w) = pipe()?;
    let (stdout_r, stdout_w) = pipe()?;
    let (stderr_r, stderr_w) = pipe()?;
    let ends = [
        stdin_r.as_raw_fd(),
        stdout_w.as_raw_fd(),
        stderr_w.as_raw_fd(),
    ];
    send_request(&conn, via.as_ref(), request, ends)
        .map_err(|e| format!("the forker cannot be reached: {e}"))?;
    // The child has its copies now; ours would keep its stdin open and its output unfinished.
    drop((via, stdin_r, stdout_w, stderr_w));
    // The input goes into the pipe while the forker hands the call to a child, so the script
    // finds it there instead of waiting for the round trip of its pid. What the pipe does not
    // take at once is written once the child is known, as a spawned hook's input is.
    let written = prewrite(&stdin_w, input);
    let (stdin_w, rest) = if written == input.len() {
        drop(stdin_w); // the whole input: the script reads it and then its end
        (None, Arc::from(&[][..]))
    } else {
        (Some(stdin_w), Arc::from(&input[written..]))
    };

    conn.set_nonblocking(true)
        .map_err(|e| format!("cannot use the call socket: {e}"))?;
    let conn = tokio::net::UnixStream::from_std(conn)
        .map_err(|e| format!("cannot use the call socket: {e}"))?;
    let mut lines = BufReader::new(conn).lines();
    let first = match tokio::time::timeout_at(deadline, lines.next_line()).await {
        Err(_) => return Ok(Launched::TimedOut),
        Ok(Ok(Some(line))) => line,
        Ok(Ok(None)) => return Err("the forker closed the call without starting it".into()),
        Ok(Err(e)) => return Err(format!("the forker cannot be reached: {e}")),
    };
    let pid = pid_of(&first)?;
    let (tx, rx) = tokio::sync::oneshot::channel();
    let reader = tokio::spawn(async move {
        let status = match lines.next_line().await {
            Ok(Some(line)) => exit_of(&line),
            Ok(None) => Err(io::Error::other(
                "the forker ended before it reported how the hook ended",
            )),
            Err(e) => Err(e),
        };
        let _ = tx.send(status);
    })
    .abort_handle();
    Ok(Launched::Started(Forked {
        pid,
        input: rest,
        streams: streams_of(stdin_w, stdout_r, stderr_r)?,
        status: Status {
            report: Some(rx),
            ended: None,
            reader,
        },
    }))
}

/// Sends `request` with the child's stream ends `ends` (stdin, stdout, stderr): to a forker
/// child on its control socket, `conn`'s other end first; to a serving forker on `conn`
/// itself, length-framed. Returns how many bytes went.
fn send_request(
    conn: &std::os::unix::net::UnixStream,
    via: Option<&(&Forker, OwnedFd)>,
    request: &[u8],
    ends: [i32; 3],
) -> io::Result<usize> {
    let [stdin, stdout, stderr] = ends;
    match via {
        Some((forker, theirs)) => send_fds(
            forker.control.as_fd(),
            request,
            &[theirs.as_raw_fd(), stdin, stdout, stderr],
        ),
        None => {
            let mut framed = (request.len() as u32).to_be_bytes().to_vec();
            framed.extend_from_slice(request);
            send_fds(conn.as_fd(), &framed, &ends)
                .and_then(|n| (&*conn).write_all(&framed[n..]).map(|()| framed.len()))
        }
    }
}

/// The child's pid from the forker's first line, or the error it answered instead.
fn pid_of(first: &str) -> Result<u32, String> {
    let answer: Value =
        serde_json::from_str(first).map_err(|_| format!("the forker answered {first}"))?;
    answer
        .get("pid")
        .and_then(Value::as_u64)
        .and_then(|p| u32::try_from(p).ok())
        .ok_or_else(|| {
            answer
                .get("error")
                .and_then(Value::as_str)
                .map_or_else(|| format!("the forker answered {first}"), str::to_owned)
        })
}

/// Our ends of the child's pipes as the streams a supervised run reads and writes; no stdin
/// when the whole input went in before the child started.
fn streams_of(
    stdin: Option<OwnedFd>,
    stdout: OwnedFd,
    stderr: OwnedFd,
) -> Result<
    Streams<
        tokio::net::unix::pipe::Sender,
        tokio::net::unix::pipe::Receiver,
        tokio::net::unix::pipe::Receiver,
    >,
    String,
> {
    Ok(Streams {
        stdin: stdin
            .map(tokio::net::unix::pipe::Sender::from_owned_fd)
            .transpose()
            .map_err(|e| format!("cannot use the hook's stdin: {e}"))?,
        stdout: Some(
            tokio::net::unix::pipe::Receiver::from_owned_fd(stdout)
                .map_err(|e| format!("cannot use the hook's stdout: {e}"))?,
        ),
        stderr: Some(
            tokio::net::unix::pipe::Receiver::from_owned_fd(stderr)
                .map_err(|e| format!("cannot use the hook's stderr: {e}"))?,
        ),
    })
}

fn exit_of(line: &str) -> io::Result<Exit> {
    let value: Value = serde_json::from_str(line)
        .map_err(|_| io::Error::other(format!("the forker reported {line}")))?;
    let number = |key: &str| {
        value
            .get(key)
            .and_then(Value::as_i64)
            .and_then(|n| i32::try_from(n).ok())
    };
    match (number("exit"), number("signal")) {
        (Some(code), _) => Ok(Exit::Code(code)),
        (None, Some(signal)) => Ok(Exit::Signal(signal)),
        _ => Err(io::Error::other(format!("the forker reported {line}"))),
    }
}

/// Writes what of `input` the pipe `fd` takes without waiting; returns how much that was.
fn prewrite(fd: &OwnedFd, input: &[u8]) -> usize {
    use nix::fcntl::{FcntlArg, OFlag, fcntl};
    if fcntl(fd, FcntlArg::F_SETFL(OFlag::O_NONBLOCK)).is_err() {
        return 0;
    }
    let mut written = 0;
    while written < input.len() {
        match nix::unistd::write(fd, &input[written..]) {
            Ok(n) => written += n,
            Err(nix::errno::Errno::EINTR) => {}
            Err(_) => break, // full (EAGAIN), or nobody reads (EPIPE): the rest waits
        }
    }
    written
}

fn pipe() -> Result<(OwnedFd, OwnedFd), String> {
    nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC).map_err(|e| format!("cannot make a pipe: {e}"))
}

/// Sends `data` with `fds` attached in one message; returns how many bytes went.
fn send_fds(socket: std::os::fd::BorrowedFd<'_>, data: &[u8], fds: &[i32]) -> io::Result<usize> {
    nix::sys::socket::sendmsg::<()>(
        socket.as_raw_fd(),
        &[IoSlice::new(data)],
        &[ControlMessage::ScmRights(fds)],
        MsgFlags::MSG_NOSIGNAL,
        None,
    )
    .map_err(io::Error::from)
}
