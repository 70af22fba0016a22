//! Claude Code hooks, both ways, through the real binary.
//!
//! First half: the scripts of `tests/claude_corpus/` — written the way Claude Code hooks are
//! published — wired in a throwaway workspace's `.claude/settings.json`, approved, and fired with
//! `agent-hooks fire`; each test asserts the effect Claude Code's documentation gives the script.
//! Second half: the bridge, `agent-hooks claude-hook`, fed Claude Code hook inputs over a
//! workspace with shell and skill hooks, answering in Claude Code's format; and
//! `agent-hooks claude-install`.

// Shared with `cli.rs`; this binary uses only part of it.
use crate::support;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};
use support::{Fired, Ws};

use crate::loopback::{Request, Response, Server};

// ---------------------------------------------------------------------------------------------
// Workspace helpers

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/claude_corpus")
}

/// Copies corpus scripts into the workspace's `.claude/hooks/`, executable.
fn with_corpus(ws: Ws, names: &[&str]) -> Ws {
    let mut ws = ws;
    for name in names {
        let source = std::fs::read_to_string(corpus_dir().join(name))
            .unwrap_or_else(|e| panic!("corpus script {name}: {e}"));
        let rel = format!(".claude/hooks/{name}");
        ws = ws.file(&rel, &source);
        support::set_mode(&ws.path(&rel), 0o755);
    }
    ws
}

/// A workspace with the master switch on and `scripts` from the corpus in `.claude/hooks/`.
fn claude_ws(scripts: &[&str]) -> Ws {
    with_corpus(Ws::new().master(true), scripts)
}

/// Writes `.claude/settings.json` (or another settings file) as `hooks` wraps it.
fn settings(ws: Ws, rel: &str, hooks: Value) -> Ws {
    ws.file(rel, &json!({ "hooks": hooks }).to_string())
}

/// One matcher group of one command, as Claude Code settings spell it (no `matcher` key when
/// `matcher` is empty, as for events Claude Code does not match on).
fn group(matcher: &str, command: &str) -> Value {
    let hooks = json!([{"type": "command", "command": command}]);
    if matcher.is_empty() {
        json!({ "hooks": hooks })
    } else {
        json!({"matcher": matcher, "hooks": hooks})
    }
}

/// A workspace with one corpus script wired to `event` in `.claude/settings.json` as
/// `command`, and approved.
fn one_hook(script: &str, event: &str, matcher: &str, command: &str) -> Ws {
    let ws = settings(
        claude_ws(&[script]),
        ".claude/settings.json",
        json!({ event: [group(matcher, command)] }),
    );
    approved(ws, &[command])
}

/// Approves each command through the CLI.
fn approved(ws: Ws, commands: &[&str]) -> Ws {
    for command in commands {
        ws.approve(command);
    }
    ws
}

fn bash(command: &str) -> Value {
    json!({"tool_name": "bash", "tool_input": {"command": command}})
}

/// The command line a Claude Code user typically writes for a project script.
fn project(script: &str) -> String {
    format!("\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/{script}")
}

fn notes(fired: &Fired) -> Vec<String> {
    fired.strings("notes")
}

/// What a process printed and how it exited.
#[derive(Debug)]
struct Ran {
    stdout: String,
    stderr: String,
    code: i32,
}

impl Ran {
    /// Stdout as the one JSON object Claude Code reads; `Null` when empty.
    fn json(&self) -> Value {
        if self.stdout.trim().is_empty() {
            return Value::Null;
        }
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not one JSON object ({e}): {}", self.stdout))
    }
}

/// Runs `cmd` with `stdin`.
fn run(cmd: Command, stdin: &[u8]) -> Ran {
    let out = support::run_piped(cmd, stdin);
    Ran {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        code: out.status.code().unwrap_or(-1),
    }
}

/// `agent-hooks fire <event>` with `HOME` pointed at `home`.
fn fire_with_home(ws: &Ws, home: &Path, event: &str, payload: Value) -> Value {
    let mut cmd = ws.command(&["fire", event]);
    cmd.env("HOME", home);
    let ran = run(cmd, payload.to_string().as_bytes());
    assert_eq!(ran.code, 0, "fire failed: {}", ran.stderr);
    ran.json()
}

/// `agent-hooks claude-hook` with a Claude Code hook input.
fn claude_hook(ws: &Ws, input: Value) -> Ran {
    run(ws.command(&["claude-hook"]), input.to_string().as_bytes())
}

/// `agent-hooks list` with its line wrapping undone, for substring checks.
fn list_text(ws: &Ws) -> String {
    let out = ws.run(&["list"]);
    String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// Lines of a marker file written by `count_runs.sh` (0 when it does not exist).
fn runs(ws: &Ws, rel: &str) -> usize {
    if !ws.exists(rel) {
        return 0;
    }
    ws.read(rel).lines().count()
}

// ---------------------------------------------------------------------------------------------
// The corpus: PreToolUse

#[cfg_attr(
    not(all(have_python3, have_node)),
    ignore = "needs python3 and node on PATH (.ci/run installs them)"
)]
#[test]
fn exit_two_validator_blocks_with_its_stderr() {
    let command = project("block_rm_rf.sh");
    let ws = one_hook("block_rm_rf.sh", "PreToolUse", "Bash", &command);
    let fired = ws.fire("pre_tool_call", bash("rm -rf build/"));
    assert_eq!(fired.decision(), "block");
    assert_eq!(
        fired.reason(),
        "Blocked: 'rm -rf build/' deletes recursively; delete specific files instead."
    );
    assert_eq!(fired.status(&command), "blocked");

    let fired = ws.fire("pre_tool_call", bash("ls -la"));
    assert_eq!(fired.decision(), "continue");
    assert_eq!(fired.status(&command), "noop");
}

#[cfg_attr(
    not(all(have_python3, have_node)),
    ignore = "needs python3 and node on PATH (.ci/run installs them)"
)]
#[test]
fn json_deny_blocks_edits_of_env_files_on_edit_or_write() {
    let command = "python3 .claude/hooks/protect_env.py";
    let ws = one_hook("protect_env.py", "PreToolUse", "Edit|Write", command);
    for tool in ["edit_file", "write_file"] {
        let fired = ws.fire(
            "pre_tool_call",
            json!({"tool_name": tool, "tool_input": {"file_path": "/srv/app/.env", "content": "X=1"}}),
        );
        assert_eq!(fired.decision(), "block", "{tool}");
        assert_eq!(
            fired.reason(),
            "/srv/app/.env holds secrets; edit .env.example instead"
        );
    }
    // `Edit|Write` is an exact list: Read does not match, so the hook is not even spawned.
    let fired = ws.fire(
        "pre_tool_call",
        json!({"tool_name": "read_file", "tool_input": {"file_path": "/srv/app/.env"}}),
    );
    assert_eq!(fired.decision(), "continue");
    assert_eq!(fired.status(command), "skipped");
    assert_eq!(fired.detail(command), "no match");
}

#[cfg_attr(
    not(all(have_python3, have_node)),
    ignore = "needs python3 and node on PATH (.ci/run installs them)"
)]
#[test]
fn node_hook_asking_makes_the_decision_ask() {
    let command = "node .claude/hooks/ask_git_push.js";
    let ws = one_hook("ask_git_push.js", "PreToolUse", "Bash", command);
    let fired = ws.fire("pre_tool_call", bash("git push origin main"));
    assert_eq!(fired.decision(), "ask");
    assert_eq!(fired.reason(), "Confirm the push: git push origin main");
    let fired = ws.fire("pre_tool_call", bash("git status"));
    assert_eq!(fired.decision(), "continue");
}

#[cfg_attr(
    not(all(have_python3, have_node)),
    ignore = "needs python3 and node on PATH (.ci/run installs them)"
)]
#[test]
fn updated_input_with_allow_replaces_the_whole_tool_input() {
    let command = project("npm_to_pnpm.py");
    let ws = one_hook("npm_to_pnpm.py", "PreToolUse", "Bash", &command);
    let fired = ws.fire(
        "pre_tool_call",
        json!({"tool_name": "bash", "tool_input": {"command": "npm install", "description": "deps", "timeout": 60}}),
    );
    assert_eq!(fired.decision(), "continue");
    // Claude Code replaces the input with updatedInput: the keys it left out are gone.
    assert_eq!(
        fired.outcome["payload"]["tool_input"],
        json!({"command": "pnpm install"})
    );
    assert_eq!(fired.status(&command), "ok");
}

#[cfg_attr(
    not(all(have_python3, have_node)),
    ignore = "needs python3 and node on PATH (.ci/run installs them)"
)]
#[test]
fn updated_input_without_a_decision_rewrites_and_continues() {
    let command = ".claude/hooks/dry_run.sh";
    let ws = one_hook("dry_run.sh", "PreToolUse", "Bash", command);
    let fired = ws.fire(
        "pre_tool_call",
        json!({"tool_name": "bash", "tool_input": {"command": "terraform apply -auto-approve", "description": "ship"}}),
    );
    assert_eq!(fired.decision(), "continue");
    assert_eq!(
        fired.outcome["payload"]["tool_input"],
        json!({"command": "terraform plan -auto-approve", "description": "ship"})
    );
}

#[cfg_attr(
    not(all(have_python3, have_node)),
    ignore = "needs python3 and node on PATH (.ci/run installs them)"
)]
#[test]
fn legacy_decisions_block_and_approve() {
    let command = "python3 .claude/hooks/read_policy.py";
    let ws = one_hook("read_policy.py", "PreToolUse", "Read", command);
    let read = |path: &str| json!({"tool_name": "read_file", "tool_input": {"file_path": path}});
    let fired = ws.fire("pre_tool_call", read("/home/u/.ssh/id_rsa"));
    assert_eq!(fired.decision(), "block");
    assert_eq!(fired.reason(), "reading /home/u/.ssh/id_rsa is not allowed");
    // "approve" is no decision here: the call goes on, and its reason is not a block reason.
    let fired = ws.fire("pre_tool_call", read("README.md"));
    assert_eq!(fired.decision(), "continue");
    assert_eq!(fired.outcome["reason"], Value::Null);
    assert_eq!(fired.status(command), "noop");
}

#[test]
fn json_on_stderr_with_exit_two_blocks_with_the_raw_text() {
    let command = ".claude/hooks/stderr_json.sh";
    let ws = one_hook("stderr_json.sh", "PreToolUse", "*", command);
    let fired = ws.fire(
        "pre_tool_call",
        json!({"tool_name": "mcp__github__create_issue", "tool_input": {"title": "x"}}),
    );
    assert_eq!(fired.decision(), "block");
    // Stderr is never parsed: the reason is what the script printed there.
    assert_eq!(
        fired.reason(),
        r#"{"decision": "block", "reason": "no tools during the freeze"}"#
    );
}

