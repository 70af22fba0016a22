//! LLM-judge hooks (`type: prompt`) through the real binary, against a stub model server on
//! loopback that speaks Anthropic's Messages API or the OpenAI-compatible chat-completions API
//! and records what it was sent: Claude Code settings with prompt hooks run unmodified, and
//! `config/shell_hooks.yaml` may use the same type.

use crate::loopback::{Request, Response, Server};
use crate::support::{Fired, Ws, run_piped};

use std::time::Duration;

use serde_json::{Value, json};

const KEY: &str = "sk-test-judge";

/// An Anthropic Messages answer whose text is `text`.
fn anthropic(text: &str) -> Response {
    Response::json(
        &json!({"id": "msg_1", "type": "message", "role": "assistant",
                "content": [{"type": "text", "text": text}],
                "stop_reason": "end_turn"})
        .to_string(),
    )
}

/// An OpenAI chat-completions answer whose text is `text`.
fn openai(text: &str) -> Response {
    Response::json(
        &json!({"id": "c1", "object": "chat.completion",
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": text}}]})
        .to_string(),
    )
}

/// A workspace with the master switch on and `llm_judge` set to `judge` (YAML lines).
fn judge_ws(judge: &str) -> Ws {
    Ws::new().file(
        "config/agent.yaml",
        &format!("shell_hooks:\n  enabled: true\nllm_judge:\n{judge}"),
    )
}

fn anthropic_ws(server: &Server) -> Ws {
    judge_ws(&format!(
        "  provider: anthropic\n  base_url: {}\n",
        server.url("")
    ))
}

fn claude_settings(ws: Ws, hooks: Value) -> Ws {
    ws.file(
        ".claude/settings.json",
        &json!({ "hooks": hooks }).to_string(),
    )
}

/// `fire` with the judge's key in the environment (and nothing inherited that could reach a
/// real API).
fn fire(ws: &Ws, event: &str, payload: Value) -> Fired {
    fire_env(ws, event, payload, &[("ANTHROPIC_API_KEY", KEY)])
}

fn fire_env(ws: &Ws, event: &str, payload: Value, env: &[(&str, &str)]) -> Fired {
    let mut cmd = ws.command(&["fire", event]);
    cmd.env_remove("ANTHROPIC_API_KEY")
        .env_remove("ANTHROPIC_BASE_URL")
        .env_remove("OPENAI_API_KEY")
        .env_remove("OPENAI_BASE_URL")
        .envs(env.iter().copied());
    let out = run_piped(cmd, payload.to_string().as_bytes());
    assert!(
        out.status.success(),
        "fire: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Fired {
        outcome: serde_json::from_slice(&out.stdout).expect("the outcome is JSON"),
        code: 0,
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        elapsed: Duration::ZERO,
    }
}

fn body(request: &Request) -> Value {
    serde_json::from_slice(&request.body).expect("the request body is JSON")
}

const STOP_PROMPT: &str = "Evaluate if Claude should stop: $ARGUMENTS. Check that the tests ran.";

#[test]
fn a_claude_code_stop_prompt_hook_asks_anthropic_and_a_no_keeps_the_turn_going() {
    let server = Server::start(|_| {
        anthropic(
            "```json\n{\"ok\": false, \"reason\": \"Run the test suite before stopping.\"}\n```",
        )
    });
    let ws = claude_settings(
        anthropic_ws(&server),
        json!({"Stop": [{"hooks": [{"type": "prompt", "prompt": STOP_PROMPT}]}]}),
    );
    ws.approve(STOP_PROMPT);
    let fired = fire(
        &ws,
        "on_stop",
        json!({"response": "All done!", "session_id": "s-1"}),
    );
    assert_eq!(fired.decision(), "block", "{:#}", fired.outcome);
    assert_eq!(fired.reason(), "Run the test suite before stopping.");
    assert_eq!(fired.status(STOP_PROMPT), "blocked");

    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    let request = &requests[0];
    assert_eq!(
        (request.method.as_str(), request.path.as_str()),
        ("POST", "/v1/messages")
    );
    assert_eq!(request.header("x-api-key"), Some(KEY));
    assert_eq!(request.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(request.header("content-type"), Some("application/json"));
    let sent = body(request);
    assert_eq!(sent["model"], "claude-haiku-4-5");
    let prompt = sent["messages"][0]["content"]
        .as_str()
        .expect("a user message");
    let (before, rest) = prompt
        .split_once("Evaluate if Claude should stop: ")
        .expect("the prompt");
    assert_eq!(before, "");
    let (arguments, after) = rest.rsplit_once(". Check that").expect("the prompt's end");
    assert_eq!(after, " the tests ran.");
    let input: Value = serde_json::from_str(arguments).expect("$ARGUMENTS is the hook input");
    assert_eq!(input["hook_event_name"], "Stop");
    assert_eq!(input["session_id"], "s-1");
    assert_eq!(input["last_assistant_message"], "All done!");
    assert_eq!(input["stop_hook_active"], false);
}

#[test]
fn an_ok_verdict_lets_the_action_go_on() {
    let server = Server::start(|_| anthropic("{\"ok\": true}"));
    let ws = claude_settings(
        anthropic_ws(&server),
        json!({"Stop": [{"hooks": [{"type": "prompt", "prompt": STOP_PROMPT}]}]}),
    );
    ws.approve(STOP_PROMPT);
    let fired = fire(&ws, "on_stop", json!({"response": "done"}));
    assert_eq!(fired.decision(), "continue");
    assert_eq!(fired.status(STOP_PROMPT), "noop");
    assert!(fired.warnings().is_empty(), "{:?}", fired.warnings());
}

#[test]
fn an_impossible_condition_lets_the_stop_happen_with_a_warning() {
    let server = Server::start(|_| {
        anthropic(r#"{"ok": false, "reason": "the API it needs is gone", "impossible": true}"#)
    });
    let ws = claude_settings(
        anthropic_ws(&server),
        json!({"Stop": [{"hooks": [{"type": "prompt", "prompt": STOP_PROMPT}]}]}),
    );
    ws.approve(STOP_PROMPT);
    let fired = fire(&ws, "on_stop", json!({"response": "done"}));
    assert_eq!(fired.decision(), "continue");
    assert!(
        fired.warnings()[0].contains("the API it needs is gone"),
        "{:?}",
        fired.warnings()
    );
}

const TOOL_PROMPT: &str = "Is this command safe to run? $ARGUMENTS";

/// A local OpenAI-compatible server (llama.cpp style) with a key from `LOCAL_JUDGE_KEY`.
fn openai_ws(server: &Server) -> Ws {
    judge_ws(&format!(
        "  provider: openai\n  base_url: {}\n  model: qwen2.5-7b-instruct\n  api_key_env: LOCAL_JUDGE_KEY\n",
        server.url("/v1")
    ))
}

#[test]
fn a_pre_tool_use_prompt_hook_on_a_local_openai_compatible_server_denies_and_ends_the_turn() {
    let server =
        Server::start(|_| openai(r#"{"ok": false, "reason": "it deletes the home directory"}"#));
    let ws = claude_settings(
        openai_ws(&server),
        json!({"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "prompt", "prompt": TOOL_PROMPT, "model": "judge-small"}]}]}),
    );
    ws.approve(TOOL_PROMPT);
    let payload = json!({"tool_name": "bash", "tool_input": {"command": "rm -rf ~"}});
    let fired = fire_env(
        &ws,
        "pre_tool_call",
        payload,
        &[("LOCAL_JUDGE_KEY", "local-key")],
    );
    assert_eq!(fired.decision(), "block");
    assert_eq!(fired.reason(), "it deletes the home directory");
    // Without continueOnBlock, Claude Code ends the turn on a denied call.
    assert_eq!(
        fired.outcome["stop"]["reason"],
        "it deletes the home directory"
    );

    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    let request = &requests[0];
    assert_eq!(request.path, "/v1/chat/completions");
    assert_eq!(request.header("authorization"), Some("Bearer local-key"));
    assert_eq!(request.header("x-api-key"), None);
    let sent = body(request);
    assert_eq!(sent["model"], "judge-small", "the handler's model wins");
    assert_eq!(sent["messages"][0]["role"], "system");
    let user = sent["messages"][1]["content"]
        .as_str()
        .expect("a user message");
    let input: Value = serde_json::from_str(
        user.strip_prefix("Is this command safe to run? ")
            .expect("the prompt"),
    )
    .expect("$ARGUMENTS is the hook input");
    assert_eq!(input["hook_event_name"], "PreToolUse");
    assert_eq!(input["tool_name"], "Bash");
    assert_eq!(input["tool_input"]["command"], "rm -rf ~");
}

#[test]
fn continue_on_block_denies_the_call_without_ending_the_turn() {
    let server = Server::start(|_| openai(r#"{"ok": false, "reason": "use trash instead"}"#));
    let ws = claude_settings(
        openai_ws(&server),
        json!({"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "prompt", "prompt": TOOL_PROMPT, "continueOnBlock": true}]}]}),
    );
    ws.approve(TOOL_PROMPT);
    let payload = json!({"tool_name": "bash", "tool_input": {"command": "rm x"}});
    let fired = fire_env(&ws, "pre_tool_call", payload, &[]);
    assert_eq!(fired.decision(), "block");
    assert_eq!(fired.outcome["stop"], Value::Null);
    let sent = body(&server.requests()[0]);
    assert_eq!(
        sent["model"], "qwen2.5-7b-instruct",
        "llm_judge.model is the default"
    );
    assert_eq!(
        server.requests()[0].header("authorization"),
        None,
        "no key, no header"
    );
}

#[test]
fn shell_hooks_may_be_prompt_hooks_too() {
    let server = Server::start(|request: &Request| {
        let sent: Value = serde_json::from_slice(&request.body).unwrap_or_default();
        let user = sent["messages"][0]["content"].as_str().unwrap_or_default();
        if user.contains("git push --force") {
            anthropic(r#"{"ok": false, "reason": "no force pushes"}"#)
        } else {
            anthropic(r#"{"ok": true}"#)
        }
    });
    let prompt = "Refuse force pushes. Tool call: $ARGUMENTS";
    let ws = anthropic_ws(&server).file(
        "config/shell_hooks.yaml",
        &format!(
            "hooks:\n  - event: pre_tool_call\n    name: push-judge\n    type: prompt\n    prompt: \"{prompt}\"\n    model: claude-sonnet-4-5\n"
        ),
    );
    ws.approve(prompt);
    let push = json!({"tool_name": "bash", "tool_input": {"command": "git push --force"}});
    let fired = fire(&ws, "pre_tool_call", push);
    assert_eq!(fired.decision(), "block");
    assert_eq!(fired.reason(), "no force pushes");
    let ls = fire(
        &ws,
        "pre_tool_call",
        json!({"tool_name": "bash", "tool_input": {"command": "ls"}}),
    );
    assert_eq!(ls.decision(), "continue");
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    let sent = body(&requests[0]);
    assert_eq!(sent["model"], "claude-sonnet-4-5");
    let user = sent["messages"][0]["content"]
        .as_str()
        .expect("a user message");
    let input: Value = serde_json::from_str(
        user.strip_prefix("Refuse force pushes. Tool call: ")
            .expect("the prompt"),
    )
    .expect("the canonical payload");
    assert_eq!(input["event"], "pre_tool_call");
    assert_eq!(input["tool_input"]["command"], "git push --force");
}

fn stop_judge(server: &Server, extra: &str) -> Ws {
    let ws = anthropic_ws(server).file(
        "config/shell_hooks.yaml",
        &format!(
            "hooks:\n  - event: on_stop\n    name: done-judge\n    type: prompt\n    prompt: \"Is the work done? $ARGUMENTS\"\n    timeout: 1\n{extra}"
        ),
    );
    ws.approve("Is the work done? $ARGUMENTS");
    ws
}

#[test]
fn an_http_error_fails_open_and_is_visible() {
    let server = Server::start(|_| {
        let mut r = Response::json(
            r#"{"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}"#,
        );
        r.status = 529;
        r
    });
    let ws = stop_judge(&server, "");
    let fired = fire(&ws, "on_stop", json!({"response": "done"}));
    assert_eq!(fired.decision(), "continue");
    assert_eq!(fired.status("done-judge"), "error");
    let detail = fired.detail("done-judge").to_owned();
    assert!(detail.contains("HTTP 529: Overloaded"), "{detail}");
    assert!(
        fired
            .warnings()
            .iter()
            .any(|w| w.contains("done-judge") && w.contains("HTTP 529")),
        "{:?}",
        fired.warnings()
    );
    let logged = ws.events_of("hook_exec_error");
    assert_eq!(logged.len(), 1, "{logged:?}");
    assert_eq!(logged[0]["hook"], "done-judge");
}

#[test]
fn a_failing_judge_blocks_with_on_error_block() {
    let server = Server::start(|_| Response::status(500));
    let ws = stop_judge(&server, "    on_error: block\n");
    let fired = fire(&ws, "on_stop", json!({"response": "done"}));
    assert_eq!(fired.decision(), "block");
    assert!(fired.reason().contains("done-judge"), "{}", fired.reason());
}

#[test]
fn a_slow_judge_times_out_and_a_refusal_is_an_error() {
    let server = Server::start(|_| {
        anthropic(r#"{"ok": false, "reason": "late"}"#).delay(Duration::from_secs(3))
    });
    let ws = stop_judge(&server, "");
    let fired = fire(&ws, "on_stop", json!({"response": "done"}));
    assert_eq!(fired.decision(), "continue");
    assert_eq!(fired.status("done-judge"), "timeout");
    assert_eq!(ws.events_of("hook_timeout").len(), 1);

    let refusing =
        Server::start(|_| Response::json(r#"{"content": [], "stop_reason": "refusal"}"#));
    let ws = stop_judge(&refusing, "");
    let fired = fire(&ws, "on_stop", json!({"response": "done"}));
    assert_eq!(fired.decision(), "continue");
    assert_eq!(fired.status("done-judge"), "error");
    assert!(
        fired.detail("done-judge").contains("refused"),
        "{}",
        fired.detail("done-judge")
    );
}

#[test]
fn an_answer_that_is_not_a_verdict_is_invalid_output() {
    let server = Server::start(|_| anthropic("Yes, the work looks complete."));
    let ws = stop_judge(&server, "");
    let fired = fire(&ws, "on_stop", json!({"response": "done"}));
    assert_eq!(fired.decision(), "continue");
    assert_eq!(fired.status("done-judge"), "invalid_output");
    assert_eq!(ws.events_of("hook_invalid_json").len(), 1);
}

#[test]
fn without_an_api_key_the_judge_fails_visibly_and_sends_nothing() {
    let server = Server::start(|_| anthropic(r#"{"ok": true}"#));
    let ws = stop_judge(&server, "");
    let fired = fire_env(&ws, "on_stop", json!({"response": "done"}), &[]);
    assert_eq!(fired.status("done-judge"), "error");
    assert!(
        fired
            .detail("done-judge")
            .contains("ANTHROPIC_API_KEY is not set")
    );
    assert!(server.requests().is_empty());
}

#[test]
fn the_approval_binds_the_model_and_the_endpoint() {
    let server = Server::start(|_| anthropic(r#"{"ok": false, "reason": "no"}"#));
    let ws = claude_settings(
        anthropic_ws(&server),
        json!({"Stop": [{"hooks": [{"type": "prompt", "prompt": STOP_PROMPT}]}]}),
    );
    ws.approve(STOP_PROMPT);
    assert_eq!(
        fire(&ws, "on_stop", json!({"response": "x"})).decision(),
        "block"
    );

    let ws = ws.file(
        "config/agent.yaml",
        &format!(
            "shell_hooks:\n  enabled: true\nllm_judge:\n  provider: anthropic\n  base_url: {}\n  model: claude-opus-4-1\n",
            server.url("")
        ),
    );
    let fired = fire(&ws, "on_stop", json!({"response": "x"}));
    assert_eq!(fired.decision(), "continue");
    assert_eq!(fired.detail(STOP_PROMPT), "drift");
    assert!(
        fired
            .warnings()
            .iter()
            .any(|w| w.contains("model changed since approval")),
        "{:?}",
        fired.warnings()
    );
    assert_eq!(server.requests().len(), 1, "a drifted judge is not asked");
}

#[test]
fn prompt_hooks_on_events_claude_code_does_not_judge_are_refused() {
    let ws = claude_settings(
        judge_ws("  provider: anthropic\n"),
        json!({"SessionStart": [{"hooks": [{"type": "prompt", "prompt": "Greet"}]}],
               "Stop": [{"hooks": [{"type": "agent", "prompt": "Run the tests"}]}]}),
    );
    let list: Value =
        serde_json::from_slice(&ws.run(&["list", "--json"]).stdout).expect("list --json");
    let file = list["files"]
        .as_array()
        .and_then(|f| f.iter().find(|f| f["file"] == ".claude/settings.json"))
        .expect("the settings file");
    let text = file.to_string();
    assert!(
        text.contains("prompt hooks do not run on SessionStart"),
        "{text}"
    );
    assert!(text.contains("type \\\"agent\\\""), "{text}");
}
