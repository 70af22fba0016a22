//! The command transport: spawn a hook process in its own process group, feed it the input,
//! read its answer, and make sure nothing of it outlives its timeout.
//!
//! Stdin is written, stdout read and stderr read as three concurrent tasks, so a hook that never
//! reads its input, or floods one stream, cannot deadlock the runtime. At the timeout every
//! process below the hook that left its group (`setsid`) is stopped and killed, the whole
//! group gets SIGTERM, then SIGKILL after a short grace, and the hook is reaped. When the hook
//! exits on its own, whatever it left in its group is killed at once — a hook is done when its
//! process is (detach with `setsid` to start a long-lived job on purpose) — unless its
//! [`RunPolicy`] leaves background processes be, as skill hooks' source runtime does.
//!
//! Whatever the hook printed before it exited is its answer, even when a process it started
//! keeps the pipe open: at the timeout the runtime stops reading and keeps what it has.

use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::process::Command;

use super::netns::{self, Network};
use super::unix::{SIGKILL, SIGTERM, kill_escaped, signal_group};
use super::{Exit, Failure, Reply, STDERR_CAP, STDOUT_CAP};
use agent_hooks_core::workspace::Workspace;

/// Time between SIGTERM and SIGKILL for a hook that ran out of time.
pub const KILL_GRACE: Duration = Duration::from_millis(300);
/// How long to wait for the pipes to close once the hook's group has been killed.
const PIPE_GRACE: Duration = Duration::from_millis(500);
/// How long to wait, after SIGKILL, to learn that a timed-out hook has ended. A killed process
/// ends at once; what can keep the news from coming is the teller (a forker that lost track of
/// its child, or was stopped), and the runtime's answer must not wait on it.
const REAP_GRACE: Duration = Duration::from_millis(500);

/// What the runtime allows a command hook's process beyond the common rules; the dialect decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunPolicy {
    /// Stdout is read up to this many bytes; the rest is drained and the answer refused.
    pub stdout_cap: usize,
    /// Processes the hook started in its group survive its normal exit (they are still killed
    /// at its timeout).
    pub leave_background: bool,
    /// The network the process gets: this machine's, or none ([`Network::Isolated`], what
    /// `agent-hooks replay` sets).
    pub network: Network,
}

impl Default for RunPolicy {
    fn default() -> Self {
        RunPolicy {
            stdout_cap: STDOUT_CAP,
            leave_background: false,
            network: Network::Host,
        }
    }
}

/// How the command line is turned into a process.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Invocation {
    /// Split by POSIX shell-word rules and executed directly: no expansion of any kind.
    Argv(Vec<String>),
    /// Run through `sh -c`, as the dialects that were born in a shell expect.
    Shell(String),
    /// Run through `bash -c`: a Claude Code handler's `"shell": "bash"`.
    Bash(String),
}

impl Invocation {
    /// The shell that runs the line and the line, for the shell forms; `None` for an argv.
    pub fn shell_line(&self) -> Option<(&'static str, &str)> {
        match self {
            Invocation::Argv(_) => None,
            Invocation::Shell(line) => Some(("sh", line)),
            Invocation::Bash(line) => Some(("bash", line)),
        }
    }
}

/// A command hook: what to run and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandSpec {
    /// The command exactly as written in the configuration (what approvals key on).
    pub line: String,
    /// How `line` is run: split into argv, or through `sh -c` for the dialects born in a shell.
    pub invocation: Invocation,
    /// Working directory of the process.
    pub cwd: PathBuf,
    /// Variables the runtime sets for the process itself (Claude Code's `$CLAUDE_PROJECT_DIR`),
    /// expanded when looking for the files a shell line runs, so that a script named through
    /// one is still recorded on approval and checked for drift.
    pub known_vars: Vec<(String, String)>,
    /// `prefork`: the command is a Python script run in a forked child of a warm interpreter.
    pub prefork: Option<Prefork>,
    /// `type: ahp`: the command is an Agent Hooks Protocol backend, spoken to as
    /// [`crate::ahp`] says.
    pub ahp: bool,
}

