//! security_guard's shell tokenizer and the walk over what it finds, on any command text:
//! `agent_hooks_guards::shell_commands` (the reading agent-hooks shares with the guards) and
//! a `pre_tool_call` of a `bash` tool carrying the text, as every tool call is judged.
//!
//! Invariants: nothing panics or hangs; unquoting never invents bytes (the words of a text
//! hold at most as many bytes as the text); the guard answers continue, block, ask or a
//! warning, and a block or an ask has a reason.

#![no_main]

use std::sync::LazyLock;

use agent_hooks_guards::{Guard, GuardContext, shell_commands};
use libfuzzer_sys::fuzz_target;
use serde_json::{Value, json};

static GUARD: LazyLock<Guard> =
    LazyLock::new(|| Guard::with_defaults("security_guard").expect("the default rules load"));

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let words: usize = shell_commands(&text)
        .iter()
        .flat_map(|c| &c.words)
        .map(String::len)
        .sum();
    assert!(words <= text.len(), "{words} word bytes from a {}-byte text", text.len());

    let mut ctx = GuardContext::in_memory("/work/project");
    let payload = json!({
        "event": "pre_tool_call",
        "tool_name": "bash",
        "cwd": "/work/project",
        "tool_input": {"command": text},
    });
    let answer = GUARD.evaluate("pre_tool_call", &payload, &mut ctx);
    let object = answer.as_object().expect("an answer is an object");
    match object.get("decision").and_then(Value::as_str) {
        Some("block" | "ask") => {
            let reason = object.get("reason").and_then(Value::as_str).unwrap_or("");
            assert!(!reason.is_empty(), "a decision without a reason: {answer}");
        }
        Some(other) => panic!("unexpected decision {other:?}"),
        None => assert!(
            object.is_empty() || object.contains_key("add_warning"),
            "unexpected answer {answer}"
        ),
    }
});
