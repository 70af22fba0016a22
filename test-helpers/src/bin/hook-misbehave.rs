//! A hook that misbehaves on purpose, one way per mode, for the tests of what the runtime does
//! when a hook floods, hangs or forks. Standard library only, so a test can compile it with a
//! bare `rustc` (the CLI tests do, through their `support::misbehave()`).
//!
//! ```text
//! hook-misbehave flood BYTES     read the payload, answer a block whose reason is BYTES long
//! hook-misbehave sleep SECS      read the payload, then sleep
//! hook-misbehave fork answer|hang
//!                                write $AGENT_HOOKS_WORKSPACE/hook.pid, start a grandchild that
//!                                sleeps 1000 s holding stdout (pid in grandchild.pid), then
//!                                answer with a systemMessage and exit, or wait for it
//! hook-misbehave observe SECS    read the payload, sleep, and write [start, end] (seconds since
//!                                the epoch) to $AGENT_HOOKS_WORKSPACE/intervals/$HOOK_NAME
//! ```

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::{Command, ExitCode};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let words: Vec<&str> = args.iter().map(String::as_str).collect();
    match run(&words) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("hook-misbehave: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &[&str]) -> Result<(), String> {
    match args {
        ["flood", bytes] => {
            read_payload()?;
            let size: usize = number(bytes)?;
            let answer = format!(
                "{{\"decision\": \"block\", \"reason\": \"{}\"}}",
                "x".repeat(size)
            );
            write_stdout(answer.as_bytes())
        }
        ["sleep", secs] => {
            read_payload()?;
            std::thread::sleep(Duration::from_secs(number(secs)?));
            Ok(())
        }
        ["fork", then @ ("answer" | "hang")] => fork(then),
        ["observe", secs] => {
            read_payload()?;
            let start = now();
            std::thread::sleep(Duration::from_secs(number(secs)?));
            let end = now();
            let dir = workspace()?.join("intervals");
            std::fs::create_dir_all(&dir).map_err(|e| format!("create {}: {e}", dir.display()))?;
            let name = std::env::var("HOOK_NAME").map_err(|_| "HOOK_NAME is not set")?;
            let path = dir.join(name);
            std::fs::write(&path, format!("[{start}, {end}]"))
                .map_err(|e| format!("write {}: {e}", path.display()))
        }
        // The grandchild of `fork`: holds the stdout it inherited and never reads or writes it.
        ["hold", secs] => {
            std::thread::sleep(Duration::from_secs(number(secs)?));
            Ok(())
        }
        _ => Err(format!(
            "unknown mode {args:?}: expected flood BYTES, sleep SECS, fork answer|hang or observe SECS"
        )),
    }
}

fn fork(then: &str) -> Result<(), String> {
    let ws = workspace()?;
    write_file(&ws.join("hook.pid"), &std::process::id().to_string())?;
    let exe = std::env::current_exe().map_err(|e| format!("own path: {e}"))?;
    // stdout is inherited: the grandchild keeps the pipe open after this process is gone.
    let mut grandchild = Command::new(exe)
        .args(["hold", "1000"])
        .spawn()
        .map_err(|e| format!("start the grandchild: {e}"))?;
    write_file(&ws.join("grandchild.pid"), &grandchild.id().to_string())?;
    if then == "answer" {
        return write_stdout(b"{\"systemMessage\": \"answered before leaving\"}\n");
    }
    grandchild
        .wait()
        .map_err(|e| format!("wait for the grandchild: {e}"))?;
    Ok(())
}

fn read_payload() -> Result<(), String> {
    let mut payload = Vec::new();
    std::io::stdin()
        .read_to_end(&mut payload)
        .map_err(|e| format!("read stdin: {e}"))?;
    Ok(())
}

fn write_stdout(bytes: &[u8]) -> Result<(), String> {
    let mut out = std::io::stdout().lock();
    out.write_all(bytes)
        .and_then(|()| out.flush())
        .map_err(|e| format!("write stdout: {e}"))
}

fn write_file(path: &std::path::Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("write {}: {e}", path.display()))
}

fn workspace() -> Result<PathBuf, String> {
    std::env::var_os("AGENT_HOOKS_WORKSPACE")
        .map(PathBuf::from)
        .ok_or_else(|| "AGENT_HOOKS_WORKSPACE is not set".to_owned())
}

fn number<T: std::str::FromStr>(text: &str) -> Result<T, String> {
    text.parse()
        .map_err(|_| format!("{text:?} is not a whole number"))
}

fn now() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0)
}
