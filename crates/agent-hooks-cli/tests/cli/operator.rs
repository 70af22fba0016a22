//! The operator's view: `list`, `doctor` and their `--json` forms against throwaway workspaces
//! put in each health state, the example workspace passing `doctor`, and the host function
//! `commands::run_line` printing exactly what the CLI prints.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use agent_hooks_runtime::{Engine, Workspace};
use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_agent-hooks");

/// A temporary workspace with the master switch on.
struct Ws {
    dir: tempfile::TempDir,
}

impl Ws {
    fn new() -> Ws {
        let ws = Ws {
            dir: tempfile::tempdir().expect("tempdir"),
        };
        ws.write("config/agent.yaml", "shell_hooks:\n  enabled: true\n");
        ws
    }

    fn root(&self) -> &Path {
        self.dir.path()
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.root().join(rel)
    }

    fn write(&self, rel: &str, text: &str) -> &Ws {
        let path = self.path(rel);
        fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        fs::write(&path, text).expect("write");
        self
    }

    /// An executable script.
    fn script(&self, rel: &str, text: &str) -> &Ws {
        self.write(rel, text);
        fs::set_permissions(self.path(rel), fs::Permissions::from_mode(0o755)).expect("chmod");
        self
    }

    fn hooks(&self, yaml: &str) -> &Ws {
        self.write("config/shell_hooks.yaml", yaml)
    }

    fn run(&self, args: &[&str]) -> (i32, String) {
        let out = Command::new(BIN)
            .arg("--workspace")
            .arg(self.root())
            .args(args)
            .env_remove("NO_COLOR")
            .stdin(Stdio::null())
            .output()
            .expect("run agent-hooks");
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    }

    fn ok(&self, args: &[&str]) -> String {
        let (status, text) = self.run(args);
        assert_eq!(status, 0, "agent-hooks {args:?} failed:\n{text}");
        text
    }

    fn json(&self, args: &[&str]) -> (i32, Value) {
        let (status, text) = self.run(args);
        let value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
        (status, value)
    }

    fn approve(&self, command: &str) -> &Ws {
        self.ok(&["approve", command]);
        self
    }
}

/// The hook named `name` in a `--json` report.
fn hook<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["hooks"]
        .as_array()
        .and_then(|hooks| hooks.iter().find(|h| h["name"] == name))
        .unwrap_or_else(|| panic!("no hook {name} in {report:#}"))
}

