//! A throwaway workspace for the trust gate's attacks, shared by the runtime's trust tests and
//! the sidecar's (`crates/agent-hooks-server/tests/trust.rs`): each binary uses its own part.
#![allow(
    dead_code,
    reason = "each test binary that includes this uses part of it"
)]

use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;

use agent_hooks_runtime::{Decision, Engine, Event, HookStatus, Outcome, Workspace};
use serde_json::{Value, json};

pub(crate) struct Ws {
    _dir: tempfile::TempDir,
    pub(crate) root: PathBuf,
}

impl Ws {
    /// A workspace with the master switch on and `hooks` as `config/shell_hooks.yaml`.
    pub(crate) fn new(hooks: &str) -> Ws {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().canonicalize().expect("canonical");
        let ws = Ws { _dir: dir, root };
        ws.write("config/agent.yaml", "shell_hooks:\n  enabled: true\n");
        ws.hooks(hooks);
        ws
    }

    pub(crate) fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    pub(crate) fn write(&self, rel: &str, text: &str) {
        let path = self.path(rel);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(&path, text).expect("write");
    }

    /// An executable `sh` script.
    pub(crate) fn script(&self, rel: &str, body: &str) {
        self.write(rel, &format!("#!/bin/sh\n{body}\n"));
        std::fs::set_permissions(self.path(rel), std::fs::Permissions::from_mode(0o755))
            .expect("chmod");
    }

    pub(crate) fn hooks(&self, yaml: &str) {
        let yaml = yaml.replace("{root}", &self.root.to_string_lossy());
        self.write("config/shell_hooks.yaml", &yaml);
    }

    pub(crate) fn engine(&self) -> Engine {
        Engine::open(Workspace::new(&self.root))
    }

    pub(crate) fn approve(&self, key: &str) {
        let key = key.replace("{root}", &self.root.to_string_lossy());
        self.engine().approve(None, &key).expect("approve");
    }

    pub(crate) fn approve_err(&self, key: &str) -> String {
        let key = key.replace("{root}", &self.root.to_string_lossy());
        match self.engine().approve(None, &key) {
            Ok(events) => panic!("{key} was approved for {events:?}"),
            Err(e) => e.to_string(),
        }
    }

    /// `pre_tool_call` of a shell `rm -rf /`, in a fresh engine.
    pub(crate) fn fire(&self) -> Outcome {
        let payload = json!({"tool_name": "Bash", "tool_input": {"command": "rm -rf /"}});
        let Value::Object(payload) = payload else {
            unreachable!("a literal object")
        };
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        rt.block_on(self.engine().dispatch(Event::PreToolCall, payload))
    }

    /// `list`'s text with its wrapping undone (one space between words).
    pub(crate) fn list(&self) -> String {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        let text = rt
            .block_on(agent_hooks_runtime::commands::run_line(
                &self.engine(),
                "list",
            ))
            .text;
        text.split_whitespace().collect::<Vec<_>>().join(" ")
    }

    pub(crate) fn read_agent(&self) -> String {
        std::fs::read_to_string(self.path("config/agent.yaml")).expect("agent.yaml")
    }

    pub(crate) fn approvals(&self) -> Value {
        let text = std::fs::read_to_string(self.path("config/hook_approvals.json")).expect("read");
        serde_json::from_str(&text).expect("json")
    }

    pub(crate) fn set_approvals(&self, doc: &Value) {
        self.write(
            "config/hook_approvals.json",
            &serde_json::to_string_pretty(doc).expect("json"),
        );
    }
}

/// The hook ran and blocked.
pub(crate) fn ran(outcome: &Outcome) -> bool {
    outcome.decision == Decision::Block
}

/// The hook was skipped as changed since approval.
pub(crate) fn drifted(outcome: &Outcome) -> bool {
    outcome.decision == Decision::Continue
        && outcome.hooks[0].status == HookStatus::Skipped
        && outcome.hooks[0].detail.as_deref() == Some("drift")
}

pub(crate) const BLOCKS: &str = "echo '{\"decision\": \"block\", \"reason\": \"guard ran\"}'";

pub(crate) fn guard_entry(extra: &str) -> String {
    format!(
        "hooks:\n  - name: guard\n    event: pre_tool_call\n    command: {{root}}/hooks/guard.sh\n{extra}"
    )
}

/// A workspace whose guard is declared and not approved, with the master switch off.
pub(crate) fn declared_but_unapproved() -> Ws {
    let ws = Ws::new(&guard_entry(""));
    ws.write("config/agent.yaml", "shell_hooks:\n  enabled: false\n");
    ws.script("hooks/guard.sh", BLOCKS);
    ws
}