impl CommandSpec {
    /// A command run without a shell; a relative program path is taken from the workspace,
    /// which is also the working directory (so relative script arguments resolve there too).
    pub fn argv(ws: &Workspace, line: &str) -> Result<CommandSpec, String> {
        let mut words =
            shell_words::split(line).map_err(|e| format!("cannot split \"{line}\": {e}"))?;
        let Some(program) = words.first_mut() else {
            return Err("empty command".into());
        };
        if program.contains('/') && !Path::new(program.as_str()).is_absolute() {
            *program = ws
                .root()
                .join(program.as_str())
                .to_string_lossy()
                .into_owned();
        }
        Ok(CommandSpec {
            line: line.to_owned(),
            invocation: Invocation::Argv(words),
            cwd: ws.root().to_path_buf(),
            // Every command hook gets the workspace in its environment (an `sh -c` argv may
            // name a script through it).
            known_vars: vec![(
                agent_hooks_core::workspace::WORKSPACE_ENV.to_owned(),
                ws.root().to_string_lossy().into_owned(),
            )],
            prefork: None,
            ahp: false,
        })
    }

    /// A command run without a shell from `words` exactly (Claude Code's exec form, `args`),
    /// shown and approved as `line`.
    pub fn words(line: &str, words: Vec<String>, cwd: PathBuf) -> CommandSpec {
        CommandSpec {
            line: line.to_owned(),
            invocation: Invocation::Argv(words),
            cwd,
            known_vars: Vec::new(),
            prefork: None,
            ahp: false,
        }
    }

    /// A command run through `sh -c` in `cwd`.
    pub fn shell(line: &str, cwd: PathBuf) -> CommandSpec {
        CommandSpec {
            line: line.to_owned(),
            invocation: Invocation::Shell(line.to_owned()),
            cwd,
            known_vars: Vec::new(),
            prefork: None,
            ahp: false,
        }
    }

    /// The same command run through `bash -c` instead of `sh -c` (a shell-form command only).
    pub fn in_bash(mut self) -> CommandSpec {
        if let Invocation::Shell(line) = self.invocation {
            self.invocation = Invocation::Bash(line);
        }
        self
    }

    /// The same command, with `$name` / `${name}` known to be `value` when it runs.
    pub fn with_known_var(mut self, name: &str, value: &str) -> CommandSpec {
        self.known_vars.push((name.to_owned(), value.to_owned()));
        self
    }

    /// The process that runs the command from its paths: `program`, when given, is the file
    /// `execve` starts (the one the approval pinned); the process still sees the word as
    /// written as its `argv[0]`. ([`CommandSpec::run`] starts it from sealed copies instead
    /// where the command's form allows.)
    pub(crate) fn process(
        &self,
        program: Option<&crate::pinned::Pinned>,
    ) -> Result<Command, Failure> {
        Ok(match &self.invocation {
            Invocation::Argv(words) => {
                let Some((word, args)) = words.split_first() else {
                    return Err(Failure::Exec("empty command".into()));
                };
                let mut cmd = command_for(program, word);
                cmd.arg0(word).args(args);
                cmd
            }
            Invocation::Shell(line) => shell_command(program, "sh", line),
            Invocation::Bash(line) => shell_command(program, "bash", line),
        })
    }

