//! What a long-lived `serve` keeps between checks to answer faster, attacked: the trust gate's
//! kept copy of an approved script still sees a write through a shared mapping that moves no
//! timestamp, and the decision logs held open between appends follow a rotation or a removal
//! of their files mid-session without losing a record.

use serde_json::{Value, json};

use super::support::{Entry, Server, Ws, guarded_by};

/// Overwrites `at` bytes into `path` with `bytes` through a shared mapping: the page cache
/// changes in place, and neither mtime nor ctime need move.
fn write_through_mmap(path: &std::path::Path, at: usize, bytes: &[u8]) {
    use nix::sys::mman::{MapFlags, MsFlags, ProtFlags, mmap, msync, munmap};
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)
        .expect("open");
    let len = std::num::NonZeroUsize::new(file.metadata().expect("stat").len() as usize)
        .expect("non-empty");
    assert!(at + bytes.len() <= len.get());
    // SAFETY: a fresh mapping of a file this test owns, written within its length and unmapped
    // before it returns.
    unsafe {
        let map = mmap(
            None,
            len,
            ProtFlags::PROT_READ | ProtFlags::PROT_WRITE,
            MapFlags::MAP_SHARED,
            &file,
            0,
        )
        .expect("mmap");
        std::ptr::copy_nonoverlapping(
            bytes.as_ptr(),
            map.as_ptr().cast::<u8>().add(at),
            bytes.len(),
        );
        msync(map, len.get(), MsFlags::MS_SYNC).expect("msync");
        munmap(map, len.get()).expect("munmap");
    }
}

#[test]
fn a_script_rewritten_through_a_shared_mapping_between_two_checks_of_one_serve_is_drift() {
    let script = "#!/bin/sh\ncat >/dev/null\necho '{\"context\": \"approved-output\"}'\n";
    let ws = Ws::new()
        .master(true)
        .script("hooks/guard.sh", script)
        .hook(Entry::new("pre_tool_call", "hooks/guard.sh").name("guard"))
        .approve_all();
    let server = Server::start(&ws);
    let check = || {
        let (status, outcome) = server.post(
            "/v1/events/pre_tool_call",
            json!({"tool_name": "bash", "tool_input": {"command": "ls"}}),
        );
        assert_eq!(status, 200, "{outcome}");
        outcome
    };
    let context = |outcome: &Value| outcome["context"].to_string();
    // Twice: the first check hashes the script and keeps its bytes, the second compares.
    for _ in 0..2 {
        let outcome = check();
        assert!(context(&outcome).contains("approved-output"), "{outcome}");
    }
    let path = ws.path("hooks/guard.sh");
    let before = std::fs::metadata(&path).expect("stat");
    let at = script.find("approved").expect("the word");
    write_through_mmap(&path, at, b"IMPOSTOR");
    assert_eq!(
        std::fs::metadata(&path).expect("stat").len(),
        before.len(),
        "the rewrite is in place"
    );

    let outcome = check();
    assert!(!outcome.to_string().contains("IMPOSTOR"), "{outcome}");
    assert_eq!(outcome["hooks"][0]["status"], "skipped", "{outcome}");
    assert!(
        outcome["diagnostics"][0]["detail"]
            .as_str()
            .is_some_and(|d| d.contains("guard.sh was modified")),
        "{outcome}"
    );

    // The approved bytes written back are the approved content again: content decides.
    write_through_mmap(&path, at, b"approved");
    let outcome = check();
    assert!(context(&outcome).contains("approved-output"), "{outcome}");
}

/// The tool-call ids of the records of the decision log at `path`, each line checked whole.
fn call_ids(path: &std::path::Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .map(|line| {
            let record: Value =
                serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"));
            record["tool_call_id"]
                .as_str()
                .unwrap_or_default()
                .to_owned()
        })
        .collect()
}

/// How many whole JSON lines the file at `path` holds.
fn records(path: &std::path::Path) -> usize {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    for line in text.lines() {
        serde_json::from_str::<Value>(line).unwrap_or_else(|e| panic!("{e}: {line}"));
    }
    text.lines().count()
}

#[test]
fn decision_logs_moved_or_removed_mid_session_continue_in_new_files_at_their_paths() {
    let ws = guarded_by(
        r#"
        cat >/dev/null
        echo '{"decision": "block", "reason": "no"}'
        "#,
    );
    let server = Server::start(&ws);
    let check = |n: u32| {
        let (status, outcome) = server.post(
            "/v1/events/pre_tool_call",
            json!({
                "session_id": "s1",
                "tool_use_id": format!("call-{n}"),
                "tool_name": "Bash",
                "tool_input": {"command": "rm -rf /"},
            }),
        );
        assert_eq!(status, 200, "{outcome}");
        assert_eq!(outcome["decision"], "block", "{outcome}");
    };
    let ids = |range: std::ops::Range<u32>| range.map(|n| format!("call-{n}")).collect::<Vec<_>>();
    let decisions = ws.runtime_path("decisions.jsonl");
    let hook_decisions = ws.runtime_path("hook-decisions.jsonl");
    let moved = |path: &std::path::Path| path.with_extension("jsonl.rotated");

    for n in 0..3 {
        check(n);
    }
    // A log rotation: both files renamed away while the serve holds them open.
    for path in [&decisions, &hook_decisions] {
        std::fs::rename(path, moved(path)).expect("rotate");
    }
    for n in 3..6 {
        check(n);
    }
    assert_eq!(call_ids(&moved(&decisions)), ids(0..3));
    assert_eq!(call_ids(&decisions), ids(3..6));
    assert_eq!(records(&moved(&hook_decisions)), 3);
    assert_eq!(records(&hook_decisions), 3);

    // Removed, and the runtime's directory with them: both are made again.
    std::fs::remove_dir_all(decisions.parent().expect("the runtime's directory")).expect("remove");
    for n in 6..8 {
        check(n);
    }
    assert_eq!(call_ids(&decisions), ids(6..8));
    assert_eq!(records(&hook_decisions), 2);
}
