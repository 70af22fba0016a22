//! security_guard in-process on a ~10 KB pre_tool_call payload: the cost every tool call
//! pays when the guard is built in. Target: under 50 µs.

use std::hint::black_box;

use agent_hooks_guards::{Guard, GuardContext};
use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;

/// A realistic long shell command: a build script with pipelines, quotes, comments,
/// a heredoc writing a file, and substitutions — about 10 KB, none of it dangerous.
fn ten_kb_command() -> String {
    let mut script = String::from("#!/usr/bin/env bash\nset -euo pipefail\n");
    let mut i = 0;
    while script.len() < 9_000 {
        script.push_str(&format!(
            "echo \"step {i}: building\" && cargo build --release -p crate_{i} 2>&1 | tee -a build.log\n\
             grep -rn 'rm -rf /' src/ || true  # look for dangerous snippets\n\
             export VERSION_{i}=\"$(git rev-parse --short HEAD)\"; ls -la target/release | head -n 5\n"
        ));
        i += 1;
    }
    script.push_str("cat > notes.md <<'EOF'\n");
    while script.len() < 10_200 {
        script.push_str("This heredoc mentions rm -rf / and curl -d @.env but only as text.\n");
    }
    script.push_str("EOF\n");
    script
}

fn bench(c: &mut Criterion) {
    let Ok(guard) = Guard::with_defaults("security_guard") else {
        return;
    };
    let payload = json!({
        "event": "pre_tool_call",
        "session_id": "bench",
        "tool_name": "bash",
        "tool_input": {"command": ten_kb_command()},
    });
    let mut ctx = GuardContext::in_memory(std::env::temp_dir());
    c.bench_function("security_guard pre_tool_call 10KB", |b| {
        b.iter(|| guard.evaluate("pre_tool_call", black_box(&payload), &mut ctx));
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