#[cfg_attr(
    not(all(have_python3, have_node)),
    ignore = "needs python3 and node on PATH (.ci/run installs them)"
)]
#[test]
fn matchers_follow_aliases_and_claude_code_rules() {
    // A host-specific alias from config/agent.yaml, a regex matcher and an MCP tool name.
    let ws = Ws::new()
        .file(
            "config/agent.yaml",
            "shell_hooks:\n  enabled: true\nclaude_hooks:\n  tool_aliases:\n    shell_exec: Bash\n",
        )
        .sh(
            ".claude/hooks/seen.sh",
            r#"
            jq -r '.tool_name' >> "$CLAUDE_PROJECT_DIR/seen.txt"
            "#,
        );
    let bash_hook = ".claude/hooks/seen.sh bash";
    let mcp_hook = ".claude/hooks/seen.sh mcp";
    let ws = settings(
        ws,
        ".claude/settings.json",
        json!({"PreToolUse": [group("Bash", bash_hook), group("mcp__memory__.*", mcp_hook)]}),
    );
    let ws = approved(ws, &[bash_hook, mcp_hook]);
    ws.fire(
        "pre_tool_call",
        json!({"tool_name": "shell_exec", "tool_input": {"command": "ls"}}),
    );
    ws.fire(
        "pre_tool_call",
        json!({"tool_name": "mcp__memory__create_entities", "tool_input": {}}),
    );
    let fired = ws.fire(
        "pre_tool_call",
        json!({"tool_name": "bash_helper", "tool_input": {}}),
    );
    // `Bash` is exact: bash_helper (no alias) matches neither.
    assert_eq!(fired.status(bash_hook), "skipped");
    assert_eq!(fired.status(mcp_hook), "skipped");
    // The hook is told the Claude Code name of the host's tool.
    assert_eq!(ws.read("seen.txt"), "Bash\nmcp__memory__create_entities\n");
}

// ---------------------------------------------------------------------------------------------
// The corpus: prompts, sessions, stops

#[cfg_attr(
    not(all(have_python3, have_node)),
    ignore = "needs python3 and node on PATH (.ci/run installs them)"
)]
#[test]
fn session_start_context_from_hooks_that_never_read_stdin() {
    let banner = ".claude/hooks/session_banner.sh";
    let node = "node .claude/hooks/session_context.js";
    let ws = settings(
        claude_ws(&["session_banner.sh", "session_context.js"]),
        ".claude/settings.json",
        json!({"SessionStart": [{"hooks": [
            {"type": "command", "command": banner},
            {"type": "command", "command": node},
        ]}]}),
    );
    let ws = approved(ws, &[banner, node]);
    let fired = ws.fire("on_session_start", json!({"status": "startup"}));
    assert_eq!(
        fired.context(),
        vec![
            "Branch: main. Open tasks: see TODO.md.",
            "Coding standard: 4-space indents, no tabs."
        ]
    );
    assert_eq!(fired.status(banner), "ok");
    assert_eq!(fired.status(node), "ok");
}

#[test]
fn session_start_matcher_sees_the_canonical_status_as_source() {
    let banner = ".claude/hooks/session_banner.sh";
    let ws = one_hook("session_banner.sh", "SessionStart", "resume", banner);
    let fired = ws.fire("on_session_start", json!({"status": "resume"}));
    assert_eq!(fired.status(banner), "ok");
    let fired = ws.fire("on_session_start", json!({"status": "startup"}));
    assert_eq!(fired.status(banner), "skipped");
}

#[cfg_attr(
    not(all(have_python3, have_node)),
    ignore = "needs python3 and node on PATH (.ci/run installs them)"
)]
#[test]
fn plain_stdout_of_a_prompt_hook_is_context() {
    let command = "python3 .claude/hooks/prompt_context.py";
    let ws = one_hook("prompt_context.py", "UserPromptSubmit", "", command);
    let fired = ws.fire("on_user_message", json!({"message": "fix the flaky test"}));
    assert_eq!(fired.decision(), "continue");
    assert_eq!(
        fired.context(),
        vec!["Reminder: answer in English. (The prompt had 4 words.)"]
    );
}

#[cfg_attr(
    not(all(have_python3, have_node)),
    ignore = "needs python3 and node on PATH (.ci/run installs them)"
)]
#[test]
fn prompt_hook_blocks_a_prompt_with_a_credential() {
    let command = "python3 .claude/hooks/prompt_secrets.py";
    let ws = one_hook("prompt_secrets.py", "UserPromptSubmit", "", command);
    let fired = ws.fire(
        "on_user_message",
        json!({"message": "deploy with password: hunter2"}),
    );
    assert_eq!(fired.decision(), "block");
    assert_eq!(
        fired.reason(),
        "The prompt contains a credential; remove it and resend."
    );
    let fired = ws.fire("on_user_message", json!({"message": "deploy please"}));
    assert_eq!(fired.decision(), "continue");
}

#[cfg_attr(
    not(all(have_python3, have_node)),
    ignore = "needs python3 and node on PATH (.ci/run installs them)"
)]
#[test]
fn stop_loop_driver_reads_the_transcript_and_respects_stop_hook_active() {
    let command = "python3 .claude/hooks/require_tests.py";
    let ws = one_hook("require_tests.py", "Stop", "", command);

    // No transcript yet: redo.
    let fired = ws.fire("on_stop", json!({"response": "done"}));
    assert_eq!(fired.decision(), "block");
    assert_eq!(
        fired.reason(),
        "Run the test suite and report the result before finishing."
    );
    // Already redoing: the script lets it stop (stop_hook_active comes from redo_count).
    let fired = ws.fire("on_stop", json!({"response": "done", "redo_count": 1}));
    assert_eq!(fired.decision(), "continue");

    // The default transcript is logs/chat-history.jsonl.
    let ws = ws.file(
        "logs/chat-history.jsonl",
        "{\"type\": \"message\", \"text\": \"cargo test: tests passed\"}\n",
    );
    let fired = ws.fire("on_stop", json!({"response": "done"}));
    assert_eq!(fired.decision(), "continue");

    // A payload's transcript_path wins over the default.
    let ws = ws.file("other.jsonl", "{\"text\": \"nothing ran\"}\n");
    let other = ws.path("other.jsonl").to_string_lossy().into_owned();
    let fired = ws.fire(
        "on_stop",
        json!({"response": "done", "transcript_path": other}),
    );
    assert_eq!(fired.decision(), "block");
}

// ---------------------------------------------------------------------------------------------
// The corpus: after a tool, notifications

#[cfg_attr(
    not(all(have_python3, have_node)),
    ignore = "needs python3 and node on PATH (.ci/run installs them)"
)]
#[test]
fn post_tool_use_block_is_a_note_for_the_model() {
    let command = "node .claude/hooks/lint_python.js";
    let ws = one_hook("lint_python.js", "PostToolUse", "Edit|Write", command);
    let fired = ws.fire(
        "post_tool_call",
        json!({"tool_name": "write_file", "tool_input": {"file_path": "a.py", "content": "def f():\n\treturn 1\n"},
               "tool_result": "written", "status": "success"}),
    );
    // The tool already ran: nothing to block; the reason reaches the model as a note.
    assert_eq!(fired.decision(), "continue");
    assert_eq!(
        notes(&fired),
        vec!["a.py: indentation uses tabs; convert to 4 spaces."]
    );
    assert!(ws.events_of("hook_invalid_output").is_empty());
}

#[cfg_attr(
    not(all(have_python3, have_node)),
    ignore = "needs python3 and node on PATH (.ci/run installs them)"
)]
#[test]
fn post_tool_use_and_failure_split_on_status() {
    let failure = ".claude/hooks/failure_hint.sh";
    let success = ".claude/hooks/count_runs.sh success.txt";
    let ws = settings(
        claude_ws(&["failure_hint.sh", "count_runs.sh"]),
        ".claude/settings.json",
        json!({
            "PostToolUse": [group("Bash", success)],
            "PostToolUseFailure": [group("Bash", failure)],
        }),
    );
    let ws = approved(ws, &[failure, success]);
    let fired = ws.fire(
        "post_tool_call",
        json!({"tool_name": "bash", "tool_input": {"command": "pnpm i"}, "status": "error",
               "error": "sh: pnpm: command not found"}),
    );
    assert_eq!(
        notes(&fired),
        vec!["Hint: install missing tools with ./scripts/bootstrap.sh"]
    );
    assert_eq!(fired.status(success), "skipped");
    assert_eq!(runs(&ws, "success.txt"), 0);

    let fired = ws.fire(
        "post_tool_call",
        json!({"tool_name": "bash", "tool_input": {"command": "ls"}, "status": "success", "tool_result": "a\n"}),
    );
    assert_eq!(fired.status(failure), "skipped");
    assert_eq!(runs(&ws, "success.txt"), 1);

    // A call a hook blocked never ran: neither PostToolUse nor PostToolUseFailure fires.
    let fired = ws.fire(
        "post_tool_call",
        json!({"tool_name": "bash", "tool_input": {"command": "ls"}, "status": "blocked"}),
    );
    assert_eq!(fired.status(failure), "skipped");
    assert_eq!(fired.status(success), "skipped");
    assert_eq!(runs(&ws, "success.txt"), 1);
}

#[cfg_attr(
    not(all(have_python3, have_node)),
    ignore = "needs python3 and node on PATH (.ci/run installs them)"
)]
#[test]
fn claude_project_dir_is_set_and_hooks_run_in_the_workspace() {
    let command = "bash \"$CLAUDE_PROJECT_DIR/.claude/hooks/audit_log.sh\"";
    let ws = one_hook("audit_log.sh", "PostToolUse", "*", command);
    let fired = ws.fire(
        "post_tool_call",
        json!({"tool_name": "read_file", "tool_input": {"file_path": "x"}, "status": "success"}),
    );
    assert_eq!(fired.status(command), "noop", "{}", fired.outcome);
    let root = ws.root().to_string_lossy().into_owned();
    assert_eq!(
        ws.read(".claude/audit.log"),
        format!("Read\t{root}\t{root}\n")
    );
}

#[cfg_attr(
    not(all(have_python3, have_node)),
    ignore = "needs python3 and node on PATH (.ci/run installs them)"
)]
#[test]
fn notification_hook_warns_the_user() {
    let command = "python3 .claude/hooks/notify_warn.py";
    let ws = one_hook("notify_warn.py", "Notification", "idle_prompt", command);
    let fired = ws.fire(
        "on_outbound_message",
        json!({"notification": "Claude is waiting for your input", "type": "idle_prompt"}),
    );
    assert_eq!(fired.decision(), "continue");
    assert_eq!(
        fired.warnings(),
        vec!["notified: Claude is waiting for your input"]
    );
    assert_eq!(
        ws.read(".claude/notifications.log"),
        "idle_prompt: Claude is waiting for your input\n"
    );
    // The matcher is the notification type.
    let fired = ws.fire(
        "on_outbound_message",
        json!({"notification": "done", "type": "push"}),
    );
    assert_eq!(fired.status(command), "skipped");
}

// ---------------------------------------------------------------------------------------------
// The source: trust, dedupe, what never runs

#[cfg_attr(
    not(all(have_python3, have_node)),
    ignore = "needs python3 and node on PATH (.ci/run installs them)"
)]
#[test]
fn claude_hooks_need_approval_and_the_master_switch() {
    let command = ".claude/hooks/block_rm_rf.sh";
    let ws = settings(
        with_corpus(Ws::new().master(false), &["block_rm_rf.sh"]),
        ".claude/settings.json",
        json!({"PreToolUse": [group("Bash", command)]}),
    );
    let fired = ws.fire("pre_tool_call", bash("rm -rf /"));
    assert_eq!(fired.detail(command), "master switch off");
    let ws = ws.master(true);
    let fired = ws.fire("pre_tool_call", bash("rm -rf /"));
    assert_eq!(fired.detail(command), "not approved");
    assert_eq!(fired.decision(), "continue");
    let ws = approved(ws, &[command]);
    assert_eq!(
        ws.fire("pre_tool_call", bash("rm -rf /")).decision(),
        "block"
    );
}

