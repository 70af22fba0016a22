//! What a dispatch costs (the performance targets of the engine's first issue):
//!
//! - `dispatch/ten_hooks_none_matching`: ten declared hooks whose matchers all miss — the cost
//!   an agent pays on every tool call that no hook cares about. Target: under 2 µs.
//! - `spawn/engine_dispatch` vs `spawn/std_process_direct`: one command hook running a tiny
//!   compiled program (`hook-echo` from `test-helpers`), against spawning that program directly
//!   with `std::process` and piping it the same payload, in the same run. Target: the engine's
//!   overhead is at most 10%.
//! - `trust/hash_10k_script` and `trust/check_10k_script`: what the trust gate adds to every
//!   dispatch of an approved hook whose script is 10 KB — the SHA-256 of the script alone, and
//!   the whole check (reading the command, resolving its program, hashing). Target: the hash
//!   under 20 µs.
//!
//! - `builtin/security_guard_ls`: one approved built-in guard answering a short `pre_tool_call`
//!   in-process, on the thread of its own that its time budget needs.
//!
//! Run: `cargo bench -p agent-hooks-runtime --bench dispatch`. The spawn cases end with 400 alternating
//! rounds of the two (printed as `spawn/interleaved`); `INTERLEAVED_ROUNDS=N` changes their
//! number and `0` leaves them out. `benches/dispatch_instructions.sh` counts the instructions of
//! the first case with callgrind, which the machine's load does not change.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use agent_hooks_runtime::internals::{TrustCheck, hash_file};
use agent_hooks_runtime::{Engine, Event, Workspace, complete_payload};
use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use serde_json::{Map, Value, json};

fn runtime() -> tokio::runtime::Runtime {
    // The same runtime flavour as the `agent-hooks` binary.
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime")
}

fn payload() -> Map<String, Value> {
    match json!({
        "tool_name": "bash",
        "tool_input": {"command": "ls -la src/", "description": "list the sources"},
        "session_id": "bench-session",
    }) {
        Value::Object(map) => map,
        _ => unreachable!("a JSON object literal"),
    }
}

fn workspace(yaml: &str) -> (tempfile::TempDir, Engine) {
    let dir = tempfile::tempdir().expect("a temporary workspace");
    let config = dir.path().join("config");
    std::fs::create_dir_all(&config).expect("config/");
    std::fs::write(config.join("agent.yaml"), "shell_hooks:\n  enabled: true\n")
        .expect("agent.yaml");
    std::fs::write(config.join("shell_hooks.yaml"), yaml).expect("shell_hooks.yaml");
    let engine = Engine::open(Workspace::new(dir.path()));
    (dir, engine)
}

fn ten_hooks_none_matching(c: &mut Criterion) {
    let patterns = [
        "rm -rf",
        "mkfs",
        "dd if=",
        "chmod 777",
        "curl .*\\| *sh",
        "shutdown",
        "reboot",
        "git push --force",
        "DROP TABLE",
        "sudo ",
    ];
    let mut yaml = String::from("hooks:\n");
    for (i, pattern) in patterns.iter().enumerate() {
        yaml.push_str(&format!(
            "  - name: guard{i}\n    event: pre_tool_call\n    matcher: {}\n    command: /nonexistent/guard{i}.py\n",
            json!(pattern)
        ));
    }
    let (_dir, engine) = workspace(&yaml);
    assert_eq!(engine.snapshot().hook_count(Event::PreToolCall), 10);

    let rt = runtime();
    let outcome = rt.block_on(engine.dispatch(Event::PreToolCall, payload()));
    assert!(
        outcome
            .hooks
            .iter()
            .all(|h| h.detail.as_deref() == Some("no match")),
        "every hook must miss: {:?}",
        outcome.hooks
    );

    let mut group = c.benchmark_group("dispatch");
    group.bench_function("ten_hooks_none_matching", |b| {
        b.to_async(&rt).iter_batched(
            payload,
            |p| engine.dispatch(Event::PreToolCall, p),
            BatchSize::SmallInput,
        );
    });
    group.finish();
}

/// `target/<profile>/hook-echo`, built on demand when the bench runs before the helper was built.
fn hook_echo() -> PathBuf {
    let exe = std::env::current_exe().expect("the bench's own path");
    // target/<profile>/deps/dispatch-<hash> → target/<profile>/hook-echo
    let profile_dir = exe
        .parent()
        .and_then(Path::parent)
        .expect("the bench runs from target/<profile>/deps");
    let helper = profile_dir.join("hook-echo");
    if !helper.is_file() {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let status = Command::new(cargo)
            .args([
                "build",
                "--release",
                "-p",
                "test-helpers",
                "--bin",
                "hook-echo",
            ])
            .status()
            .expect("run cargo build for hook-echo");
        assert!(status.success(), "cannot build hook-echo");
    }
    assert!(helper.is_file(), "{} is missing", helper.display());
    helper
}

