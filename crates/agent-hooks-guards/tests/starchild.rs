//! Starchild's template selftests, replayed on the built-in guards in-process
//! (`Guard::evaluate`, state in a directory as `agent-hooks guard` keeps it). The tables and
//! their format are described in `starchild/table.rs`; the CLI tests replay the same tables
//! through `agent-hooks guard <name>`, including the raw-input cases this runner skips.

#[path = "starchild/table.rs"]
mod table;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, UNIX_EPOCH};

use agent_hooks_guards::{Guard, GuardContext};
use serde_json::Value;

/// Where the credit stub would be; in-process the lookup is answered without a network.
const CREDIT_URL: &str = "http://127.0.0.1:9/credits";

fn run_case(guard_name: &str, case: &Value) -> Result<(), String> {
    let rules = table::rules(case, CREDIT_URL);
    let guard = Guard::new(guard_name, rules.as_deref()).map_err(|e| format!("rules: {e}"))?;
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    table::write_files(case, dir.path());
    let clock = Arc::new(AtomicU64::new(table::now()));
    let tick = Arc::clone(&clock);
    let mut ctx = GuardContext::in_dir(dir.path(), dir.path().join("state"))
        .with_clock(move || UNIX_EPOCH + Duration::from_secs(tick.load(Ordering::SeqCst)));
    let credit_up = case["credit"] == "ok";
    ctx = ctx.with_balance(move |url| {
        (credit_up && url == CREDIT_URL).then(|| table::CREDIT_BODY.to_owned())
    });
    let steps = table::steps(case);
    let last = steps.len() - 1;
    for (i, (event, payload, expect)) in steps.iter().enumerate() {
        if i == last {
            clock.fetch_add(case["advance"].as_u64().unwrap_or(0), Ordering::SeqCst);
        }
        let answer = guard.evaluate(event, payload, &mut ctx);
        table::check(expect, &answer)
            .map_err(|why| format!("step {i}: {why}; answer: {answer}"))?;
    }
    Ok(())
}

#[test]
fn starchild_selftests_hold_on_the_builtins_in_process() {
    let mut failures = Vec::new();
    let mut ran = 0;
    for table in table::tables() {
        match table::score(&table) {
            Ok(line) => eprintln!("{line}"),
            Err(why) => failures.push(why),
        }
        for case in &table.cases {
            if case.get("stdin").is_some() {
                continue;
            }
            ran += 1;
            if let Err(why) = run_case(&table.guard, case) {
                failures.push(format!("{} / {}: {why}", table.guard, case["name"]));
            }
        }
    }
    assert!(ran > 150, "only {ran} cases ran");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
