//! Running exactly the bytes the trust gate verified: each approved file a command runs is
//! copied into a sealed memory file (`memfd_create`, then `F_SEAL_WRITE|GROW|SHRINK|SEAL`),
//! hashed in the same read and compared with the approval, and the process is started from
//! that copy — a program through `/proc/self/fd/N` (what `fexecve` does), a script through its
//! interpreter reading `/proc/<runtime>/fd/N` — so no write, shared mapping, rename or swap of
//! the file after the check changes what runs.
//!
//! What a script sees of itself is kept: `$0` for `sh`/`bash` (the script is sourced by a
//! one-line `-c` loader whose `$0` is the word the plain run would have), and `__file__`,
//! `sys.argv`, `sys.path[0]` and tracebacks for Python (the loader compiles the copy under the
//! script's real name), and `__filename`, `process.argv` and `require.main` for a CommonJS Node
//! script. What cannot be kept is run from its path as before, and `docs/trust.md` says which:
//! a `bash` script that reads `BASH_SOURCE`, an ES-module Node script, a `#!` interpreter other
//! than `sh`, `bash`, `dash`, `python3` and `node`, and a shell line of more than one plain
//! command (a line of one runs as that command, without the shell, like `prefork`'s).

use std::ffi::OsString;
use std::fs;
use std::io::{self, Read, Write};
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::command::{CommandSpec, FALLBACK_SHELL, Invocation, RunPolicy, is_shell_fallback};
use crate::pinned::{Pinned, hex};
use crate::{Failure, Reply};

impl CommandSpec {
    /// Runs the command with `input` on stdin and `env` added to the environment. `program`,
    /// when given, is what the trust gate verified: the process then runs from sealed copies
    /// of the verified bytes where the command's form allows ([`plan`]), else from the pinned
    /// program, as [`Pinned`] describes. A file that no longer holds its approved content is
    /// not run.
    pub async fn run(
        &self,
        input: std::sync::Arc<[u8]>,
        env: &[(String, String)],
        timeout: std::time::Duration,
        program: Option<&Pinned>,
        policy: RunPolicy,
    ) -> Result<Reply, Failure> {
        // Held until the process has ended: the interpreter reads its script from the copy.
        let sealed = match program {
            Some(pinned) => plan(self, pinned, env)
                .map_err(|why| Failure::Exec(format!("{why}; it was not run")))?,
            None => None,
        };
        let cmd = match &sealed {
            Some(plan) => {
                let mut cmd = tokio::process::Command::new(&plan.program);
                cmd.arg0(&plan.arg0).args(&plan.args);
                cmd
            }
            None => self.process(program)?,
        };
        let reply = self.start(cmd, input, env, timeout, policy).await;
        drop(sealed);
        reply
    }
}

/// A verified copy of one file, sealed against every change.
#[derive(Debug)]
pub struct Sealed {
    file: fs::File,
}

/// Why no sealed copy of a file was made.
#[derive(Debug)]
pub enum NotSealed {
    /// The file no longer holds the approved content: it must not run at all.
    Changed(String),
    /// The copy cannot be made here (no `memfd_create`, no `/proc`): the file runs from its
    /// path, as before sealing existed.
    Unavailable(String),
}

impl Sealed {
    /// Copies `path` into a sealed memory file, hashing what it copies, and checks the hash
    /// against `sha256` (the approval's).
    pub fn copy(path: &Path, sha256: &str) -> Result<Sealed, NotSealed> {
        let source = fs::File::open(path)
            .map_err(|e| NotSealed::Changed(format!("{} cannot be read: {e}", path.display())))?;
        Sealed::copy_from(&source, path, sha256, false)
    }

