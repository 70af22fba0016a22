//! The tool-call sequence of skill hooks through the library's host helper, `host::call_tool`,
//! as open-strix's wrapped tools run it: a `pre_tool_call` chain that may rewrite the arguments
//! or `_block` the call with a synthetic result, the tool, and a `post_tool_call` chain that may
//! replace the result of a call that succeeded. The scenarios are those of open-strix's own hook
//! tests; the hooks are `sh` one-liners editing the one-line event with `sed`, which arrives
//! as open-strix writes it (Python's `json.dumps`: `", "` and `": "` between items).

use std::sync::{Arc, Mutex};

use agent_hooks_runtime::host::{AskPolicy, ToolError, ToolStatus, call_tool};
use agent_hooks_runtime::{Engine, Workspace};
use serde_json::{Value, json};

struct Skill {
    dir: tempfile::TempDir,
}

impl Drop for Skill {
    /// The runtime's directory for the workspace lives in the user's state directory: it goes
    /// with the workspace.
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(Workspace::new(self.dir.path()).runtime_dir());
    }
}

impl Skill {
    /// A workspace with one skill, `s`, whose hooks.json holds `hooks`.
    fn new(hooks: Value) -> Skill {
        let dir = tempfile::tempdir().expect("tempdir");
        let skill = dir.path().join("skills/s");
        std::fs::create_dir_all(&skill).expect("mkdir");
        std::fs::write(
            skill.join("hooks.json"),
            json!({ "hooks": hooks }).to_string(),
        )
        .expect("write hooks.json");
        Skill { dir }
    }

    fn engine(&self) -> Engine {
        Engine::open(Workspace::new(self.dir.path()))
    }

    /// The events the recording hooks saw, one per line of `skills/s/seen.jsonl`.
    fn seen(&self) -> Vec<Value> {
        std::fs::read_to_string(self.dir.path().join("skills/s/seen.jsonl"))
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).expect("a recorded event"))
            .collect()
    }

    /// The records of one type in the engine's logs: `logs/events.jsonl`, then the
    /// `hook_decision` records of the runtime's own directory.
    fn logged(&self, kind: &str) -> Vec<Value> {
        let engine = self.engine();
        let read = |path: Option<&std::path::Path>| {
            path.and_then(|p| std::fs::read_to_string(p).ok())
                .unwrap_or_default()
        };
        let text = read(engine.event_log_path()) + &read(engine.hook_decision_log_path());
        text.lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter(|r| r["type"] == kind)
            .collect()
    }
}

fn hook(name: &str, command: &str, events: &[&str]) -> Value {
    json!({"name": name, "command": command, "events": events})
}

/// The `echo` tool of open-strix's tests, counting its invocations.
type Calls = Arc<Mutex<Vec<Value>>>;

fn run(
    engine: &Engine,
    calls: &Calls,
    outcome: Result<(), ToolError>,
) -> agent_hooks_runtime::host::ToolCall {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let calls = calls.clone();
    rt.block_on(call_tool(
        engine,
        "test-session",
        "echo",
        json!({"text": "hello"}),
        AskPolicy::Block,
        move |input| async move {
            calls.lock().expect("the calls").push(input.clone());
            outcome.map(|()| input["text"].clone())
        },
    ))
}

#[test]
fn hooks_rewrite_the_arguments_and_the_result() {
    let command = r#"read -r e; case "$e" in
        *'"type": "pre_tool_call"'*) printf '%s\n' "$e" | sed 's/"text": "hello"/"text": "HELLO"/' ;;
        *) printf '%s\n' "$e" | sed 's/"result": "HELLO"/"result": "HELLO hooked"/' ;;
    esac"#;
    let skill = Skill::new(json!([hook(
        "mutator",
        command,
        &["pre_tool_call", "post_tool_call"]
    )]));
    let calls = Calls::default();
    let call = run(&skill.engine(), &calls, Ok(()));
    assert_eq!(
        *calls.lock().expect("calls"),
        vec![json!({"text": "HELLO"})]
    );
    assert_eq!(call.status, ToolStatus::Success);
    assert_eq!(call.agent_text(), "HELLO hooked");
    // Each rewrite is a decision line naming the hook, the field and the session.
    let rewrites = skill.logged("hook_decision");
    let fields: Vec<(&Value, &Value, &Value)> = rewrites
        .iter()
        .map(|r| (&r["event"], &r["fields"], &r["session_id"]))
        .collect();
    assert_eq!(
        fields,
        vec![
            (
                &json!("pre_tool_call"),
                &json!(["tool_input"]),
                &json!("test-session")
            ),
            (
                &json!("post_tool_call"),
                &json!(["tool_result"]),
                &json!("test-session")
            ),
        ],
        "{rewrites:?}"
    );
    assert!(
        rewrites
            .iter()
            .all(|r| r["decision"] == "rewrite" && r["hook"] == "mutator")
    );
}

