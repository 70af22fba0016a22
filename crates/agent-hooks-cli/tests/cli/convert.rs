//! `agent-hooks convert`: one agent's hooks rewritten as another's, with everything that has
//! no equivalent reported on stderr rather than dropped.

use crate::support;

use serde_json::{Value, json};
use support::Ws;

fn convert(ws: &Ws, from: &str, to: &str) -> (Value, String) {
    let out = ws.run(&["convert", "--from", from, "--to", to]);
    assert!(out.status.success(), "{out:?}");
    let stdout: Value = serde_json::from_slice(&out.stdout).expect("stdout is JSON");
    (stdout, String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn a_claude_policy_becomes_gemini_and_what_has_no_equivalent_is_reported() {
    let ws = Ws::new().file(
        ".claude/settings.json",
        &json!({"model": "opus", "hooks": {
            "PreToolUse": [{"matcher": "Bash", "hooks": [
                {"type": "command", "command": "sh .claude/hooks/guard.sh", "timeout": 10,
                 "statusMessage": "Checking the command"}]}],
            "PreCompact": [{"hooks": [{"type": "command", "command": "sh save.sh"}]}],
        }})
        .to_string(),
    );
    let (gemini, notes) = convert(&ws, "claude", "gemini");
    let group = &gemini["hooks"]["BeforeTool"][0];
    assert_eq!(group["matcher"], "run_shell_command");
    assert_eq!(group["hooks"][0]["command"], "sh .claude/hooks/guard.sh");
    assert_eq!(group["hooks"][0]["timeout"], 10_000);
    assert_eq!(group["hooks"][0]["statusMessage"], "Checking the command");
    assert!(notes.contains("not converted: hooks.PreCompact"), "{notes}");
    assert!(
        notes.contains("sh save.sh"),
        "the unconverted hook is shown whole: {notes}"
    );
    assert!(
        notes.contains("kept as written") && notes.contains("statusMessage"),
        "{notes}"
    );
}

#[test]
fn a_converted_cursor_policy_loads_as_codex_hooks() {
    let ws = Ws::new().file(
        ".cursor/hooks.json",
        &json!({"version": 1, "hooks": {
            "beforeShellExecution": [{"command": "./hooks/guard.sh"}],
            "stop": [{"command": "./hooks/followup.sh"}],
        }})
        .to_string(),
    );
    let (codex, _) = convert(&ws, "cursor", "codex");
    assert_eq!(codex["hooks"]["PreToolUse"][0]["matcher"], "Bash");
    let ws = ws.file(".codex/hooks.json", &codex.to_string());
    let list = support::list_text(&ws);
    assert!(
        list.contains("./hooks/guard.sh") && list.contains("./hooks/followup.sh"),
        "{list}"
    );
}

#[test]
fn an_unknown_agent_is_bad_usage() {
    let ws = Ws::new();
    let out = ws.run(&["convert", "--from", "claude", "--to", "vscode"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown agent \"vscode\""));
}

// ---------------------------------------------------------------------------------------------
// Round trips between every pair of agents

/// Each agent's policy: a shell guard, a guard of MCP tools, an audit after every tool, and a
/// stop check, with paths written as each agent's users write them.
fn policy(agent: &str) -> (&'static str, Value) {
    let grouped = |root: &str, dir: &str, names: [&str; 4], shell: &str, mcp: Option<&str>| {
        let cmd = |script: &str| json!({"type": "command", "command": format!("{root}/{dir}/hooks/{script}")});
        let mut hooks = json!({
            names[0]: [{"matcher": shell, "hooks": [cmd("guard.sh")]}],
            names[1]: [{"hooks": [cmd("audit.sh")]}],
            names[2]: [{"hooks": [cmd("stop.sh")]}],
        });
        if let Some(mcp) = mcp {
            hooks[names[0]]
                .as_array_mut()
                .expect("a list")
                .push(json!({"matcher": mcp, "hooks": [cmd("mcp.sh")]}));
        }
        let _ = names[3];
        json!({ "hooks": hooks })
    };
    let events = ["PreToolUse", "PostToolUse", "Stop", ""];
    match agent {
        "claude" => (
            ".claude/settings.json",
            grouped(
                "\"$CLAUDE_PROJECT_DIR\"",
                ".claude",
                events,
                "Bash",
                Some("mcp__.*"),
            ),
        ),
        "codex" => (
            ".codex/hooks.json",
            grouped(
                "\"$(git rev-parse --show-toplevel)\"",
                ".codex",
                events,
                "Bash",
                Some("mcp__.*"),
            ),
        ),
        "gemini" => (
            ".gemini/settings.json",
            grouped(
                "\"$GEMINI_PROJECT_DIR\"",
                ".gemini",
                ["BeforeTool", "AfterTool", "AfterAgent", ""],
                "run_shell_command",
                None,
            ),
        ),
        "agent-hooks" => (
            "config/shell_hooks.yaml",
            json!({"hooks": [
                {"event": "pre_tool_call", "command": "hooks/guard.sh", "timeout": 5},
                {"event": "on_stop", "command": "hooks/stop.sh --strict"},
                {"event": "on_user_message", "command": "python3 hooks/prompt.py"},
                {"event": "post_tool_call", "command": "hooks/audit.sh", "matcher": "rm -rf"},
            ]}),
        ),
        "copilot" => (
            ".github/hooks/agent-hooks.json",
            json!({"version": 1, "hooks": {
                "preToolUse": [{"type": "command", "bash": "./hooks/guard.sh", "matcher": "bash"}],
                "postToolUse": [{"type": "command", "bash": "./hooks/audit.sh"}],
                "agentStop": [{"type": "command", "bash": "./hooks/stop.sh"}],
            }}),
        ),
        "windsurf" => (
            ".windsurf/hooks.json",
            json!({"hooks": {
                "pre_run_command": [{"command": "./hooks/guard.sh"}],
                "pre_mcp_tool_use": [{"command": "./hooks/mcp.sh"}],
                "post_write_code": [{"command": "./hooks/audit.sh"}],
            }}),
        ),
        _ => (
            ".cursor/hooks.json",
            json!({"version": 1, "hooks": {
                "beforeShellExecution": [{"command": "./hooks/guard.sh"}],
                "beforeMCPExecution": [{"command": "./hooks/mcp.sh"}],
                "postToolUse": [{"command": "./hooks/audit.sh"}],
                "stop": [{"command": "./hooks/stop.sh"}],
            }}),
        ),
    }
}

/// Every handler of a hooks file as (event, matcher, command).
fn handlers(doc: &Value) -> std::collections::BTreeSet<(String, String, String)> {
    let mut out = std::collections::BTreeSet::new();
    if let Some(list) = doc["hooks"].as_array() {
        // config/shell_hooks.yaml: a list of hooks.
        for hook in list {
            out.insert((
                hook["event"].as_str().unwrap_or("").to_owned(),
                hook["matcher"].as_str().unwrap_or("").to_owned(),
                hook["command"].as_str().unwrap_or("").to_owned(),
            ));
        }
        return out;
    }
    for (event, list) in doc["hooks"].as_object().expect("hooks") {
        for group in list.as_array().expect("a list") {
            let matcher = group["matcher"].as_str().unwrap_or("").to_owned();
            let inner = group["hooks"]
                .as_array()
                .cloned()
                .unwrap_or_else(|| vec![group.clone()]);
            for handler in inner {
                // Copilot's key is `bash` (its `command` is the alias).
                let command = handler["command"]
                    .as_str()
                    .or_else(|| handler["bash"].as_str())
                    .expect("a command")
                    .to_owned();
                out.insert((event.clone(), matcher.clone(), command));
            }
        }
    }
    out
}

/// `a` → `b` → `a` gives back every hook of `a`'s policy, but those `b` cannot hold, which
/// the first conversion names; the converted file loads in `b` without an error.
fn round_trip(a: &str, b: &str) {
    let (file_a, doc_a) = policy(a);
    let ws = Ws::new().file(file_a, &doc_a.to_string());
    let (converted, notes) = convert(&ws, a, b);
    let (file_b, _) = policy(b);
    let there = Ws::new().file(file_b, &converted.to_string());
    let list = support::list_text(&there);
    assert!(
        !list.contains("error"),
        "{a} → {b} does not load cleanly: {list}\n{converted}"
    );
    let (back, back_notes) = convert(&there, b, a);
    let lost: Vec<_> = handlers(&doc_a)
        .difference(&handlers(&back))
        .cloned()
        .collect();
    for (_, _, command) in &lost {
        assert!(
            notes
                .lines()
                .any(|n| n.starts_with("not converted") && n.contains(command.as_str())),
            "{a} → {b} → {a} lost {command} without a word: {notes}\n{back}"
        );
    }
    // What one side could only widen (a hook for successful calls only, to an agent whose
    // event fires after failures too) comes back wider, as the first conversion said.
    let gained: Vec<_> = handlers(&back)
        .difference(&handlers(&doc_a))
        .filter(|(_, _, command)| {
            !notes
                .lines()
                .any(|n| n.starts_with("widened") && n.contains(command.as_str()))
        })
        .cloned()
        .collect();
    assert!(
        gained.is_empty(),
        "{a} → {b} → {a} changed meaning: {gained:?}\n{converted}\n{back}\n{back_notes}"
    );
}

macro_rules! round_trips {
    ($($name:ident: $a:literal <-> $b:literal;)*) => {$(
        #[test]
        fn $name() {
            round_trip($a, $b);
            round_trip($b, $a);
        }
    )*};
}

round_trips! {
    claude_and_codex_round_trip: "claude" <-> "codex";
    claude_and_gemini_round_trip: "claude" <-> "gemini";
    claude_and_cursor_round_trip: "claude" <-> "cursor";
    codex_and_gemini_round_trip: "codex" <-> "gemini";
    codex_and_cursor_round_trip: "codex" <-> "cursor";
    gemini_and_cursor_round_trip: "gemini" <-> "cursor";
    agent_hooks_and_claude_round_trip: "agent-hooks" <-> "claude";
    agent_hooks_and_codex_round_trip: "agent-hooks" <-> "codex";
    agent_hooks_and_gemini_round_trip: "agent-hooks" <-> "gemini";
    agent_hooks_and_cursor_round_trip: "agent-hooks" <-> "cursor";
    copilot_and_claude_round_trip: "copilot" <-> "claude";
    copilot_and_codex_round_trip: "copilot" <-> "codex";
    copilot_and_gemini_round_trip: "copilot" <-> "gemini";
    copilot_and_cursor_round_trip: "copilot" <-> "cursor";
    copilot_and_windsurf_round_trip: "copilot" <-> "windsurf";
    agent_hooks_and_copilot_round_trip: "agent-hooks" <-> "copilot";
    windsurf_and_claude_round_trip: "windsurf" <-> "claude";
    windsurf_and_codex_round_trip: "windsurf" <-> "codex";
    windsurf_and_gemini_round_trip: "windsurf" <-> "gemini";
    windsurf_and_cursor_round_trip: "windsurf" <-> "cursor";
    agent_hooks_and_windsurf_round_trip: "agent-hooks" <-> "windsurf";
}

#[test]
fn plugin_paths_are_refused_and_cursor_paths_rebased() {
    let ws = Ws::new().file(
        ".claude/settings.json",
        &json!({"hooks": {"SessionStart": [{"hooks": [
            {"type": "command", "command": "\"${CLAUDE_PLUGIN_ROOT}/hooks/run-hook.cmd\" session-start"}]}]}})
        .to_string(),
    );
    let (cursor, notes) = convert(&ws, "claude", "cursor");
    assert!(cursor["hooks"].get("sessionStart").is_none(), "{cursor}");
    assert!(notes.contains("CLAUDE_PLUGIN_ROOT"), "{notes}");
    let ws = Ws::new().file(
        ".cursor/hooks.json",
        &json!({"version": 1, "hooks": {"beforeShellExecution": [{"command": "python3 ./hooks/g.py --strict"}]}})
            .to_string(),
    );
    let (claude, notes) = convert(&ws, "cursor", "claude");
    assert_eq!(
        claude["hooks"]["PreToolUse"][0]["hooks"][0]["command"],
        "python3 \"$CLAUDE_PROJECT_DIR\"/.cursor/hooks/g.py --strict"
    );
    assert!(notes.contains("rewritten for Claude Code"), "{notes}");
}