    /// Copies what `source` (an open `path`: the descriptor the gate verified, say) holds from
    /// its start, as [`Sealed::copy`] does; `exec` for a copy the kernel is to start.
    pub fn copy_from(
        source: &fs::File,
        path: &Path,
        sha256: &str,
        exec: bool,
    ) -> Result<Sealed, NotSealed> {
        use nix::fcntl::{FcntlArg, SealFlag, fcntl};
        use nix::sys::memfd::{MFdFlags, memfd_create};
        let shown = path.display();
        let flags = MFdFlags::MFD_CLOEXEC | MFdFlags::MFD_ALLOW_SEALING;
        // Where memory files are not executable by default (`vm.memfd_noexec` = 1, Linux 6.3),
        // a program's copy asks to be (`MFD_EXEC`); an older kernel knows no such flag.
        let made = if exec {
            memfd_create(
                c"agent-hooks-verified",
                flags | MFdFlags::from_bits_retain(MFD_EXEC),
            )
            .or_else(|_| memfd_create(c"agent-hooks-verified", flags))
        } else {
            memfd_create(c"agent-hooks-verified", flags)
        };
        let fd: OwnedFd = made.map_err(|e| NotSealed::Unavailable(format!("memfd_create: {e}")))?;
        let mut copy = fs::File::from(fd);
        let mut hasher = Sha256::new();
        let mut buf = vec![0u8; 64 * 1024];
        let mut offset = 0u64;
        loop {
            let n = match source.read_at(&mut buf, offset) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(NotSealed::Changed(format!("{shown} cannot be read: {e}"))),
            };
            offset += n as u64;
            hasher.update(&buf[..n]);
            copy.write_all(&buf[..n])
                .map_err(|e| NotSealed::Unavailable(format!("cannot copy {shown}: {e}")))?;
        }
        if hex(&hasher.finalize()) != sha256 {
            return Err(NotSealed::Changed(format!(
                "{shown} was modified after its approval was checked"
            )));
        }
        let seals = SealFlag::F_SEAL_WRITE
            | SealFlag::F_SEAL_GROW
            | SealFlag::F_SEAL_SHRINK
            | SealFlag::F_SEAL_SEAL;
        fcntl(&copy, FcntlArg::F_ADD_SEALS(seals))
            .map_err(|e| NotSealed::Unavailable(format!("cannot seal the copy of {shown}: {e}")))?;
        Ok(Sealed { file: copy })
    }

    /// The copy as this process names it (for `execve`, which opens it before the
    /// close-on-exec descriptor is closed).
    fn in_self(&self) -> PathBuf {
        PathBuf::from(format!("/proc/self/fd/{}", self.file.as_raw_fd()))
    }

    /// The copy as a child names it: through this process, which holds it open until the
    /// child has ended. Only this user (and root) may open another process's descriptors.
    fn in_parent(&self) -> String {
        format!("/proc/{}/fd/{}", std::process::id(), self.file.as_raw_fd())
    }

    /// The first `len` bytes of the copy.
    fn head(&self, len: usize) -> Vec<u8> {
        let mut head = vec![0u8; len];
        let n = self.file.read_at(&mut head, 0).unwrap_or(0);
        head.truncate(n);
        head
    }

    /// Whether the copy holds `needle` anywhere.
    fn contains(&self, needle: &[u8]) -> bool {
        let mut all = Vec::new();
        let mut file = &self.file;
        if io::Seek::rewind(&mut file).is_err() || file.read_to_end(&mut all).is_err() {
            return true; // unreadable: assume the worst (the caller runs the path instead)
        }
        all.windows(needle.len()).any(|w| w == needle)
    }
}

/// How a command runs from sealed copies: the program `execve` starts, its `argv[0]` and
/// arguments, and the copies, held open until the process has ended.
#[derive(Debug)]
pub struct Plan {
    /// What `execve` opens.
    pub program: PathBuf,
    /// The process's `argv[0]`.
    pub arg0: OsString,
    /// The rest of its argv.
    pub args: Vec<OsString>,
    /// The copies the process reads; dropped once it has ended.
    pub held: Vec<Sealed>,
}