#[test]
fn identical_commands_run_once_even_across_settings_files() {
    let command = ".claude/hooks/count_runs.sh runs.txt";
    let ws = claude_ws(&["count_runs.sh"]);
    let ws = settings(
        ws,
        ".claude/settings.json",
        json!({"PreToolUse": [group("Bash", command), group("Bash", command)]}),
    );
    let ws = settings(
        ws,
        ".claude/settings.local.json",
        json!({"PreToolUse": [group("Write", command)]}),
    );
    let ws = approved(ws, &[command]);
    let fired = ws.fire("pre_tool_call", bash("ls"));
    assert_eq!(runs(&ws, "runs.txt"), 1);
    let reports = fired.outcome["hooks"].as_array().expect("hooks").len();
    assert_eq!(reports, 1, "{}", fired.outcome);
    // The duplicate's matcher still counts: the local file's `Write` reaches the one hook.
    ws.fire(
        "pre_tool_call",
        json!({"tool_name": "write_file", "tool_input": {"file_path": "a"}}),
    );
    assert_eq!(runs(&ws, "runs.txt"), 2);
    ws.fire(
        "pre_tool_call",
        json!({"tool_name": "read_file", "tool_input": {}}),
    );
    assert_eq!(runs(&ws, "runs.txt"), 2);
}

#[test]
fn unmapped_events_and_other_hook_types_are_warned_about_and_never_run() {
    let command = ".claude/hooks/count_runs.sh never.txt";
    let ws = claude_ws(&["count_runs.sh"]);
    let ws = settings(
        ws,
        ".claude/settings.json",
        json!({
            "PreCompact": [group("*", command)],
            "PreToolUse": [{"matcher": "Bash", "hooks": [
                {"type": "mcp_tool", "server": "scanner", "tool": "scan"},
            ]}],
            "BeforeEverything": [group("*", command)],
        }),
    );
    let text = list_text(&ws);
    assert!(
        text.contains("PreCompact hooks never fire in this host"),
        "{text}"
    );
    assert!(
        text.contains("type \"mcp_tool\" calls a tool of an MCP server"),
        "{text}"
    );
    assert!(
        text.contains("unknown Claude Code event \"BeforeEverything\""),
        "{text}"
    );
    let fired = ws.fire("pre_tool_call", bash("ls"));
    assert!(fired.outcome["hooks"].as_array().expect("hooks").is_empty());
    assert_eq!(runs(&ws, "never.txt"), 0);
}

#[test]
fn user_settings_load_only_with_the_agent_yaml_switch() {
    let home = tempfile::tempdir().expect("temporary HOME");
    let marker = home.path().join("user-runs.txt");
    let script = corpus_dir().join("count_runs.sh");
    let command = format!(
        "sh {} {}",
        shell_words_quote(&script.to_string_lossy()),
        shell_words_quote(&marker.to_string_lossy())
    );
    std::fs::create_dir_all(home.path().join(".claude")).expect("create ~/.claude");
    std::fs::write(
        home.path().join(".claude/settings.json"),
        json!({"hooks": {"PreToolUse": [group("Bash", &command)]}}).to_string(),
    )
    .expect("write user settings");

    let ws = Ws::new().master(true);
    let approve = |ws: &Ws| {
        let mut cmd = ws.command(&["approve", &command]);
        cmd.env("HOME", home.path());
        run(cmd, b"")
    };
    // Without the switch the user file is not a source: nothing to approve, nothing runs.
    assert_ne!(approve(&ws).code, 0);
    let outcome = fire_with_home(&ws, home.path(), "pre_tool_call", bash("ls"));
    assert!(outcome["hooks"].as_array().expect("hooks").is_empty());

    let ws = ws.file(
        "config/agent.yaml",
        "shell_hooks:\n  enabled: true\nclaude_hooks:\n  user_settings: true\n",
    );
    let approval = approve(&ws);
    assert_eq!(approval.code, 0, "{}{}", approval.stdout, approval.stderr);
    fire_with_home(&ws, home.path(), "pre_tool_call", bash("ls"));
    assert_eq!(
        std::fs::read_to_string(&marker)
            .expect("marker")
            .lines()
            .count(),
        1
    );
}

/// Single-quotes a word for `sh` when it needs it.
fn shell_words_quote(word: &str) -> String {
    if word
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "/._-".contains(c))
    {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

#[cfg_attr(
    not(all(have_python3, have_node)),
    ignore = "needs python3 and node on PATH (.ci/run installs them)"
)]
#[test]
fn an_edited_project_script_counts_as_drift() {
    let command = project("block_rm_rf.sh");
    let ws = one_hook("block_rm_rf.sh", "PreToolUse", "Bash", &command);
    assert_eq!(
        ws.fire("pre_tool_call", bash("rm -rf x ")).decision(),
        "block"
    );
    let ws = ws.file(".claude/hooks/block_rm_rf.sh", "#!/bin/sh\nexit 0\n");
    let fired = ws.fire("pre_tool_call", bash("rm -rf x "));
    assert_eq!(fired.status(&command), "skipped");
    assert_eq!(fired.detail(&command), "drift");
}

// ---------------------------------------------------------------------------------------------
// The bridge: agent-hooks inside Claude Code

const GUARD: &str = r#"
    import json, os, sys
    p = json.load(sys.stdin)
    event = p["event"]
    out = {}
    if event == "pre_tool_call":
        command = p["tool_input"].get("command", "")
        if "rm -rf /" in command:
            out = {"decision": "block", "reason": "refusing to delete the filesystem root"}
        elif command == "ls":
            out = {"tool_input": {"command": "ls --color=never"}}
    elif event == "on_user_message":
        out = {"context": "the user's timezone is UTC"}
    elif event == "on_session_start":
        out = {"context": "session source: " + p.get("status", "")}
    elif event == "on_stop":
        if "DONE" not in p["response"]:
            out = {"decision": "block", "reason": "finish the task first"}
    elif event == "on_outbound_message":
        out = {"systemMessage": "outbound: " + p["type"]}
    elif event == "on_session_end":
        with open(os.environ["AGENT_HOOKS_WORKSPACE"] + "/session-end.txt", "w") as f:
            f.write(p["status"])
    print(json.dumps(out))
"#;

const SKILL_HOOK: &str = r#"
    import json, os, sys
    e = json.load(sys.stdin)
    with open(os.path.join(os.environ["STATE_DIR"], "seen.txt"), "a") as f:
        f.write(e["type"] + " " + e.get("status", "-") + "\n")
    if e["type"] == "pre_tool_call" and "curl" in e["args"].get("command", ""):
        e["_block"] = {"reason": "no network", "result": "curl is disabled in this workspace"}
        print(json.dumps(e))
"#;

/// A workspace with one shell hook on every event the bridge maps and one skill hook on the
/// tool events.
fn bridged() -> Ws {
    let events = [
        "pre_tool_call",
        "post_tool_call",
        "on_user_message",
        "on_session_start",
        "on_session_end",
        "on_stop",
        "on_outbound_message",
    ];
    let mut ws = Ws::new().master(true).py("hooks/guard.py", GUARD);
    for event in events {
        ws = ws.hook(support::Entry::new(event, "hooks/guard.py").name("guard"));
    }
    let ws = ws.py("skills/x/hook.py", SKILL_HOOK).file(
        "skills/x/hooks.json",
        &json!({"hooks": [{"name": "skill", "command": format!("{} hook.py", support::python()),
                           "events": ["pre_tool_call", "post_tool_call"]}]})
        .to_string(),
    );
    ws.approve_all()
}

fn input(event: &str, fields: Value) -> Value {
    let mut input = json!({
        "session_id": "s-1",
        "transcript_path": "/tmp/none.jsonl",
        "cwd": "/tmp",
        "permission_mode": "default",
        "hook_event_name": event,
    });
    if let (Value::Object(target), Value::Object(extra)) = (&mut input, fields) {
        target.extend(extra);
    }
    input
}

