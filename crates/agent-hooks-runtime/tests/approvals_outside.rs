//! Approvals kept outside the workspace (`docs/trust.md`): with `AGENT_HOOKS_APPROVALS` set,
//! approvals are read and written there, an approvals file forged inside the workspace counts for
//! nothing, and `list` says where approvals live. Its own test binary, since it sets a variable of
//! the whole process.

use std::os::unix::fs::PermissionsExt;

use agent_hooks_runtime::{Decision, Engine, Event, Workspace};
use serde_json::{Value, json};

#[test]
fn approvals_outside_the_workspace_are_the_only_ones_honoured() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().join("ws");
    let outside = dir.path().join("private/approvals.json");
    std::fs::create_dir_all(root.join("config")).expect("config/");
    std::fs::write(
        root.join("config/agent.yaml"),
        "shell_hooks:\n  enabled: true\n",
    )
    .expect("agent.yaml");
    let script = root.join("guard.sh");
    std::fs::write(
        &script,
        "#!/bin/sh\necho '{\"decision\": \"block\", \"reason\": \"guard ran\"}'\n",
    )
    .expect("guard.sh");
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    std::fs::write(
        root.join("config/shell_hooks.yaml"),
        format!(
            "hooks:\n  - name: guard\n    event: pre_tool_call\n    command: {}\n",
            script.display()
        ),
    )
    .expect("shell_hooks.yaml");
    // SAFETY: this test binary has one test, and nothing else reads the environment meanwhile.
    unsafe { std::env::set_var(agent_hooks_runtime::APPROVALS_ENV, &outside) };

    let fire = || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        let Value::Object(payload) = json!({"tool_name": "Bash", "tool_input": {"command": "ls"}})
        else {
            unreachable!("a literal object")
        };
        rt.block_on(Engine::open(Workspace::new(&root)).dispatch(Event::PreToolCall, payload))
    };

    let command = script.display().to_string();
    Engine::open(Workspace::new(&root))
        .approve(None, &command)
        .expect("approve");
    assert!(outside.is_file(), "the approval went outside the workspace");
    assert!(!root.join("config/hook_approvals.json").exists());
    assert_eq!(fire().decision, Decision::Block);

    // What an agent confined to the workspace can do: write the workspace file. It is ignored.
    let forged = std::fs::read_to_string(&outside).expect("read");
    std::fs::write(root.join("config/hook_approvals.json"), &forged).expect("forge");
    std::fs::write(&outside, "{\"version\": 1, \"approvals\": []}\n").expect("revoke by hand");
    assert_eq!(fire().decision, Decision::Continue);

    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let list = rt
        .block_on(agent_hooks_runtime::commands::run_line(
            &Engine::open(Workspace::new(&root)),
            "list",
        ))
        .text;
    let list = list.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        list.contains(&format!(
            "Approvals: {} (outside the workspace: AGENT_HOOKS_APPROVALS)",
            outside.display()
        )),
        "{list}"
    );
}