/// How `spec` runs from sealed copies of the files `pinned` verified, or `None` when it runs as
/// before (nothing verified to seal; a form whose view of itself a copy would change; no
/// `memfd_create` here). `Err` when a file no longer holds its approved content.
pub fn plan(
    spec: &CommandSpec,
    pinned: &Pinned,
    env: &[(String, String)],
) -> Result<Option<Plan>, String> {
    if pinned.approved.is_empty() || !have_proc_fd() {
        return Ok(None);
    }
    let approved = |path: &Path| {
        pinned
            .approved
            .iter()
            .find(|(p, _)| p == path)
            .map(|(_, sha)| sha.as_str())
    };
    let seal = |path: &Path| -> Result<Option<Sealed>, String> {
        let Some(sha) = approved(path) else {
            return Ok(None);
        };
        match Sealed::copy(path, sha) {
            Ok(sealed) => Ok(Some(sealed)),
            Err(NotSealed::Changed(why)) => Err(why),
            Err(NotSealed::Unavailable(why)) => {
                tracing::debug!(%why, "running from the path: no sealed copy");
                Ok(None)
            }
        }
    };
    let words = match &spec.invocation {
        Invocation::Argv(words) => words.clone(),
        // A line of one plain command runs the same without its shell: the program the shell
        // would find, on the copy. Any other line is the shell's to run, from the paths.
        Invocation::Shell(_) | Invocation::Bash(_) => {
            match crate::command_line::simple_command(spec, env) {
                Ok(words) => words,
                Err(_) => return Ok(None),
            }
        }
    };
    let Some((word, args)) = words.split_first() else {
        return Ok(None);
    };
    if !matches!(spec.invocation, Invocation::Argv(_)) {
        let Some(program) = shell_program(spec, env, word) else {
            return Ok(None);
        };
        if Kind::of(Path::new(word)).is_some() {
            return interpreted(spec, env, program, word, args, &seal);
        }
        if approved(&program).is_none() {
            return Ok(None);
        }
        return from_shebang(&program, word, args, &seal);
    }
    match &pinned.file {
        Some(file) if !pinned.path.starts_with(&spec.cwd) => {
            // A compiled program outside the hook's working directory (the workspace, which
            // the agent writes): an interpreter, say, started from the descriptor the gate
            // verified — renamed over, its path names another file, the descriptor does not —
            // running a script of the workspace from its copy.
            let started = PathBuf::from(format!("/proc/self/fd/{}", file.as_raw_fd()));
            interpreted(spec, env, started, word, args, &seal)
        }
        Some(file) => {
            // A compiled program of the workspace: started from a copy of the very file the
            // gate verified (its descriptor, whatever has been renamed over its path since).
            let Some(sha) = approved(&pinned.path) else {
                return Ok(None);
            };
            if memfd_exec_refused() {
                return Ok(None);
            }
            let sealed = match Sealed::copy_from(file, &pinned.path, sha, true) {
                Ok(sealed) => sealed,
                Err(NotSealed::Changed(why)) => return Err(why),
                Err(NotSealed::Unavailable(_)) => return Ok(None),
            };
            Ok(Some(Plan {
                program: sealed.in_self(),
                arg0: word.into(),
                args: args.iter().map(OsString::from).collect(),
                held: vec![sealed],
            }))
        }
        // The kernel hands a `#!` interpreter the path `execve` was given: the pinned one.
        None => from_shebang(&pinned.path, &pinned.path.to_string_lossy(), args, &seal),
    }
}

/// A `#!` script at `path`, started as `given`: its interpreter, as the kernel would start it,
/// on the copy. One the kernel would refuse (no execute permission) is left to the kernel to
/// refuse; an interpreter no loader keeps the view for runs it from its path.
fn from_shebang(
    path: &Path,
    given: &str,
    args: &[String],
    seal: &dyn Fn(&Path) -> Result<Option<Sealed>, String>,
) -> Result<Option<Plan>, String> {
    if nix::unistd::access(path, nix::unistd::AccessFlags::X_OK).is_err() {
        return Ok(None);
    }
    let Some(sealed) = seal(path)? else {
        return Ok(None);
    };
    let head = sealed.head(256);
    let Some((interpreter, option)) = shebang(&head) else {
        if is_shell_fallback(&head) {
            return Ok(loader(
                Kind::Shell,
                Path::new(FALLBACK_SHELL),
                &[],
                given,
                args,
                sealed,
                path,
            ));
        }
        return Ok(None);
    };
    let Some(kind) = Kind::of(&interpreter) else {
        return Ok(None);
    };
    // `#!/usr/bin/python3 -u`, `#!/bin/sh -e`: the option goes before the loader.
    let options: Vec<String> = option.into_iter().collect();
    Ok(loader(
        kind,
        &interpreter,
        &options,
        given,
        args,
        sealed,
        path,
    ))
}

