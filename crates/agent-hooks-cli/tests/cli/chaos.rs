//! The chaos matrix (`docs/agents.md`, "When the policy cannot be fully evaluated"): every
//! failure kind × every agent × every surface — the bridge process, the sidecar's route, `fire`
//! and the host API — through the real binary, a real sidecar and real hook processes. In each
//! cell the user is told (the message is in the agent's own channel, and in its stderr for a
//! bridge), and under fail-closed the action is denied. A new failure kind is one row of
//! `KINDS`; a new agent one row of `AGENTS`. A cell a surface cannot have says why in `Na`.

use std::path::Path;
use std::process::Command;

use agent_hooks_runtime::host::{AskPolicy, ToolStatus, call_tool};
use agent_hooks_runtime::{Engine, Workspace};
use serde_json::{Value, json};

use crate::support::{self, Entry, Ran, Server, Ws};

/// One agent's bridge: its hook command, its sidecar route, its hook input for a shell
/// command, and where it reads a deny and the user's message.
struct AgentRow {
    name: &'static str,
    hook: &'static str,
    route: &'static str,
    /// The agent's hook input for running `command` in `cwd` (`None`: the input names no
    /// project directory beyond its cwd).
    input: fn(cwd: &Path, command: &str, root: Option<&Path>) -> Value,
    /// Whether an answer denies the action.
    denies: fn(&Value) -> bool,
    /// The text the agent shows its user.
    shown: fn(&Value) -> String,
}

fn claude_input(cwd: &Path, command: &str, _root: Option<&Path>) -> Value {
    json!({
        "hook_event_name": "PreToolUse",
        "session_id": "chaos",
        "cwd": cwd,
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_use_id": "toolu_1",
    })
}

fn codex_input(cwd: &Path, command: &str, root: Option<&Path>) -> Value {
    let mut input = claude_input(cwd, command, root);
    input["turn_id"] = json!("turn-1");
    input["model"] = json!("gpt-5");
    input
}

fn gemini_input(cwd: &Path, command: &str, _root: Option<&Path>) -> Value {
    json!({
        "hook_event_name": "BeforeTool",
        "session_id": "chaos",
        "cwd": cwd,
        "tool_name": "run_shell_command",
        "tool_input": {"command": command},
    })
}

fn cursor_input(cwd: &Path, command: &str, root: Option<&Path>) -> Value {
    let mut input = json!({
        "hook_event_name": "beforeShellExecution",
        "conversation_id": "chaos",
        "generation_id": "g1",
        "command": command,
        "cwd": cwd,
    });
    if let Some(root) = root {
        input["workspace_roots"] = json!([root]);
    }
    input
}

fn claude_denies(answer: &Value) -> bool {
    answer["hookSpecificOutput"]["permissionDecision"] == "deny" || answer["decision"] == "block"
}

fn gemini_denies(answer: &Value) -> bool {
    answer["decision"] == "deny"
}

fn cursor_denies(answer: &Value) -> bool {
    answer["permission"] == "deny"
}

fn system_message(answer: &Value) -> String {
    let mut text = answer["systemMessage"].as_str().unwrap_or("").to_owned();
    text.push_str(
        answer["hookSpecificOutput"]["permissionDecisionReason"]
            .as_str()
            .unwrap_or(""),
    );
    text.push_str(answer["reason"].as_str().unwrap_or(""));
    text
}

fn user_message(answer: &Value) -> String {
    answer["user_message"].as_str().unwrap_or("").to_owned()
}

