//! Past a limit of its own, security_guard never answers "not blocked": code nested deeper
//! than it reads is an `ask` whose reason says so, and the limit is reported beside it.

use agent_hooks_guards::{Guard, GuardContext};
use serde_json::{Value, json};

fn assess(command: &str) -> agent_hooks_guards::Assessment {
    let guard = Guard::with_defaults("security_guard").expect("the defaults build");
    let mut ctx = GuardContext::dry_run(std::env::temp_dir());
    guard.assess(
        "pre_tool_call",
        &json!({"tool_name": "bash", "tool_input": {"command": command}}),
        &mut ctx,
    )
}

#[test]
fn a_command_nested_past_the_guards_depth_asks_and_names_the_limit() {
    let assessed = assess("echo $($($($($($(rm -rf /))))))");
    assert_eq!(assessed.answer["decision"], "ask", "{:?}", assessed.answer);
    let reason = assessed.answer["reason"].as_str().unwrap_or_default();
    assert!(reason.contains("nested more than 5 levels"), "{reason}");
    assert_eq!(assessed.limit.as_deref(), Some(reason));
}

#[test]
fn nesting_within_the_depth_is_read_and_judged_by_the_rules() {
    let assessed = assess("echo $($($(rm -rf /)))");
    assert_eq!(
        assessed.answer["decision"], "block",
        "{:?}",
        assessed.answer
    );
    assert_eq!(assessed.limit, None);
}

#[test]
fn a_block_found_beside_deep_nesting_still_blocks() {
    let assessed = assess("rm -rf / ; echo $($($($($($(ls))))))");
    assert_eq!(assessed.answer["decision"], "block");
    assert_eq!(assessed.limit, None);
}

#[test]
fn the_limit_never_reaches_a_printed_answer() {
    let guard = Guard::with_defaults("security_guard").expect("the defaults build");
    let mut ctx = GuardContext::dry_run(std::env::temp_dir());
    let answer = guard.evaluate(
        "pre_tool_call",
        &json!({"tool_name": "bash", "tool_input": {"command": "echo $($($($($($(x))))))"}}),
        &mut ctx,
    );
    let Value::Object(map) = answer else {
        panic!("an object");
    };
    let keys: Vec<&String> = map.keys().collect();
    assert_eq!(keys, ["decision", "reason"]);
}

#[test]
fn an_aliased_tool_is_guarded_as_the_tool_it_stands_for() {
    let guard = Guard::with_defaults("security_guard").expect("the defaults build");
    let mut ctx = GuardContext::dry_run(std::env::temp_dir());
    let call = |aliases: Value| {
        let mut payload = json!({"tool_name": "shell_exec", "tool_input": {"command": "rm -rf /"}});
        payload[agent_hooks_guards::TOOL_ALIASES_KEY] = aliases;
        payload
    };
    let plain = guard.evaluate("pre_tool_call", &call(json!({})), &mut ctx);
    assert_eq!(plain, json!({}), "shell_exec is no shell tool of its own");
    let aliased = guard.evaluate(
        "pre_tool_call",
        &call(json!({"shell_exec": "Bash"})),
        &mut ctx,
    );
    assert_eq!(aliased["decision"], "block", "{aliased}");
}