/// The program a shell would start for `word`: a path as written, else the first match on
/// the hook's `PATH`, as the command's reading resolved it.
fn shell_program(spec: &CommandSpec, env: &[(String, String)], word: &str) -> Option<PathBuf> {
    if word.contains('/') {
        let path = Path::new(word);
        return Some(if path.is_absolute() {
            path.to_path_buf()
        } else {
            spec.cwd.join(path)
        });
    }
    crate::command_line::read(spec, env)
        .ok()?
        .files
        .into_iter()
        .find(|n| {
            n.role == crate::command_line::Role::Program
                && crate::command_line::basename(&n.word) == word
        })
        .and_then(|n| n.path)
}

/// The interpreters whose scripts run from a copy with their view of themselves kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Shell,
    Python,
    /// A CommonJS script; an ES module keeps its path (`docs/trust.md`).
    Node,
}

impl Kind {
    fn of(interpreter: &Path) -> Option<Kind> {
        let name = interpreter.file_name()?.to_str()?;
        if matches!(name, "sh" | "bash" | "dash") {
            Some(Kind::Shell)
        } else if name == "node" || name == "nodejs" {
            Some(Kind::Node)
        } else if name
            .strip_prefix("python")
            .is_some_and(|v| v.chars().all(|c| c.is_ascii_digit() || c == '.'))
        {
            Some(Kind::Python)
        } else {
            None
        }
    }
}

/// `interpreter [options] script args` with a known interpreter, from a copy of the script.
fn interpreted(
    spec: &CommandSpec,
    env: &[(String, String)],
    started: PathBuf,
    word: &str,
    rest: &[String],
    seal: &dyn Fn(&Path) -> Result<Option<Sealed>, String>,
) -> Result<Option<Plan>, String> {
    let Some(kind) = Kind::of(Path::new(word)) else {
        return Ok(None);
    };
    let (options, script_word, args) = match kind {
        Kind::Python => match crate::command_line::python_call(spec, env) {
            Ok(call) => (call.options, call.script_word, call.args),
            Err(_) => return Ok(None),
        },
        Kind::Shell => {
            // Plain one-letter flags only (`-e`, `-eu`, `-x`); `-c`, `-s`, `-o name` and long
            // options are other forms, run as they are.
            let split = rest
                .iter()
                .position(|w| !w.starts_with('-') || w == "-")
                .unwrap_or(rest.len());
            let (options, tail) = rest.split_at(split);
            let plain = options
                .iter()
                .all(|o| o.len() > 1 && o[1..].chars().all(|c| "aefhknuvxBCEHPT".contains(c)));
            let Some((script, args)) = tail.split_first().filter(|_| plain) else {
                return Ok(None);
            };
            (options.to_vec(), script.clone(), args.to_vec())
        }
        // `node script args`; options (a loader, `--import`, …) change how the script is
        // found and loaded, and are run as they are.
        Kind::Node => match rest.split_first() {
            Some((script, args)) if !script.starts_with('-') => {
                (Vec::new(), script.clone(), args.to_vec())
            }
            _ => return Ok(None),
        },
    };
    let script = if Path::new(&script_word).is_absolute() {
        PathBuf::from(&script_word)
    } else {
        spec.cwd.join(&script_word)
    };
    let Some(sealed) = seal(&script)? else {
        return Ok(None);
    };
    Ok(loader(
        kind,
        &started,
        &options,
        &script_word,
        &args,
        sealed,
        &script,
    )
    .map(|mut plan| {
        plan.arg0 = word.into();
        plan
    }))
}