#[cfg_attr(
    not(all(have_python3, have_node)),
    ignore = "needs python3 and node on PATH (.ci/run installs them)"
)]
#[test]
fn bridge_pre_tool_use_denies_with_the_reason() {
    let ws = bridged();
    let ran = claude_hook(
        &ws,
        input(
            "PreToolUse",
            json!({"tool_name": "Bash", "tool_input": {"command": "rm -rf /"}, "tool_use_id": "t1"}),
        ),
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert_eq!(
        ran.json(),
        json!({"hookSpecificOutput": {
            "permissionDecision": "deny",
            "permissionDecisionReason": "refusing to delete the filesystem root",
            "hookEventName": "PreToolUse"}})
    );
}

#[cfg_attr(
    not(all(have_python3, have_node)),
    ignore = "needs python3 and node on PATH (.ci/run installs them)"
)]
#[test]
fn bridge_pre_tool_use_hands_back_the_rewritten_input() {
    let ws = bridged();
    let ran = claude_hook(
        &ws,
        input(
            "PreToolUse",
            json!({"tool_name": "Bash", "tool_input": {"command": "ls", "description": "list"}}),
        ),
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let answer = ran.json();
    assert_eq!(
        answer["hookSpecificOutput"]["updatedInput"],
        json!({"command": "ls --color=never", "description": "list"})
    );
    // Claude Code applies updatedInput only with a decision; by default the user confirms
    // the rewritten call, so a rewrite never skips a prompt.
    assert_eq!(answer["hookSpecificOutput"]["permissionDecision"], "ask");
    // The skill hook saw the host's tool name.
    assert_eq!(ws.read("skills/x/seen.txt"), "pre_tool_call -\n");

    // Opting in lets the rewritten call run without a prompt.
    let ws = ws.file(
        "config/agent.yaml",
        "shell_hooks:\n  enabled: true\nclaude_hooks:\n  rewrite_permission: allow\n",
    );
    let ran = claude_hook(
        &ws,
        input(
            "PreToolUse",
            json!({"tool_name": "Bash", "tool_input": {"command": "ls", "description": "list"}}),
        ),
    );
    assert_eq!(
        ran.json()["hookSpecificOutput"]["permissionDecision"],
        "allow"
    );
}

/// A workspace whose shell hooks are `sh` scripts, approved, with the master switch on.
fn sh_bridged(hooks: &[(&str, &str, &str)]) -> Ws {
    let mut ws = Ws::new().master(true);
    for (event, rel, body) in hooks {
        ws = ws.sh(rel, body).hook(support::Entry::new(event, rel));
    }
    ws.approve_all()
}

#[test]
fn bridge_post_tool_use_runs_transform_tool_result_hooks_too() {
    let ws = sh_bridged(&[
        (
            "transform_tool_result",
            "hooks/note.sh",
            r#"cat >/dev/null; printf '{"note":"the output contains a credential"}'"#,
        ),
        (
            "post_tool_call",
            "hooks/post.sh",
            r#"cat >/dev/null; printf '{"systemMessage":"post ran"}'"#,
        ),
    ]);
    let ran = claude_hook(
        &ws,
        input(
            "PostToolUse",
            json!({"tool_name": "Bash", "tool_input": {"command": "env"}, "tool_response": {"stdout": "KEY=1"}}),
        ),
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert_eq!(
        ran.json(),
        json!({"hookSpecificOutput": {
                   "additionalContext": "the output contains a credential",
                   "hookEventName": "PostToolUse"},
               "systemMessage": "post ran"})
    );
}

#[test]
fn continue_false_stops_the_turn_under_fire() {
    let ws = sh_bridged(&[]);
    let ws = settings_for_fire(ws);
    let ran = claude_hook(
        &ws,
        input(
            "PreToolUse",
            json!({"tool_name": "Bash", "tool_input": {"command": "deploy"}}),
        ),
    );
    // The workspace's Claude Code hooks are Claude Code's own business under the bridge, so
    // the stop comes from `fire`, which runs them.
    assert_eq!(ran.stdout, "", "{}", ran.stderr);
    let fired = ws.fire(
        "pre_tool_call",
        json!({"tool_name": "bash", "tool_input": {"command": "deploy"}}),
    );
    assert_eq!(
        fired.outcome["stop"],
        json!({"reason": "maintenance window"})
    );
    assert_eq!(fired.decision(), "block");
    let fired = ws.fire(
        "pre_tool_call",
        json!({"tool_name": "bash", "tool_input": {"command": "ls"}}),
    );
    assert_eq!(fired.outcome["stop"], Value::Null);
}

/// One Claude Code hook on PreToolUse that stops the agent on `deploy`.
fn settings_for_fire(ws: Ws) -> Ws {
    let ws = ws.sh(
        ".claude/hooks/stop.sh",
        r#"grep -q deploy && printf '{"continue":false,"stopReason":"maintenance window"}'; exit 0"#,
    );
    let command = ".claude/hooks/stop.sh";
    let ws = settings(
        ws,
        ".claude/settings.json",
        json!({"PreToolUse": [group("Bash", command)]}),
    );
    approved(ws, &[command])
}

#[test]
fn verify_code_changes_blocks_the_stop_across_bridge_processes() {
    let ws = Ws::new().master(true);
    let installed = ws.run(&["install", "verify_code_changes"]);
    assert!(installed.status.success(), "{installed:?}");
    // Each call is its own process, as Claude Code runs the bridge.
    let edit = claude_hook(
        &ws,
        input(
            "PreToolUse",
            json!({"tool_name": "Edit", "tool_input": {"file_path": "src/app.py", "old_string": "a", "new_string": "b"}}),
        ),
    );
    assert_eq!(edit.code, 0, "{}", edit.stderr);
    let stop = claude_hook(
        &ws,
        input(
            "Stop",
            json!({"stop_hook_active": false, "last_assistant_message": "Done, the change is in."}),
        ),
    );
    assert_eq!(stop.code, 0, "{}", stop.stderr);
    assert_eq!(stop.json()["decision"], "block", "{}", stop.stdout);
    // Another session has its own state.
    let mut other = input(
        "Stop",
        json!({"stop_hook_active": false, "last_assistant_message": "Done."}),
    );
    other["session_id"] = json!("s-2");
    assert_eq!(claude_hook(&ws, other).stdout, "");
}

#[test]
fn the_redo_cap_is_a_setting() {
    let always = r#"cat >/dev/null; printf '{"decision":"block","reason":"again"}'"#;
    let stop = |ws: &Ws, count: u64| {
        ws.fire(
            "on_stop",
            json!({"response": "x", "redo_count": count, "stop_hook_active": count > 0}),
        )
    };
    let ws = sh_bridged(&[("on_stop", "hooks/again.sh", always)]);
    assert_eq!(stop(&ws, 3).decision(), "continue", "default cap of 3");
    let ws = ws.file(
        "config/agent.yaml",
        "shell_hooks:\n  enabled: true\n  redo_cap: 10\n",
    );
    assert_eq!(stop(&ws, 3).decision(), "block");
    assert_eq!(stop(&ws, 10).decision(), "continue");
    let ws = ws.file(
        "config/agent.yaml",
        "shell_hooks:\n  enabled: true\n  redo_cap: 0\n",
    );
    assert_eq!(stop(&ws, 500).decision(), "block", "0 is no cap");
}

#[cfg_attr(
    not(all(have_python3, have_node)),
    ignore = "needs python3 and node on PATH (.ci/run installs them)"
)]
#[test]
fn bridge_skill_block_result_is_the_deny_reason() {
    let ws = bridged();
    let ran = claude_hook(
        &ws,
        input(
            "PreToolUse",
            json!({"tool_name": "Bash", "tool_input": {"command": "curl example.com"}}),
        ),
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let specific = &ran.json()["hookSpecificOutput"];
    assert_eq!(specific["permissionDecision"], "deny");
    assert_eq!(
        specific["permissionDecisionReason"],
        "curl is disabled in this workspace"
    );
}

#[cfg_attr(
    not(all(have_python3, have_node)),
    ignore = "needs python3 and node on PATH (.ci/run installs them)"
)]
#[test]
fn bridge_pre_tool_use_with_nothing_to_say_prints_nothing() {
    let ws = bridged();
    let ran = claude_hook(
        &ws,
        input(
            "PreToolUse",
            json!({"tool_name": "Read", "tool_input": {"file_path": "README.md"}}),
        ),
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert_eq!(ran.stdout, "");
}

#[cfg_attr(
    not(all(have_python3, have_node)),
    ignore = "needs python3 and node on PATH (.ci/run installs them)"
)]
#[test]
fn bridge_user_prompt_submit_adds_context() {
    let ws = bridged();
    let ran = claude_hook(&ws, input("UserPromptSubmit", json!({"prompt": "hi"})));
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert_eq!(
        ran.json(),
        json!({"hookSpecificOutput": {
            "additionalContext": "the user's timezone is UTC",
            "hookEventName": "UserPromptSubmit"}})
    );
}

#[cfg_attr(
    not(all(have_python3, have_node)),
    ignore = "needs python3 and node on PATH (.ci/run installs them)"
)]
#[test]
fn bridge_session_start_adds_context_from_its_source() {
    let ws = bridged();
    let ran = claude_hook(&ws, input("SessionStart", json!({"source": "resume"})));
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert_eq!(
        ran.json()["hookSpecificOutput"]["additionalContext"],
        "session source: resume"
    );
}

#[cfg_attr(
    not(all(have_python3, have_node)),
    ignore = "needs python3 and node on PATH (.ci/run installs them)"
)]
#[test]
fn bridge_stop_blocks_until_the_hook_is_satisfied() {
    let ws = bridged();
    let ran = claude_hook(
        &ws,
        input(
            "Stop",
            json!({"stop_hook_active": false, "last_assistant_message": "I think it works"}),
        ),
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert_eq!(
        ran.json(),
        json!({"decision": "block", "reason": "finish the task first"})
    );
    let ran = claude_hook(
        &ws,
        input(
            "Stop",
            json!({"stop_hook_active": true, "last_assistant_message": "DONE"}),
        ),
    );
    assert_eq!(ran.code, 0);
    assert_eq!(ran.stdout, "");
}

#[cfg_attr(
    not(all(have_python3, have_node)),
    ignore = "needs python3 and node on PATH (.ci/run installs them)"
)]
#[test]
fn bridge_post_tool_use_and_failure_reach_the_hooks_with_their_status() {
    let ws = bridged();
    let ran = claude_hook(
        &ws,
        input(
            "PostToolUse",
            json!({"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_response": {"stdout": "a"}}),
        ),
    );
    assert_eq!((ran.code, ran.stdout.as_str()), (0, ""), "{}", ran.stderr);
    let ran = claude_hook(
        &ws,
        input(
            "PostToolUseFailure",
            json!({"tool_name": "Bash", "tool_input": {"command": "x"}, "error": "exit 127"}),
        ),
    );
    assert_eq!((ran.code, ran.stdout.as_str()), (0, ""), "{}", ran.stderr);
    assert_eq!(
        ws.read("skills/x/seen.txt"),
        "post_tool_call success\npost_tool_call error\n"
    );
}

#[cfg_attr(
    not(all(have_python3, have_node)),
    ignore = "needs python3 and node on PATH (.ci/run installs them)"
)]
#[test]
fn bridge_notification_and_session_end() {
    let ws = bridged();
    let ran = claude_hook(
        &ws,
        input(
            "Notification",
            json!({"message": "waiting", "notification_type": "idle_prompt"}),
        ),
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert_eq!(
        ran.json(),
        json!({"systemMessage": "outbound: idle_prompt"})
    );

    let ran = claude_hook(&ws, input("SessionEnd", json!({"reason": "logout"})));
    assert_eq!((ran.code, ran.stdout.as_str()), (0, ""), "{}", ran.stderr);
    assert_eq!(ws.read("session-end.txt"), "logout");
}

#[cfg_attr(
    not(all(have_python3, have_node)),
    ignore = "needs python3 and node on PATH (.ci/run installs them)"
)]
#[test]
fn bridge_answers_unreadable_input_visibly_and_has_no_opinion_on_unmapped_events() {
    let ws = bridged();
    // Not JSON: Claude Code shows the message, and the action goes on (fail open).
    let ran = run(ws.command(&["claude-hook"]), b"not json");
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let answer: Value = serde_json::from_str(&ran.stdout).unwrap_or_default();
    assert!(
        answer["systemMessage"]
            .as_str()
            .is_some_and(|m| m.contains("could not read")),
        "{}",
        ran.stdout
    );
    // An event with no counterpart has no policy to evaluate: no opinion, said on stderr.
    let ran = claude_hook(&ws, input("PreCompact", json!({"trigger": "auto"})));
    assert_eq!((ran.code, ran.stdout.as_str()), (0, ""), "{}", ran.stderr);
    assert!(ran.stderr.contains("PreCompact"), "{}", ran.stderr);
}

#[cfg_attr(
    not(all(have_python3, have_node)),
    ignore = "needs python3 and node on PATH (.ci/run installs them)"
)]
#[test]
fn bridge_workspace_comes_from_claude_project_dir() {
    let ws = bridged();
    let mut cmd = Command::new(support::BIN);
    cmd.arg("claude-hook")
        .env("CLAUDE_PROJECT_DIR", ws.root())
        .env_remove("AGENT_HOOKS_WORKSPACE")
        .current_dir(std::env::temp_dir());
    let ran = run(
        cmd,
        input(
            "PreToolUse",
            json!({"tool_name": "Bash", "tool_input": {"command": "rm -rf /"}}),
        )
        .to_string()
        .as_bytes(),
    );
    assert_eq!(
        ran.json()["hookSpecificOutput"]["permissionDecision"],
        "deny"
    );
}