#[test]
fn an_empty_answer_leaves_the_call_alone() {
    let skill = Skill::new(json!([hook(
        "quiet",
        "cat > /dev/null",
        &["pre_tool_call", "post_tool_call"]
    )]));
    let calls = Calls::default();
    let call = run(&skill.engine(), &calls, Ok(()));
    assert_eq!(call.agent_text(), "hello");
    assert!(!skill.dir.path().join("logs/events.jsonl").exists());
}

#[test]
fn a_block_returns_its_synthetic_result_without_running_the_tool() {
    let command = r#"tee -a seen.jsonl | sed '/"type": "pre_tool_call"/s/}$/,"_block":{"reason":"test-block","result":"BLOCKED: do not call echo"}}/'"#;
    let skill = Skill::new(json!([hook(
        "blocker",
        command,
        &["pre_tool_call", "post_tool_call"]
    )]));
    let calls = Calls::default();
    let call = run(&skill.engine(), &calls, Ok(()));
    assert!(calls.lock().expect("calls").is_empty(), "the tool ran");
    assert_eq!(call.status, ToolStatus::Blocked);
    assert_eq!(call.agent_text(), "BLOCKED: do not call echo");
    let blocked = skill.logged("hook_blocked_tool_call");
    assert_eq!(blocked.len(), 1, "{blocked:?}");
    assert_eq!(blocked[0]["tool"], "echo");
    assert_eq!(blocked[0]["reason"], "test-block");
    let post = &skill.seen()[1];
    assert_eq!(post["type"], "post_tool_call");
    assert_eq!(post["status"], "blocked");
    assert_eq!(post["block_reason"], "test-block");
    assert_eq!(post["result"], "BLOCKED: do not call echo");
    assert_eq!(post["args"], json!({"text": "hello"}));
}

#[test]
fn a_malformed_block_is_logged_and_the_call_proceeds() {
    let skill = Skill::new(json!([hook(
        "bad-block",
        r#"sed 's/}$/,"_block":{"reason":"incomplete"}}/'"#,
        &["pre_tool_call"]
    )]));
    let calls = Calls::default();
    let call = run(&skill.engine(), &calls, Ok(()));
    assert_eq!(call.agent_text(), "hello");
    let invalid = skill.logged("hook_invalid_block");
    assert_eq!(invalid.len(), 1, "{invalid:?}");
    assert_eq!(invalid[0]["tool"], "echo");
}

#[test]
fn a_post_hook_cannot_replace_the_result_of_a_blocked_call() {
    let command = r#"sed -e '/"type": "pre_tool_call"/s/}$/,"_block":{"reason":"r","result":"synthetic"}}/' -e '/"type": "post_tool_call"/s/"result": "synthetic"/"result": "rewritten"/'"#;
    let skill = Skill::new(json!([hook(
        "both",
        command,
        &["pre_tool_call", "post_tool_call"]
    )]));
    let calls = Calls::default();
    let call = run(&skill.engine(), &calls, Ok(()));
    assert_eq!(call.agent_text(), "synthetic");
}

#[test]
fn after_a_tool_error_the_post_event_has_the_error_and_its_class_and_no_result() {
    let skill = Skill::new(json!([hook(
        "watch",
        "cat >> seen.jsonl",
        &["post_tool_call"]
    )]));
    let calls = Calls::default();
    let call = run(
        &skill.engine(),
        &calls,
        Err(ToolError::new("ValueError", "bad text")),
    );
    assert_eq!(call.status, ToolStatus::Error);
    let post = &skill.seen()[0];
    assert_eq!(post["status"], "error");
    assert_eq!(post["error"], "bad text");
    assert_eq!(post["error_class"], "ValueError");
    assert!(post.get("result").is_none(), "{post}");
    assert!(post.get("duration_seconds").is_none(), "{post}");
}

#[test]
fn after_a_success_the_post_event_has_the_result_and_the_duration() {
    let skill = Skill::new(json!([hook(
        "watch",
        "cat >> seen.jsonl",
        &["post_tool_call"]
    )]));
    let calls = Calls::default();
    run(&skill.engine(), &calls, Ok(()));
    let post = &skill.seen()[0];
    assert_eq!(post["status"], "success");
    assert_eq!(post["result"], "hello");
    assert!(
        post["duration_seconds"].as_f64().is_some_and(|d| d >= 0.0),
        "{post}"
    );
    assert!(post.get("error_class").is_none());
}
