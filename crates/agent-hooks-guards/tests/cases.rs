//! Replays the case tables in `tests/cases/*.json` through `Guard::evaluate`, once with
//! in-memory state and once with state in a directory, so both stores behave alike.
//! The same files are meant to be replayed through `agent-hooks guard <name>` by the CLI tests.
//!
//! A case: `{name, guard, event, payload, expect, before?, files?, rules?, advance?, balance?,
//! file_contains?}`. `expect` may hold `decision`, `quiet` (answer is `{}`), `contains` /
//! `not_contains` (over the answer's string values), `masked` (a rewrite carrying a
//! redaction marker) and `field` (the answer has that key). `before` lists events run first
//! in the same session, each with an optional `advance` of the clock in seconds.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use agent_hooks_guards::{Guard, GuardContext};
use serde_json::Value;

const START: u64 = 1_700_000_000;

fn strings(value: &Value, out: &mut String) {
    match value {
        Value::String(s) => {
            out.push_str(s);
            out.push('\n');
        }
        Value::Array(items) => items.iter().for_each(|v| strings(v, out)),
        Value::Object(map) => map.values().for_each(|v| strings(v, out)),
        _ => {}
    }
}

fn run_case(case: &Value, in_dir: bool) -> Result<(), String> {
    let name = case["name"].as_str().unwrap_or("?");
    let guard_name = case["guard"].as_str().ok_or("case without guard")?;
    let guard = Guard::new(guard_name, case.get("rules").and_then(Value::as_str))
        .map_err(|e| format!("rules: {e}"))?;
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let workspace = dir.path();
    if let Some(files) = case.get("files").and_then(Value::as_object) {
        for (path, content) in files {
            let path = workspace.join(path);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent).map_err(|e| e.to_string())?;
            }
            std::fs::write(&path, content.as_str().unwrap_or_default())
                .map_err(|e| e.to_string())?;
        }
    }
    let clock = Arc::new(AtomicU64::new(START));
    let tick = Arc::clone(&clock);
    let mut ctx = if in_dir {
        GuardContext::in_dir(workspace, workspace.join("state"))
    } else {
        GuardContext::in_memory(workspace)
    }
    .with_clock(move || UNIX_EPOCH + Duration::from_secs(tick.load(Ordering::SeqCst)));
    if let Some(balance) = case.get("balance") {
        let balance = balance.as_str().map(str::to_owned);
        ctx = ctx.with_balance(move |_| balance.clone());
    }
    let session = Value::String(format!("session-{name}"));
    let with_session = |payload: &Value| {
        let mut payload = payload.clone();
        if let Some(map) = payload.as_object_mut() {
            map.entry("session_id").or_insert_with(|| session.clone());
        }
        payload
    };
    for step in case
        .get("before")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        clock.fetch_add(step["advance"].as_u64().unwrap_or(0), Ordering::SeqCst);
        let event = step["event"].as_str().unwrap_or_default();
        guard.evaluate(event, &with_session(&step["payload"]), &mut ctx);
    }
    clock.fetch_add(case["advance"].as_u64().unwrap_or(0), Ordering::SeqCst);
    let event = case["event"].as_str().unwrap_or_default();
    let answer = guard.evaluate(event, &with_session(&case["payload"]), &mut ctx);
    check(&case["expect"], &answer, workspace, case)
        .map_err(|why| format!("{why}; answer: {answer}"))?;
    let _ = SystemTime::now();
    Ok(())
}

fn check(expect: &Value, answer: &Value, workspace: &Path, case: &Value) -> Result<(), String> {
    let mut text = String::new();
    strings(answer, &mut text);
    if expect["quiet"].as_bool() == Some(true) && answer != &serde_json::json!({}) {
        return Err("expected {}".into());
    }
    if let Some(decision) = expect["decision"].as_str()
        && answer["decision"].as_str() != Some(decision)
    {
        return Err(format!("expected decision {decision}"));
    }
    if let Some(needle) = expect["contains"].as_str()
        && !text.contains(needle)
    {
        return Err(format!("expected the answer to contain {needle:?}"));
    }
    if let Some(needle) = expect["not_contains"].as_str()
        && text.contains(needle)
    {
        return Err(format!("expected the answer not to contain {needle:?}"));
    }
    if let Some(field) = expect["field"].as_str()
        && answer.get(field).is_none()
    {
        return Err(format!("expected field {field:?}"));
    }
    if expect["masked"].as_bool() == Some(true) {
        let rewrote = ["response", "notification", "tool_input", "message"]
            .iter()
            .any(|k| answer.get(*k).is_some());
        if !rewrote || !text.to_lowercase().contains("redacted") {
            return Err("expected a masked rewrite".into());
        }
    }
    if let Some(file) = case.get("file_contains") {
        let path = workspace.join(file["path"].as_str().unwrap_or_default());
        let content = std::fs::read_to_string(&path).unwrap_or_default();
        for needle in file["contains"].as_array().into_iter().flatten() {
            let needle = needle.as_str().unwrap_or_default();
            if !content.contains(needle) {
                return Err(format!("expected {} to contain {needle:?}", path.display()));
            }
        }
        if let Some(lines) = file["lines"].as_u64()
            && content.lines().count() as u64 != lines
        {
            return Err(format!("expected {lines} lines in {}", path.display()));
        }
    }
    Ok(())
}