fn codes(hook: &Value) -> Vec<String> {
    hook["findings"]
        .as_array()
        .map(|f| {
            f.iter()
                .filter_map(|f| f["code"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

const QUIET_SH: &str = "#!/bin/sh\ncat > /dev/null\n";

fn assert_fits_80_columns(text: &str) {
    for line in text.lines() {
        assert!(line.chars().count() <= 80, "too wide: {line:?}");
    }
}

// ---------------------------------------------------------------------------------------------
// list: one health state each

#[test]
fn an_approved_hook_lists_as_approved() {
    let ws = Ws::new();
    let script = ws.path("hooks/quiet.sh").display().to_string();
    ws.script("hooks/quiet.sh", QUIET_SH).hooks(&format!(
        "hooks:\n  - name: quiet\n    event: pre_tool_call\n    matcher: \"rm \"\n    command: {script}\n"
    ));
    ws.approve(&script);

    let text = ws.ok(&["list"]);
    assert!(text.contains("quiet: approved\n"), "{text}");
    assert!(text.contains("Master switch: ON"), "{text}");
    assert_fits_80_columns(&text);

    let (status, report) = ws.json(&["list", "--json"]);
    assert_eq!(status, 0);
    assert_eq!(report["master_enabled"], true);
    let h = hook(&report, "quiet");
    assert_eq!(h["health"], "approved");
    assert_eq!(h["why"], Value::Null);
    assert_eq!(h["source"], "shell_hooks");
    assert_eq!(h["file"], "config/shell_hooks.yaml");
    assert_eq!(h["line"], 2);
    assert_eq!(h["events"], serde_json::json!(["pre_tool_call"]));
    assert_eq!(h["approved_events"], serde_json::json!(["pre_tool_call"]));
    assert_eq!(h["matcher"], "rm ");
    assert_eq!(h["transport"], "command");
    assert_eq!(h["run"], script.as_str());
    assert_eq!(h["approval_key"], script.as_str());
    assert_eq!(h["findings"], serde_json::json!([]));
}

#[test]
fn a_declared_but_unapproved_hook_says_how_to_approve_it() {
    let ws = Ws::new();
    let script = ws.path("hooks/quiet.sh").display().to_string();
    ws.script("hooks/quiet.sh", QUIET_SH).hooks(&format!(
        "hooks:\n  - name: quiet\n    event: on_stop\n    command: {script}\n"
    ));
    let text = ws.ok(&["list"]);
    assert!(text.contains("quiet: not approved\n"), "{text}");
    assert!(
        text.contains(&format!("fix:     agent-hooks approve {script}")),
        "{text}"
    );

    let (_, report) = ws.json(&["list", "--json"]);
    let h = hook(&report, "quiet");
    assert_eq!(h["health"], "not_approved");
    assert_eq!(h["why"], "not approved for on_stop: it does not run there");
    assert_eq!(h["findings"][0]["code"], "not_approved");
    assert_eq!(h["findings"][0]["severity"], "error");
    assert_eq!(h["findings"][0]["event"], "on_stop");
}

#[test]
fn a_script_edited_after_approval_is_changed_since_approval_naming_the_file() {
    let ws = Ws::new();
    let script = ws.path("hooks/quiet.sh").display().to_string();
    ws.script("hooks/quiet.sh", QUIET_SH).hooks(&format!(
        "hooks:\n  - name: quiet\n    event: on_stop\n    command: {script}\n"
    ));
    ws.approve(&script);
    ws.script("hooks/quiet.sh", &format!("{QUIET_SH}echo '{{}}'\n"));

    let text = ws.ok(&["list"]);
    assert!(text.contains("quiet: changed since approval\n"), "{text}");
    assert!(text.contains("was modified"), "{text}");

    let (_, report) = ws.json(&["list", "--json"]);
    let h = hook(&report, "quiet");
    assert_eq!(h["health"], "changed");
    assert!(
        h["why"].as_str().is_some_and(|w| w.contains(&script)),
        "{h:#}"
    );
    assert_eq!(h["approved_events"], serde_json::json!([]));
    assert_eq!(codes(h), vec!["drift"]);
}

#[test]
fn a_missing_script_cannot_run_and_a_relative_path_says_where_it_resolved() {
    let ws = Ws::new();
    ws.hooks("hooks:\n  - name: ghost\n    event: on_stop\n    command: hooks/ghost.py\n");
    let (_, report) = ws.json(&["list", "--json"]);
    let h = hook(&report, "ghost");
    assert_eq!(h["health"], "cannot_run");
    let resolved = ws.path("hooks/ghost.py").display().to_string();
    assert_eq!(
        h["why"],
        format!(
            "hooks/ghost.py not found: the relative path resolved to {resolved}, which does not exist"
        )
    );
    assert!(codes(h).contains(&"not_found".to_owned()));
    let text = ws.ok(&["list"]);
    assert!(text.contains("ghost: cannot run\n"), "{text}");
}

#[test]
fn a_script_without_execute_permission_cannot_run() {
    let ws = Ws::new();
    let script = ws.path("hooks/plain.py").display().to_string();
    ws.write("hooks/plain.py", QUIET_SH).hooks(&format!(
        "hooks:\n  - name: plain\n    event: on_stop\n    command: {script}\n"
    ));
    let (_, report) = ws.json(&["list", "--json"]);
    let h = hook(&report, "plain");
    assert_eq!(h["health"], "cannot_run");
    assert!(codes(h).contains(&"not_executable".to_owned()));
    assert_eq!(h["fix"], format!("chmod +x {script}"));
}

#[test]
fn a_missing_interpreter_is_named() {
    let ws = Ws::new();
    let script = ws.path("hooks/odd.sh").display().to_string();
    ws.script("hooks/odd.sh", "#!/usr/bin/env no-such-interpreter-xyz\n")
        .hooks(&format!(
            "hooks:\n  - name: odd\n    event: on_stop\n    command: {script}\n"
        ));
    let (_, report) = ws.json(&["list", "--json"]);
    let h = hook(&report, "odd");
    assert_eq!(h["health"], "cannot_run");
    assert!(codes(h).contains(&"interpreter_missing".to_owned()));
    assert!(
        h["why"]
            .as_str()
            .is_some_and(|w| w.contains("no-such-interpreter-xyz"))
    );
}

#[test]
fn a_broken_entry_is_a_config_error_with_file_line_and_column() {
    let ws = Ws::new();
    let script = ws.path("hooks/quiet.sh").display().to_string();
    ws.script("hooks/quiet.sh", QUIET_SH).hooks(&format!(
        "hooks:\n  - event: pre_tool\n    command: {script}\n  - name: good\n    event: on_stop\n    command: {script}\n    timeout: 500\n    comand: x\n"
    ));
    let text = ws.ok(&["list"]);
    assert!(
        text.contains("entry at config/shell_hooks.yaml:2: config error"),
        "{text}"
    );
    assert!(
        text.contains("config/shell_hooks.yaml:2:12: unknown event \"pre_tool\" (did you mean\n")
            || text.contains("config/shell_hooks.yaml:2:12: unknown event \"pre_tool\""),
        "{text}"
    );

    let (_, report) = ws.json(&["list", "--json"]);
    let file = report["files"]
        .as_array()
        .and_then(|f| f.iter().find(|f| f["file"] == "config/shell_hooks.yaml"))
        .expect("shell_hooks.yaml in files");
    assert_eq!(file["state"], "loaded");
    assert_eq!(file["source"], "shell_hooks");
    assert_eq!(file["count"], 1);
    assert_eq!(file["errors"][0]["line"], 2);
    assert_eq!(file["errors"][0]["column"], 12);
    assert_eq!(
        file["errors"][0]["message"],
        "unknown event \"pre_tool\" (did you mean \"pre_tool_call\"?)"
    );
    let warnings: Vec<&str> = file["warnings"]
        .as_array()
        .expect("warnings")
        .iter()
        .filter_map(|w| w["message"].as_str())
        .collect();
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("unknown key \"comand\"")),
        "{warnings:?}"
    );
    assert!(warnings.iter().any(|w| w.contains("120")), "{warnings:?}");
}

#[test]
fn a_file_that_does_not_parse_is_reported_with_its_location() {
    let ws = Ws::new();
    ws.hooks("hooks:\n  - event: on_stop\n   command: [\n");
    let (status, report) = ws.json(&["list", "--json"]);
    assert_eq!(status, 0);
    let file = &report["files"]
        .as_array()
        .and_then(|f| f.iter().find(|f| f["file"] == "config/shell_hooks.yaml"))
        .expect("file");
    assert_eq!(file["state"], "broken");
    assert_eq!(file["errors"][0]["line"], 3);
    let text = ws.ok(&["list"]);
    assert!(
        text.contains("config error (none of its hooks run)"),
        "{text}"
    );
    assert!(
        text.contains("error:   config/shell_hooks.yaml:3:"),
        "{text}"
    );
}

#[test]
fn a_hook_approved_only_for_an_event_it_is_not_declared_for_never_fires() {
    let ws = Ws::new();
    let script = ws.path("hooks/quiet.sh").display().to_string();
    ws.script("hooks/quiet.sh", QUIET_SH).hooks(&format!(
        "hooks:\n  - name: moved\n    event: pre_tool_call\n    command: {script}\n"
    ));
    ws.ok(&["approve", "pre_tool_call", &script]);
    // The declaration moves to another event after the approval.
    ws.hooks(&format!(
        "hooks:\n  - name: moved\n    event: on_stop\n    command: {script}\n"
    ));
    let (_, report) = ws.json(&["list", "--json"]);
    let h = hook(&report, "moved");
    assert_eq!(h["health"], "never_fires");
    assert_eq!(
        h["why"],
        "approved for pre_tool_call, but declared for on_stop: it never fires"
    );
    let text = ws.ok(&["list"]);
    assert!(text.contains("moved: never fires\n"), "{text}");
}

#[test]
fn a_hook_on_an_event_the_host_never_sends_never_fires() {
    let ws = Ws::new();
    let script = ws.path("hooks/quiet.sh").display().to_string();
    ws.write(
        "config/agent.yaml",
        "shell_hooks:\n  enabled: true\n  host_events: [pre_tool_call, on_stop]\n",
    )
    .script("hooks/quiet.sh", QUIET_SH)
    .hooks(&format!(
        "hooks:\n  - name: claims\n    event: on_completion_claim\n    command: {script}\n"
    ));
    ws.approve(&script);
    let (_, report) = ws.json(&["list", "--json"]);
    assert_eq!(
        report["host_events"],
        serde_json::json!(["pre_tool_call", "on_stop"])
    );
    let h = hook(&report, "claims");
    assert_eq!(h["health"], "never_fires");
    assert_eq!(codes(h), vec!["host_never_sends"]);
}

#[test]
fn a_skill_hook_needs_no_approval() {
    let ws = Ws::new();
    ws.write(
        "skills/policy/hooks.json",
        r#"{"hooks": [{"name": "policy", "command": "cat", "events": ["pre_tool_call"]}]}"#,
    );
    let (_, report) = ws.json(&["list", "--json"]);
    let h = hook(&report, "policy");
    assert_eq!(h["health"], "no_approval_needed");
    assert_eq!(h["source"], "skill");
    assert_eq!(h["approval_key"], Value::Null);
    let text = ws.ok(&["list"]);
    assert!(text.contains("policy: no approval needed\n"), "{text}");
}

#[test]
fn list_shows_the_master_switch_off() {
    let ws = Ws::new();
    ws.write("config/agent.yaml", "shell_hooks:\n  enabled: false\n");
    let text = ws.ok(&[]);
    assert!(text.contains("Master switch: OFF"), "{text}");
    let (_, report) = ws.json(&["list", "--json"]);
    assert_eq!(report["master_enabled"], false);
}

#[test]
fn an_empty_list_offers_the_numbered_ready_made_hooks() {
    let ws = Ws::new();
    let text = ws.ok(&[]);
    assert!(text.contains("agent-hooks install <name|number>"), "{text}");
    for (i, name) in agent_hooks_runtime::guards::names().iter().enumerate() {
        let line = format!("{:>2}. {name} ", i + 1);
        assert!(text.contains(&line), "{line:?} missing from:\n{text}");
    }
    // Once a hook is declared, the list shows hooks, not the offer.
    ws.write(
        "config/shell_hooks.yaml",
        "hooks:\n  - event: pre_tool_call\n    type: builtin\n    name: security_guard\n",
    );
    let text = ws.ok(&[]);
    assert!(
        !text.contains("agent-hooks install <name|number>"),
        "{text}"
    );
}

// ---------------------------------------------------------------------------------------------
// doctor

/// A workspace with one approved sh hook per (name, event, body).
fn doctor_ws(hooks: &[(&str, &str, &str)]) -> Ws {
    let ws = Ws::new();
    let mut yaml = String::from("hooks:\n");
    for (name, event, body) in hooks {
        let rel = format!("hooks/{name}.sh");
        ws.script(&rel, &format!("#!/bin/sh\ncat > /dev/null\n{body}\n"));
        let path = ws.path(&rel).display().to_string();
        yaml.push_str(&format!(
            "  - name: {name}\n    event: {event}\n    command: {path}\n    timeout: 5\n"
        ));
    }
    ws.hooks(&yaml);
    for (name, _, _) in hooks {
        ws.approve(&ws.path(&format!("hooks/{name}.sh")).display().to_string());
    }
    ws
}

#[test]
fn doctor_runs_each_hook_and_reports_its_answer_and_effect() {
    let ws = doctor_ws(&[
        ("silent", "pre_tool_call", ""),
        (
            "blocker",
            "pre_tool_call",
            r#"echo '{"decision": "block", "reason": "no"}'"#,
        ),
        (
            "claude",
            "pre_tool_call",
            r#"echo '{"hookSpecificOutput": {"permissionDecision": "deny", "permissionDecisionReason": "nope"}}'"#,
        ),
        (
            "context",
            "on_user_message",
            r#"echo '{"context": "be brief"}'"#,
        ),
    ]);
    let (status, report) = ws.json(&["doctor", "--json"]);
    assert_eq!(status, 0, "{report:#}");
    assert_eq!(report["ok"], true);
    assert_eq!(report["problems"], 0);

    let silent = hook(&report, "silent");
    assert_eq!(silent["ran"], true);
    assert_eq!(silent["health"], "approved");
    let run = &silent["runs"][0];
    assert_eq!(run["event"], "pre_tool_call");
    assert_eq!(run["result"], "ok");
    assert_eq!(run["exit_code"], 0);
    assert_eq!(run["answer"], "nothing");
    assert_eq!(run["effect"], "none");
    assert_eq!(run["slow"], false);
    assert_eq!(run["problem"], Value::Null);
    assert!(run["ms"].as_f64().is_some());

    let blocker = &hook(&report, "blocker")["runs"][0];
    assert_eq!(blocker["answer"], "json");
    assert_eq!(blocker["effect"], "block: no");
    let claude = &hook(&report, "claude")["runs"][0];
    assert_eq!(claude["answer"], "claude_code_json");
    assert_eq!(claude["effect"], "block: nope");
    let context = &hook(&report, "context")["runs"][0];
    assert_eq!(
        context["effect"],
        "inject context the model sees: \"be brief\""
    );

    let (status, text) = ws.run(&["doctor"]);
    assert_eq!(status, 0, "{text}");
    assert!(text.contains("blocker: ok\n"), "{text}");
    assert!(text.contains("answered decision JSON"), "{text}");
    assert!(text.contains("answered Claude Code JSON"), "{text}");
    assert!(
        text.contains("\nOK: 4 hooks ran, nothing is broken"),
        "{text}"
    );
    assert_fits_80_columns(&text);
}

#[test]
fn doctor_names_each_kind_of_bad_answer_and_exits_non_zero() {
    let ws = doctor_ws(&[
        ("garbage", "on_stop", "echo 'not json at all'"),
        ("twice", "on_stop", "echo '{}'; echo '{}'"),
        (
            "profile",
            "on_stop",
            "echo 'Welcome to bash'; echo '{\"reason\": \"x\"}'",
        ),
        ("crashes", "on_stop", "echo boom >&2; exit 3"),
    ]);
    let (status, report) = ws.json(&["doctor", "--json"]);
    assert_eq!(status, 1);
    assert_eq!(report["ok"], false);
    assert_eq!(report["problems"], 4);
    let garbage = &hook(&report, "garbage")["runs"][0];
    assert_eq!(garbage["answer"], "invalid_json");
    assert_eq!(garbage["result"], "failed");
    assert_eq!(garbage["stdout"], "not json at all");
    assert!(
        garbage["problem"]
            .as_str()
            .is_some_and(|p| p.contains("not JSON"))
    );
    assert_eq!(
        hook(&report, "twice")["runs"][0]["answer"],
        "two_json_documents"
    );
    assert_eq!(
        hook(&report, "profile")["runs"][0]["answer"],
        "polluted_stdout"
    );
    let crashes = &hook(&report, "crashes")["runs"][0];
    assert_eq!(crashes["exit_code"], 3);
    assert_eq!(crashes["stderr"], "boom");

    let (status, text) = ws.run(&["doctor"]);
    assert_eq!(status, 1);
    assert!(text.contains("garbage: failed\n"), "{text}");
    assert!(text.contains("answered invalid JSON"), "{text}");
    assert!(text.contains("answered two JSON documents"), "{text}");
    assert!(
        text.contains("answered JSON mixed with other text"),
        "{text}"
    );
    assert!(
        text.contains("\nBROKEN: 4 problems (garbage, twice, profile, crashes)"),
        "{text}"
    );
}

#[test]
fn doctor_flags_a_slow_hook() {
    let ws = doctor_ws(&[("slowpoke", "on_session_start", "sleep 1.2")]);
    let (status, report) = ws.json(&["doctor", "--json"]);
    assert_eq!(status, 0, "slow is a warning, not a failure");
    let run = &hook(&report, "slowpoke")["runs"][0];
    assert_eq!(run["slow"], true);
    assert!(run["ms"].as_f64().is_some_and(|ms| ms >= 1000.0));
    assert!(report["warnings"].as_u64().is_some_and(|w| w >= 1));
}

#[test]
fn doctor_does_not_run_unapproved_hooks_and_says_so() {
    let ws = Ws::new();
    let marker = ws.path("ran");
    let script = ws.path("hooks/touch.sh").display().to_string();
    ws.script(
        "hooks/touch.sh",
        &format!("#!/bin/sh\ntouch {}\n", marker.display()),
    )
    .hooks(&format!(
        "hooks:\n  - name: touchy\n    event: on_stop\n    command: {script}\n"
    ));
    let (status, report) = ws.json(&["doctor", "--json"]);
    assert_eq!(status, 1);
    let h = hook(&report, "touchy");
    assert_eq!(h["ran"], false);
    assert_eq!(
        h["not_run"],
        "not run: not approved for on_stop: it does not run there"
    );
    assert_eq!(h["runs"], serde_json::json!([]));
    assert!(!marker.exists(), "an unapproved hook must not run");
    let (_, text) = ws.run(&["doctor"]);
    assert!(text.contains("touchy: not approved, not run\n"), "{text}");
}

#[test]
fn doctor_reports_a_missing_script_without_running_it() {
    let ws = Ws::new();
    let script = ws.path("hooks/gone.sh").display().to_string();
    ws.script("hooks/gone.sh", "#!/bin/sh\n").hooks(&format!(
        "hooks:\n  - name: gone\n    event: on_stop\n    command: {script}\n"
    ));
    ws.approve(&script);
    fs::remove_file(&script).expect("rm");
    let (status, text) = ws.run(&["doctor"]);
    assert_eq!(status, 1, "{text}");
    assert!(text.contains("gone: cannot run, not run\n"), "{text}");
    assert!(text.contains("BROKEN"), "{text}");
}

// ---------------------------------------------------------------------------------------------
// The example workspace

fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).expect("mkdir");
    for entry in fs::read_dir(from).expect("read_dir").flatten() {
        let target = to.join(entry.file_name());
        let path = entry.path();
        if path.is_dir() {
            copy_dir(&path, &target);
        } else {
            fs::copy(&path, &target).expect("copy");
        }
    }
}

fn example_copy() -> tempfile::TempDir {
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/workspace");
    let dir = tempfile::tempdir().expect("tempdir");
    copy_dir(&example, dir.path());
    // Approvals record absolute paths and times: made fresh for the copy, as demo.sh does.
    let _ = fs::remove_file(dir.path().join("config/hook_approvals.json"));
    dir
}

#[test]
fn doctor_passes_on_the_example_workspace_once_its_hooks_are_approved() {
    let dir = example_copy();
    let ws = Ws { dir };
    ws.approve("hooks/block_dangerous.sh");
    ws.approve("hooks/project_context.sh");
    let (status, text) = ws.run(&["doctor"]);
    assert_eq!(status, 0, "{text}");
    assert!(text.contains("\nOK: 2 hooks ran"), "{text}");
}

#[test]
fn doctor_on_the_example_workspace_names_a_broken_hook() {
    let dir = example_copy();
    let ws = Ws { dir };
    ws.approve("hooks/block_dangerous.sh");
    ws.approve("hooks/project_context.sh");
    let path = ws.path("hooks/project_context.sh");
    fs::set_permissions(&path, fs::Permissions::from_mode(0o644)).expect("chmod");
    let (status, text) = ws.run(&["doctor"]);
    assert_eq!(status, 1, "{text}");
    assert!(
        text.contains("project-context: cannot run, not run\n"),
        "{text}"
    );
    assert!(
        text.contains("BROKEN: 1 problem (project-context)"),
        "{text}"
    );
}

// ---------------------------------------------------------------------------------------------
// The host function prints what the CLI prints

fn host(ws: &Ws, line: &str) -> (i32, String) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let engine = Engine::open(Workspace::new(ws.root()));
    let out = runtime.block_on(agent_hooks_runtime::commands::run_line(&engine, line));
    (out.status, out.text)
}

