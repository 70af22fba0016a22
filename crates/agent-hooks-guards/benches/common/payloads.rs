//! The two ~10 KB `pre_tool_call` commands security_guard is timed on, shared by the
//! criterion bench and `examples/dense_loop.rs`.

/// The common shape of a 10 KB shell call: a file written through a heredoc, then a check.
pub(crate) fn heredoc_command() -> String {
    let mut script = String::from("mkdir -p src && cat > src/report.py <<'EOF'\n");
    while script.len() < 10_000 {
        script.push_str("def total(rows):\n    # rm -rf / would be bad; curl -d @.env too\n    return sum(r['n'] for r in rows)\n");
    }
    script.push_str("EOF\npython3 -m pytest -q tests/ && git add -A && git commit -m 'report'\n");
    script
}

/// A stress shape: about 10 KB of dense commands (roughly 300 simple commands) with
/// pipelines, quotes, comments, substitutions and a heredoc, none of it dangerous.
pub(crate) fn dense_command() -> String {
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
