//! The Claude Code bridge (`agent-hooks claude-hook`) on any stdin: the bytes are read as
//! the command does (one JSON value) and handed to `bridge::handle` on a workspace with one
//! approved in-process guard, so every mapped event is dispatched for real.
//!
//! Invariants: nothing panics or hangs; an input the bridge cannot use is an error that says
//! why; an answer exits 0 and its stdout is empty ("no opinion") or one JSON object.

#![no_main]

use std::sync::LazyLock;

use agent_hooks_runtime::{Engine, Workspace, bridge};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

struct Bridged {
    _dir: tempfile::TempDir,
    engine: Engine,
    rt: tokio::runtime::Runtime,
}

/// One workspace for every input (opening one per input would measure the file system): a
/// security_guard on every event it takes, declared and approved.
static BRIDGED: LazyLock<Bridged> = LazyLock::new(|| {
    let dir = tempfile::tempdir().expect("tempdir");
    let config = dir.path().join("config");
    std::fs::create_dir_all(&config).expect("config dir");
    let mut yaml = String::from("hooks:\n");
    for event in [
        "on_user_message",
        "pre_tool_call",
        "transform_tool_result",
        "on_stop",
    ] {
        yaml.push_str(&format!(
            "  - event: {event}\n    type: builtin\n    name: security_guard\n"
        ));
    }
    std::fs::write(config.join("shell_hooks.yaml"), yaml).expect("shell_hooks.yaml");
    let engine = Engine::open(Workspace::new(dir.path()));
    engine.set_master(true).expect("master on");
    engine
        .approve(None, "builtin:security_guard")
        .expect("approve the guard");
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    Bridged {
        _dir: dir,
        engine,
        rt,
    }
});

fuzz_target!(|data: &[u8]| {
    let Ok(input) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    let b = &*BRIDGED;
    match b.rt.block_on(bridge::handle(&b.engine, &input)) {
        Err(e) => assert!(!e.to_string().is_empty(), "an error without a message"),
        Ok(answer) => {
            assert_eq!(answer.exit, 0, "decisions travel in stdout");
            if !answer.stdout.is_empty() {
                let value: Value =
                    serde_json::from_str(&answer.stdout).expect("the answer is JSON");
                assert!(
                    value.is_object(),
                    "the answer is an object: {}",
                    answer.stdout
                );
            }
        }
    }
});