    /// Starts `cmd` as this command's process — in its working directory, with `env` added,
    /// in a process group of its own — feeds it `input` and supervises it to its end or its
    /// timeout ([`supervise`]).
    pub(crate) async fn start(
        &self,
        mut cmd: Command,
        input: Arc<[u8]>,
        env: &[(String, String)],
        timeout: Duration,
        policy: RunPolicy,
    ) -> Result<Reply, Failure> {
        let deadline = tokio::time::Instant::now() + timeout;
        // Each attempt to start the process enters the namespaces afresh; the entries tell,
        // when a start fails, whether entering them was why.
        let mut entries = Vec::new();
        let mut configure = |cmd: &mut Command| -> Result<(), Failure> {
            if policy.network == Network::Isolated {
                let entry = netns::isolate(cmd).map_err(|e| {
                    Failure::Exec(format!(
                        "cannot confine the hook's network: {e}; it was not run"
                    ))
                })?;
                entries.push(entry);
            }
            cmd.current_dir(&self.cwd)
                .envs(
                    env.iter()
                        .map(|(k, v)| (OsString::from(k), OsString::from(v))),
                )
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .process_group(0)
                .kill_on_drop(true);
            Ok(())
        };
        configure(&mut cmd)?;
        const ENOEXEC: i32 = nix::errno::Errno::ENOEXEC as i32;
        let spawned = cmd.spawn();
        let confined = |err: &io::Error, entries: &[netns::Entry]| {
            let why = entries.last().and_then(netns::Entry::unavailable)?;
            tracing::debug!(%err, "a confined hook could not enter its namespaces");
            Some(Failure::Exec(format!(
                "cannot confine the hook's network: {why}; it was not run"
            )))
        };
        let mut child = match spawned {
            Ok(child) => child,
            // A script without `#!` runs as a shell script, as every shell (and so Claude
            // Code, whose hooks run through one) runs a file `execve` refuses this way.
            Err(err)
                if err.raw_os_error() == Some(ENOEXEC)
                    && matches!(self.invocation, Invocation::Argv(_))
                    && self.runs_as_shell_script(cmd.as_std().get_program()) =>
            {
                let started = cmd.as_std();
                let mut fallback = Command::new(FALLBACK_SHELL);
                fallback.arg(started.get_program()).args(started.get_args());
                configure(&mut fallback)?;
                match fallback.spawn() {
                    Ok(child) => child,
                    Err(err) => {
                        return Err(
                            confined(&err, &entries).unwrap_or_else(|| self.spawn_failure(&err))
                        );
                    }
                }
            }
            Err(err) => {
                return Err(confined(&err, &entries).unwrap_or_else(|| self.spawn_failure(&err)));
            }
        };
        let Some(pgid) = child.id() else {
            return Err(Failure::Exec(
                "the hook exited before it could be tracked".into(),
            ));
        };
        let stdin = child.stdin.take();
        let stdout = child.stdout.take();
        let stderr = child.stderr.take();
        let streams = Streams {
            stdin,
            stdout,
            stderr,
        };
        supervise(child, pgid, streams, input, deadline, timeout, policy).await
    }

    /// Whether `program`, which `execve` refused as no format it knows, is a text file a shell
    /// runs as a script.
    fn runs_as_shell_script(&self, program: &std::ffi::OsStr) -> bool {
        use std::io::Read;
        let mut head = [0u8; 256];
        std::fs::File::open(self.cwd.join(program))
            .and_then(|mut file| file.read(&mut head))
            .is_ok_and(|n| is_shell_fallback(&head[..n]))
    }

    fn spawn_failure(&self, err: &io::Error) -> Failure {
        let what = match &self.invocation {
            Invocation::Argv(words) => words.first().cloned().unwrap_or_default(),
            Invocation::Shell(_) => "sh".to_owned(),
            Invocation::Bash(_) => "bash".to_owned(),
        };
        const ENOEXEC: i32 = nix::errno::Errno::ENOEXEC as i32;
        match (err.kind(), err.raw_os_error()) {
            (io::ErrorKind::NotFound, _) if !self.cwd.is_dir() => Failure::Exec(format!(
                "working directory {} does not exist",
                self.cwd.display()
            )),
            (io::ErrorKind::NotFound, _) => {
                if what.contains('/') {
                    if Path::new(&what).exists() {
                        Failure::NotFound(format!("{what} (its #! interpreter is missing)"))
                    } else {
                        Failure::NotFound(what)
                    }
                } else {
                    Failure::NotFound(format!("{what} (not on PATH)"))
                }
            }
            (io::ErrorKind::PermissionDenied, _) => {
                Failure::NotExecutable(format!("{what} (no execute permission; chmod +x it)"))
            }
            (_, Some(ENOEXEC)) => Failure::NotExecutable(format!(
                "{what} (not a program and no #! line; add one or name the interpreter in the command)"
            )),
            _ => Failure::Exec(format!("cannot start {what}: {err}")),
        }
    }
}

