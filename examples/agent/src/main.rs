//! A small but real agent loop wired to agent-hooks at every lifecycle event, driven by a
//! scripted model so it runs anywhere without a network. Read it as the reference for "how do
//! I wire agent-hooks into my agent": each numbered step is a point where a real agent calls
//! the runtime, in the order a real agent does.
//!
//! Usage: `example-agent [WORKSPACE]` (default: this example's `workspace/`).

use std::path::PathBuf;

use agent_hooks_runtime::host::{AskPolicy, StopVerdict, Turn, call_tool};
use agent_hooks_runtime::payload::{
    OutboundMessage, PostLlmCall, PreLlmCall, ResponseEnd, SessionEnd, SessionStart, Tokens,
    UserMessage,
};
use agent_hooks_runtime::{Engine, Event, Outcome, Workspace};
use serde_json::{Value, json};

/// What the scripted model does at each step of the turn.
enum Step {
    Tool(&'static str, Value),
    Reply(&'static str),
}

/// The model's script: a destructive command (blocked), a build with failing tests (a hook
/// notes it), a force push (rewritten), a premature "done" (refused once), then the tests and
/// an honest reply.
fn script() -> Vec<Step> {
    vec![
        Step::Tool("bash", json!({"command": "rm -rf /"})),
        Step::Tool("bash", json!({"command": "cargo build && cargo test"})),
        Step::Tool("bash", json!({"command": "git push --force origin fix"})),
        Step::Reply("Done: the fix is pushed."),
        Step::Tool("cargo_test", json!({"args": "--all"})),
        Step::Reply("Ran cargo test: all 12 tests pass. The fix is pushed."),
    ]
}

/// The host's tools. They only pretend: this example never touches your machine.
async fn run_tool(name: &str, input: Value) -> Result<Value, String> {
    let command = input["command"].as_str().unwrap_or("");
    match name {
        "bash" if command.starts_with("cargo build") => Ok(json!(
            "Compiling demo v0.1.0\ntest result: FAILED. 11 passed; 1 failed"
        )),
        "bash" => Ok(json!(format!("(pretend) ran: {command}"))),
        "cargo_test" => Ok(json!("test result: ok. 12 passed; 0 failed")),
        other => Err(format!("unknown tool {other}")),
    }
}

fn show(step: &str, outcome: &Outcome) {
    println!(
        "[{step}] {} -> {}",
        outcome.event,
        outcome.decision.as_str()
    );
    for hook in &outcome.hooks {
        let detail = hook
            .detail
            .as_deref()
            .map(|d| format!(" ({d})"))
            .unwrap_or_default();
        println!("    hook {}: {}{detail}", hook.hook, hook.status.as_str());
    }
    if let Some(reason) = &outcome.reason {
        println!("    reason: {reason}");
    }
    for c in &outcome.context {
        println!("    context for the model: {c}");
    }
    for n in &outcome.notes {
        println!("    note for the model: {n}");
    }
    for w in &outcome.warnings {
        println!("    warning for the user: {w}");
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let root = std::env::args_os()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("workspace"));
    let engine = Engine::open(Workspace::new(root));

    // Approvals record absolute paths and file times, so they are made for this checkout here.
    // A real agent would leave this to its user (`agent-hooks approve`) or the self-approve API.
    let keys: Vec<String> = engine
        .snapshot()
        .approval_keys()
        .map(str::to_owned)
        .collect();
    for key in keys {
        if let Err(e) = engine.approve(None, &key) {
            eprintln!("cannot approve {key}: {e}");
        }
    }
    for err in engine.snapshot().errors() {
        eprintln!("configuration error: {err}");
    }

    let session = "demo-session";
    // 1. The runtime starts.
    engine.lifecycle(Event::PreStartup, "starting").await;
    engine.lifecycle(Event::PostStartup, "started").await;

    // 2. A session begins.
    let start = engine
        .fire(
            SessionStart {
                status: "new".into(),
                ..Default::default()
            }
            .session(session),
        )
        .await;
    show("session start", &start);

    // 3. A user message arrives, before the model sees it.
    let message = engine
        .fire(UserMessage::new("Fix the failing build and push it.", "cli").session(session))
        .await;
    show("user message", &message);
    let mut tools_used: Vec<String> = Vec::new();
    let mut turn = Turn::new(&engine, session);
    let mut model_calls = 0;

    for step in script() {
        // 4. Before each model call: hooks may add context.
        model_calls += 1;
        let pre = engine
            .fire(
                PreLlmCall {
                    system: "You are a careful coding agent.".into(),
                    last_user_message: "Fix the failing build and push it.".into(),
                    model: "scripted-model".into(),
                    ..Default::default()
                }
                .session(session),
            )
            .await;
        show(&format!("model call {model_calls}"), &pre);
        match step {
            Step::Tool(name, input) => {
                let post = engine
                    .fire(
                        PostLlmCall {
                            model: "scripted-model".into(),
                            response: format!("call {name}"),
                            ..Default::default()
                        }
                        .session(session),
                    )
                    .await;
                show("model reply", &post);
                // 5. A tool call: pre_tool_call -> the tool -> transform_tool_result -> post_tool_call.
                let call = call_tool(&engine, session, name, input, AskPolicy::Block, |input| {
                    run_tool(name, input)
                })
                .await;
                for outcome in &call.outcomes {
                    show("tool", outcome);
                }
                println!(
                    "    tool {name} {} with {}; the agent reads: {}",
                    call.status.as_str(),
                    call.input,
                    call.agent_text().replace('\n', " | ")
                );
                tools_used.push(name.to_owned());
            }
            Step::Reply(text) => {
                // 6. The final reply of the turn, then the stop check.
                let end = engine
                    .fire(
                        ResponseEnd {
                            response: text.into(),
                            model: "scripted-model".into(),
                            tokens: Tokens {
                                input: 1200,
                                output: 80,
                            },
                            cost: Some(0.0123),
                            tool_names: tools_used.clone(),
                            ..Default::default()
                        }
                        .session(session),
                    )
                    .await;
                show("response end", &end);
                match turn.stop(text, &tools_used).await {
                    StopVerdict::Redo { reason } => {
                        println!("[stop] refused by a hook; redo with: {reason}");
                    }
                    StopVerdict::Stop { warnings } => {
                        println!("[stop] the turn ends: {text}");
                        for w in warnings {
                            println!("    warning for the user: {w}");
                        }
                        break;
                    }
                }
            }
        }
    }

    // 7. A push to an outside channel.
    let out = engine
        .fire(
            OutboundMessage {
                notification: "Fix pushed; the old key sk-ABCDEF1234567890 was rotated.".into(),
                r#type: "chat".into(),
                ..Default::default()
            }
            .session(session),
        )
        .await;
    show("outbound message", &out);
    println!(
        "    sent: {}",
        out.payload["notification"].as_str().unwrap_or_default()
    );

    // 8. The session ends, then the runtime stops.
    let end = engine
        .fire(
            SessionEnd {
                status: "done".into(),
                ..Default::default()
            }
            .session(session),
        )
        .await;
    show("session end", &end);
    engine.lifecycle(Event::PreShutdown, "stopping").await;
    engine.lifecycle(Event::PostShutdown, "stopped").await;
    println!("redos forced this turn: {}", turn.redo_count());
}
