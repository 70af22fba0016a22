//! `agent-hooks audit` and the decision log behind it, end to end: a session transcript in each
//! agent's documented format (`tests/audit_fixtures/`, written for these tests), each of its
//! tool calls sent through the real bridge as the agent would send it, then the audit of that
//! transcript.

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::{Value, json};

use crate::support::{self, Entry, Ws};

const CLAUDE_SESSION: &str = "5f0c2a1e-7b1d-4c6a-9e3f-2b8d4a6c1e90";
const CODEX_SESSION: &str = "019a7e52-3c41-7d20-b8f5-6e2a9c0d4b17";
/// The fake credential in the fixture's last Bash call.
const FIXTURE_TOKEN: &str = "ghp_Zx8Qw4Er6Ty2Ui9Op1As3Df5Gh7Jk0LzXcVb";

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/audit_fixtures")
}

fn claude_transcript() -> PathBuf {
    fixtures().join(format!("claude/{CLAUDE_SESSION}.jsonl"))
}

fn codex_transcript() -> PathBuf {
    fixtures().join(format!(
        "codex/rollout-2026-11-30T11-00-00-{CODEX_SESSION}.jsonl"
    ))
}

fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
        .lines()
        .map(|l| serde_json::from_str(l).expect("a fixture line is JSON"))
        .collect()
}

/// The PreToolUse input Claude Code sends for each tool call of the session's transcript and
/// its subagents' (read here on their own, as the test's independent account of the calls).
fn claude_inputs() -> Vec<Value> {
    let main = claude_transcript();
    let mut files = vec![main.clone()];
    let subagents = fixtures().join(format!("claude/{CLAUDE_SESSION}/subagents"));
    let mut subs: Vec<PathBuf> = std::fs::read_dir(&subagents)
        .expect("the fixture's subagents")
        .map(|e| e.expect("a directory entry").path())
        .collect();
    subs.sort();
    files.extend(subs);
    let mut inputs = Vec::new();
    for file in files {
        for line in lines(&file) {
            let Some(content) = line["message"]["content"].as_array() else {
                continue;
            };
            for block in content.iter().filter(|b| b["type"] == "tool_use") {
                let mut input = json!({
                    "session_id": line["sessionId"],
                    "transcript_path": main.display().to_string(),
                    "cwd": line["cwd"],
                    "permission_mode": "default",
                    "hook_event_name": "PreToolUse",
                    "tool_name": block["name"],
                    "tool_input": block["input"],
                    "tool_use_id": block["id"],
                });
                if let Some(agent) = line["agentId"].as_str() {
                    input["agent_id"] = json!(agent);
                    input["agent_type"] = json!("Explore");
                }
                inputs.push(input);
            }
        }
    }
    inputs
}

/// The PreToolUse input Codex sends for each tool call of the rollout: its session is the
/// rollout's session id, `tool_use_id` the call's `call_id`.
fn codex_inputs() -> Vec<Value> {
    let mut inputs = Vec::new();
    for line in lines(&codex_transcript()) {
        let payload = &line["payload"];
        let (tool, input) = match payload["type"].as_str() {
            Some("function_call") => {
                let args: Value = serde_json::from_str(payload["arguments"].as_str().unwrap_or(""))
                    .expect("the fixture's arguments are JSON");
                let words: Vec<&str> = args["command"]
                    .as_array()
                    .expect("a command list")
                    .iter()
                    .filter_map(Value::as_str)
                    .collect();
                (
                    "Bash",
                    json!({"command": words.last().copied().unwrap_or("")}),
                )
            }
            Some("custom_tool_call") => ("apply_patch", json!({"command": payload["input"]})),
            _ => continue,
        };
        inputs.push(json!({
            "session_id": CODEX_SESSION,
            "turn_id": "turn-1",
            "transcript_path": codex_transcript().display().to_string(),
            "cwd": "/home/dev/shop",
            "model": "gpt-5-codex",
            "permission_mode": "default",
            "hook_event_name": "PreToolUse",
            "tool_name": tool,
            "tool_input": input,
            "tool_use_id": payload["call_id"],
        }));
    }
    inputs
}

/// A workspace whose one approved shell hook sees every tool call and answers nothing.
fn watched() -> Ws {
    Ws::new()
        .master(true)
        .sh("hooks/watch.sh", "cat >/dev/null\n")
        .hook(Entry::new("pre_tool_call", "hooks/watch.sh").name("watch"))
        .approve_all()
}

