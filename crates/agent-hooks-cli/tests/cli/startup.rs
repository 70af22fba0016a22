//! The process's start-up, whichever entry point the target has (src/startup.rs on glibc
//! Linux, std's elsewhere): the command line reaches the program as it was given, byte for
//! byte; standard streams the parent left closed are opened on `/dev/null`; and a reader that
//! went away gives a write error, not a death by SIGPIPE.

use crate::support;

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::os::unix::process::ExitStatusExt;
use std::process::{Command, Output, Stdio};

use serde_json::json;
use support::{BIN, Entry, Ws};

/// `agent-hooks <args...>` with no workspace of its own, stdin empty.
fn bare<I, S>(args: I) -> Output
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    Command::new(BIN)
        .args(args)
        .current_dir(std::env::temp_dir())
        .env_remove("AGENT_HOOKS_WORKSPACE")
        .env_remove("AGENT_HOOKS_LOG")
        .stdin(Stdio::null())
        .output()
        .expect("run agent-hooks")
}

/// `cmd` run by `sh` with the redirections `closing` (e.g. `>&- 2>&-`) applied to it first.
fn with_closed(closing: &str, cmd: &Command) -> Command {
    let mut sh = Command::new("sh");
    sh.arg("-c")
        .arg(format!("exec \"$@\" {closing}"))
        .arg("sh")
        .arg(cmd.get_program())
        .args(cmd.get_args())
        .current_dir(std::env::temp_dir())
        .env_remove("AGENT_HOOKS_WORKSPACE")
        .env_remove("AGENT_HOOKS_LOG");
    sh
}

/// Asserts the process exited by itself (no signal, no panic) with `code`.
fn exited(out: &Output, code: i32) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.signal(), None, "killed by a signal: {out:?}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(out.status.code(), Some(code), "{out:?}");
}

#[test]
fn version_is_printed_for_dash_dash_version() {
    let out = bare(["--version"]);
    exited(&out, 0);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!("agent-hooks {}\n", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn an_argument_with_spaces_and_non_ascii_letters_reaches_the_command_whole() {
    let ws = Ws::new();
    let out = support::run_piped(ws.command(&["fire", "no such évent"]), b"{}");
    exited(&out, 2);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("unknown event \"no such évent\""),
        "{stderr}"
    );

    // An option's value, before the command.
    let missing = ws.root().join("no such dir/é ü");
    let out = bare([
        OsStr::new("--workspace"),
        missing.as_os_str(),
        OsStr::new("list"),
    ]);
    exited(&out, 2);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!(
            "the workspace {} is not a directory (from --workspace)",
            missing.display()
        )),
        "{stderr}"
    );
}

#[test]
fn a_non_utf8_argument_is_read_as_bytes_and_refused_where_text_is_needed() {
    // An event name must be text: clap says so, with the usage, and exits 2.
    let out = bare([OsStr::new("fire"), OsStr::from_bytes(b"pre_\xfftool_call")]);
    exited(&out, 2);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("invalid UTF-8") && stderr.contains("Usage: agent-hooks fire"),
        "{stderr}"
    );

    // A path need not be: it is taken as it is, its bytes kept.
    let dir = tempfile::tempdir().expect("a temp dir");
    let mut name = dir.path().as_os_str().as_bytes().to_vec();
    name.extend_from_slice(b"/not-\xff-utf8");
    let path = OsString::from_vec(name);
    let out = bare([OsStr::new("--workspace"), &path, OsStr::new("list")]);
    exited(&out, 2);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("/not-\u{fffd}-utf8 is not a directory (from --workspace)"),
        "{stderr}"
    );
}

#[test]
fn every_argument_is_read_in_order() {
    // `revoke` joins the words after it with one space: each must arrive whole (its own
    // spaces kept) and in its place, none merged, split or lost.
    let ws = Ws::new();
    let out = ws.run(&["revoke", "hooks/a  b.sh", "--odd", "é ü", ""]);
    exited(&out, 0);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "hooks/a  b.sh --odd é ü  had no approvals; nothing changed.\n"
    );
}

#[test]
fn a_command_runs_with_its_standard_streams_closed() {
    let ws = Ws::new();
    let out = with_closed("<&- >&- 2>&-", &ws.command(&["on"]))
        .output()
        .expect("run agent-hooks");
    exited(&out, 0);
    assert!(
        ws.read("config/agent.yaml").contains("enabled: true"),
        "{}",
        ws.read("config/agent.yaml")
    );

    let mut version = Command::new(BIN);
    version.arg("--version");
    let out = with_closed("<&- >&- 2>&-", &version)
        .output()
        .expect("run agent-hooks");
    exited(&out, 0);
}

#[test]
fn closed_standard_streams_are_opened_on_dev_null() {
    // A hook looks up the agent-hooks process it runs under and records where that
    // process's standard output and error lead. Left closed, their numbers would go to the
    // first files the program opens, and what it prints would be written into those.
    let ws = Ws::new()
        .master(true)
        .sh(
            "hooks/fds.sh",
            r#"
            cat > /dev/null
            pid=$PPID
            while [ "$pid" -gt 1 ] && [ "$(cat /proc/$pid/comm)" != agent-hooks ]; do
                pid=$(cut -d' ' -f4 /proc/$pid/stat)
            done
            readlink /proc/$pid/fd/1 /proc/$pid/fd/2 > fds.txt
            echo '{}'
            "#,
        )
        .hook(Entry::new("pre_tool_call", "hooks/fds.sh").name("fds"))
        .approve_all();
    let payload = json!({"tool_name": "bash", "tool_input": {"command": "ls"}});
    let out = support::run_piped(
        with_closed(">&- 2>&-", &ws.command(&["fire", "pre_tool_call"])),
        payload.to_string().as_bytes(),
    );
    exited(&out, 0);
    assert_eq!(ws.read("fds.txt"), "/dev/null\n/dev/null\n");
}

#[test]
fn a_version_for_a_reader_that_is_gone_exits_0_not_by_sigpipe() {
    // Standard output is a pipe whose reading end is closed: the write fails with EPIPE
    // (SIGPIPE is ignored), which `--version` does not report.
    let (read_end, write_end) = nix::unistd::pipe().expect("a pipe");
    drop(read_end);
    let out = Command::new(BIN)
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(Stdio::from(write_end))
        .stderr(Stdio::piped())
        .output()
        .expect("run agent-hooks");
    exited(&out, 0);
    assert!(out.stderr.is_empty(), "{out:?}");
}