/// The interpreter running `sealed` through its loader, the script seen as `script_word`
/// (`$0`, `sys.argv[0]`) and `script` (its file). `None` for a script whose view a loader
/// cannot keep (a `bash` script that reads `BASH_SOURCE`, which only the path can give).
fn loader(
    kind: Kind,
    interpreter: &Path,
    options: &[String],
    script_word: &str,
    args: &[String],
    sealed: Sealed,
    script: &Path,
) -> Option<Plan> {
    let mut argv: Vec<OsString> = options.iter().map(OsString::from).collect();
    match kind {
        Kind::Shell => {
            if sealed.contains(b"BASH_SOURCE") {
                return None;
            }
            // `sh -c '. FILE' WORD ARGS…`: `$0` is WORD and `$@` the arguments, as
            // `sh WORD ARGS…` has them; the sourced file is the copy.
            argv.push("-c".into());
            argv.push(format!(". {}", sealed.in_parent()).into());
        }
        Kind::Node => {
            if !commonjs(script) {
                return None;
            }
            argv.push("-e".into());
            argv.push(
                NODE_LOADER
                    .replace("@SEALED@", &py_string(&sealed.in_parent()))
                    .into(),
            );
        }
        Kind::Python => {
            let absolute = script.to_string_lossy().into_owned();
            let code = PYTHON_LOADER
                .replace("@SEALED@", &py_string(&sealed.in_parent()))
                .replace("@FILE@", &py_string(&absolute));
            argv.push("-c".into());
            argv.push(code.into());
        }
    }
    argv.push(script_word.into());
    argv.extend(args.iter().map(OsString::from));
    Some(Plan {
        program: interpreter.to_path_buf(),
        arg0: interpreter.as_os_str().to_owned(),
        args: argv,
        held: vec![sealed],
    })
}

/// What runs a Python script from its copy as `python3 script.py` runs it: `sys.argv` without
/// the `-c`, the script's directory first on `sys.path` where `-c` put the working directory,
/// a fresh `__main__` whose `__file__` is the script, the code compiled under the script's
/// name (tracebacks and `inspect` name the file), and an uncaught exception's traceback
/// starting at the script. Only builtins are used before the script runs, so nothing of the
/// working directory is imported.
const PYTHON_LOADER: &str = r#"def _agent_hooks_run(sealed, file):
    import os, sys
    if sys.path and sys.path[0] == "":
        sys.path[0] = os.path.dirname(os.path.realpath(file))
    del sys.argv[0]
    with open(sealed, "rb") as f:
        source = f.read()
    code = compile(source, file, "exec", dont_inherit=True)
    main = sys.modules["__main__"]
    g = main.__dict__
    g.clear()
    g.update(__name__="__main__", __doc__=None, __package__=None, __spec__=None,
             __file__=file, __cached__=None, __builtins__=sys.modules["builtins"],
             __loader__=sys.modules["_frozen_importlib_external"].SourceFileLoader("__main__", file))
    del source, f, main
    try:
        exec(code, g)
    except SystemExit:
        raise
    except BaseException:
        kind, value, tb = sys.exc_info()
        while tb is not None and tb.tb_frame.f_code.co_filename == "<string>":
            tb = tb.tb_next
        value.__traceback__ = tb
        sys.excepthook(kind, value, tb)
        if issubclass(kind, KeyboardInterrupt):
            # As the interpreter ends on an uncaught Ctrl-C: by the signal itself.
            import _signal, atexit
            atexit._run_exitfuncs()
            for stream in (sys.stdout, sys.stderr):
                try:
                    stream.flush()
                except BaseException:
                    pass
            _signal.signal(_signal.SIGINT, _signal.SIG_DFL)
            os.kill(os.getpid(), _signal.SIGINT)
        raise SystemExit(1)
_agent_hooks_run(@SEALED@, @FILE@)
"#;

