//! open-strix's `logs/events.jsonl`: one `{"timestamp", "type", "session_id", ...}` object a
//! line, every run of the agent (a `session_id` each) in one file. A user's message is a
//! `web_message` or `discord_message` (`content`), a tool call `tool_call` (`tool`, `args`;
//! open-strix records neither a call id nor the result), the turn's final text
//! `agent_final_message_discarded` (`final_text`), and `turn_timing` ends the turn. The
//! runtime's own records there (`hook_*`) and open-strix's telemetry are counted, not replayed.

use std::path::Path;

use serde_json::Value;

use super::transcript::{Entry, Step, Transcript};

/// Whether `first`, a log's first record, is open-strix's.
pub(super) fn recognises(first: &Value) -> bool {
    first.get("session_id").is_some()
        && first.get("timestamp").is_some()
        && first.get("type").is_some_and(Value::is_string)
        && first.get("payload").is_none()
        && first.get("message").is_none()
}

/// open-strix's records that no event stands for.
const IGNORED: &[&str] = &[
    "app_started",
    "app_shutdown_start",
    "app_shutdown_complete",
    "event_queued",
    "event_deduped",
    "agent_invoke_start",
    "agent_turn_missing_send_message",
    "llm_usage",
    "git_sync_after_turn",
    "warning",
    "tool_call_error",
    "scheduler_tick",
    "shell_job_complete",
    "drain_skip_event",
    "drain_complete",
    "drain_signal_received",
    "stdin_mode_start",
    "stdin_mode_eof",
    "discord_connecting",
    "post_turn_block_validation_failed",
    "post_turn_block_validation_still_broken",
    "replay_scan",
    "replay_enqueued",
    "replay_skipped",
    "file_read",
];

/// The log at `path` (its text is `text`): one session per `session_id`.
pub(super) fn read(path: &Path, text: &str) -> Transcript {
    let mut transcript = Transcript::new("open-strix");
    transcript.files.push(path.to_path_buf());
    for (line, record) in transcript.objects(text) {
        let field = |key: &str| record.get(key).and_then(Value::as_str).map(str::to_owned);
        let kind = field("type").unwrap_or_default();
        let step = match kind.as_str() {
            "web_message" | "discord_message" => Step::Prompt {
                text: field("content").unwrap_or_default(),
            },
            "tool_call" => Step::ToolCall {
                id: None,
                tool_name: field("tool").unwrap_or_default(),
                input: record.get("args").cloned().unwrap_or(Value::Null),
            },
            "agent_final_message_discarded" => Step::Reply {
                text: field("final_text").unwrap_or_default(),
            },
            "turn_timing" => Step::TurnEnd { interrupted: false },
            k if k.starts_with("hook_") || IGNORED.contains(&k) => {
                transcript.ignore(kind);
                continue;
            }
            "" => {
                transcript.unknown("(no type)");
                continue;
            }
            _ => {
                transcript.unknown(kind);
                continue;
            }
        };
        let session = field("session_id").unwrap_or_default();
        let entry = Entry::at(path, line, field("timestamp"), None, step);
        transcript.session(&session).entries.push(entry);
    }
    for session in &mut transcript.sessions {
        session.close_turns();
    }
    transcript
}