fn replay(guard: &str, minimum: usize) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/cases/{guard}.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    let table: Value = serde_json::from_str(&text).unwrap_or_default();
    let cases = table["cases"].as_array().cloned().unwrap_or_default();
    assert!(
        cases.len() >= minimum,
        "{guard}: {} cases, want at least {minimum}",
        cases.len()
    );
    let mut failures = Vec::new();
    for case in &cases {
        for in_dir in [false, true] {
            if let Err(why) = run_case(case, in_dir) {
                let store = if in_dir { "dir" } else { "memory" };
                failures.push(format!("{} [{store}]: {why}", case["name"]));
            }
        }
    }
    assert!(failures.is_empty(), "{guard}:\n{}", failures.join("\n"));
}

#[test]
fn security_guard_cases() {
    replay("security_guard", 40);
}

#[test]
fn security_guard_interpreter_cases() {
    replay("security_guard.interpreters", 100);
}

#[test]
fn security_guard_wrapper_cases() {
    replay("security_guard.wrappers", 80);
}

#[test]
fn security_guard_lost_work_cases() {
    replay("security_guard.lost_work", 120);
}

#[test]
fn security_guard_machine_cases() {
    replay("security_guard.machine", 50);
}

#[test]
fn security_guard_credential_cases() {
    replay("security_guard.credentials", 50);
}

/// The suggested `pre_tool_call` matcher is a pre-filter: a command it skips is never
/// checked, so every command the tables refuse must get through it.
#[test]
fn security_guard_matcher_lets_every_refused_command_through() {
    let matcher = agent_hooks_guards::guard_info("security_guard")
        .and_then(|info| info.events.iter().find(|e| e.event == "pre_tool_call"))
        .and_then(|event| event.matcher)
        .expect("security_guard suggests a pre_tool_call matcher");
    let matcher = regex::Regex::new(matcher).expect("the matcher compiles");
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases");
    let mut missed = Vec::new();
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir)
        .expect("the case directory")
        .flatten()
    {
        let name = entry.file_name().to_string_lossy().into_owned();
        if !name.starts_with("security_guard") {
            continue;
        }
        let text = std::fs::read_to_string(entry.path()).unwrap_or_default();
        let table: Value = serde_json::from_str(&text).unwrap_or_default();
        for case in table["cases"].as_array().into_iter().flatten() {
            let refused = matches!(case["expect"]["decision"].as_str(), Some("block" | "ask"));
            if case["event"] != "pre_tool_call" || !refused {
                continue;
            }
            // The match text: the payload's strings without the common fields (`docs/protocol.md`).
            let mut payload = case["payload"].clone();
            if let Some(map) = payload.as_object_mut() {
                for common in ["event", "session_id", "agent_id", "cwd"] {
                    map.remove(common);
                }
            }
            let mut text = String::new();
            strings(&payload, &mut text);
            checked += 1;
            if !matcher.is_match(&text) {
                missed.push(format!("{name}: {}", case["name"]));
            }
        }
    }
    assert!(checked > 300, "only {checked} refused cases found");
    assert!(
        missed.is_empty(),
        "the matcher skips:\n{}",
        missed.join("\n")
    );
}

#[test]
fn verify_publish_claims_cases() {
    replay("verify_publish_claims", 15);
}

#[test]
fn verify_code_changes_cases() {
    replay("verify_code_changes", 15);
}

#[test]
fn verify_commitments_cases() {
    replay("verify_commitments", 15);
}

#[test]
fn runtime_footer_cases() {
    replay("runtime_footer", 15);
}

#[test]
fn pii_redactor_cases() {
    replay("pii_redactor", 15);
}

#[test]
fn tool_audit_log_cases() {
    replay("tool_audit_log", 15);
}

#[test]
fn budget_alert_cases() {
    replay("budget_alert", 15);
}

#[test]
fn inject_reminder_cases() {
    replay("inject_reminder", 15);
}
