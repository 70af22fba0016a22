//! security_guard in-process on a ~10 KB pre_tool_call payload: the cost every tool call
//! pays when the guard is built in. Target: under 50 µs.

use std::hint::black_box;

use agent_hooks_guards::{Guard, GuardContext};
use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;

/// The common shape of a 10 KB shell call: a file written through a heredoc, then a check.
fn heredoc_command() -> String {
    let mut script = String::from("mkdir -p src && cat > src/report.py <<'EOF'\n");
    while script.len() < 10_000 {
        script.push_str("def total(rows):\n    # rm -rf / would be bad; curl -d @.env too\n    return sum(r['n'] for r in rows)\n");
    }
    script.push_str("EOF\npython3 -m pytest -q tests/ && git add -A && git commit -m 'report'\n");
    script
}

/// A stress shape: about 10 KB of dense commands (roughly 300 simple commands) with
/// pipelines, quotes, comments, substitutions and a heredoc, none of it dangerous.
fn dense_command() -> String {
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