#[cfg_attr(
    not(all(have_python3, have_node)),
    ignore = "needs python3 and node on PATH (.ci/run installs them)"
)]
#[test]
fn bridge_redo_cap_holds_across_repeated_stops() {
    let ws = bridged();
    let stop = |active: bool| {
        let ran = claude_hook(
            &ws,
            input(
                "Stop",
                json!({"stop_hook_active": active, "last_assistant_message": "not yet"}),
            ),
        );
        assert_eq!(ran.code, 0, "{}", ran.stderr);
        ran.json()
    };
    // An earlier turn that was redone once, then interrupted: it must not eat into this turn.
    assert_eq!(stop(false)["decision"], "block");
    // This turn: the first stop and three redos are refused; the fourth redo is let through.
    assert_eq!(stop(false)["decision"], "block");
    assert_eq!(stop(true)["decision"], "block");
    assert_eq!(stop(true)["decision"], "block");
    let capped = stop(true);
    assert_eq!(capped["decision"], Value::Null, "{capped}");
    assert!(
        capped["systemMessage"]
            .as_str()
            .unwrap_or_default()
            .contains("redo cap reached"),
        "{capped}"
    );
    // The next turn starts afresh.
    assert_eq!(stop(false)["decision"], "block");
}

#[test]
fn bridged_workspace_does_not_run_its_claude_hooks_twice() {
    let command = ".claude/hooks/count_runs.sh claude-runs.txt";
    let ws = claude_ws(&["count_runs.sh"]);
    let ws = settings(
        ws,
        ".claude/settings.json",
        json!({"PreToolUse": [group("Bash", command)]}),
    );
    let ws = approved(ws, &[command]);
    let install = ws.run(&["claude-install"]);
    assert!(install.status.success());

    // Claude Code runs the workspace's hook itself, then the bridge: the bridge skips it.
    let ran = claude_hook(
        &ws,
        input(
            "PreToolUse",
            json!({"tool_name": "Bash", "tool_input": {"command": "ls"}}),
        ),
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert_eq!(runs(&ws, "claude-runs.txt"), 0);
    assert!(ran.stderr.contains("bridged"), "{}", ran.stderr);

    // Fired by another host, the hook runs once, and the bridge entry is not run as a hook.
    let fired = ws.fire("pre_tool_call", bash("ls"));
    assert_eq!(runs(&ws, "claude-runs.txt"), 1);
    assert_eq!(fired.outcome["hooks"].as_array().expect("hooks").len(), 1);
    let list = list_text(&ws);
    assert!(list.contains("the Claude Code bridge"), "{list}");
}

// ---------------------------------------------------------------------------------------------
// claude-install

const USER_SETTINGS: &str = r#"{
  "model": "claude-opus-4",
  "permissions": {
    "allow": ["Bash(git status)"],
    "deny": ["Read(./.env)"]
  },
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [{"type": "command", "command": "echo checked", "timeout": 5}]
      }
    ],
    "PreCompact": [
      {"hooks": [{"type": "command", "command": "echo compacting"}]}
    ]
  },
  "env": {"FOO": "bar"}
}
"#;

#[test]
fn claude_install_keeps_other_settings_and_is_idempotent() {
    let ws = Ws::new().file(".claude/settings.json", USER_SETTINGS);
    let first = ws.run(&["claude-install"]);
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    let after: Value = serde_json::from_str(&ws.read(".claude/settings.json")).expect("JSON");
    let before: Value = serde_json::from_str(USER_SETTINGS).expect("JSON");
    for key in ["model", "permissions", "env"] {
        assert_eq!(after[key], before[key], "{key} changed");
    }
    assert_eq!(after["hooks"]["PreCompact"], before["hooks"]["PreCompact"]);
    assert_eq!(
        after["hooks"]["PreToolUse"][0],
        before["hooks"]["PreToolUse"][0]
    );
    for event in [
        "UserPromptSubmit",
        "PreToolUse",
        "PostToolUse",
        "PostToolUseFailure",
        "Stop",
        "SessionStart",
        "SessionEnd",
        "Notification",
    ] {
        let bridged = support::handlers_ending_with(
            &after,
            event,
            &support::bridge_command("agent-hooks", &ws, "claude-hook"),
        );
        assert_eq!(bridged.len(), 1, "{event}: {after}");
    }

    let written = std::fs::read(ws.path(".claude/settings.json")).expect("read");
    let second = ws.run(&["claude-install"]);
    assert!(second.status.success());
    assert_eq!(
        std::fs::read(ws.path(".claude/settings.json")).expect("read"),
        written,
        "a second install must change nothing"
    );
    assert!(String::from_utf8_lossy(&second.stdout).contains("nothing changed"));
}

#[test]
fn claude_install_refuses_a_broken_settings_file() {
    let ws = Ws::new().file(".claude/settings.json", "{\"hooks\": [");
    let out = ws.run(&["claude-install"]);
    assert!(!out.status.success());
    assert_eq!(ws.read(".claude/settings.json"), "{\"hooks\": [");
}

#[test]
fn install_and_list_warn_about_hooks_claude_code_never_reaches() {
    let quiet = "cat >/dev/null";
    let ws = sh_bridged(&[
        ("pre_llm_call", "hooks/prompt.sh", quiet),
        ("pre_tool_call", "hooks/tool.sh", quiet),
    ]);
    let before = list_text(&ws);
    assert!(!before.contains("never dispatches"), "{before}");
    let installed = ws.run(&["claude-install"]);
    let text = String::from_utf8_lossy(&installed.stdout);
    assert!(installed.status.success(), "{installed:?}");
    assert!(
        text.contains("hooks/prompt.sh (pre_llm_call)") && !text.contains("hooks/tool.sh ("),
        "{text}"
    );
    let after = list_text(&ws);
    assert!(
        after.contains("pre_llm_call, which the Claude Code bridge never dispatches"),
        "{after}"
    );
}

#[test]
fn a_stop_loop_reads_a_claude_code_transcript_built_from_the_chat_history() {
    // Reads the transcript the way a Ralph-style loop does: the last assistant line.
    let script = r#"input=$(cat)
path=$(printf '%s' "$input" | sed -n 's/.*"transcript_path":"\([^"]*\)".*/\1/p')
[ -n "$path" ] && [ -f "$path" ] || exit 0
grep '"role":"assistant"' "$path" | tail -n 1 | grep -q DONE && exit 0
printf '{"decision":"block","reason":"keep going"}'"#;
    let command = ".claude/hooks/loop.sh";
    let ws = Ws::new().master(true).sh(command, script);
    let ws = settings(
        ws,
        ".claude/settings.json",
        json!({"Stop": [{"hooks": [{"type": "command", "command": command}]}]}),
    );
    let ws = approved(ws, &[command]);
    let stop = |ws: &Ws| ws.fire("on_stop", json!({"session_id": "s9", "response": "x"}));
    // No chat history: no transcript_path at all, and the loop lets the turn end.
    assert_eq!(stop(&ws).decision(), "continue");
    let history = |last: &str| {
        format!(
            "{}\n{}\n",
            json!({"type": "message", "role": "user", "text": "go"}),
            json!({"type": "message", "role": "assistant", "text": last})
        )
    };
    let ws = ws.file("logs/chat-history.jsonl", &history("still working"));
    assert_eq!(stop(&ws).decision(), "block");
    let ws = ws.file("logs/chat-history.jsonl", &history("all DONE"));
    assert_eq!(stop(&ws).decision(), "continue");
}

#[test]
fn claude_code_http_hooks_reach_the_sidecar_route_with_state_in_one_process() {
    let deny =
        r#"grep -q 'rm -rf /' && printf '{"decision":"block","reason":"not the root"}'; exit 0"#;
    let ws = Ws::new()
        .master(true)
        .sh("hooks/deny.sh", deny)
        .hook(support::Entry::new("pre_tool_call", "hooks/deny.sh"))
        .approve_all();
    // After the entry above: `hook` rewrites config/shell_hooks.yaml with its own entries.
    assert!(ws.run(&["install", "verify_code_changes"]).status.success());
    let server = support::Server::start(&ws);
    let base = format!("http://127.0.0.1:{}", server.port);
    let installed = ws.run(&["claude-install", "--http", &base]);
    assert!(installed.status.success(), "{installed:?}");
    let settings: Value =
        serde_json::from_str(&ws.read(".claude/settings.json")).expect("settings JSON");
    let url = format!("{base}/v1/hooks/claude-code");
    assert_eq!(
        settings["hooks"]["PreToolUse"][0]["hooks"][0],
        json!({"type": "http", "url": url, "timeout": 120,
               "headers": {"Authorization": "Bearer $AGENT_HOOKS_TOKEN"},
               "allowedEnvVars": ["AGENT_HOOKS_TOKEN"]})
    );
    let route = "/v1/hooks/claude-code";
    let (status, answer) = server.post(
        route,
        input(
            "PreToolUse",
            json!({"tool_name": "Bash", "tool_input": {"command": "rm -rf /"}}),
        ),
    );
    assert_eq!(status, 200);
    assert_eq!(
        answer["hookSpecificOutput"]["permissionDecision"], "deny",
        "{answer}"
    );
    // Nothing to say is an empty 2xx body, which Claude Code reads as "no opinion".
    let edit = input(
        "PreToolUse",
        json!({"tool_name": "Edit", "tool_input": {"file_path": "src/a.py", "old_string": "a", "new_string": "b"}}),
    );
    assert_eq!(
        server.post(route, edit),
        (200, Value::String(String::new()))
    );
    let (_, stop) = server.post(
        route,
        input(
            "Stop",
            json!({"stop_hook_active": false, "last_assistant_message": "Done."}),
        ),
    );
    assert_eq!(stop["decision"], "block", "{stop}");
    let (status, answer) = server.post(route, json!({"hook_event_name": "PreCompact"}));
    assert_eq!((status, answer), (200, Value::String(String::new())));
    // Input the route cannot read is answered in Claude Code's format, visibly.
    let (status, answer) = server.request("POST", route, b"{\"hook_event_name\": ");
    assert_eq!(status, 200);
    assert!(
        answer["systemMessage"]
            .as_str()
            .is_some_and(|m| m.contains("could not read")),
        "{answer}"
    );
}

#[test]
fn claude_install_http_fail_closed_writes_the_routes_query_and_names_the_token_variable() {
    let ws = Ws::new();
    let base = "http://127.0.0.1:8787";
    let mut command = ws.command(&["claude-install", "--http", base, "--fail-closed"]);
    let installed = command
        .env_remove("AGENT_HOOKS_TOKEN")
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run claude-install");
    let said = String::from_utf8_lossy(&installed.stderr);
    assert!(installed.status.success(), "{installed:?}");
    assert!(said.contains("$AGENT_HOOKS_TOKEN is not set"), "{said}");
    let settings: Value =
        serde_json::from_str(&ws.read(".claude/settings.json")).expect("settings JSON");
    assert_eq!(
        settings["hooks"]["PreToolUse"][0]["hooks"][0]["url"],
        json!(format!("{base}/v1/hooks/claude-code?on_failure=block"))
    );
    let listed = ws.run(&["list", "--json"]);
    let listed: Value = serde_json::from_slice(&listed.stdout).expect("list --json");
    assert_eq!(
        listed["bridges_fail_closed"],
        json!(["Claude Code"]),
        "{listed}"
    );
}

