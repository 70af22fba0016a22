//! The library's `Engine::reload` (the `reload_hooks` of the skill-hook source): a file that
//! breaks keeps its previous good hooks and is logged; the fix is picked up; a dispatch that
//! started before a reload finishes on the configuration it started with.

use std::sync::Arc;
use std::time::Duration;

use agent_hooks_runtime::{Engine, Event, Workspace};
use serde_json::{Map, Value, json};

fn write(root: &std::path::Path, rel: &str, text: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

fn payload(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

fn log_types(root: &std::path::Path) -> Vec<String> {
    std::fs::read_to_string(root.join("logs/events.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter_map(|r| r["type"].as_str().map(str::to_owned))
        .collect()
}

const V1: &str = r#"{"hooks": [{"name": "tag", "command": "sed 's/\"args\": *{/\"args\": {\"tag\": \"v1\", /'", "events": ["pre_tool_call"]}]}"#;
const V2: &str = r#"{"hooks": [{"name": "tag", "command": "sed 's/\"args\": *{/\"args\": {\"tag\": \"v2\", /'", "events": ["pre_tool_call"]}]}"#;

async fn tag(engine: &Engine) -> Value {
    let outcome = engine
        .dispatch(
            Event::PreToolCall,
            payload(json!({"tool_name": "t", "tool_input": {"x": 1}})),
        )
        .await;
    outcome.payload["tool_input"]["tag"].clone()
}

#[tokio::test]
async fn a_broken_hooks_json_keeps_its_previous_hooks_until_fixed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().canonicalize().expect("canonical");
    write(&root, "skills/s/hooks.json", V1);
    let engine = Engine::open(Workspace::new(&root));
    assert_eq!(tag(&engine).await, json!("v1"));

    write(&root, "skills/s/hooks.json", "{\"hooks\": [ {\"name\": ");
    engine.reload();
    assert_eq!(
        tag(&engine).await,
        json!("v1"),
        "a typo must not disarm the hook"
    );
    assert!(log_types(&root).contains(&"hook_invalid_json".to_owned()));

    write(&root, "skills/s/hooks.json", V2);
    engine.reload();
    assert_eq!(tag(&engine).await, json!("v2"));
}

#[tokio::test]
async fn a_running_dispatch_finishes_on_the_configuration_it_started_with() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().canonicalize().expect("canonical");
    write(
        &root,
        "skills/s/hooks.json",
        r#"{"hooks": [
            {"name": "slow", "command": "sleep 1; cat", "events": ["pre_tool_call"]},
            {"name": "tag", "command": "sed 's/\"args\": *{/\"args\": {\"tag\": \"v1\", /'", "events": ["pre_tool_call"]}
        ]}"#,
    );
    let engine = Arc::new(Engine::open(Workspace::new(&root)));
    let running = {
        let engine = engine.clone();
        tokio::spawn(async move { tag(&engine).await })
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    write(&root, "skills/s/hooks.json", V2);
    engine.reload();
    assert_eq!(running.await.expect("the dispatch"), json!("v1"));
    assert_eq!(tag(&engine).await, json!("v2"));
}

#[tokio::test]
async fn a_skill_directory_that_vanished_is_an_exec_error_and_fails_open() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().canonicalize().expect("canonical");
    write(&root, "skills/gone/hooks.json", V1);
    let engine = Engine::open(Workspace::new(&root));
    std::fs::remove_dir_all(root.join("skills/gone")).expect("remove the skill");
    let outcome = engine
        .dispatch(
            Event::PreToolCall,
            payload(json!({"tool_name": "t", "tool_input": {"x": 1}})),
        )
        .await;
    assert_eq!(outcome.decision, agent_hooks_runtime::Decision::Continue);
    assert_eq!(
        outcome.hooks[0].status,
        agent_hooks_runtime::HookStatus::Error,
        "{:?}",
        outcome.hooks
    );
    assert!(log_types(&root).contains(&"hook_exec_error".to_owned()));
}
