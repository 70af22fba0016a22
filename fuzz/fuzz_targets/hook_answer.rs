//! A hook's answer (its stdout, exit status and stderr) read in each dialect — shell hooks'
//! decision protocol, a skill hook's event replacement, a Claude Code hook — at every event,
//! then sorted by the capability table, as the dispatcher does.
//!
//! Input: byte 0 picks the dialect and the event, byte 1 the exit status; the rest is stdout,
//! then stderr after the first NUL byte.
//!
//! Invariants: nothing panics or hangs; an unusable answer says why; nothing the event does
//! not allow comes through (a block, an ask, a rewrite of a field, a result, context, notes,
//! a model); an object rewrite of existing keys is an object; an empty answer with exit 0 does
//! nothing; in Claude Code's rules stdout is ignored at exit 2 and at any other non-zero exit
//! (which never blocks).

#![no_main]

use std::sync::LazyLock;

use agent_hooks_runtime::internals::{AnswerDialect, ReadAnswer, read_answer};
use agent_hooks_runtime::{Decision, EVENTS, complete_payload};
use libfuzzer_sys::fuzz_target;
use serde_json::{Map, Value, json};

const DIALECTS: [AnswerDialect; 3] = [
    AnswerDialect::Shell,
    AnswerDialect::Skill,
    AnswerDialect::Claude,
];
const EXITS: [i32; 8] = [0, 0, 0, 0, 2, 2, 1, 127];

/// One payload with a field of every kind hooks rewrite, completed per event.
static PAYLOADS: LazyLock<Vec<Map<String, Value>>> = LazyLock::new(|| {
    EVENTS
        .iter()
        .map(|spec| {
            let mut payload = json!({
                "session_id": "fuzz",
                "tool_name": "bash",
                "tool_input": {"command": "ls -la", "description": "list"},
                "tool_result": "total 0",
                "status": "success",
                "message": "hello",
                "response": "done",
                "notification": "built",
                "prompt": "say hi",
                "model": "m1",
                "redo_count": 0,
                "stop_hook_active": false,
            })
            .as_object()
            .cloned()
            .unwrap_or_default();
            complete_payload(spec.event, &mut payload, "/work/project");
            payload
        })
        .collect()
});

fn is_noop(read: &ReadAnswer) -> bool {
    read.decision.is_none()
        && read.rewrites.is_empty()
        && read.result.is_none()
        && read.context.is_empty()
        && read.notes.is_empty()
        && read.warnings.is_empty()
        && read.model.is_none()
        && read.stop.is_none()
}

fuzz_target!(|data: &[u8]| {
    let [pick, exit, rest @ ..] = data else {
        return;
    };
    let dialect = DIALECTS[usize::from(*pick) % DIALECTS.len()];
    let index = usize::from(*pick / 3) % EVENTS.len();
    let spec = &EVENTS[index];
    let payload = &PAYLOADS[index];
    let exit = EXITS[usize::from(*exit) % EXITS.len()];
    let (stdout, stderr) = match rest.iter().position(|b| *b == 0) {
        Some(at) => (&rest[..at], &rest[at + 1..]),
        None => (rest, &[][..]),
    };
    let read = read_answer(dialect, spec.event, payload, (stdout, exit, stderr));
    if dialect == AnswerDialect::Claude && exit != 0 {
        let without_stdout = read_answer(dialect, spec.event, payload, (b"", exit, stderr));
        assert_eq!(
            read, without_stdout,
            "Claude Code's rules ignore stdout at exit {exit}"
        );
        if exit != 2 {
            assert!(
                read.is_err(),
                "exit {exit} is a non-blocking error: {read:?}"
            );
        }
    }
    let read = match read {
        Ok(read) => read,
        Err(why) => {
            assert!(!why.is_empty(), "an unusable answer without a reason");
            return;
        }
    };
    let name = spec.name;
    match read.decision {
        Some(Decision::Block) => assert!(spec.may_block, "{name}: a block came through"),
        Some(Decision::Ask) => assert!(spec.may_ask, "{name}: an ask came through"),
        Some(Decision::Continue) => panic!("{name}: continue admitted as a decision"),
        None => {}
    }
    for (field, value, existing_keys) in &read.rewrites {
        assert!(
            spec.rewrite_rule(field).is_some(),
            "{name}: a rewrite of {field} came through"
        );
        if *existing_keys {
            assert!(
                value.is_object(),
                "{name}: {field} rewritten key by key with {value}"
            );
        }
    }
    assert!(
        read.result.is_none() || spec.result,
        "{name}: a result came through"
    );
    assert!(
        read.context.is_empty() || spec.context,
        "{name}: context came through"
    );
    assert!(
        read.notes.is_empty() || spec.note,
        "{name}: a note came through"
    );
    assert!(
        read.model.is_none() || spec.model,
        "{name}: a model came through"
    );
    if exit == 0 && stdout.iter().all(u8::is_ascii_whitespace) && stderr.is_empty() {
        assert!(
            is_noop(&read),
            "{name}: an empty answer did something: {read:?}"
        );
    }
});