/// Blanks out the one thing that differs between two runs: how long hooks took.
fn without_times(text: &str) -> String {
    text.lines()
        .map(|line| match line.find("ran in ") {
            Some(at) => {
                let rest = &line[at + 7..];
                let end = rest.find(',').unwrap_or(rest.len());
                format!("{}ran in <t>{}", &line[..at], &rest[end..])
            }
            None => line.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_host_function_prints_exactly_what_the_cli_prints() {
    let ws = Ws::new();
    let script = ws.path("hooks/quiet.sh").display().to_string();
    ws.script("hooks/quiet.sh", "#!/bin/sh\ncat > /dev/null\n")
        .hooks(&format!(
            "hooks:\n  - name: quiet\n    event: on_stop\n    command: {script}\n"
        ));
    let approve = format!("approve {script}");
    let revoke = format!("revoke {script}");
    // (command line, what to run before each side so both start from the same state)
    let cases: Vec<(&str, Option<&str>)> = vec![
        ("list", None),
        ("", None),
        ("list --json", None),
        (&approve, Some(&revoke)),
        ("doctor", None),
        ("doctor --json", None),
        ("off", None),
        ("on", None),
        (&revoke, Some(&approve)),
    ];
    for (command, before) in cases {
        let args = shell_words(command);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let line = format!("/hooks {command}");
        if let Some(before) = before {
            ws.run(
                &shell_words(before)
                    .iter()
                    .map(String::as_str)
                    .collect::<Vec<_>>(),
            );
        }
        let (cli_status, cli_text) = ws.run(&args);
        if let Some(before) = before {
            ws.run(
                &shell_words(before)
                    .iter()
                    .map(String::as_str)
                    .collect::<Vec<_>>(),
            );
        }
        let (host_status, host_text) = host(&ws, &line);
        let (cli_text, host_text) = if command == "doctor --json" {
            (strip_ms(&cli_text), strip_ms(&host_text))
        } else {
            (without_times(&cli_text), without_times(&host_text))
        };
        assert_eq!(host_status, cli_status, "{line}");
        // The same text, with the commands it suggests spelt for where it is read: `/hooks on`
        // in a chat, `agent-hooks on` in a shell (JSON is for programs and is not respelt).
        let host_text = if command.ends_with("--json") {
            host_text
        } else {
            host_text.replace("/hooks ", "agent-hooks ")
        };
        assert_eq!(host_text, cli_text, "{line}");
    }
}

fn shell_words(line: &str) -> Vec<String> {
    line.split_whitespace().map(str::to_owned).collect()
}

/// `doctor --json` with every `ms` zeroed.
fn strip_ms(text: &str) -> String {
    let mut value: Value = serde_json::from_str(text).unwrap_or(Value::Null);
    if let Some(hooks) = value["hooks"].as_array_mut() {
        for hook in hooks {
            if let Some(runs) = hook["runs"].as_array_mut() {
                for run in runs {
                    run["ms"] = Value::from(0);
                }
            }
        }
    }
    value.to_string()
}

// ---------------------------------------------------------------------------------------------
// The user guide's example hooks (examples/hooks/), each fired through the real binary

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A workspace declaring and approving the four example hooks of one language.
fn examples_ws(lang: &str, ext: &str) -> Ws {
    let ws = Ws::new();
    let dir = repo().join("examples/hooks").join(lang);
    let dir = fs::canonicalize(&dir).expect("examples/hooks exists");
    let mut yaml = String::from("hooks:\n");
    for (name, event) in [
        ("guard", "pre_tool_call"),
        ("rewriter", "on_user_message"),
        ("context", "pre_llm_call"),
        ("verify_stop", "on_stop"),
    ] {
        let path = dir.join(format!("{name}.{ext}"));
        yaml.push_str(&format!(
            "  - name: {name}\n    event: {event}\n    command: {}\n",
            path.display()
        ));
    }
    ws.hooks(&yaml);
    for name in ["guard", "rewriter", "context", "verify_stop"] {
        ws.approve(&dir.join(format!("{name}.{ext}")).display().to_string());
    }
    ws
}

impl Ws {
    fn fire(&self, event: &str, payload: Value) -> Value {
        use std::io::Write;
        let mut child = Command::new(BIN)
            .arg("--workspace")
            .arg(self.root())
            .args(["fire", event])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("spawn");
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(payload.to_string().as_bytes())
            .expect("write payload");
        let out = child.wait_with_output().expect("wait");
        serde_json::from_slice(&out.stdout).expect("outcome JSON")
    }
}

fn check_examples(lang: &str, ext: &str) {
    use serde_json::json;
    let ws = examples_ws(lang, ext);
    let blocked = ws.fire(
        "pre_tool_call",
        json!({"tool_name": "bash", "tool_input": {"command": "rm -rf /"}}),
    );
    assert_eq!(blocked["decision"], "block", "{lang} guard: {blocked:#}");
    let safe = ws.fire(
        "pre_tool_call",
        json!({"tool_name": "bash", "tool_input": {"command": "ls"}}),
    );
    assert_eq!(safe["decision"], "continue", "{lang} guard: {safe:#}");

    let rewritten = ws.fire(
        "on_user_message",
        json!({"message": "mail ann@example.com"}),
    );
    assert_eq!(
        rewritten["payload"]["message"], "mail [email]",
        "{lang} rewriter"
    );

    let context = ws.fire("pre_llm_call", json!({}));
    assert_eq!(
        context["context"],
        json!(["Project rule: run the tests before saying a change works."]),
        "{lang} context"
    );

    let claim = json!({"response": "Done, all tests pass.", "tool_names": ["edit"]});
    let stop = ws.fire("on_stop", claim.clone());
    assert_eq!(stop["decision"], "block", "{lang} verifier: {stop:#}");
    let mut redo = claim;
    redo["stop_hook_active"] = json!(true);
    redo["redo_count"] = json!(1);
    assert_eq!(
        ws.fire("on_stop", redo)["decision"],
        "continue",
        "{lang} verifier loops"
    );

    let (status, text) = ws.run(&["doctor"]);
    assert_eq!(status, 0, "{lang}: {text}");
}

#[cfg_attr(
    not(have_python3),
    ignore = "needs python3 on PATH (.ci/run installs it)"
)]
#[test]
fn the_python_examples_work() {
    check_examples("python", "py");
}

#[cfg_attr(not(have_jq), ignore = "needs jq on PATH (.ci/run installs it)")]
#[test]
fn the_sh_examples_work() {
    check_examples("sh", "sh");
}

#[cfg_attr(not(have_node), ignore = "needs node on PATH (.ci/run installs it)")]
#[test]
fn the_node_examples_work() {
    check_examples("node", "js");
}

/// Every `<!-- example: path -->` in docs/ is followed by a code block that is that file,
/// byte for byte, and every example file is shown somewhere.
#[test]
fn the_docs_show_the_example_files_verbatim() {
    let mut shown = Vec::new();
    // The pages only: docs/ also holds their pictures.
    let pages = fs::read_dir(repo().join("docs"))
        .expect("docs/")
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "md"));
    for entry in pages {
        let text = fs::read_to_string(entry.path()).expect("read doc");
        let mut rest = text.as_str();
        while let Some(at) = rest.find("<!-- example: ") {
            let after = &rest[at + 14..];
            let end = after.find(" -->").expect("closed marker");
            let path = &after[..end];
            let block = &after[end..];
            let open = block.find("```").expect("code block after marker");
            let body_start = open + block[open..].find('\n').expect("fence line") + 1;
            let body_end = body_start + block[body_start..].find("\n```").expect("fence end") + 1;
            let expected = fs::read_to_string(repo().join(path)).expect("example file");
            assert_eq!(
                &block[body_start..body_end],
                expected,
                "{} shows {path} out of date",
                entry.path().display()
            );
            shown.push(path.to_owned());
            rest = &block[body_end..];
        }
    }
    for lang in ["python", "sh", "node"] {
        for entry in fs::read_dir(repo().join("examples/hooks").join(lang))
            .expect("dir")
            .flatten()
        {
            let rel = format!(
                "examples/hooks/{lang}/{}",
                entry.file_name().to_string_lossy()
            );
            assert!(shown.contains(&rel), "{rel} is not shown in docs/");
        }
    }
}

