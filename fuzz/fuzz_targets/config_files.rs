//! A workspace's configuration files, as the engine loads them: byte 0 picks the file —
//! `config/shell_hooks.yaml`, `config/agent.yaml`, a skill's `hooks.json` or Claude Code's
//! `.claude/settings.json` — and the rest is its content (any bytes).
//!
//! Invariants: nothing panics or hangs; every configuration error names its file, says what
//! is wrong, and points at a line the file has. Per file:
//! - `shell_hooks.yaml` replaces one that loaded a hook: whatever it says, the workspace is
//!   left with no hooks only when the new text declares a `hooks` list (a file caught
//!   mid-write keeps the last good hooks);
//! - `agent.yaml`: turning the master switch on either refuses and leaves the file byte for
//!   byte as it was, or turns it on and keeps every other key and value.

#![no_main]

use std::path::Path;

use agent_hooks_runtime::{EVENTS, Engine, Workspace};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

const GOOD_SHELL_HOOKS: &str =
    "hooks:\n  - name: good\n    event: pre_tool_call\n    command: /bin/true\n";

fn write(root: &Path, relative: &str, bytes: &[u8]) {
    let path = root.join(relative);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("create the file's directory");
    }
    std::fs::write(path, bytes).expect("write the file");
}

fn hook_total(engine: &Engine) -> usize {
    let snapshot = engine.snapshot();
    EVENTS
        .iter()
        .map(|spec| snapshot.hook_count(spec.event))
        .sum()
}

/// Every error is located in a file of the workspace, says something, and points at a line
/// the file has (0: not tied to a line). Lines end as YAML 1.2 (and most editors) end them:
/// at LF, CRLF, or a lone CR.
fn check_errors(engine: &Engine, relative: &str, bytes: &[u8]) {
    let lone_crs = bytes
        .iter()
        .enumerate()
        .filter(|&(i, &b)| b == b'\r' && bytes.get(i + 1) != Some(&b'\n'))
        .count();
    let lines = (bytes.split(|b| *b == b'\n').count() + lone_crs) as u64;
    for error in engine.snapshot().errors() {
        assert!(
            !error.file().is_empty() && !error.message().is_empty(),
            "{error}"
        );
        if error.file() == relative
            && let Some(location) = error.location()
        {
            assert!(
                location.line() <= lines + 1,
                "{error}: the file has {lines} lines"
            );
        }
    }
}

/// A YAML document as agent-hooks parses it, without `shell_hooks.enabled` (and without a
/// `shell_hooks` section that is empty or held nothing else).
fn without_switch(text: &str) -> Option<Value> {
    let mut doc = serde_saphyr::from_str::<Option<Value>>(text)
        .ok()?
        .unwrap_or(Value::Null);
    if doc.is_null() {
        doc = Value::Object(serde_json::Map::new());
    }
    if let Value::Object(map) = &mut doc {
        match map.get_mut("shell_hooks") {
            Some(Value::Object(section)) => {
                section.remove("enabled");
                if section.is_empty() {
                    map.remove("shell_hooks");
                }
            }
            Some(Value::Null) => {
                map.remove("shell_hooks");
            }
            _ => {}
        }
    }
    Some(doc)
}

/// Whether a YAML text declares a `hooks` list, read with the parser agent-hooks uses.
fn declares_hooks(text: &str) -> bool {
    serde_saphyr::from_str::<Value>(text)
        .ok()
        .is_some_and(|doc| doc.get("hooks").is_some_and(Value::is_array))
}

fuzz_target!(|data: &[u8]| {
    let Some((&pick, bytes)) = data.split_first() else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    match pick % 4 {
        0 => {
            let relative = "config/shell_hooks.yaml";
            write(root, relative, GOOD_SHELL_HOOKS.as_bytes());
            let before = Engine::open(Workspace::new(root));
            assert_eq!(hook_total(&before), 1, "the good file loads its hook");
            write(root, relative, bytes);
            let engine = Engine::open(Workspace::new(root));
            check_errors(&engine, relative, bytes);
            if hook_total(&engine) == 0 {
                let text = std::str::from_utf8(bytes).unwrap_or("");
                assert!(
                    declares_hooks(text),
                    "no hooks left, and the text declares no hooks list: {text:?}"
                );
            }
        }
        1 => {
            // The engine is opened first, so its event log stays in the workspace whatever
            // `logs.events` the fuzzed file names.
            let relative = "config/agent.yaml";
            let engine = Engine::open(Workspace::new(root));
            write(root, relative, bytes);
            engine.reload();
            check_errors(&engine, relative, bytes);
            let switched = engine.set_master(true);
            let after = std::fs::read(root.join(relative)).expect("agent.yaml is still there");
            match switched {
                Err(e) => {
                    assert_eq!(after, bytes, "refused ({e}) but the file changed");
                }
                Ok(()) => {
                    assert!(engine.snapshot().master_enabled(), "on, but read as off");
                    let before = without_switch(&String::from_utf8_lossy(bytes));
                    let after_text = String::from_utf8(after).expect("agent-hooks writes UTF-8");
                    let after = without_switch(&after_text);
                    assert!(
                        after.is_some(),
                        "the switched file does not parse: {after_text:?}"
                    );
                    assert_eq!(before, after, "turning the switch on changed other keys");
                }
            }
        }
        2 => {
            let relative = "skills/fuzz/hooks.json";
            write(root, relative, bytes);
            check_errors(&Engine::open(Workspace::new(root)), relative, bytes);
        }
        _ => {
            let relative = ".claude/settings.json";
            write(root, relative, bytes);
            check_errors(&Engine::open(Workspace::new(root)), relative, bytes);
        }
    }
});
