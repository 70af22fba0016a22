//! Runs the example agent on a copy of its workspace and checks that every lifecycle event
//! fired and that the block, the rewrite and the refused stop happened.

use std::path::Path;
use std::process::Command;

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create the copy");
    for entry in std::fs::read_dir(from).expect("read the example workspace") {
        let entry = entry.expect("a directory entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("a file type").is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy a file");
        }
    }
}

#[test]
#[cfg_attr(
    not(have_python3),
    ignore = "the example workspace's guards are Python hooks and python3 is not on PATH"
)]
fn the_example_agent_goes_through_every_event() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let ws = dir.path().join("workspace");
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("workspace"),
        &ws,
    );
    let out = Command::new(env!("CARGO_BIN_EXE_example-agent"))
        .arg(&ws)
        .output()
        .expect("run the example agent");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for event in [
        "on_session_start",
        "on_user_message",
        "pre_llm_call",
        "post_llm_call",
        "pre_tool_call",
        "transform_tool_result",
        "post_tool_call",
        "on_response_end",
        "on_outbound_message",
        "on_session_end",
    ] {
        assert!(
            text.contains(&format!("] {event} -> ")),
            "{event} never fired:\n{text}"
        );
    }
    assert!(
        text.contains("refusing to run 'rm -rf /'"),
        "no block:\n{text}"
    );
    assert!(text.contains("tool bash blocked"), "{text}");
    assert!(
        text.contains("git push --force-with-lease origin fix"),
        "no rewrite:\n{text}"
    );
    assert!(
        text.contains("note for the model: Note from a hook"),
        "no note:\n{text}"
    );
    assert!(
        text.contains("[stop] refused by a hook; redo with: Run the tests"),
        "no refused stop:\n{text}"
    );
    assert!(
        text.contains("[stop] the turn ends: Ran cargo test"),
        "{text}"
    );
    assert!(
        text.contains("sent: Fix pushed; the old key sk-…[masked] was rotated."),
        "{text}"
    );
    assert!(text.contains("redos forced this turn: 1"), "{text}");
    let audit =
        std::fs::read_to_string(ws.join("skills/audit/audit.jsonl")).expect("the skill hook's log");
    assert_eq!(audit.lines().count(), 4, "{audit}");
    assert!(audit.contains("\"status\": \"blocked\""), "{audit}");
}