const AGENTS: &[AgentRow] = &[
    AgentRow {
        name: "claude",
        hook: "claude-hook",
        route: "/v1/hooks/claude-code",
        input: claude_input,
        denies: claude_denies,
        shown: system_message,
    },
    AgentRow {
        name: "codex",
        hook: "codex-hook",
        route: "/v1/hooks/codex",
        input: codex_input,
        denies: claude_denies,
        shown: system_message,
    },
    AgentRow {
        name: "gemini",
        hook: "gemini-hook",
        route: "/v1/hooks/gemini",
        input: gemini_input,
        denies: gemini_denies,
        shown: system_message,
    },
    AgentRow {
        name: "cursor",
        hook: "cursor-hook",
        route: "/v1/hooks/cursor",
        input: cursor_input,
        denies: cursor_denies,
        shown: user_message,
    },
];

/// Fail open (the default) or fail closed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Open,
    Closed,
}

/// How a failure kind reaches the runtime.
#[derive(Clone, Copy)]
enum Input {
    /// A tool call running this shell command.
    Command(&'static str),
    /// The agent's input for this command, written as text and then edited by `edit`.
    Edited(&'static str, fn(String) -> String),
    /// The agent's input for this command with a deeply nested field beside it.
    Deep(&'static str),
    /// Bytes that are no JSON at all.
    Garbage(&'static [u8]),
    /// Cursor's MCP call whose arguments are this text.
    CursorMcp(&'static str),
}

/// Why a cell does not exist.
#[derive(Debug, Clone, Copy)]
struct Na(&'static str);

/// One failure kind: its workspace in each mode, its input, and what the user must see.
struct Kind {
    name: &'static str,
    /// The workspace, or `None` for a directory that is none.
    fixture: fn(Mode) -> Option<Ws>,
    input: Input,
    /// Every one of these is in what the user is shown.
    needles: &'static [&'static str],
    /// The action is denied in both modes (a guard read the input and refused it).
    always_denied: bool,
    /// The workspace cannot say `on_failure: block` (its settings do not load, or there is
    /// no workspace): fail-closed is the bridge's and `fire`'s `--fail-closed`.
    flag_only: bool,
    /// Surfaces this kind has no cell on, and why.
    route: Option<Na>,
    fire: Option<Na>,
    host: Option<Na>,
    /// Agents this kind concerns (`None`: all).
    only: Option<&'static str>,
}

const RM: &str = "rm -rf ~";

/// `config/agent.yaml` with the master switch and, in `Closed`, `on_failure: block`.
fn settings(ws: Ws, master: bool, mode: Mode) -> Ws {
    let block = if mode == Mode::Closed {
        "on_failure: block\n"
    } else {
        ""
    };
    ws.file(
        "config/agent.yaml",
        &format!("shell_hooks:\n  enabled: {master}\n{block}"),
    )
}

fn guarded(mode: Mode) -> Option<Ws> {
    let ws = Ws::new();
    let out = ws.run(&["install", "security_guard"]);
    assert!(out.status.success(), "{out:?}");
    Some(settings(ws, true, mode))
}

fn with_hook(mode: Mode, master: bool, name: &str, body: &str, timeout: Option<u64>) -> Ws {
    let script = format!("hooks/{name}.sh");
    let mut entry = Entry::new("pre_tool_call", &script).name(name);
    if let Some(secs) = timeout {
        entry = entry.timeout(secs);
    }
    settings(Ws::new(), master, mode)
        .sh(&script, body)
        .hook(entry)
}

const KINDS: &[Kind] = &[
    Kind {
        name: "config/shell_hooks.yaml does not parse",
        fixture: |mode| {
            Some(settings(Ws::new(), true, mode).file(
                "config/shell_hooks.yaml",
                "hooks:\n  - event: pre_tool_call\n    command: [unclosed\n",
            ))
        },
        input: Input::Command(RM),
        needles: &["configuration error", "config/shell_hooks.yaml"],
        always_denied: false,
        flag_only: false,
        route: None,
        fire: None,
        host: None,
        only: None,
    },
    Kind {
        name: "config/agent.yaml does not parse",
        fixture: |_| Some(Ws::new().file("config/agent.yaml", "shell_hooks: [unclosed\n")),
        input: Input::Command(RM),
        needles: &["configuration error", "config/agent.yaml"],
        always_denied: false,
        flag_only: true,
        route: None,
        fire: None,
        host: None,
        only: None,
    },
    Kind {
        name: "no workspace",
        fixture: |_| None,
        input: Input::Command(RM),
        needles: &["no workspace"],
        always_denied: false,
        flag_only: true,
        route: Some(Na("a sidecar is always started on a workspace")),
        fire: None,
        host: Some(Na("a host opens the workspace it names")),
        only: None,
    },
    Kind {
        name: "input that is not JSON",
        fixture: |mode| Some(settings(Ws::new(), true, mode)),
        input: Input::Garbage(b"{\"hook_event_name\": \"PreToolUse\", \"tool_in"),
        needles: &["could not read"],
        always_denied: false,
        flag_only: false,
        route: None,
        fire: Some(Na(
            "fire is told on stderr with exit 2; no action is decided",
        )),
        host: Some(Na("a host passes values, not text")),
        only: None,
    },
    Kind {
        name: "a lone surrogate in the command",
        fixture: guarded,
        input: Input::Edited("rm -rf / LONE", |text| text.replace("LONE", "\\ud800")),
        needles: &["recursive force-delete"],
        always_denied: true,
        flag_only: false,
        route: None,
        fire: None,
        host: Some(Na("a Rust string cannot hold a lone surrogate")),
        only: None,
    },
    Kind {
        name: "nesting deeper than 128 beside the command",
        fixture: guarded,
        input: Input::Deep("rm -rf /"),
        needles: &["recursive force-delete"],
        always_denied: true,
        flag_only: false,
        route: None,
        fire: None,
        host: None,
        only: None,
    },
    Kind {
        name: "an approved hook crashes",
        fixture: |mode| {
            let ws = with_hook(mode, true, "crash", "echo boom >&2\nexit 3\n", None);
            Some(ws.approve_all())
        },
        input: Input::Command(RM),
        needles: &["hook \"crash\"", "error"],
        always_denied: false,
        flag_only: false,
        route: None,
        fire: None,
        host: None,
        only: None,
    },
    Kind {
        name: "an approved hook times out",
        fixture: |mode| {
            let ws = with_hook(mode, true, "slow", "exec sleep 30\n", Some(1));
            Some(ws.approve_all())
        },
        input: Input::Command(RM),
        needles: &["hook \"slow\"", "timeout"],
        always_denied: false,
        flag_only: false,
        route: None,
        fire: None,
        host: None,
        only: None,
    },
    Kind {
        name: "a hook that is not approved",
        fixture: |mode| Some(with_hook(mode, true, "unapproved", "exit 0\n", None)),
        input: Input::Command(RM),
        needles: &["hook \"unapproved\"", "did not run"],
        always_denied: false,
        flag_only: false,
        route: None,
        fire: None,
        host: None,
        only: None,
    },
    Kind {
        name: "a hook changed since approval",
        fixture: |mode| {
            let ws = with_hook(mode, true, "drifty", "exit 0\n", None).approve_all();
            Some(ws.sh("hooks/drifty.sh", "echo changed >/dev/null\nexit 0\n"))
        },
        input: Input::Command(RM),
        needles: &["hook \"drifty\"", "did not run"],
        always_denied: false,
        flag_only: false,
        route: None,
        fire: None,
        host: None,
        only: None,
    },
    Kind {
        name: "the master switch is off",
        fixture: |mode| Some(with_hook(mode, false, "switched", "exit 0\n", None).approve_all()),
        input: Input::Command(RM),
        needles: &["hook \"switched\"", "did not run"],
        always_denied: false,
        flag_only: false,
        route: None,
        fire: None,
        host: None,
        only: None,
    },
    Kind {
        name: "Cursor's MCP arguments are not JSON",
        fixture: |mode| Some(settings(Ws::new(), true, mode)),
        input: Input::CursorMcp("{\"query\": DROP TABLE"),
        needles: &["not a JSON object"],
        always_denied: false,
        flag_only: false,
        route: None,
        fire: Some(Na(
            "fire takes canonical payloads; the arguments are Cursor's text",
        )),
        host: Some(Na("a host passes values, not text")),
        only: Some("cursor"),
    },
];

/// What one cell answered, in the agent's terms.
#[derive(Debug)]
struct Answer {
    denied: bool,
    /// What the user is shown (the channel; for a command also its stderr).
    shown: String,
    /// A bridge's stderr (the agent's hook log), which must tell it too.
    log: Option<String>,
}

fn check(kind: &Kind, mode: Mode, cell: &str, answer: &Answer) {
    let expect_deny = kind.always_denied || mode == Mode::Closed;
    assert_eq!(
        answer.denied, expect_deny,
        "{cell}: denied should be {expect_deny}: {answer:?}"
    );
    for needle in kind.needles {
        assert!(
            answer.shown.contains(needle),
            "{cell}: the user is not shown {needle:?}: {answer:?}"
        );
        // A lapse is in the bridge's stderr too (the agent's hook log); a guard's deny is
        // the agent's to show.
        if let (Some(log), false) = (&answer.log, kind.always_denied) {
            assert!(
                log.contains(needle),
                "{cell}: stderr lacks {needle:?}: {answer:?}"
            );
        }
    }
}

/// The agent's input bytes for `kind` run in `cwd` of workspace `root`.
fn input_bytes(agent: &AgentRow, kind: &Kind, cwd: &Path, root: Option<&Path>) -> Vec<u8> {
    match kind.input {
        Input::Command(command) => (agent.input)(cwd, command, root).to_string().into_bytes(),
        Input::Edited(command, edit) => {
            edit((agent.input)(cwd, command, root).to_string()).into_bytes()
        }
        Input::Deep(command) => {
            let mut input = (agent.input)(cwd, command, root);
            let deep = deep_value(200);
            match input.get_mut("tool_input") {
                Some(tool_input) => tool_input["meta"] = deep,
                None => input["meta"] = deep,
            }
            input.to_string().into_bytes()
        }
        Input::Garbage(bytes) => bytes.to_vec(),
        Input::CursorMcp(arguments) => {
            let mut input = cursor_input(cwd, "", root);
            input["hook_event_name"] = json!("beforeMCPExecution");
            input["tool_name"] = json!("db_query");
            input["tool_input"] = json!(arguments);
            input.to_string().into_bytes()
        }
    }
}

fn deep_value(levels: usize) -> Value {
    let mut value = json!("bottom");
    for _ in 0..levels {
        value = json!([value]);
    }
    value
}

/// The canonical payload for `fire` and the host.
fn canonical(kind: &Kind) -> (Value, Option<Vec<u8>>) {
    match kind.input {
        Input::Command(command) => (
            json!({"tool_name": "bash", "tool_input": {"command": command}}),
            None,
        ),
        Input::Edited(command, edit) => {
            let payload = json!({"tool_name": "bash", "tool_input": {"command": command}});
            let bytes = edit(payload.to_string()).into_bytes();
            (payload, Some(bytes))
        }
        Input::Deep(command) => (
            json!({"tool_name": "bash", "tool_input": {"command": command, "meta": deep_value(200)}}),
            None,
        ),
        Input::Garbage(bytes) => (Value::Null, Some(bytes.to_vec())),
        Input::CursorMcp(_) => (Value::Null, None),
    }
}

/// An answer as the agents read it (deeper than serde_json's own limit when it echoes a deep
/// payload); `Null` when empty.
fn parse(text: &str) -> Value {
    if text.trim().is_empty() {
        return Value::Null;
    }
    agent_hooks_runtime::bridge::json::read(text.as_bytes())
        .map(|(value, _)| value)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

/// A command run in `dir` with no workspace named anywhere but where the test says.
fn bare(dir: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(support::BIN);
    cmd.args(args)
        .current_dir(dir)
        .env_remove("AGENT_HOOKS_WORKSPACE")
        .env_remove("CLAUDE_PROJECT_DIR")
        .env_remove("GEMINI_PROJECT_DIR")
        .env_remove("AGENT_HOOKS_LOG");
    cmd
}

/// The bridge process: started in the workspace (or the directory that is none), finding the
/// workspace itself as an agent starts it.
fn bridge_cell(
    agent: &AgentRow,
    kind: &Kind,
    mode: Mode,
    dir: &Path,
    root: Option<&Path>,
) -> Answer {
    let mut args = vec![agent.hook];
    if mode == Mode::Closed && kind.flag_only {
        args.push("--fail-closed");
    }
    let ran = Ran::of(bare(dir, &args), &input_bytes(agent, kind, dir, root));
    let answer = parse(&ran.stdout);
    let denied = ran.code == 2 || (ran.code == 0 && (agent.denies)(&answer));
    assert!(
        ran.code == 0 || ran.code == 2,
        "{} bridge exited {}: {}",
        agent.name,
        ran.code,
        ran.stderr
    );
    let mut shown = (agent.shown)(&answer);
    if ran.code == 2 {
        // Exit 2: the agent shows stderr (its JSON is not read).
        shown.push_str(&ran.stderr);
    }
    Answer {
        denied,
        shown,
        log: Some(ran.stderr),
    }
}

/// The sidecar's route for `agent` answering `body`: the one place this test speaks to the
/// sidecar, so a change of its transport is made here alone.
fn route(server: &Server, path: &str, body: &[u8]) -> Value {
    let (status, answer) = server.request("POST", path, body);
    assert_eq!(status, 200, "{path}: {answer}");
    answer
}

fn route_cell(server: &Server, agent: &AgentRow, kind: &Kind, root: &Path) -> Answer {
    let answer = route(
        server,
        agent.route,
        &input_bytes(agent, kind, root, Some(root)),
    );
    Answer {
        denied: (agent.denies)(&answer),
        shown: (agent.shown)(&answer),
        log: None,
    }
}

fn fire_cell(kind: &Kind, mode: Mode, dir: &Path, ws: Option<&Ws>) -> Answer {
    let (payload, raw) = canonical(kind);
    let bytes = raw.unwrap_or_else(|| payload.to_string().into_bytes());
    let mut args = vec!["fire", "pre_tool_call"];
    if mode == Mode::Closed && kind.flag_only {
        args.push("--fail-closed");
    }
    let cmd = match ws {
        // From a subdirectory: fire finds the workspace as git finds `.git`.
        Some(ws) => {
            let sub = ws.path("src/deep");
            std::fs::create_dir_all(&sub).expect("a subdirectory");
            bare(&sub, &args)
        }
        None => bare(dir, &args),
    };
    let ran = Ran::of(cmd, &bytes);
    assert_eq!(ran.code, 0, "fire: {}", ran.stderr);
    let outcome = parse(&ran.stdout);
    let mut shown: String = outcome["warnings"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect::<Vec<_>>()
        .join("\n");
    shown.push_str(outcome["reason"].as_str().unwrap_or(""));
    Answer {
        denied: outcome["decision"] == "block",
        shown,
        log: None,
    }
}

fn host_cell(kind: &Kind, root: &Path) -> Answer {
    let (payload, _) = canonical(kind);
    let engine = Engine::open(Workspace::new(root));
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let call = rt.block_on(call_tool(
        &engine,
        "chaos",
        "bash",
        payload["tool_input"].clone(),
        AskPolicy::Block,
        |_| async { Ok::<_, String>(json!("the tool ran")) },
    ));
    let mut shown = call.warnings.join("\n");
    shown.push_str(call.blocked_reason.as_deref().unwrap_or(""));
    Answer {
        denied: call.status == ToolStatus::Blocked,
        shown,
        log: None,
    }
}

#[test]
fn no_cell_of_the_chaos_matrix_is_silent_and_fail_closed_denies() {
    let mut cells = 0;
    for kind in KINDS {
        for (surface, na) in [
            ("route", kind.route),
            ("fire", kind.fire),
            ("host", kind.host),
        ] {
            if let Some(Na(why)) = na {
                eprintln!("{} × {surface}: no cell ({why})", kind.name);
            }
        }
        for mode in [Mode::Open, Mode::Closed] {
            let fixture = (kind.fixture)(mode);
            let nowhere = tempfile::Builder::new()
                .prefix("agent-hooks-no-workspace")
                .tempdir()
                .expect("a directory that is no workspace");
            let nowhere_path = nowhere.path().canonicalize().expect("canonical");
            let (dir, root) = match &fixture {
                Some(ws) => (ws.root(), Some(ws.root())),
                None => (nowhere_path.clone(), None),
            };
            let agents = AGENTS
                .iter()
                .filter(|a| kind.only.is_none_or(|only| only == a.name));
            for agent in agents.clone() {
                let cell = format!("{} × {} × bridge × {mode:?}", kind.name, agent.name);
                check(
                    kind,
                    mode,
                    &cell,
                    &bridge_cell(agent, kind, mode, &dir, root.as_deref()),
                );
                cells += 1;
            }
            let route_applies = kind.route.is_none() && !(kind.flag_only && mode == Mode::Closed);
            if let (true, Some(ws)) = (route_applies, &fixture) {
                let server = Server::start(ws);
                for agent in agents {
                    let cell = format!("{} × {} × route × {mode:?}", kind.name, agent.name);
                    check(
                        kind,
                        mode,
                        &cell,
                        &route_cell(&server, agent, kind, &ws.root()),
                    );
                    cells += 1;
                }
            }
            if kind.fire.is_none() {
                let cell = format!("{} × fire × {mode:?}", kind.name);
                check(
                    kind,
                    mode,
                    &cell,
                    &fire_cell(kind, mode, &dir, fixture.as_ref()),
                );
                cells += 1;
            }
            let host_applies = kind.host.is_none() && !(kind.flag_only && mode == Mode::Closed);
            if let (true, Some(root)) = (host_applies, &root) {
                let cell = format!("{} × host × {mode:?}", kind.name);
                check(kind, mode, &cell, &host_cell(kind, root));
                cells += 1;
            }
        }
    }
    // Every kind on every surface it has, both modes: a row that loses its cells fails here.
    assert!(cells >= 200, "only {cells} cells ran");
}

/// `security_guard` stops reading at its nesting limit; past it, the command must not pass
/// as harmless without a word. Observable whatever the guard reports: a deny, an ask, or a
/// message the user sees.
#[test]
fn a_command_past_the_guards_nesting_limit_is_not_silently_allowed() {
    let command = "echo $($($($($($(rm -rf /))))))";
    for mode in [Mode::Open, Mode::Closed] {
        let ws = guarded(mode).expect("a workspace");
        let root = ws.root();
        for agent in AGENTS {
            let input = (agent.input)(&root, command, Some(&root)).to_string();
            let ran = Ran::of(bare(&root, &[agent.hook]), input.as_bytes());
            let answer = ran.json();
            let asked = answer["hookSpecificOutput"]["permissionDecision"] == "ask"
                || answer["permission"] == "ask";
            let silent = !(agent.denies)(&answer) && !asked && (agent.shown)(&answer).is_empty();
            assert!(!silent, "{} {mode:?}: {}", agent.name, ran.stdout);
        }
        let fired = ws.fire(
            "pre_tool_call",
            json!({"tool_name": "bash", "tool_input": {"command": command}}),
        );
        assert!(
            fired.decision() != "continue" || !fired.warnings().is_empty(),
            "{mode:?}: {}",
            fired.outcome
        );
    }
}
