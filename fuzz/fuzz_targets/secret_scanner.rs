//! security_guard's secret scanner (credentials, wallet secrets, masking) and pii_redactor,
//! on any text, through every event that scans text: a user message, a tool result, the
//! final reply, an outbound message.
//!
//! Invariants: nothing panics or hangs; a rewrite is a string that differs from the text;
//! masking is stable (a rewritten reply, scanned again, is not rewritten again).

#![no_main]

use std::sync::LazyLock;

use agent_hooks_guards::{Guard, GuardContext};
use libfuzzer_sys::fuzz_target;
use serde_json::{Value, json};

static SECURITY: LazyLock<Guard> =
    LazyLock::new(|| Guard::with_defaults("security_guard").expect("the default rules load"));
static PII: LazyLock<Guard> =
    LazyLock::new(|| Guard::with_defaults("pii_redactor").expect("the default rules load"));

fn answer(guard: &Guard, event: &str, payload: Value) -> Value {
    let mut ctx = GuardContext::in_memory("/work/project");
    let answer = guard.evaluate(event, &payload, &mut ctx);
    assert!(answer.is_object(), "{event}: {answer}");
    answer
}

fn rewritten(answer: &Value, field: &str, original: &str) -> Option<String> {
    let text = answer.get(field)?;
    let text = text.as_str().expect("a rewrite is a string");
    assert_ne!(text, original, "a rewrite that changes nothing");
    Some(text.to_owned())
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let text = text.as_ref();
    answer(&SECURITY, "on_user_message", json!({"message": text}));
    answer(
        &SECURITY,
        "transform_tool_result",
        json!({"tool_name": "bash", "tool_result": text}),
    );
    answer(&SECURITY, "on_outbound_message", json!({"notification": text}));
    answer(
        &SECURITY,
        "pre_tool_call",
        json!({"tool_name": "send_message", "tool_input": {"text": text}}),
    );
    let reply = answer(&SECURITY, "on_response_end", json!({"response": text}));
    if let Some(masked) = rewritten(&reply, "response", text) {
        let again = answer(&SECURITY, "on_response_end", json!({"response": masked}));
        assert!(
            again.get("response").is_none(),
            "masking is not stable: {masked:?} became {again}"
        );
    }
    for event in ["transform_tool_result", "on_response_end"] {
        let field = if event == "on_response_end" { "response" } else { "tool_result" };
        let out = answer(&PII, event, json!({"tool_name": "bash", field: text}));
        rewritten(&out, field, text);
    }
});