#[test]
fn an_if_rule_limits_the_hook_to_the_calls_it_names() {
    let command = ".claude/hooks/no_push.sh";
    let ws = Ws::new().master(true).sh(
        command,
        "cat >/dev/null; echo 'pushing is for humans' >&2; exit 2",
    );
    let ws = settings(
        ws,
        ".claude/settings.json",
        json!({"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": command, "if": "Bash(git push *)"}]}]}),
    );
    let ws = approved(ws, &[command]);
    let ls = ws.fire("pre_tool_call", bash("ls"));
    assert_eq!(ls.decision(), "continue");
    assert_eq!(ls.status(command), "skipped");
    let push = ws.fire("pre_tool_call", bash("FOO=1 git push origin main"));
    assert_eq!(push.decision(), "block");
    assert_eq!(push.reason(), "pushing is for humans");
}

#[test]
fn a_changed_if_rule_is_drift_and_list_names_the_field() {
    let command = ".claude/hooks/no_push.sh";
    let declare = |ws: Ws, rule: &str| {
        settings(
            ws,
            ".claude/settings.json",
            json!({"PreToolUse": [{"matcher": "Bash", "hooks": [
                {"type": "command", "command": command, "if": rule}]}]}),
        )
    };
    let ws = Ws::new().master(true).sh(
        command,
        "cat >/dev/null; echo 'pushing is for humans' >&2; exit 2",
    );
    let ws = approved(declare(ws, "Bash(git push *)"), &[command]);
    assert_eq!(
        ws.fire("pre_tool_call", bash("git push")).decision(),
        "block"
    );

    // Widening the rule widens what the approved script judges: the approval no longer holds.
    let ws = declare(ws, "Bash(git *)");
    let fired = ws.fire("pre_tool_call", bash("git push"));
    assert_eq!(fired.decision(), "continue");
    assert_eq!(fired.detail(command), "drift");
    let list = String::from_utf8_lossy(&ws.run(&["list"]).stdout).into_owned();
    assert!(list.contains("if changed since approval"), "{list}");

    ws.approve(command);
    assert_eq!(
        ws.fire("pre_tool_call", bash("git status")).decision(),
        "block"
    );
}

#[test]
fn a_handler_with_shell_bash_runs_in_bash_and_the_approval_binds_the_shell() {
    // `sh` here is dash, which does not set BASH_VERSION.
    let command = r#"printf '{"systemMessage": "ran in %s"}' "${BASH_VERSION:+bash}""#;
    let declare = |ws: Ws, shell: Option<&str>| {
        let mut handler = json!({"type": "command", "command": command});
        if let Some(shell) = shell {
            handler["shell"] = json!(shell);
        }
        settings(
            ws,
            ".claude/settings.json",
            json!({"Stop": [{"hooks": [handler]}]}),
        )
    };
    let ws = approved(declare(Ws::new().master(true), Some("bash")), &[command]);
    let fired = ws.fire("on_stop", json!({"response": "done"}));
    assert_eq!(fired.status(command), "ok", "{:?}", fired.hook(command));
    assert_eq!(fired.warnings(), vec!["ran in bash".to_owned()]);

    // Which shell reads the line is part of what was approved.
    let ws = declare(ws, None);
    let fired = ws.fire("on_stop", json!({"response": "done"}));
    assert_eq!(fired.detail(command), "drift");
    let list = String::from_utf8_lossy(&ws.run(&["list"]).stdout).into_owned();
    assert!(list.contains("shell changed since approval"), "{list}");
}

#[test]
fn a_shell_this_host_cannot_run_skips_the_hook_with_an_error() {
    let ws = settings(
        Ws::new().master(true),
        ".claude/settings.json",
        json!({"Stop": [{"hooks": [
            {"type": "command", "command": "Write-Host hi", "shell": "powershell"},
            {"type": "command", "command": "true", "shell": "zsh"}]}]}),
    );
    let list: Value =
        serde_json::from_slice(&ws.run(&["list", "--json"]).stdout).expect("list --json");
    let errors: Vec<&str> = list["files"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|f| f["file"] == ".claude/settings.json")
        .flat_map(|f| f["errors"].as_array().into_iter().flatten())
        .filter_map(|e| e["message"].as_str())
        .collect();
    assert_eq!(
        errors,
        vec![
            "hooks.Stop[0].hooks[0].shell \"powershell\" runs only on Windows (as in Claude Code); the hook is skipped",
            "hooks.Stop[0].hooks[1].shell must be \"bash\" or \"powershell\", found \"zsh\"; the hook is skipped",
        ]
    );
    let fired = ws.fire("on_stop", json!({"response": "done"}));
    assert!(
        fired.outcome["hooks"].as_array().is_some_and(Vec::is_empty),
        "{:?}",
        fired.outcome
    );
}

/// A settings file with one command handler on `event` (matcher `matcher`), `extra` merged
/// into the handler.
fn one_handler(ws: Ws, event: &str, matcher: &str, command: &str, extra: Value) -> Ws {
    let mut handler = json!({"type": "command", "command": command});
    if let (Some(handler), Some(extra)) = (handler.as_object_mut(), extra.as_object()) {
        handler.extend(extra.clone());
    }
    settings(
        ws,
        ".claude/settings.json",
        json!({ event: [{"matcher": matcher, "hooks": [handler]}] }),
    )
}

fn eventually(what: &str, check: impl FnMut() -> bool) {
    assert!(
        support::eventually(std::time::Duration::from_secs(20), check),
        "timed out waiting for {what}"
    );
}

#[test]
fn an_async_hook_runs_in_the_background_and_its_context_reaches_the_next_turn() {
    let command = ".claude/hooks/tests_async.sh";
    // The hook waits until the test releases it, so "fire returned before the hook ended" is
    // a fact, not a race.
    let ws = Ws::new().master(true).sh(
        command,
        r#"cat >/dev/null
        while [ ! -f "$CLAUDE_PROJECT_DIR/release" ]; do sleep 0.05; done
        echo '{"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "tests passed after editing a.ts"}, "systemMessage": "suite: 12 passed"}'
        "#,
    );
    let ws = one_handler(
        ws,
        "PostToolUse",
        "Write",
        command,
        json!({"async": true, "timeout": 60}),
    );
    let ws = approved(ws, &[command]);
    let edit = json!({"tool_name": "write_file", "tool_input": {"file_path": "a.ts", "content": ""},
                      "tool_result": "ok", "status": "success", "session_id": "s-async"});
    let fired = ws.fire("post_tool_call", edit);
    assert_eq!(fired.status(command), "ok");
    assert!(
        fired.detail(command).contains("in the background"),
        "{}",
        fired.detail(command)
    );
    assert!(fired.strings("notes").is_empty());
    assert!(!ws.runtime_path("claude-async/s-async.jsonl").exists());

    let ws = ws.file("release", "");
    eventually("the async hook's answer", || {
        ws.runtime_path("claude-async/s-async.jsonl").exists()
    });
    // Another session does not get it.
    let other = ws.fire(
        "on_user_message",
        json!({"message": "hi", "session_id": "s-other"}),
    );
    assert!(other.context().is_empty(), "{:?}", other.context());
    // The session's next turn does, as context for the model (not a warning for the user).
    let turn = json!({"message": "and now?", "session_id": "s-async"});
    let next = ws.fire("on_user_message", turn.clone());
    assert_eq!(
        next.context(),
        vec![
            "tests passed after editing a.ts".to_owned(),
            "suite: 12 passed".to_owned()
        ]
    );
    assert!(next.warnings().is_empty(), "{:?}", next.warnings());
    // Delivered once.
    assert!(ws.fire("on_user_message", turn).context().is_empty());
}

#[test]
fn an_async_hook_can_never_block() {
    let command = ".claude/hooks/deny_async.sh";
    let ws = Ws::new().master(true).sh(
        command,
        r#"cat >/dev/null
        echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "too late"}}'
        "#,
    );
    let ws = one_handler(ws, "PreToolUse", "Bash", command, json!({"async": true}));
    let ws = approved(ws, &[command]);
    let fired = ws.fire("pre_tool_call", bash("rm -rf build"));
    assert_eq!(fired.decision(), "continue");
    eventually("the ignored decision to be logged", || {
        ws.events_of("hook_invalid_output").iter().any(|r| {
            r["detail"]
                .as_str()
                .is_some_and(|d| d.contains("cannot block"))
        })
    });
}

#[test]
fn an_async_rewake_hook_reports_its_exit_2_stderr_to_the_model() {
    let command = ".claude/hooks/build_async.sh";
    let ws = Ws::new().master(true).sh(
        command,
        "cat >/dev/null; echo 'build broke: missing semicolon in a.ts' >&2; exit 2",
    );
    let ws = one_handler(
        ws,
        "PostToolUse",
        "*",
        command,
        json!({"asyncRewake": true}),
    );
    let ws = approved(ws, &[command]);
    ws.fire(
        "post_tool_call",
        json!({"tool_name": "write_file", "tool_input": {}, "tool_result": "ok",
               "status": "success", "session_id": "s-wake"}),
    );
    eventually("the rewake report", || {
        ws.runtime_path("claude-async/s-wake.jsonl").exists()
    });
    let next = ws.fire(
        "on_user_message",
        json!({"message": "go on", "session_id": "s-wake"}),
    );
    assert_eq!(
        next.context(),
        vec![format!(
            "background hook \"{command}\" reported: build broke: missing semicolon in a.ts"
        )]
    );
}

#[test]
fn a_background_hook_is_killed_at_its_timeout_and_the_timeout_is_logged() {
    let command = ".claude/hooks/slow_async.sh";
    let ws = Ws::new().master(true).sh(
        command,
        r#"cat >/dev/null; echo $$ > "$CLAUDE_PROJECT_DIR/hook.pid"; sleep 60"#,
    );
    let ws = one_handler(
        ws,
        "PostToolUse",
        "*",
        command,
        json!({"async": true, "timeout": 1}),
    );
    let ws = approved(ws, &[command]);
    ws.fire(
        "post_tool_call",
        json!({"tool_name": "bash", "tool_input": {}, "tool_result": "", "status": "success"}),
    );
    eventually("the hook to start", || ws.exists("hook.pid"));
    let pid: u32 = ws.read("hook.pid").trim().parse().expect("a pid");
    eventually("the hook's timeout", || !support::process_running(pid));
    eventually("the timeout record", || {
        !ws.events_of("hook_timeout").is_empty()
    });
}

#[test]
fn making_an_approved_hook_async_is_drift() {
    let command = ".claude/hooks/guard.sh";
    let ws = Ws::new()
        .master(true)
        .sh(command, "cat >/dev/null; echo no >&2; exit 2");
    let ws = approved(
        one_handler(ws, "PreToolUse", "Bash", command, json!({})),
        &[command],
    );
    assert_eq!(ws.fire("pre_tool_call", bash("ls")).decision(), "block");
    // An async guard can no longer block: not what was approved.
    let ws = one_handler(ws, "PreToolUse", "Bash", command, json!({"async": true}));
    let fired = ws.fire("pre_tool_call", bash("ls"));
    assert_eq!(fired.detail(command), "drift");
    assert!(
        fired
            .warnings()
            .iter()
            .any(|w| w.contains("async changed since approval")),
        "{:?}",
        fired.warnings()
    );
}

