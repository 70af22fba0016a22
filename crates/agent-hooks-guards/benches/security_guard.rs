//! security_guard in-process on a ~10 KB pre_tool_call payload: the cost every tool call
//! pays when the guard is built in. Target: under 50 µs.

use std::hint::black_box;

use agent_hooks_guards::{Guard, GuardContext};
use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;

#[path = "common/payloads.rs"]
mod payloads;
use payloads::{dense_command, heredoc_command};

fn bench(c: &mut Criterion) {
    let Ok(guard) = Guard::with_defaults("security_guard") else {
        return;
    };
    let mut ctx = GuardContext::in_memory(std::env::temp_dir());
    for (label, command) in [
        ("heredoc 10KB", heredoc_command()),
        ("dense 10KB", dense_command()),
    ] {
        let payload = json!({
            "event": "pre_tool_call",
            "session_id": "bench",
            "tool_name": "bash",
            "tool_input": {"command": command},
        });
        c.bench_function(&format!("security_guard pre_tool_call {label}"), |b| {
            b.iter(|| guard.evaluate("pre_tool_call", black_box(&payload), &mut ctx));
        });
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