fn command_hook_vs_direct_spawn(c: &mut Criterion) {
    let helper = hook_echo();
    let command = helper.to_str().expect("a UTF-8 path").to_owned();
    let yaml = format!(
        "hooks:\n  - name: echo\n    event: pre_tool_call\n    command: {}\n",
        json!(command)
    );
    let (dir, engine) = workspace(&yaml);
    engine.approve(None, &command).expect("approve the helper");

    let rt = runtime();
    let outcome = rt.block_on(engine.dispatch(Event::PreToolCall, payload()));
    assert_eq!(
        outcome.hooks.first().map(|h| h.status.as_str()),
        Some("noop"),
        "the helper must run and answer {{}}: {:?}",
        outcome.hooks
    );

    // Exactly the bytes the engine writes to the hook's stdin.
    let mut completed = payload();
    let root = std::fs::canonicalize(dir.path()).expect("canonical workspace");
    complete_payload(Event::PreToolCall, &mut completed, &root.to_string_lossy());
    let mut stdin_bytes = serde_json::to_vec(&completed).expect("serialise the payload");
    stdin_bytes.push(b'\n');

    let mut group = c.benchmark_group("spawn");
    group.bench_function("engine_dispatch", |b| {
        b.to_async(&rt).iter_batched(
            payload,
            |p| engine.dispatch(Event::PreToolCall, p),
            BatchSize::SmallInput,
        );
    });
    let direct = || {
        let mut child = Command::new(&helper)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn hook-echo");
        let mut stdin = child.stdin.take().expect("stdin is piped");
        stdin.write_all(&stdin_bytes).expect("write the payload");
        drop(stdin);
        let out = child.wait_with_output().expect("wait for hook-echo");
        assert_eq!(out.stdout, b"{}\n");
        out
    };
    group.bench_function("std_process_direct", |b| b.iter(direct));
    group.finish();

    // Criterion measures the two one after the other, so a machine whose load changes between
    // them skews the ratio. Alternating single calls and comparing medians cancels that out.
    // `INTERLEAVED_ROUNDS=0` leaves it out (a filtered or profiled run of another case).
    let rounds = match std::env::var("INTERLEAVED_ROUNDS") {
        Ok(n) => n
            .parse::<usize>()
            .expect("INTERLEAVED_ROUNDS is a number of rounds"),
        Err(_) => 400,
    };
    if rounds == 0 {
        return;
    }
    let (mut through_engine, mut directly) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        let started = Instant::now();
        rt.block_on(engine.dispatch(Event::PreToolCall, payload()));
        through_engine.push(started.elapsed());
        let started = Instant::now();
        direct();
        directly.push(started.elapsed());
    }
    let (engine_median, direct_median) = (median(&mut through_engine), median(&mut directly));
    println!(
        "spawn/interleaved ({rounds} alternating rounds): engine median {engine_median:?}, direct median {direct_median:?}, overhead {:+.1}%",
        (engine_median.as_secs_f64() / direct_median.as_secs_f64() - 1.0) * 100.0
    );
}

fn median(samples: &mut [Duration]) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn trust_check_of_a_10k_script(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("a temporary workspace");
    let root = dir.path().canonicalize().expect("canonical");
    let script = root.join("hook.sh");
    let mut text = String::from("#!/bin/sh\nexit 0\n");
    while text.len() < 10 * 1024 {
        text.push_str("# padding to a realistic script size\n");
    }
    std::fs::write(&script, text).expect("hook.sh");
    std::fs::create_dir_all(root.join("config")).expect("config/");
    std::fs::write(
        root.join("config/shell_hooks.yaml"),
        format!(
            "hooks:\n  - event: pre_tool_call\n    command: sh {}\n",
            script.display()
        ),
    )
    .expect("shell_hooks.yaml");
    let engine = Engine::open(Workspace::new(&root));
    let command = format!("sh {}", script.display());
    engine.approve(None, &command).expect("approve");
    let check = TrustCheck::first_hook(&engine, Event::PreToolCall).expect("the hook");
    assert!(check.approved());

    let mut group = c.benchmark_group("trust");
    group.bench_function("hash_10k_script", |b| {
        b.iter(|| hash_file(&script).expect("hash"))
    });
    group.bench_function("check_10k_script", |b| b.iter(|| check.approved()));
    group.finish();
}

fn builtin_guard(c: &mut Criterion) {
    let (_dir, engine) = workspace(
        "hooks:\n  - event: pre_tool_call\n    type: builtin\n    name: security_guard\n",
    );
    engine
        .approve(None, "builtin:security_guard")
        .expect("approve the guard");
    let rt = runtime();
    let outcome = rt.block_on(engine.dispatch(Event::PreToolCall, payload()));
    assert_eq!(outcome.hooks.len(), 1);
    assert_eq!(
        outcome.hooks[0].status.as_str(),
        "noop",
        "{:?}",
        outcome.hooks
    );
    let mut group = c.benchmark_group("builtin");
    group.bench_function("security_guard_ls", |b| {
        b.to_async(&rt).iter_batched(
            payload,
            |p| engine.dispatch(Event::PreToolCall, p),
            BatchSize::SmallInput,
        );
    });
    group.finish();
}

criterion_group!(
    benches,
    builtin_guard,
    ten_hooks_none_matching,
    command_hook_vs_direct_spawn,
    trust_check_of_a_10k_script
);
criterion_main!(benches);
