//! Invariants of dispatch, checked on generated chains of real hook processes: a rewritten
//! `tool_input` never gains keys, and a block ends the chain — no later hook runs.

use std::collections::BTreeMap;

use agent_hooks_runtime::{Decision, Engine, Event, Workspace};
use proptest::prelude::*;
use serde_json::{Map, Value, json};

/// A workspace whose `pre_tool_call` hooks are `commands`, in order, all approved.
fn engine_with(commands: &[String]) -> (tempfile::TempDir, Engine) {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir_all(dir.path().join("config")).expect("mkdir");
    let mut yaml = String::from("hooks:\n");
    for (i, command) in commands.iter().enumerate() {
        yaml.push_str(&format!(
            "  - name: h{i}\n    event: pre_tool_call\n    command: {command:?}\n"
        ));
    }
    std::fs::write(dir.path().join("config/shell_hooks.yaml"), yaml).expect("write");
    let engine = Engine::open(Workspace::new(dir.path()));
    engine.set_master(true).expect("master on");
    for command in commands {
        engine.approve(None, command).expect("approve");
    }
    (dir, engine)
}

fn dispatch(engine: &Engine, payload: Value) -> agent_hooks_runtime::Outcome {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let payload: Map<String, Value> = payload.as_object().cloned().expect("an object");
    rt.block_on(engine.dispatch(Event::PreToolCall, payload))
}

/// A small object: keys from a few letters (so hooks' keys often collide with the input's).
fn object() -> impl Strategy<Value = BTreeMap<String, i64>> {
    prop::collection::btree_map("[a-f]", any::<i64>(), 0..5)
}

fn config() -> ProptestConfig {
    // Each case spawns real processes: few cases, each meaningful.
    ProptestConfig {
        cases: 12,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn a_rewritten_tool_input_never_gains_keys(
        input in object(),
        rewrites in prop::collection::vec(object(), 1..3),
    ) {
        let commands: Vec<String> = rewrites
            .iter()
            .map(|r| format!("echo '{}'", json!({"tool_input": r})))
            .collect();
        let (_dir, engine) = engine_with(&commands);
        let outcome = dispatch(&engine, json!({"tool_name": "t", "tool_input": input}));
        let after = outcome.payload["tool_input"].as_object().expect("tool_input stays an object");
        let keys: Vec<&String> = after.keys().collect();
        let before: Vec<&String> = input.keys().collect();
        prop_assert_eq!(keys, before);
        // Keys that were there take the last hook's value for them.
        for (key, value) in after {
            let expected = rewrites
                .iter()
                .rev()
                .find_map(|r| r.get(key))
                .or_else(|| input.get(key))
                .copied();
            prop_assert_eq!(value.as_i64(), expected, "{}", key);
        }
    }

    #[test]
    fn a_blocked_chain_never_runs_a_later_hook(blocks in prop::collection::vec(any::<bool>(), 1..5)) {
        let commands: Vec<String> = blocks
            .iter()
            .enumerate()
            .map(|(i, block)| {
                let answer = if *block { r#"{\"decision\": \"block\", \"reason\": \"no\"}"# } else { "" };
                format!("sh -c \"echo {i} >> runs; echo '{answer}'\"")
            })
            .collect();
        let (dir, engine) = engine_with(&commands);
        let outcome = dispatch(&engine, json!({"tool_name": "t", "tool_input": {}}));
        let ran: Vec<usize> = std::fs::read_to_string(dir.path().join("runs"))
            .unwrap_or_default()
            .lines()
            .filter_map(|l| l.trim().parse().ok())
            .collect();
        let expected: Vec<usize> = match blocks.iter().position(|b| *b) {
            Some(first) => (0..=first).collect(),
            None => (0..blocks.len()).collect(),
        };
        prop_assert_eq!(ran, expected);
        let decision = if blocks.contains(&true) { Decision::Block } else { Decision::Continue };
        prop_assert_eq!(outcome.decision, decision);
    }
}