/// The shell a file without `#!` runs under: the one `execvp` and POSIX shells fall back to
/// when `execve` refuses a file with `ENOEXEC`.
pub const FALLBACK_SHELL: &str = "/bin/sh";

/// Whether a file that starts with `head` is one a shell runs as a script when `execve` refuses
/// it: text with no `#!` line (a binary, with a NUL in its first bytes, is the kernel's to run
/// or refuse).
pub fn is_shell_fallback(head: &[u8]) -> bool {
    !head.starts_with(b"#!") && !head.contains(&0)
}

/// A hook process that has started, however it was started: spawned here, or forked by a
/// forker (`prefork`), which reaps it and reports how it ended.
pub trait Started {
    /// Waits until the process has ended. Cancel-safe: a wait abandoned at a timeout can be
    /// started again.
    #[allow(
        async_fn_in_trait,
        reason = "implemented and awaited only on the runtime's own tasks"
    )]
    async fn ended(&mut self) -> io::Result<Exit>;
}

impl Started for tokio::process::Child {
    async fn ended(&mut self) -> io::Result<Exit> {
        use std::os::unix::process::ExitStatusExt;
        let status = self.wait().await?;
        Ok(match (status.code(), status.signal()) {
            (Some(code), _) => Exit::Code(code),
            (None, Some(sig)) => Exit::Signal(sig),
            (None, None) => Exit::Code(-1),
        })
    }
}

/// The runtime's ends of a started hook's standard streams.
#[derive(Debug)]
pub struct Streams<I, O, E> {
    /// Where the hook's input is written; taken by the task that writes it.
    pub stdin: Option<I>,
    /// The hook's answer; taken by the task that reads it.
    pub stdout: Option<O>,
    /// The hook's diagnostics; taken by the task that reads them.
    pub stderr: Option<E>,
}