/// What runs a CommonJS script from its copy as `node script.js` runs it: `process.argv[1]`,
/// `__filename`, `__dirname`, `require.main === module` and the `node_modules` lookup of the
/// script's real path, the copy compiled under that name. Only Node's built-in modules are
/// loaded before the script runs.
const NODE_LOADER: &str = r#"(() => {
const M = require("module"), path = require("path"), fs = require("fs");
const file = fs.realpathSync(path.resolve(process.argv[1]));
const source = fs.readFileSync(@SEALED@, "utf8");
process.argv[1] = file;
const m = new M(file, null);
m.filename = file;
m.id = ".";
m.paths = M._nodeModulePaths(path.dirname(file));
process.mainModule = m;
M._cache[file] = m;
m._compile(source, file);
m.loaded = true;
})();"#;

/// Whether Node loads `script` as CommonJS: a `.cjs` file, or a `.js` (or extension-less)
/// file whose nearest `package.json` does not say `"type": "module"`. An ES module cannot be
/// given its source under its own URL without a loader hook, so it runs from its path.
fn commonjs(script: &Path) -> bool {
    match script.extension().and_then(|e| e.to_str()) {
        Some("cjs") => return true,
        Some("js") | None => {}
        Some(_) => return false,
    }
    for dir in script.ancestors().skip(1) {
        let Ok(text) = fs::read_to_string(dir.join("package.json")) else {
            continue;
        };
        return serde_json::from_str::<serde_json::Value>(&text)
            .map(|package| package.get("type").and_then(|t| t.as_str()) != Some("module"))
            .unwrap_or(false);
    }
    true
}

/// `text` as a Python string literal.
fn py_string(text: &str) -> String {
    serde_json::Value::String(text.to_owned()).to_string()
}

/// The interpreter and its one optional argument from a `#!` line, as the kernel reads it;
/// `/usr/bin/env NAME` resolved on `PATH`.
fn shebang(head: &[u8]) -> Option<(PathBuf, Option<String>)> {
    let line = head.strip_prefix(b"#!")?;
    let end = line.iter().position(|&b| b == b'\n')?;
    let line = std::str::from_utf8(&line[..end]).ok()?.trim();
    let (interpreter, option) = match line.split_once([' ', '\t']) {
        Some((i, o)) => (i, Some(o.trim().to_owned()).filter(|o| !o.is_empty())),
        None => (line, None),
    };
    if Path::new(interpreter).file_name()? == "env" {
        // `#!/usr/bin/env python3`; `env -S …` and further options are run as they are.
        let name = option?;
        if name.starts_with('-') || name.contains([' ', '\t']) {
            return None;
        }
        return Some((crate::command::find_on_path(&name)?, None));
    }
    Some((PathBuf::from(interpreter), option))
}

/// `MFD_EXEC` (Linux 6.3), which the `nix` crate does not name yet.
const MFD_EXEC: std::ffi::c_uint = 0x0010;

/// Whether this system refuses to start any program from a memory file
/// (`vm.memfd_noexec` = 2); a workspace program then starts from its verified descriptor.
fn memfd_exec_refused() -> bool {
    fs::read_to_string("/proc/sys/vm/memfd_noexec").is_ok_and(|v| v.trim() == "2")
}

