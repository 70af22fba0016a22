//! Codex's rollout: `~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl`, one
//! `{"timestamp", "type", "payload"}` object a line. `session_meta` names the session (its
//! `payload.id` is the `session_id` hooks get); a tool call is a `response_item` whose payload
//! is a `function_call`, `custom_tool_call` or `local_shell_call`, with the `call_id` hooks get
//! as `tool_use_id`, and its result a `function_call_output` or `custom_tool_call_output` of
//! the same `call_id`. The user's words are the `event_msg` `user_message` (the `message`
//! items of role `user` also carry the context Codex adds); a turn ends with `task_complete`
//! or `turn_aborted`; `compacted` is a compaction. A subagent runs in a thread of its own with
//! its own rollout file: name each file. Calls are kept as the rollout has them; Codex's hooks
//! see a shell call as `Bash` with the script as `command` ([`as_hooks_see_it`]).

use std::path::Path;

use serde_json::Value;

use super::transcript::{Calls, Entry, ResultStatus, Step, Transcript, text_of};

/// Whether `first`, a transcript's first record, is a Codex rollout's.
pub(super) fn recognises(first: &Value) -> bool {
    first.get("payload").is_some()
        && matches!(
            first.get("type").and_then(Value::as_str),
            Some("session_meta" | "response_item" | "event_msg" | "turn_context" | "compacted")
        )
}

/// Record kinds that hold nothing a hook would have seen.
const IGNORED_EVENTS: &[&str] = &[
    "token_count",
    "agent_reasoning",
    "agent_reasoning_raw_content",
    "task_started",
    "exec_command_begin",
    "exec_command_end",
    "patch_apply_begin",
    "patch_apply_end",
    "mcp_tool_call_begin",
    "mcp_tool_call_end",
    "web_search_begin",
    "web_search_end",
    "turn_diff",
    "entered_review_mode",
    "exited_review_mode",
    "stream_error",
    "error",
    "background_event",
    "agent_message",
];

/// The rollout at `path` (its text is `text`).
pub(super) fn read(path: &Path, text: &str) -> Transcript {
    let mut transcript = Transcript::new("codex");
    transcript.files.push(path.to_path_buf());
    let mut session: Option<String> = None;
    let mut entries = Vec::new();
    let mut calls = Calls::default();
    for (line, record) in transcript.objects(text) {
        let Some(payload) = record.get("payload") else {
            transcript.unknown("(no payload)");
            continue;
        };
        let field = |key: &str| payload.get(key).and_then(Value::as_str).map(str::to_owned);
        let timestamp = record
            .get("timestamp")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let mut push =
            |step: Step| entries.push(Entry::at(path, line, timestamp.clone(), None, step));
        let kind = record.get("type").and_then(Value::as_str).unwrap_or("");
        let item = payload.get("type").and_then(Value::as_str).unwrap_or("");
        match kind {
            "session_meta" => session = field("id").or(session),
            "turn_context" => transcript.ignore("turn_context"),
            "compacted" => push(Step::Compaction),
            "response_item" => {
                let input = match item {
                    // The model's arguments are JSON text; what does not parse is kept as text.
                    "function_call" => {
                        let arguments = field("arguments").unwrap_or_default();
                        serde_json::from_str(&arguments).unwrap_or(Value::String(arguments))
                    }
                    "custom_tool_call" => payload.get("input").cloned().unwrap_or_default(),
                    "local_shell_call" => payload.get("action").cloned().unwrap_or_default(),
                    "function_call_output" | "custom_tool_call_output" => {
                        let output = payload.get("output").cloned().unwrap_or_default();
                        let status = output_status(&output);
                        push(calls.result(field("call_id"), output, status));
                        continue;
                    }
                    "message" => {
                        if field("role").as_deref() == Some("assistant") {
                            let said = payload.get("content").map(text_of).unwrap_or_default();
                            push(Step::Reply { text: said });
                        } else {
                            transcript.ignore(format!(
                                "response_item message ({})",
                                field("role").unwrap_or_default()
                            ));
                        }
                        continue;
                    }
                    "reasoning" | "web_search_call" => {
                        transcript.ignore(format!("response_item {item}"));
                        continue;
                    }
                    other => {
                        transcript.unknown(format!("response_item {other}"));
                        continue;
                    }
                };
                let id = field("call_id").or_else(|| field("id"));
                let tool_name = field("name").unwrap_or_else(|| "local_shell".to_owned());
                push(calls.call(id, tool_name, input));
            }
            "event_msg" => match item {
                "user_message" => push(Step::Prompt {
                    text: field("message").unwrap_or_default(),
                }),
                "task_complete" => push(Step::TurnEnd { interrupted: false }),
                "turn_aborted" => push(Step::TurnEnd { interrupted: true }),
                other if IGNORED_EVENTS.contains(&other) => {
                    transcript.ignore(format!("event_msg {other}"))
                }
                other => transcript.unknown(format!("event_msg {other}")),
            },
            "" => transcript.unknown("(no type)"),
            other => transcript.unknown(other),
        }
    }
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let session = transcript.session(session.as_deref().unwrap_or(&stem));
    session.entries = entries;
    session.close_turns();
    transcript
}

/// A call as Codex's hooks receive it: a shell call (`shell`, `local_shell`, `exec_command`,
/// its command a list of words or one string) as `Bash` with the script as `command`, and
/// `apply_patch` with the patch as `command`.
pub(super) fn as_hooks_see_it(name: &str, input: &Value) -> (String, Value) {
    let script = |command: &Value| match command {
        // `["bash", "-lc", script]`: the script is what runs.
        Value::Array(words) => {
            let words: Vec<&str> = words.iter().filter_map(Value::as_str).collect();
            match words.as_slice() {
                [shell, flag, script] if shell.ends_with("sh") && flag.starts_with('-') => {
                    (*script).to_owned()
                }
                _ => words.join(" "),
            }
        }
        Value::String(s) => s.clone(),
        _ => String::new(),
    };
    match name {
        "shell" | "local_shell" | "container.exec" | "shell_command" | "exec_command" => {
            let command = input
                .get("command")
                .or_else(|| input.get("cmd"))
                .map(script)
                .unwrap_or_default();
            ("Bash".to_owned(), serde_json::json!({ "command": command }))
        }
        "apply_patch" => {
            let patch = match input {
                Value::String(_) => input.clone(),
                other => other.get("input").cloned().unwrap_or_else(|| other.clone()),
            };
            (name.to_owned(), serde_json::json!({ "command": patch }))
        }
        _ => (name.to_owned(), input.clone()),
    }
}

/// How a call ended, from its output: Codex writes a shell call's output as JSON text with
/// `metadata.exit_code`, and an output object may say `success: false`.
fn output_status(output: &Value) -> ResultStatus {
    let parsed;
    let output = match output {
        Value::String(s) => match serde_json::from_str::<Value>(s) {
            Ok(v) => {
                parsed = v;
                &parsed
            }
            Err(_) => return ResultStatus::Success,
        },
        other => other,
    };
    let failed = output.get("success").and_then(Value::as_bool) == Some(false)
        || output
            .get("metadata")
            .and_then(|m| m.get("exit_code"))
            .and_then(Value::as_i64)
            .is_some_and(|code| code != 0);
    if failed {
        ResultStatus::Error
    } else {
        ResultStatus::Success
    }
}