/// Feeds a started hook `input`, reads its answer within the caps, and makes sure nothing of
/// its process group `pgid` outlives `timeout` (the module's doc says how).
pub async fn supervise<P, I, O, E>(
    mut child: P,
    pgid: u32,
    streams: Streams<I, O, E>,
    input: Arc<[u8]>,
    deadline: tokio::time::Instant,
    timeout: Duration,
    policy: RunPolicy,
) -> Result<Reply, Failure>
where
    P: Started,
    I: AsyncWrite + Unpin + Send + 'static,
    O: AsyncRead + Unpin + Send + 'static,
    E: AsyncRead + Unpin + Send + 'static,
{
    // From here on, whatever happens to this future, the group is killed.
    let mut guard = GroupGuard(Some(pgid));

    let stdin = streams.stdin;
    let writer = tokio::spawn(async move {
        if let Some(mut stdin) = stdin {
            // A hook may exit without reading: a broken pipe is its business, not an error.
            let _ = stdin.write_all(&input).await;
            let _ = stdin.shutdown().await;
        }
    });
    // Told to stop when the runtime gives up waiting for the pipes to close: the readers
    // then hand back what they have.
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let out = streams
        .stdout
        .map(|s| tokio::spawn(read_capped(s, policy.stdout_cap, stopped.clone())));
    let err = streams
        .stderr
        .map(|s| tokio::spawn(read_capped(s, STDERR_CAP, stopped)));

    let exit = match tokio::time::timeout_at(deadline, child.ended()).await {
        Ok(Ok(exit)) => exit,
        Ok(Err(e)) => return Err(Failure::Exec(format!("cannot wait for the hook: {e}"))),
        Err(_) => {
            writer.abort();
            // What the hook moved out of its group (`setsid`, `setpgid`) is killed at once; its
            // group gets the grace below. The tree is walked again before the group's kill, for
            // what the group started meanwhile, while the hook is still there to be walked from.
            kill_escaped(pgid);
            signal_group(pgid, SIGTERM);
            let _ = tokio::time::timeout(KILL_GRACE, child.ended()).await;
            kill_escaped(pgid);
            signal_group(pgid, SIGKILL);
            let _ = tokio::time::timeout(REAP_GRACE, child.ended()).await;
            drop(guard);
            return Err(Failure::Timeout(timeout));
        }
    };
    writer.abort();

    // The hook has exited; its output is complete once every holder of the pipes is gone.
    let mut left_behind = None;
    let pipes = async {
        let out = match out {
            Some(task) => task.await.unwrap_or_default(),
            None => Captured::default(),
        };
        let err = match err {
            Some(task) => task.await.unwrap_or_default(),
            None => Captured::default(),
        };
        (out, err)
    };
    tokio::pin!(pipes);
    let (out, err) = match tokio::time::timeout_at(deadline, &mut pipes).await {
        Ok(result) => result,
        Err(_) => {
            left_behind = Some(format!(
                "the hook exited but a process it started kept its output open until the {} s timeout; that process group was killed",
                timeout.as_secs_f64()
            ));
            signal_group(pgid, SIGTERM);
            tokio::time::sleep(KILL_GRACE).await;
            signal_group(pgid, SIGKILL);
            // A process outside the group (started with `setsid`) may still hold the pipes:
            // the answer printed so far is kept all the same.
            match tokio::time::timeout(PIPE_GRACE, &mut pipes).await {
                Ok(result) => result,
                Err(_) => {
                    let _ = stop.send(true);
                    pipes.await
                }
            }
        }
    };
    if policy.leave_background && left_behind.is_none() {
        guard.disarm();
    }
    drop(guard);

    Ok(Reply {
        stdout: out.bytes,
        stdout_overflow: out.overflow,
        stderr: err.bytes,
        exit,
        left_behind,
    })
}

/// `<shell> -c <line>`, the shell started from the pinned file when there is one.
fn shell_command(program: Option<&crate::pinned::Pinned>, shell: &str, line: &str) -> Command {
    // `sh -c` is the system shell, started as system(3) and Python's `shell=True` start it:
    // `/bin/sh`, whatever `PATH` the hook's own environment sets.
    let path = match (program, shell) {
        (None, "sh") if Path::new("/bin/sh").exists() => "/bin/sh",
        _ => shell,
    };
    let mut cmd = command_for(program, path);
    cmd.arg0(shell).arg("-c").arg(line);
    cmd
}

/// The process to start: the pinned program when the gate pinned one — from its verified
/// descriptor when it is a compiled program, so check and exec are one act (what `fexecve`
/// does: the kernel opens `/proc/self/fd/N`, the very file that was verified) — else `word` as
/// `PATH` finds it.
pub fn command_for(program: Option<&crate::pinned::Pinned>, word: &str) -> Command {
    use std::os::fd::AsRawFd;
    let Some(pinned) = program else {
        return Command::new(word);
    };
    match &pinned.file {
        // The descriptor stays close-on-exec: `execve` opens the program through it before the
        // kernel closes such descriptors, and the hook never inherits it. With no `pre_exec`
        // step, the standard library can start the process with `posix_spawn`.
        Some(file) if Path::new("/proc/self/fd").is_dir() => {
            Command::new(format!("/proc/self/fd/{}", file.as_raw_fd()))
        }
        _ => Command::new(&pinned.path),
    }
}

/// Kills the hook's process group when dropped, so an abandoned dispatch (a cancelled request,
/// a panicking caller) cannot leave processes behind.
struct GroupGuard(Option<u32>);

impl GroupGuard {
    /// The hook finished normally and its policy lets its background processes live.
    fn disarm(&mut self) {
        self.0 = None;
    }
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        if let Some(pgid) = self.0 {
            signal_group(pgid, SIGKILL);
        }
    }
}