/// A plugin installed the way `claude plugin install` leaves it: its files in the cache under
/// `home`, and its entry in `installed_plugins.json`. Returns its root.
fn install_plugin(home: &Path, id: &str, hooks: Value, scripts: &[(&str, &str)]) -> PathBuf {
    let (name, marketplace) = id.split_once('@').expect("name@marketplace");
    let root = home.join(format!(".claude/plugins/cache/{marketplace}/{name}/1.0.0"));
    let write = |rel: &str, text: &str| {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
        std::fs::write(&path, text).expect("write");
        path
    };
    write(
        ".claude-plugin/plugin.json",
        &json!({"name": name, "version": "1.0.0"}).to_string(),
    );
    write(
        "hooks/hooks.json",
        &json!({"description": "test plugin", "hooks": hooks}).to_string(),
    );
    for (rel, body) in scripts {
        let path = write(rel, &format!("#!/bin/sh\n{body}\n"));
        support::set_mode(&path, 0o755);
    }
    std::fs::write(
        home.join(".claude/plugins/installed_plugins.json"),
        json!({"version": 2, "plugins": {id: [{"scope": "user", "installPath": root,
               "version": "1.0.0"}]}})
        .to_string(),
    )
    .expect("installed_plugins.json");
    root.canonicalize().expect("canonical root")
}

fn with_home(ws: &Ws, home: &Path, args: &[&str]) -> Ran {
    let mut cmd = ws.command(args);
    cmd.env("HOME", home);
    run(cmd, b"")
}

#[test]
fn an_enabled_plugins_hooks_run_with_claude_plugin_root_behind_the_trust_gate() {
    let home = tempfile::tempdir().expect("temporary HOME");
    let home = home.path().canonicalize().expect("canonical HOME");
    let root = install_plugin(
        &home,
        "safety@team-tools",
        json!({"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": "\"${CLAUDE_PLUGIN_ROOT}\"/scripts/guard.sh"}]}]}),
        &[(
            "scripts/guard.sh",
            r#"cat >/dev/null; echo "blocked by the plugin at $CLAUDE_PLUGIN_ROOT" >&2; exit 2"#,
        )],
    );
    let command = format!("\"{}\"/scripts/guard.sh", root.display());
    let ws = Ws::new().master(true).file(
        ".claude/settings.json",
        &json!({"enabledPlugins": {"safety@team-tools": true}}).to_string(),
    );

    // Declared, but not approved: it does not run, and says so.
    let fired = fire_with_home(&ws, &home, "pre_tool_call", bash("rm -rf /"));
    assert_eq!(fired["decision"], "continue", "{fired:#}");
    assert_eq!(fired["hooks"][0]["hook"], command);
    assert_eq!(fired["hooks"][0]["detail"], "not approved");

    let approval = with_home(&ws, &home, &["approve", &command]);
    assert_eq!(approval.code, 0, "{}{}", approval.stdout, approval.stderr);
    let fired = fire_with_home(&ws, &home, "pre_tool_call", bash("rm -rf /"));
    assert_eq!(fired["decision"], "block");
    assert_eq!(
        fired["reason"],
        format!("blocked by the plugin at {}", root.display())
    );

    // The approval pins the plugin's script like any other.
    std::fs::write(root.join("scripts/guard.sh"), "#!/bin/sh\nexit 0\n").expect("edit");
    let fired = fire_with_home(&ws, &home, "pre_tool_call", bash("rm -rf /"));
    assert_eq!(fired["hooks"][0]["detail"], "drift");

    // Disabled in the local settings, it is gone.
    let ws = ws.file(
        ".claude/settings.local.json",
        &json!({"enabledPlugins": {"safety@team-tools": false}}).to_string(),
    );
    let fired = fire_with_home(&ws, &home, "pre_tool_call", bash("rm -rf /"));
    assert_eq!(fired["hooks"], json!([]));
}

#[test]
fn a_plugin_in_the_projects_skills_directory_loads_in_place_and_a_missing_one_is_a_warning() {
    let home = tempfile::tempdir().expect("temporary HOME");
    let ws = Ws::new()
        .master(true)
        .file(
            ".claude/settings.json",
            &json!({"enabledPlugins": {"ghost@nowhere": true}}).to_string(),
        )
        .file(
            ".claude/skills/notes/.claude-plugin/plugin.json",
            r#"{"name": "notes"}"#,
        )
        .file(
            ".claude/skills/notes/hooks/hooks.json",
            &json!({"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command",
                "command": "printf 'plugin data: %s' \"$CLAUDE_PLUGIN_DATA\""}]}]}})
            .to_string(),
        );
    let command = "printf 'plugin data: %s' \"$CLAUDE_PLUGIN_DATA\"";
    let approval = with_home(&ws, home.path(), &["approve", command]);
    assert_eq!(approval.code, 0, "{}{}", approval.stdout, approval.stderr);
    let fired = fire_with_home(
        &ws,
        home.path(),
        "on_user_message",
        json!({"message": "hi"}),
    );
    assert_eq!(
        fired["context"],
        json!([format!(
            "plugin data: {}",
            home.path()
                .join(".claude/plugins/data/notes-skills-dir")
                .display()
        )])
    );
    let list = with_home(&ws, home.path(), &["list", "--json"]);
    assert!(
        list.stdout
            .contains("plugin ghost@nowhere is enabled but not installed"),
        "{}",
        list.stdout
    );
}

#[test]
fn exec_form_args_run_without_a_shell_each_word_verbatim() {
    let script = ".claude/hooks/args.sh";
    let ws = Ws::new().master(true).sh(
        script,
        r#"for a in "$@"; do printf '%s\n' "$a"; done > "$CLAUDE_PROJECT_DIR/args.txt""#,
    );
    let ws = settings(
        ws,
        ".claude/settings.json",
        json!({"Stop": [{"hooks": [{"type": "command",
            "command": "${CLAUDE_PROJECT_DIR}/.claude/hooks/args.sh",
            "args": ["it's $HOME", "`date`", "${CLAUDE_PROJECT_DIR}/x"]}]}]}),
    );
    let list: Value =
        serde_json::from_slice(&ws.run(&["list", "--json"]).stdout).expect("list --json");
    let key = list["hooks"][0]["approval_key"]
        .as_str()
        .expect("an approval key")
        .to_owned();
    assert!(key.starts_with(&ws.root().display().to_string()), "{key}");
    ws.approve(&key);
    let fired = ws.fire("on_stop", json!({"response": "done"}));
    assert_eq!(fired.status(&key), "noop", "{:?}", fired.hook(&key));
    let root = ws.root().display().to_string();
    assert_eq!(
        ws.read("args.txt"),
        format!("it's $HOME\n`date`\n{root}/x\n")
    );
}

#[test]
fn session_start_hooks_get_an_env_file_to_append_to() {
    let command = ".claude/hooks/env.sh";
    let ws = Ws::new().master(true).sh(
        command,
        "cat >/dev/null; [ -n \"$CLAUDE_ENV_FILE\" ] && echo 'export NODE_ENV=production' >> \"$CLAUDE_ENV_FILE\"; exit 0",
    );
    let ws = settings(
        ws,
        ".claude/settings.json",
        json!({"SessionStart": [{"hooks": [{"type": "command", "command": command}]}]}),
    );
    let ws = approved(ws, &[command]);
    ws.fire("on_session_start", json!({"status": "startup"}));
    assert_eq!(
        ws.read("state/claude-env.sh"),
        "export NODE_ENV=production\n"
    );
}

#[cfg_attr(not(have_jq), ignore = "needs jq on PATH (.ci/run installs it)")]
#[test]
fn a_command_guarded_by_a_bash_test_expression_is_approved_and_runs() {
    // Real Claude Code hook commands guard their script with `[[ … ]]`; its `&&` is the test's
    // own operator, not a second command.
    let command = format!(
        "[[ -d \"$CLAUDE_PROJECT_DIR\"/.claude && ! -f \"$CLAUDE_PROJECT_DIR\"/.skip ]] && {}",
        project("block_rm_rf.sh")
    );
    // `[[` is bash's: such hooks say `"shell": "bash"` (dash, Linux's sh, has no `[[`).
    let ws = settings(
        claude_ws(&["block_rm_rf.sh"]),
        ".claude/settings.json",
        json!({"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": command, "shell": "bash"}]}]}),
    );
    let ws = approved(ws, &[&command]);
    let fired = ws.fire("pre_tool_call", bash("rm -rf build/"));
    assert_eq!(fired.decision(), "block", "{:#}", fired.outcome);
    assert_eq!(fired.status(&command), "blocked");
    // The script it guards is pinned: an edit is drift.
    let ws = ws.file(".claude/hooks/block_rm_rf.sh", "#!/bin/sh\nexit 0\n");
    let fired = ws.fire("pre_tool_call", bash("rm -rf build/"));
    assert_eq!(fired.detail(&command), "drift");
}

// `type: "http"` handlers: the hook input POSTed to a loopback server, which allow-local lets
// the child processes of these tests reach.

const ALLOW_LOCAL: &str = "AGENT_HOOKS_HTTP_ALLOW_LOCAL";

/// A workspace whose settings declare `handler` (an http handler) on `event`, approved by its
/// URL.
fn http_hook(event: &str, matcher: &str, handler: Value) -> Ws {
    let url = handler["url"].as_str().expect("a url").to_owned();
    let ws = settings(
        Ws::new().master(true),
        ".claude/settings.json",
        json!({ event: [{"matcher": matcher, "hooks": [handler]}] }),
    );
    let mut approve = ws.command(&["approve", &url]);
    approve.env(ALLOW_LOCAL, "1");
    let ran = run(approve, b"");
    assert_eq!(ran.code, 0, "approve {url}: {}{}", ran.stdout, ran.stderr);
    ws
}

/// `fire` with allow-local and `env`.
fn fire_local(ws: &Ws, event: &str, payload: Value, env: &[(&str, &str)]) -> Fired {
    let mut cmd = ws.command(&["fire", event]);
    cmd.env(ALLOW_LOCAL, "1").envs(env.iter().copied());
    let ran = run(cmd, payload.to_string().as_bytes());
    assert_eq!(ran.code, 0, "fire failed: {}", ran.stderr);
    Fired {
        outcome: serde_json::from_str(&ran.stdout).expect("the outcome is JSON"),
        code: 0,
        stderr: ran.stderr,
        elapsed: std::time::Duration::ZERO,
    }
}

