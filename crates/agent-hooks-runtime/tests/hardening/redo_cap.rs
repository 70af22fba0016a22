//! The redo cap (`docs/protocol.md`) holds whatever a host puts in `redo_count`: a number spelt as
//! a string or a float is coerced, and a value that is no count at all counts as the cap — never as
//! "no cap", which would let a hook force redos forever.

use agent_hooks_runtime::{Decision, Engine, Event, Workspace};
use serde_json::{Value, json};

const BLOCK: &str = r#"echo '{"decision": "block", "reason": "run the tests first"}'"#;

/// A workspace with one approved `on_stop` hook that always refuses the stop.
fn engine() -> (tempfile::TempDir, Engine) {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir_all(dir.path().join("config")).expect("mkdir");
    let yaml = format!("hooks:\n  - name: refuse\n    event: on_stop\n    command: {BLOCK:?}\n");
    std::fs::write(dir.path().join("config/shell_hooks.yaml"), yaml).expect("write");
    let engine = Engine::open(Workspace::new(dir.path()));
    engine.set_master(true).expect("master on");
    engine.approve(None, BLOCK).expect("approve");
    (dir, engine)
}

fn stop_with(engine: &Engine, redo_count: Value) -> agent_hooks_runtime::Outcome {
    let payload = json!({"response": "done", "redo_count": redo_count});
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(engine.dispatch(
        Event::OnStop,
        payload.as_object().cloned().expect("an object"),
    ))
}

#[test]
fn below_the_cap_a_block_is_honoured_however_the_count_is_spelt() {
    let (_dir, engine) = engine();
    for count in [json!(2), json!("2"), json!(2.0), json!(" 1 "), Value::Null] {
        let outcome = stop_with(&engine, count.clone());
        assert_eq!(outcome.decision, Decision::Block, "redo_count {count}");
    }
}

#[test]
fn a_count_at_the_cap_in_any_spelling_ends_the_turn() {
    let (_dir, engine) = engine();
    let past_u64: Value = serde_json::from_str("18446744073709551616").expect("a number past u64");
    for count in [
        json!(3),
        json!("3"),
        json!(3.0),
        json!(1e308),
        past_u64,
        json!("99999999999999999999999"),
    ] {
        let outcome = stop_with(&engine, count.clone());
        assert_eq!(outcome.decision, Decision::Continue, "redo_count {count}");
        assert!(
            outcome
                .warnings
                .iter()
                .any(|w| w.contains("redo cap reached")),
            "redo_count {count}: {:?}",
            outcome.warnings
        );
    }
}

#[test]
fn a_count_that_is_no_count_applies_the_cap_and_says_so() {
    let (_dir, engine) = engine();
    for count in [
        json!("three"),
        json!(-1),
        json!(2.5),
        json!([1]),
        json!(true),
    ] {
        let outcome = stop_with(&engine, count.clone());
        assert_eq!(outcome.decision, Decision::Continue, "redo_count {count}");
        assert!(
            outcome
                .warnings
                .iter()
                .any(|w| w.contains("is not a non-negative integer, so the redo cap applies")),
            "redo_count {count}: {:?}",
            outcome.warnings
        );
    }
}