#[derive(Debug, Default)]
struct Captured {
    bytes: Vec<u8>,
    overflow: bool,
}

/// Reads `reader` to its end, keeping the first `cap` bytes and draining the rest. When `stop`
/// turns true it returns what it has read so far.
async fn read_capped(
    mut reader: impl AsyncRead + Unpin,
    cap: usize,
    mut stop: tokio::sync::watch::Receiver<bool>,
) -> Captured {
    let mut captured = Captured::default();
    // Most answers are a line or two: start small and let the vector grow up to the cap, then
    // drain the rest through a scratch buffer.
    captured.bytes.reserve(4096);
    loop {
        if captured.bytes.len() < cap {
            let room = cap - captured.bytes.len();
            let mut limited = (&mut reader).take(room as u64);
            // `read_buf` is cancel-safe: when the stop wins, no byte read is lost.
            let read = tokio::select! {
                read = limited.read_buf(&mut captured.bytes) => read,
                _ = stop.wait_for(|stopped| *stopped) => break,
            };
            match read {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    if captured.bytes.capacity() == captured.bytes.len() {
                        captured.bytes.reserve(
                            captured
                                .bytes
                                .len()
                                .min(cap - captured.bytes.len())
                                .max(4096),
                        );
                    }
                }
            }
        } else {
            // Past the cap: drain the rest so the hook is not blocked on a full pipe. (The
            // drain's buffer lives on the heap: a large array here would make this future — and
            // every task spawn that moves it — kilobytes bigger.)
            let mut sink = tokio::io::sink();
            let drained = tokio::select! {
                drained = tokio::io::copy(&mut reader, &mut sink) => drained.unwrap_or(0),
                // Stopped while draining: at least one byte past the cap was waiting.
                _ = stop.wait_for(|stopped| *stopped) => 1,
            };
            captured.overflow |= drained > 0;
            break;
        }
    }
    captured
}

/// Looks a program name up on `PATH` the way `execvp` would.
pub fn find_on_path(name: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|p| {
            p.metadata()
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}

/// A hook's `prefork` setting.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prefork {
    /// The stdin of a warm-up run of the script when its forker starts, when the hook asks for
    /// one (`prefork: {warmup: …}`).
    pub warmup: Option<String>,
}

impl Prefork {
    /// Reads the `prefork` key: `true`, `false`, or `{warmup: <payload>}` (a JSON object given
    /// as the warm-up run's stdin, or a string given as it is).
    pub fn from_config(value: &serde_json::Value) -> Result<Option<Prefork>, String> {
        use serde_json::Value;
        match value {
            Value::Null | Value::Bool(false) => Ok(None),
            Value::Bool(true) => Ok(Some(Prefork { warmup: None })),
            Value::Object(map) => {
                if let Some(key) = map.keys().find(|k| *k != "warmup") {
                    return Err(format!(
                        "prefork: unknown key \"{key}\" (expected \"warmup\")"
                    ));
                }
                let warmup = match map.get("warmup") {
                    None | Some(Value::Null) => None,
                    Some(Value::String(text)) => Some(text.clone()),
                    Some(payload @ Value::Object(_)) => Some(format!("{payload}\n")),
                    Some(other) => {
                        return Err(format!(
                            "prefork.warmup: expected the warm-up run's stdin (a JSON object or a string), found {}",
                            agent_hooks_core::wording::kind_of(other)
                        ));
                    }
                };
                Ok(Some(Prefork { warmup }))
            }
            other => Err(format!(
                "prefork: expected true, false or {{warmup: <payload>}}, found {}",
                agent_hooks_core::wording::kind_of(other)
            )),
        }
    }

    /// What an approval binds of the setting.
    pub fn describe(&self) -> String {
        match &self.warmup {
            None => "true".to_owned(),
            Some(payload) => format!("warmup {payload}"),
        }
    }
}