#[test]
fn doctor_shows_progress_on_a_terminal_and_nothing_in_a_pipe() {
    let ws = doctor_ws(&[("first", "pre_tool_call", ""), ("second", "on_stop", "")]);
    // stderr on a pseudo-terminal, as in an interactive shell.
    let pty = nix::pty::openpty(None, None).expect("open a pseudo-terminal");
    let mut child = Command::new(BIN)
        .arg("--workspace")
        .arg(ws.root())
        .arg("doctor")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::from(pty.slave))
        .spawn()
        .expect("run doctor");
    let mut terminal = fs::File::from(pty.master);
    let reader = std::thread::spawn(move || {
        let mut seen = Vec::new();
        // Reading the master ends with EIO once the child (the last holder of the slave) exits.
        let _ = std::io::Read::read_to_end(&mut terminal, &mut seen);
        String::from_utf8_lossy(&seen).into_owned()
    });
    let status = child.wait().expect("wait for doctor");
    assert!(status.success());
    let shown = reader.join().expect("the terminal reader");
    assert!(shown.contains("checking hook 1/2: first"), "{shown:?}");
    assert!(shown.contains("checking hook 2/2: second"), "{shown:?}");

    let piped = Command::new(BIN)
        .arg("--workspace")
        .arg(ws.root())
        .arg("doctor")
        .output()
        .expect("run doctor");
    assert!(piped.status.success());
    assert_eq!(String::from_utf8_lossy(&piped.stderr), "");
    assert!(!String::from_utf8_lossy(&piped.stdout).contains("checking hook"));
}