#[test]
fn an_http_handler_gets_the_hook_input_and_its_json_answer_denies() {
    let server = Server::start(|_| {
        Response::json(
            r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse",
                "permissionDecision": "deny", "permissionDecisionReason": "no pushes on Friday"}}"#,
        )
    });
    let url = server.url("/hooks/pre-tool-use");
    let ws = http_hook(
        "PreToolUse",
        "Bash",
        json!({"type": "http", "url": url, "timeout": 30,
               "headers": {"Authorization": "Bearer $MY_TOKEN", "X-Home": "${HOME}"},
               "allowedEnvVars": ["MY_TOKEN"]}),
    );
    let fired = fire_local(
        &ws,
        "pre_tool_call",
        bash("git push"),
        &[("MY_TOKEN", "tok-1")],
    );
    assert_eq!(fired.decision(), "block", "{:#}", fired.outcome);
    assert_eq!(fired.reason(), "no pushes on Friday");
    assert_eq!(fired.status(&url), "blocked");

    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    let request = &requests[0];
    assert_eq!(request.path, "/hooks/pre-tool-use");
    assert_eq!(request.header("content-type"), Some("application/json"));
    assert_eq!(request.header("authorization"), Some("Bearer tok-1"));
    // $HOME is not in allowedEnvVars: sent empty, as Claude Code does, and `list` says so.
    assert_eq!(request.header("x-home"), Some(""));
    let input: Value = serde_json::from_slice(&request.body).expect("the body is JSON");
    assert_eq!(input["hook_event_name"], "PreToolUse");
    assert_eq!(input["tool_name"], "Bash");
    assert_eq!(input["tool_input"]["command"], "git push");
    let mut list = ws.command(&["list"]);
    list.env(ALLOW_LOCAL, "1");
    let listed = run(list, b"")
        .stdout
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        listed.contains("$HOME is not in allowedEnvVars") && listed.contains("so it is sent empty"),
        "{listed}"
    );
    assert!(listed.contains(&format!("POST {url}")), "{listed}");
}

#[test]
fn an_http_handlers_text_or_error_answer_is_a_non_blocking_error() {
    let server = Server::start(|request: &Request| {
        if request.path == "/text" {
            Response::json("Remember the style guide.")
        } else {
            Response::status(503)
        }
    });
    for (path, status, logged) in [
        ("/text", "invalid_output", "hook_invalid_json"),
        ("/down", "error", "hook_exec_error"),
    ] {
        let url = server.url(path);
        let ws = http_hook("UserPromptSubmit", "", json!({"type": "http", "url": url}));
        let fired = fire_local(&ws, "on_user_message", json!({"message": "hi"}), &[]);
        assert_eq!(fired.decision(), "continue", "{:#}", fired.outcome);
        assert_eq!(fired.status(&url), status, "{:#}", fired.outcome);
        // Unlike a command's plain stdout, an HTTP body's text never becomes context.
        assert_eq!(fired.outcome["context"], json!([]), "{:#}", fired.outcome);
        assert_eq!(ws.events_of(logged).len(), 1, "{path}");
    }
}

#[test]
fn an_http_handler_times_out_and_is_refused_on_session_start_or_without_allow_local() {
    let server = Server::start(|_| {
        Response::json(r#"{"decision": "block", "reason": "late"}"#)
            .delay(std::time::Duration::from_secs(3))
    });
    let url = server.url("/slow");
    let ws = http_hook(
        "Stop",
        "",
        json!({"type": "http", "url": url, "timeout": 1}),
    );
    let fired = fire_local(&ws, "on_stop", json!({"response": "done"}), &[]);
    assert_eq!(fired.decision(), "continue");
    assert_eq!(fired.status(&url), "timeout");

    let ws = settings(
        Ws::new().master(true),
        ".claude/settings.json",
        json!({"SessionStart": [{"hooks": [{"type": "http", "url": "https://hooks.example.com/s"}]}],
               "Stop": [{"hooks": [{"type": "http", "url": url}]}]}),
    );
    let listed = list_text(&ws);
    assert!(
        listed.contains("http hooks do not run on SessionStart in Claude Code"),
        "{listed}"
    );
    // The SSRF guard of HTTP hooks holds for Claude Code's too: loopback needs allow-local.
    assert!(listed.contains("url refused"), "{listed}");
}

// ---------------------------------------------------------------------------------------------
// Inline guards that read their input through a command substitution

/// Two PreToolUse guards written inline in settings, as published Claude Code configurations
/// write them: the tool input is captured with `$(cat)` and tested with `grep`.
const INLINE_RM_GUARD: &str = r#"CMD=$(cat); if printf '%s' "$CMD" | grep -qE 'rm[[:space:]]+-[a-zA-Z]*r[a-zA-Z]*f'; then echo "BLOCKED: use trash instead of rm -rf ($(date +%H:%M))" >&2; exit 2; fi"#;
const INLINE_PUSH_GUARD: &str = r#"INPUT="$(cat)"; case "$INPUT" in *'git push'*main*) echo 'BLOCKED: push to a branch, not main' >&2; exit 2 ;; esac; exit 0"#;

#[test]
fn inline_guards_that_read_input_through_a_substitution_are_approved_and_block() {
    let ws = settings(
        Ws::new().master(true),
        ".claude/settings.json",
        json!({"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": INLINE_RM_GUARD},
            {"type": "command", "command": INLINE_PUSH_GUARD},
        ]}]}),
    );
    let ws = approved(ws, &[INLINE_RM_GUARD, INLINE_PUSH_GUARD]);
    let bash = |command: &str| json!({"tool_name": "bash", "tool_input": {"command": command}});
    let fired = ws.fire("pre_tool_call", bash("rm -rf build"));
    assert_eq!(fired.decision(), "block", "{:?}", fired.outcome);
    assert!(
        fired.reason().starts_with("BLOCKED: use trash"),
        "{}",
        fired.reason()
    );
    let fired = ws.fire("pre_tool_call", bash("git push origin main"));
    assert_eq!(fired.decision(), "block", "{:?}", fired.outcome);
    assert_eq!(fired.reason(), "BLOCKED: push to a branch, not main");
    assert_eq!(
        ws.fire("pre_tool_call", bash("ls -la")).decision(),
        "continue"
    );
}

#[test]
fn a_substitution_that_picks_the_program_is_refused_and_the_warning_does_not_offer_approval() {
    let command = r#"$(command -v sh) "$CLAUDE_PROJECT_DIR/.claude/hooks/g.sh""#;
    let ws = settings(
        Ws::new().master(true).sh(".claude/hooks/g.sh", "exit 2\n"),
        ".claude/settings.json",
        json!({"PreToolUse": [group("Bash", command)]}),
    );
    let out = ws.run(&["approve", command]);
    assert!(!out.status.success());
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(said.contains("output of a command substitution"), "{said}");
    let fired = ws.fire(
        "pre_tool_call",
        json!({"tool_name": "bash", "tool_input": {"command": "ls"}}),
    );
    let warnings = fired.warnings().join("\n");
    assert!(warnings.contains("cannot be as written"), "{warnings}");
    assert!(!warnings.contains("/hooks approve"), "{warnings}");
}

// ---------------------------------------------------------------------------------------------
// A hook script without `#!`

/// A polyglot launcher in the way plugins publish one for Windows and Unix alike: a batch part
/// hidden from `sh` in a heredoc, then shell code, and no `#!` line (a shell runs it as a
/// shell script when `execve` refuses it).
const POLYGLOT_LAUNCHER: &str = ": << 'CMDBLOCK'\n@echo off\necho windows\nexit /b 0\nCMDBLOCK\ncat >/dev/null\nprintf '{\"hookSpecificOutput\":{\"hookEventName\":\"SessionStart\",\"additionalContext\":\"loaded by %s\"}}' \"$1\"\n";

#[test]
fn a_session_start_script_without_a_shebang_runs_as_a_shell_script() {
    let command = r#""$CLAUDE_PROJECT_DIR/.claude/hooks/run-hook.cmd" session-start"#;
    let ws = settings(
        Ws::new().master(true),
        ".claude/settings.json",
        json!({"SessionStart": [{"matcher": "startup|resume", "hooks": [
            {"type": "command", "command": command}]}]}),
    )
    .file(".claude/hooks/run-hook.cmd", POLYGLOT_LAUNCHER)
    .file("hooks/launch", POLYGLOT_LAUNCHER)
    .hook(support::Entry::new(
        "on_session_start",
        "hooks/launch argv-form",
    ));
    support::set_mode(&ws.path(".claude/hooks/run-hook.cmd"), 0o755);
    support::set_mode(&ws.path("hooks/launch"), 0o755);
    let ws = approved(ws, &[command, "hooks/launch argv-form"]);
    let listed = list_text(&ws);
    assert!(!listed.contains("cannot run"), "{listed}");
    assert!(listed.contains("runs as a shell script"), "{listed}");
    let fired = ws.fire("on_session_start", json!({"source": "startup"}));
    assert_eq!(fired.status(command), "ok", "{:?}", fired.outcome);
    assert_eq!(
        fired.status("hooks/launch argv-form"),
        "ok",
        "{:?}",
        fired.outcome
    );
    assert!(
        fired
            .context()
            .contains(&"loaded by session-start".to_owned()),
        "{:?}",
        fired.outcome
    );
}

#[test]
fn claude_install_http_leaves_session_start_out_and_says_why() {
    let base = "http://127.0.0.1:8787";
    let stale =
        json!({"type": "http", "url": format!("{base}/v1/hooks/claude-code"), "timeout": 120});
    let ws = settings(
        Ws::new(),
        ".claude/settings.json",
        json!({"SessionStart": [
            {"hooks": [stale]},
            {"matcher": "startup", "hooks": [{"type": "command", "command": "echo mine"}]},
        ]}),
    );
    let installed = ws.run(&["claude-install", "--http", base]);
    assert!(installed.status.success(), "{installed:?}");
    let said = String::from_utf8_lossy(&installed.stdout);
    assert!(
        said.contains(
            "Not bridged: SessionStart (Claude Code runs only command hooks on SessionStart)"
        ),
        "{said}"
    );
    let settings: Value =
        serde_json::from_str(&ws.read(".claude/settings.json")).expect("settings JSON");
    // The stale HTTP entry, which Claude Code never ran, is gone; the user's own hook stays.
    assert_eq!(
        settings["hooks"]["SessionStart"],
        json!([{"matcher": "startup", "hooks": [{"type": "command", "command": "echo mine"}]}]),
        "{settings}"
    );
    assert_eq!(
        settings["hooks"]["PreToolUse"][0]["hooks"][0]["type"],
        "http"
    );
    let again = ws.run(&["claude-install", "--http", base]);
    assert!(String::from_utf8_lossy(&again.stdout).contains("nothing changed"));
}

#[test]
fn on_failure_block_makes_a_crashing_guard_block_and_newer_fields_are_told() {
    let crash = ".claude/hooks/crash.sh";
    let ws = settings(
        Ws::new().master(true).sh(crash, "cat >/dev/null; exit 1\n"),
        ".claude/settings.json",
        json!({
            "PreToolUse": [{"matcher": "Bash", "hooks": [
                {"type": "command", "command": crash, "onFailure": "block",
                 "statusMessage": "Checking the command", "once": true},
                {"type": "mcp_tool", "server": "policy", "tool": "check", "input": {}},
            ]}],
            "PreModelSwitch": [{"hooks": [{"type": "command", "command": crash}]}],
        }),
    );
    let ws = approved(ws, &[crash]);
    let fired = ws.fire("pre_tool_call", bash("ls"));
    assert_eq!(fired.decision(), "block", "{:?}", fired.outcome);
    let listed = list_text(&ws);
    for said in [
        "type \"mcp_tool\" calls a tool of an MCP server",
        "PreModelSwitch hooks never fire",
        ".once: Claude Code runs such a hook once per session",
    ] {
        assert!(listed.contains(said), "{said}: {listed}");
    }
    assert!(!listed.contains("statusMessage"), "{listed}");
}
