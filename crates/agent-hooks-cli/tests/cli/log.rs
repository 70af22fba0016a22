//! `agent-hooks log`: recent records of `logs/events.jsonl`, readable or as JSON, filtered by
//! hook, event and type, and `--follow` printing what is appended.

use crate::support;

use std::io::{BufRead, BufReader};
use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};
use support::{Entry, Ws};

/// A workspace whose `broken` hook exits 1 on `pre_tool_call`, fired once.
fn with_one_failure() -> Ws {
    let ws = Ws::new()
        .master(true)
        .sh(
            "hooks/broken.sh",
            "cat > /dev/null\necho oops >&2\nexit 1\n",
        )
        .hook(Entry::new("pre_tool_call", "hooks/broken.sh").name("broken"))
        .approve_all();
    ws.fire("pre_tool_call", json!({"tool_name": "bash"}));
    ws
}

fn stdout(ws: &Ws, args: &[&str]) -> String {
    let out = ws.run(args);
    assert!(out.status.success(), "{args:?}: {out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn log_shows_a_failure_readably_and_as_json() {
    let ws = with_one_failure();
    let text = stdout(&ws, &["log"]);
    let line = text
        .lines()
        .find(|l| l.contains("hook_nonzero_exit"))
        .unwrap_or_else(|| panic!("no failure line in:\n{text}"));
    assert!(
        line.contains("pre_tool_call") && line.contains("broken"),
        "{line}"
    );

    let json = stdout(&ws, &["log", "--json"]);
    let records: Vec<Value> = json
        .lines()
        .map(|l| serde_json::from_str(l).expect("each line is a record"))
        .collect();
    assert!(
        records
            .iter()
            .any(|r| r["type"] == "hook_nonzero_exit" && r["hook"] == "broken"),
        "{json}"
    );
}

#[test]
fn log_filters_by_hook_event_and_type() {
    let ws = with_one_failure();
    let kept = |args: &[&str]| {
        let mut all = vec!["log", "--json"];
        all.extend_from_slice(args);
        stdout(&ws, &all).lines().count()
    };
    assert!(kept(&["--hook", "broken"]) >= 1);
    assert_eq!(kept(&["--hook", "someone-else"]), 0);
    assert!(kept(&["--event", "pre_tool_call"]) >= 1);
    assert_eq!(kept(&["--event", "on_stop"]), 0);
    assert_eq!(kept(&["--type", "hook_nonzero_exit"]), 1);
    assert_eq!(kept(&["--type", "hook_nonzero_exit", "-n", "0"]), 0);
}

#[test]
fn log_follow_prints_what_is_appended() {
    let ws = with_one_failure();
    let mut child = ws
        .command(&[
            "log",
            "--json",
            "--follow",
            "-n",
            "0",
            "--type",
            "hook_nonzero_exit",
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()
        .expect("start log --follow");
    let stdout = child.stdout.take().expect("stdout is piped");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let _ = BufReader::new(stdout).read_line(&mut line);
        let _ = tx.send(line);
    });
    // Give it a moment to read to the end, then append a second failure.
    std::thread::sleep(Duration::from_millis(500));
    ws.fire("pre_tool_call", json!({"tool_name": "bash"}));
    let line = rx.recv_timeout(Duration::from_secs(20));
    let _ = child.kill();
    let _ = child.wait();
    let line = line.expect("log --follow printed the appended record");
    let record: Value = serde_json::from_str(&line).expect("a record");
    assert_eq!(record["hook"], "broken");
}