/// Whether this system names open descriptors under `/proc/self/fd`, looked at once.
fn have_proc_fd() -> bool {
    static HAVE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *HAVE.get_or_init(|| Path::new("/proc/self/fd").is_dir())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_copy_holds_the_verified_bytes_and_refuses_every_change() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let path = dir.path().join("x.sh");
        fs::write(&path, "echo approved\n").expect("write");
        let sha = hex(&Sha256::digest(b"echo approved\n"));
        let sealed = Sealed::copy(&path, &sha).expect("a sealed copy");
        assert_eq!(sealed.head(64), b"echo approved\n");
        // The file changes; the copy does not, and cannot be written, grown or shrunk.
        fs::write(&path, "echo IMPOSTOR\n").expect("write");
        assert_eq!(sealed.head(64), b"echo approved\n");
        assert!((&sealed.file).write_all(b"x").is_err());
        assert!(sealed.file.set_len(1).is_err());
        // A file that no longer hashes to the approval is refused, not copied.
        let refused = Sealed::copy(&path, &sha);
        assert!(
            matches!(&refused, Err(NotSealed::Changed(why)) if why.contains("modified after its approval was checked")),
            "{refused:?}"
        );
    }

    #[test]
    fn shebang_lines_are_read_as_the_kernel_reads_them() {
        assert_eq!(
            shebang(b"#!/bin/sh -e\necho\n"),
            Some((PathBuf::from("/bin/sh"), Some("-e".to_owned())))
        );
        assert_eq!(
            shebang(b"#!/usr/bin/python3\n"),
            Some((PathBuf::from("/usr/bin/python3"), None))
        );
        assert_eq!(shebang(b"#!/usr/bin/env -S python3 -u\n"), None);
        assert_eq!(shebang(b"echo no shebang\n"), None);
        if let Some(sh) = crate::command::find_on_path("sh") {
            assert_eq!(shebang(b"#!/usr/bin/env sh\n"), Some((sh, None)));
        }
    }

    #[test]
    fn text_without_a_shebang_falls_back_to_the_shell_and_binaries_do_not() {
        assert!(is_shell_fallback(
            b": << 'CMDBLOCK'\r\n@echo off\r\nCMDBLOCK\necho hi\n"
        ));
        assert!(!is_shell_fallback(b"#!/usr/bin/python3\n"));
        assert!(!is_shell_fallback(b"\x7fELF\x02\x01\x01\0\0\0"));
    }

    #[tokio::test]
    async fn a_script_without_a_shebang_runs_as_a_shell_script_from_its_path_and_its_copy() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let source = b"cat >/dev/null\necho \"ran as $0 with $1\"\n";
        let path = dir.path().join("run-hook.cmd");
        fs::write(&path, source).expect("write");
        fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .expect("chmod");
        let ws = agent_hooks_core::workspace::Workspace::new(dir.path());
        let spec = CommandSpec::argv(&ws, "./run-hook.cmd session-start").expect("spec");
        let input: std::sync::Arc<[u8]> = std::sync::Arc::from(&b"{}"[..]);
        let timeout = std::time::Duration::from_secs(10);
        // From its path, as `execve` refuses it.
        let plain = spec
            .run(input.clone(), &[], timeout, None, RunPolicy::default())
            .await
            .expect("it runs");
        let said = String::from_utf8_lossy(&plain.stdout).into_owned();
        assert!(
            said.ends_with("run-hook.cmd with session-start\n"),
            "{said}"
        );
        // From the sealed copy of the approved bytes.
        let pinned = Pinned {
            path: path.clone(),
            file: None,
            approved: vec![(path.clone(), hex(&Sha256::digest(source)))],
        };
        let plan = plan(&spec, &pinned, &[]).expect("no drift");
        assert!(
            plan.is_some(),
            "a shell script without #! runs from its copy"
        );
        let sealed = spec
            .run(input, &[], timeout, Some(&pinned), RunPolicy::default())
            .await
            .expect("it runs");
        let again = String::from_utf8_lossy(&sealed.stdout);
        assert!(
            again.ends_with("run-hook.cmd with session-start\n"),
            "{again}"
        );
    }

    #[test]
    fn only_interpreters_whose_view_a_loader_keeps_are_known() {
        assert_eq!(Kind::of(Path::new("/bin/dash")), Some(Kind::Shell));
        assert_eq!(Kind::of(Path::new("python3.11")), Some(Kind::Python));
        assert_eq!(Kind::of(Path::new("/usr/bin/node")), Some(Kind::Node));
        assert_eq!(Kind::of(Path::new("/usr/bin/ruby")), None);
        assert_eq!(Kind::of(Path::new("pythonic")), None);
    }

    #[test]
    fn es_modules_are_told_from_commonjs() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let module = dir.path().join("esm");
        fs::create_dir_all(&module).expect("dir");
        fs::write(module.join("package.json"), r#"{"type": "module"}"#).expect("write");
        assert!(!commonjs(&module.join("x.js")));
        assert!(commonjs(&module.join("x.cjs")));
        assert!(!commonjs(&dir.path().join("x.mjs")));
        fs::write(dir.path().join("package.json"), r#"{"name": "hooks"}"#).expect("write");
        assert!(commonjs(&dir.path().join("x.js")));
    }
}