/// Runs `<agent>-hook` on `input`, which must answer as a working bridge does.
fn bridge(ws: &Ws, command: &str, input: &Value) {
    let out = support::run_piped(ws.command(&[command]), input.to_string().as_bytes());
    assert_eq!(
        out.status.code(),
        Some(0),
        "{command} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn audit(ws: &Ws, args: &[&str]) -> Output {
    let mut all = vec!["audit"];
    all.extend_from_slice(args);
    ws.run(&all)
}

fn audit_json(ws: &Ws, transcript: &Path) -> (Option<i32>, Value) {
    let out = audit(ws, &[&transcript.display().to_string(), "--json"]);
    let report = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "audit --json printed no JSON ({e}): {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.code(), report)
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// The decision log's records, as written.
fn records(ws: &Ws) -> Vec<Value> {
    let path = ws.runtime_path("decisions.jsonl");
    if !path.exists() {
        return Vec::new();
    }
    lines(&path)
}

#[test]
fn a_claude_code_session_run_through_the_bridge_is_fully_covered_subagents_included() {
    let ws = watched();
    let inputs = claude_inputs();
    assert_eq!(
        inputs.len(),
        7,
        "five calls of the session, two of its subagent"
    );
    for input in &inputs {
        bridge(&ws, "claude-hook", input);
    }

    let out = audit(&ws, &[&claude_transcript().display().to_string()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(
        text(&out).contains("7/7 seen by a hook (100%)"),
        "{}",
        text(&out)
    );

    let (code, report) = audit_json(&ws, &claude_transcript());
    assert_eq!(code, Some(0));
    assert_eq!(report["total"], 7);
    assert_eq!(report["seen"], 7);
    assert_eq!(report["unseen"], 0);
    assert_eq!(report["coverage_percent"], 100.0);
    assert_eq!(report["complete"], true);
    let calls = report["calls"].as_array().expect("calls");
    assert!(
        calls
            .iter()
            .all(|c| c["matched_by"] == "id" && c["decisions"] == json!(["allow"]))
    );
    let from_subagent: Vec<&Value> = calls
        .iter()
        .filter(|c| c["subagent"] == "a7c41e9b")
        .collect();
    assert_eq!(from_subagent.len(), 2, "{report}");
    assert_eq!(report["transcripts"].as_array().map(Vec::len), Some(2));
}

#[test]
fn a_session_whose_bridge_was_removed_halfway_names_the_unseen_calls_and_fails() {
    let ws = watched();
    let inputs = claude_inputs();
    let (sent, unsent) = inputs.split_at(inputs.len() / 2);
    for input in sent {
        bridge(&ws, "claude-hook", input);
    }

    let out = audit(&ws, &[&claude_transcript().display().to_string()]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let shown = text(&out);
    for input in unsent {
        let id = input["tool_use_id"].as_str().expect("an id");
        assert!(
            shown.contains(&format!(
                "NOT SEEN {} {id}",
                input["tool_name"].as_str().unwrap_or("")
            )),
            "{id} not named in:\n{shown}"
        );
    }
    for input in sent {
        let id = input["tool_use_id"].as_str().expect("an id");
        assert!(!shown.contains(id), "{id} was seen, yet named in:\n{shown}");
    }

    let (code, report) = audit_json(&ws, &claude_transcript());
    assert_eq!(code, Some(1));
    assert_eq!(report["seen"], sent.len());
    assert_eq!(report["unseen"], unsent.len());
    assert_eq!(report["complete"], false);
    let unseen: Vec<&str> = report["calls"]
        .as_array()
        .expect("calls")
        .iter()
        .filter(|c| c["status"] == "unseen")
        .filter_map(|c| c["tool_call_id"].as_str())
        .collect();
    let expected: Vec<&str> = unsent
        .iter()
        .filter_map(|i| i["tool_use_id"].as_str())
        .collect();
    assert_eq!(unseen, expected);
}

#[test]
fn a_call_whose_hook_timed_out_is_seen_with_a_lapse() {
    // The hook takes too long on `make test` only, and is killed at its one-second timeout.
    let ws = Ws::new()
        .master(true)
        .sh(
            "hooks/slow.sh",
            "case \"$(cat)\" in *'make test'*) sleep 5 ;; esac\n",
        )
        .hook(
            Entry::new("pre_tool_call", "hooks/slow.sh")
                .name("slow")
                .timeout(1),
        )
        .approve_all();
    let inputs = claude_inputs();
    for input in &inputs {
        bridge(&ws, "claude-hook", input);
    }
    let slow = inputs
        .iter()
        .find(|i| {
            i["tool_input"]["command"]
                .as_str()
                .is_some_and(|c| c.contains("make test"))
        })
        .and_then(|i| i["tool_use_id"].as_str())
        .expect("the fixture has a `make test` call");

    let (code, report) = audit_json(&ws, &claude_transcript());
    assert_eq!(code, Some(1), "{report}");
    assert_eq!(report["seen"], inputs.len() - 1);
    assert_eq!(report["lapsed"], 1);
    assert_eq!(report["unseen"], 0);
    let lapsed = report["calls"]
        .as_array()
        .expect("calls")
        .iter()
        .find(|c| c["status"] == "lapse")
        .expect("a lapsed call");
    assert_eq!(lapsed["tool_call_id"], slow);
    let lapses = lapsed["lapses"].to_string();
    assert!(lapses.contains("hook_timeout (slow)"), "{lapses}");

    let out = audit(&ws, &[&claude_transcript().display().to_string()]);
    assert!(
        text(&out).contains(&format!("LAPSE    Bash {slow}")),
        "{}",
        text(&out)
    );
}

#[test]
fn a_hook_that_fails_and_an_unapproved_one_are_lapses_of_every_call() {
    let ws = Ws::new()
        .master(true)
        .sh("hooks/broken.sh", "exit 3\n")
        .sh("hooks/new.sh", "cat >/dev/null\n")
        .hook(Entry::new("pre_tool_call", "hooks/broken.sh").name("broken"))
        .approve_all()
        // Declared after the approvals: the trust gate keeps it from running.
        .hook(Entry::new("pre_tool_call", "hooks/new.sh").name("new"));
    for input in claude_inputs() {
        bridge(&ws, "claude-hook", &input);
    }
    let (code, report) = audit_json(&ws, &claude_transcript());
    assert_eq!(code, Some(1));
    assert_eq!(report["lapsed"], 7, "{report}");
    let lapses = report["calls"][0]["lapses"].to_string();
    assert!(lapses.contains("hook_failed (broken)"), "{lapses}");
    assert!(lapses.contains("trust_skip (new)"), "{lapses}");
}

#[test]
fn a_codex_rollout_run_through_the_bridge_is_fully_covered() {
    let ws = watched();
    let inputs = codex_inputs();
    assert_eq!(inputs.len(), 3);
    for input in &inputs {
        bridge(&ws, "codex-hook", input);
    }
    let (code, report) = audit_json(&ws, &codex_transcript());
    assert_eq!(code, Some(0), "{report}");
    assert_eq!(report["total"], 3);
    assert_eq!(report["seen"], 3);
    assert!(
        report["calls"]
            .as_array()
            .expect("calls")
            .iter()
            .all(|c| c["agent"] == "codex")
    );
    assert!(
        records(&ws)
            .iter()
            .all(|r| r["agent"] == "codex" && r["surface"] == "bridge")
    );

    // The last call was never sent: the audit says which.
    let ws = watched();
    for input in &inputs[..2] {
        bridge(&ws, "codex-hook", input);
    }
    let out = audit(&ws, &[&codex_transcript().display().to_string()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out).contains("NOT SEEN shell call_N5m6B7v8C9x0Z1a2S3d4F5g6 bash -lc cargo test"),
        "{}",
        text(&out)
    );
}

#[test]
fn every_decision_is_recorded_allow_included_without_the_secrets_the_guards_mask() {
    let ws = watched();
    for input in claude_inputs() {
        bridge(&ws, "claude-hook", &input);
    }
    let records = records(&ws);
    assert_eq!(records.len(), 7);
    for record in &records {
        assert_eq!(record["agent"], "claude");
        assert_eq!(record["surface"], "bridge");
        assert_eq!(record["session_id"], CLAUDE_SESSION);
        assert_eq!(record["event"], "pre_tool_call");
        assert_eq!(record["decision"], "allow");
        assert_eq!(
            record["hooks"],
            json!([{"hook": "watch", "source": "config/shell_hooks.yaml", "status": "noop"}])
        );
        assert_eq!(record["lapses"], json!([]));
        assert!(
            record["tool_call_id"]
                .as_str()
                .is_some_and(|id| id.starts_with("toolu_"))
        );
    }
    let log = ws.read_runtime("decisions.jsonl");
    assert!(
        !log.contains(FIXTURE_TOKEN),
        "the token is in the decision log:\n{log}"
    );
    // The host's diagnostics log gets none of it.
    assert!(
        ws.events()
            .iter()
            .all(|e| e.get("decision").is_none_or(|d| d != "allow"))
    );

    let out = audit(&ws, &[&claude_transcript().display().to_string(), "--json"]);
    assert!(
        !text(&out).contains(FIXTURE_TOKEN),
        "the audit printed the token"
    );
}

#[test]
fn fire_and_the_host_route_record_their_tool_calls_and_audit_matches_them_by_input() {
    let ws = watched();
    // A host that passes no tool call id: the record is found by session, tool and input.
    for input in claude_inputs() {
        let payload = json!({
            "session_id": input["session_id"],
            "tool_name": input["tool_name"],
            "tool_input": input["tool_input"],
        });
        assert_eq!(ws.fire("pre_tool_call", payload).decision(), "continue");
    }
    // Not a tool call: nothing recorded.
    ws.fire("on_user_message", json!({"message": "hi"}));
    let records = records(&ws);
    assert_eq!(records.len(), 7);
    assert!(
        records
            .iter()
            .all(|r| r["agent"] == "fire" && r["surface"] == "fire" && r["tool_call_id"].is_null())
    );

    let (code, report) = audit_json(&ws, &claude_transcript());
    assert_eq!(code, Some(0), "{report}");
    assert!(
        report["calls"]
            .as_array()
            .expect("calls")
            .iter()
            .all(|c| c["matched_by"] == "input")
    );
}

#[test]
fn a_bridge_call_that_could_not_be_read_is_a_failed_call_of_its_session() {
    let ws = watched();
    for input in claude_inputs() {
        bridge(&ws, "claude-hook", &input);
    }
    // An input of the same session the bridge cannot read (it names no event): answered with
    // a message to the user, and recorded.
    let odd = json!({"session_id": CLAUDE_SESSION, "tool_name": "Bash"});
    let out = support::run_piped(ws.command(&["claude-hook"]), odd.to_string().as_bytes());
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("systemMessage"),
        "{}",
        text(&out)
    );
    // Input that is not JSON at all is recorded too, with nothing to place it by.
    support::run_piped(ws.command(&["claude-hook"]), b"not json");
    let unread: Vec<Value> = records(&ws)
        .into_iter()
        .filter(|r| r["decision"] == "none")
        .collect();
    assert_eq!(unread.len(), 2, "{unread:?}");
    assert!(
        unread
            .iter()
            .all(|r| r["lapses"][0]["kind"] == "unread_input")
    );

    let out = audit(&ws, &[&claude_transcript().display().to_string()]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains("FAILED   a bridge call failed before any hook ran"),
        "{}",
        text(&out)
    );
}

#[test]
fn the_decision_log_goes_where_config_says_and_audit_finds_it_there() {
    let ws = Ws::new()
        .file(
            "config/agent.yaml",
            "shell_hooks:\n  enabled: true\nlogs:\n  decisions: audit/decisions.jsonl\n",
        )
        .sh("hooks/watch.sh", "cat >/dev/null\n")
        .hook(Entry::new("pre_tool_call", "hooks/watch.sh").name("watch"))
        .approve_all();
    for input in claude_inputs() {
        bridge(&ws, "claude-hook", &input);
    }
    assert!(ws.exists("audit/decisions.jsonl"));
    assert!(!ws.runtime_path("decisions.jsonl").exists());
    let (code, _) = audit_json(&ws, &claude_transcript());
    assert_eq!(code, Some(0));

    // --log names another file: this one has nothing of the session.
    let other = ws.path("elsewhere.jsonl");
    std::fs::write(&other, "").expect("write an empty log");
    let out = audit(
        &ws,
        &[
            &claude_transcript().display().to_string(),
            "--log",
            &other.display().to_string(),
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out).contains("0/7 seen"), "{}", text(&out));
}

#[test]
fn a_file_that_is_no_transcript_is_refused_with_exit_2() {
    let ws = Ws::new().file("notes.txt", "just text\n");
    let out = audit(&ws, &[&ws.path("notes.txt").display().to_string()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out).contains("not a session transcript"),
        "{}",
        text(&out)
    );
    let out = audit(&ws, &[&ws.path("missing.jsonl").display().to_string()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out).contains("cannot read"), "{}", text(&out));
}

#[test]
fn bridge_processes_running_at_once_write_whole_lines() {
    let ws = watched();
    let inputs = claude_inputs();
    // Every call three times over, all bridge processes started before any is waited for.
    let children: Vec<_> = inputs
        .iter()
        .cycle()
        .take(inputs.len() * 3)
        .map(|input| {
            let mut child = ws
                .command(&["claude-hook"])
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .spawn()
                .expect("spawn claude-hook");
            let mut stdin = child.stdin.take().expect("stdin is piped");
            std::io::Write::write_all(&mut stdin, input.to_string().as_bytes())
                .expect("write the hook input");
            drop(stdin);
            child
        })
        .collect();
    for mut child in children {
        assert!(child.wait().expect("wait for claude-hook").success());
    }
    let log = ws.read_runtime("decisions.jsonl");
    assert_eq!(log.lines().count(), inputs.len() * 3);
    for line in log.lines() {
        let record: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"));
        assert_eq!(record["decision"], "allow");
    }
    let (code, _) = audit_json(&ws, &claude_transcript());
    assert_eq!(code, Some(0));
}

#[test]
fn the_sidecar_records_its_agent_routes_and_its_event_route() {
    let ws = watched();
    let server = support::Server::start(&ws);
    let inputs = claude_inputs();
    let (first, rest) = inputs.split_first().expect("calls");
    // Claude Code's HTTP hook (`claude-install --http`) for the first call…
    let (status, _) = server.post("/v1/hooks/claude-code", first.clone());
    assert_eq!(status, 200);
    // …and a host dispatching the others itself, with their ids.
    for input in rest {
        let (status, outcome) = server.post(
            "/v1/events/pre_tool_call",
            json!({
                "session_id": input["session_id"],
                "tool_use_id": input["tool_use_id"],
                "tool_name": input["tool_name"],
                "tool_input": input["tool_input"],
            }),
        );
        assert_eq!(status, 200, "{outcome}");
    }
    let records = records(&ws);
    assert_eq!(records.len(), inputs.len());
    assert_eq!(
        (records[0]["agent"].as_str(), records[0]["surface"].as_str()),
        (Some("claude"), Some("sidecar"))
    );
    assert!(
        records[1..]
            .iter()
            .all(|r| r["agent"] == "host" && r["surface"] == "sidecar")
    );
    let (code, report) = audit_json(&ws, &claude_transcript());
    assert_eq!(code, Some(0), "{report}");
}

#[test]
fn a_configuration_file_that_does_not_load_is_a_lapse_of_every_call() {
    let ws = watched().file(".claude/settings.json", "{\"hooks\": {\"PreToolUse\": [");
    for input in claude_inputs() {
        bridge(&ws, "claude-hook", &input);
    }
    let (code, report) = audit_json(&ws, &claude_transcript());
    assert_eq!(code, Some(1));
    assert_eq!(report["lapsed"], 7, "{report}");
    let lapses = report["calls"][0]["lapses"].to_string();
    assert!(
        lapses.contains("config_error: .claude/settings.json"),
        "{lapses}"
    );
}

#[test]
fn gemini_and_cursor_bridges_record_their_calls_without_a_call_id() {
    let ws = watched();
    bridge(
        &ws,
        "gemini-hook",
        &json!({
            "session_id": "g-1",
            "cwd": ws.root(),
            "hook_event_name": "BeforeTool",
            "timestamp": "2026-11-30T12:00:00Z",
            "tool_name": "run_shell_command",
            "tool_input": {"command": "ls -la"},
        }),
    );
    bridge(
        &ws,
        "cursor-hook",
        &json!({
            "conversation_id": "c-1",
            "generation_id": "gen-1",
            "hook_event_name": "beforeShellExecution",
            "command": "git status",
            "cwd": ws.root(),
            "workspace_roots": [ws.root()],
        }),
    );
    let records = records(&ws);
    let seen: Vec<(&str, &str, &str)> = records
        .iter()
        .map(|r| {
            (
                r["agent"].as_str().unwrap_or(""),
                r["session_id"].as_str().unwrap_or(""),
                r["input_preview"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [("gemini", "g-1", "ls -la"), ("cursor", "c-1", "git status")]
    );
    assert!(
        records
            .iter()
            .all(|r| r["tool_call_id"].is_null() && r["decision"] == "allow")
    );
}

#[test]
fn a_call_seen_only_after_it_ran_is_a_lapse() {
    let ws = watched();
    let inputs = claude_inputs();
    for input in &inputs[1..] {
        bridge(&ws, "claude-hook", input);
    }
    // The first call reached the bridge only as PostToolUse: no guard could have stopped it.
    let mut after = inputs[0].clone();
    after["hook_event_name"] = json!("PostToolUse");
    after["tool_response"] = json!({"stdout": "test result: FAILED", "stderr": ""});
    bridge(&ws, "claude-hook", &after);

    let (code, report) = audit_json(&ws, &claude_transcript());
    assert_eq!(code, Some(1));
    let first = &report["calls"][0];
    assert_eq!(first["status"], "lapse", "{report}");
    assert_eq!(first["decisions"], json!(["allow"]));
    assert!(
        first["lapses"]
            .to_string()
            .contains("no hook saw it before it ran"),
        "{first}"
    );
    assert_eq!(report["seen"], inputs.len() - 1);
}
