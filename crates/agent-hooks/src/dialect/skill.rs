//! The skill dialect (SPEC §6): hooks get the *skill view* of an event — `type`, `timestamp`,
//! `tool`/`args`, `status`/`result`/`error`, `prompt` — and answer with the event itself,
//! possibly changed, which replaces it for the next hook. Changes to what a hook may not change
//! (the type, the tool, anything but `args`/`result`/`prompt`) are dropped and logged as
//! `hook_invalid_mutation`; `_block` turns a tool call into a synthetic result.

use std::fs::File;
use std::io::{BufRead, BufReader};

use serde_json::{Map, Value};

use super::PayloadView;
use super::read::{self, parse_object};
use crate::answer::{Answer, Decision, Rewrite, Unusable};
use crate::diag::DiagKind;
use crate::event::{Event, RewriteRule};
use crate::transport::{Exit, Reply};

/// The skill dialect's event names and their canonical twins.
pub const SKILL_EVENTS: [(&str, Event); 7] = [
    ("pre_tool_call", Event::PreToolCall),
    ("post_tool_call", Event::PostToolCall),
    ("pre_prompt", Event::PreLlmCall),
    ("pre_startup", Event::PreStartup),
    ("post_startup", Event::PostStartup),
    ("pre_shutdown", Event::PreShutdown),
    ("post_shutdown", Event::PostShutdown),
];

/// The canonical event of a skill event name.
pub fn canonical(name: &str) -> Option<Event> {
    SKILL_EVENTS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, e)| *e)
}

/// The skill event name of a canonical event, if the dialect has one.
pub fn skill_name(event: Event) -> Option<&'static str> {
    SKILL_EVENTS
        .iter()
        .find(|(_, e)| *e == event)
        .map(|(n, _)| *n)
}

/// Canonical fields that the skill view renames or derives; the rest pass through.
const TRANSLATED: &[&str] = &[
    "event",
    "tool_name",
    "tool_input",
    "tool_result",
    "status",
    "error",
    "prompt",
    "session_id",
];

/// Keys of the view that are the runtime's, not the hook's, to change.
const VOLATILE: &[&str] = &["timestamp", "conversation"];

/// Skill hooks chain wherever the event lets them rewrite a field (their answer replaces the
/// event for the next hook), whether or not other dialects merely observe there.
pub(crate) fn chains(event: Event) -> bool {
    !event.spec().rewrites.is_empty()
}

/// The skill view of the payload (without the conversation).
fn view_object(view: &PayloadView<'_>) -> Map<String, Value> {
    let p = view.payload;
    let get = |k: &str| p.get(k).cloned().unwrap_or(Value::Null);
    let mut obj = Map::new();
    obj.insert(
        "type".into(),
        Value::String(skill_name(view.event).unwrap_or(view.event.name()).into()),
    );
    obj.insert(
        "timestamp".into(),
        Value::String(crate::diag::now_rfc3339()),
    );
    obj.insert(
        "session_id".into(),
        p.get("session_id")
            .cloned()
            .unwrap_or_else(|| Value::String(String::new())),
    );
    match view.event {
        Event::PreToolCall | Event::PostToolCall => {
            obj.insert("tool".into(), get("tool_name"));
            obj.insert(
                "args".into(),
                p.get("tool_input")
                    .cloned()
                    .unwrap_or_else(|| Value::Object(Map::new())),
            );
            if view.event == Event::PostToolCall {
                obj.insert(
                    "status".into(),
                    p.get("status")
                        .cloned()
                        .unwrap_or_else(|| Value::String("success".into())),
                );
                obj.insert("result".into(), get("tool_result"));
                if let Some(err) = p.get("error").filter(|e| !e.is_null()) {
                    obj.insert("error".into(), err.clone());
                }
            }
        }
        Event::PreLlmCall => {
            obj.insert(
                "prompt".into(),
                p.get("prompt")
                    .filter(|v| v.is_string())
                    .cloned()
                    .unwrap_or_else(|| Value::String(String::new())),
            );
        }
        _ => {
            if let Some(status) = p.get("status") {
                obj.insert("status".into(), status.clone());
            }
        }
    }
    for (key, value) in p {
        if !TRANSLATED.contains(&key.as_str()) && !obj.contains_key(key) {
            obj.insert(key.clone(), value.clone());
        }
    }
    obj
}

pub(crate) fn input(view: &PayloadView<'_>, include_conversation: bool) -> Vec<u8> {
    let mut obj = view_object(view);
    if include_conversation {
        let conversation = view
            .cache
            .conversation
            .get_or_init(|| read_conversation(view))
            .clone();
        obj.insert("conversation".into(), conversation);
    }
    let mut bytes = serde_json::to_vec(&obj).unwrap_or_else(|_| b"{}".to_vec());
    bytes.push(b'\n');
    bytes
}

/// Streams `logs/chat-history.jsonl` once: every `type: "message"` line, and those of the
/// payload's channel. A malformed line is skipped, never fatal.
fn read_conversation(view: &PayloadView<'_>) -> Value {
    let channel = view
        .payload
        .get("channel_id")
        .or_else(|| view.payload.get("channel"))
        .filter(|v| !v.is_null() && v.as_str() != Some(""))
        .cloned();
    let path = view.ws.chat_history();
    let mut all = Vec::new();
    let mut in_channel = Vec::new();
    let source = match File::open(&path) {
        Ok(file) => {
            for line in BufReader::new(file).lines() {
                let Ok(line) = line else {
                    // Unreadable bytes: skip the line, like a malformed one.
                    continue;
                };
                let Ok(Value::Object(message)) = serde_json::from_str::<Value>(&line) else {
                    continue;
                };
                if message.get("type").and_then(Value::as_str) != Some("message") {
                    continue;
                }
                let here = channel
                    .as_ref()
                    .is_some_and(|c| message.get("channel_id") == Some(c));
                let message = Value::Object(message);
                if here {
                    in_channel.push(message.clone());
                }
                all.push(message);
            }
            "chat_history"
        }
        Err(_) => "none",
    };
    let mut conversation = Map::new();
    conversation.insert("current_channel_id".into(), channel.unwrap_or(Value::Null));
    conversation.insert("source".into(), Value::String(source.into()));
    conversation.insert("all_messages".into(), Value::Array(all));
    conversation.insert("channel_messages".into(), Value::Array(in_channel));
    Value::Object(conversation)
}

pub(crate) fn interpret(view: &PayloadView<'_>, reply: &Reply) -> Result<Answer, Unusable> {
    if reply.exit != Exit::Code(0) {
        let stderr = String::from_utf8_lossy(&reply.stderr);
        let tail = stderr.trim().lines().last().unwrap_or("");
        return Err(Unusable {
            kind: DiagKind::HookNonzeroExit,
            detail: if tail.is_empty() {
                reply.exit.to_string()
            } else {
                format!("{}: {tail}", reply.exit)
            },
        });
    }
    let stdout = read::stdout_text(reply)?;
    let answer = match parse_object(stdout) {
        Ok(Some(answer)) => answer,
        Ok(None) => return Ok(Answer::default()),
        Err(mut unusable) => {
            if unusable.kind == DiagKind::HookInvalidFormat {
                unusable.kind = DiagKind::HookInvalidOutput;
            }
            return Err(unusable);
        }
    };
    Ok(changes(view, &answer))
}

/// What a returned event changes, within what the skill dialect lets a hook change.
fn changes(view: &PayloadView<'_>, returned: &Map<String, Value>) -> Answer {
    let sent = view_object(view);
    let mut answer = Answer::default();
    let mut dropped: Vec<String> = Vec::new();
    let mut prompt: Option<String> = None;
    for (key, value) in returned {
        if VOLATILE.contains(&key.as_str()) || sent.get(key) == Some(value) {
            continue;
        }
        match (view.event, key.as_str()) {
            (Event::PreToolCall, "args") => match value {
                Value::Object(_) => answer.rewrites.push(Rewrite {
                    field: "tool_input".into(),
                    value: value.clone(),
                    // The source runtime hands the tool whatever `args` the hook returned.
                    rule: Some(RewriteRule::Replace),
                }),
                _ => dropped.push("args (no longer an object)".into()),
            },
            (Event::PostToolCall, "result") => answer.rewrites.push(Rewrite {
                field: "tool_result".into(),
                value: value.clone(),
                rule: None,
            }),
            (Event::PreLlmCall, "prompt") => match value {
                Value::String(text) => prompt = Some(text.clone()),
                _ => dropped.push("prompt (no longer a string)".into()),
            },
            (Event::PreLlmCall, "append_prompt") => {}
            (Event::PreToolCall, "_block") => block(value, &mut answer),
            (_, "_block") => answer.problems.push((
                DiagKind::HookInvalidBlock,
                format!(
                    "_block is only honoured on pre_tool_call, not {}",
                    skill_name(view.event).unwrap_or(view.event.name())
                ),
            )),
            (_, "type") => dropped.push("type (the event type)".into()),
            (_, "tool") => dropped.push("tool (the tool name)".into()),
            (_, other) => dropped.push(other.to_owned()),
        }
    }
    if view.event == Event::PreLlmCall {
        match returned.get("append_prompt") {
            None | Some(Value::Null) => {}
            Some(Value::String(extra)) if extra.is_empty() => {}
            Some(Value::String(extra)) => {
                let base = prompt.take().unwrap_or_else(|| {
                    sent.get("prompt")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_owned()
                });
                prompt = Some(if base.is_empty() {
                    extra.clone()
                } else {
                    format!("{base}\n\n{extra}")
                });
            }
            Some(_) => dropped.push("append_prompt (not a string)".into()),
        }
        if let Some(prompt) = prompt {
            answer.rewrites.push(Rewrite {
                field: "prompt".into(),
                value: Value::String(prompt),
                rule: None,
            });
        }
    }
    if !dropped.is_empty() {
        answer.problems.push((
            DiagKind::HookInvalidMutation,
            format!(
                "changes to {} dropped; on {} a skill hook may change only {}",
                dropped.join(", "),
                skill_name(view.event).unwrap_or(view.event.name()),
                match view.event {
                    Event::PreToolCall => "args (or add _block)",
                    Event::PostToolCall => "result",
                    Event::PreLlmCall => "prompt (or add append_prompt)",
                    _ => "nothing",
                }
            ),
        ));
    }
    answer
}

/// Reads `_block: {reason, result}` into a block with a synthetic tool result.
fn block(value: &Value, answer: &mut Answer) {
    let reason = value.get("reason").and_then(Value::as_str);
    let result = value.get("result").and_then(Value::as_str);
    match (value, reason, result) {
        (Value::Object(_), Some(reason), Some(result)) => {
            answer.decision = Some(Decision::Block);
            answer.reason = Some(reason.to_owned());
            answer.result = Some(Value::String(result.to_owned()));
            answer.records.push((
                DiagKind::HookBlockedToolCall,
                format!("tool call blocked: {reason}"),
            ));
        }
        _ => answer.problems.push((
            DiagKind::HookInvalidBlock,
            format!(
                "_block needs string \"reason\" and \"result\", got {}; the call proceeds",
                read::answer_preview(&value.to_string())
            ),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pre_prompt_is_pre_llm_call() {
        assert_eq!(canonical("pre_prompt"), Some(Event::PreLlmCall));
        assert_eq!(skill_name(Event::PreLlmCall), Some("pre_prompt"));
        assert_eq!(canonical("on_stop"), None);
    }

    #[test]
    fn skill_hooks_chain_exactly_where_they_may_rewrite() {
        let chaining: Vec<Event> = SKILL_EVENTS
            .iter()
            .map(|(_, e)| *e)
            .filter(|e| chains(*e))
            .collect();
        assert_eq!(
            chaining,
            [Event::PreToolCall, Event::PostToolCall, Event::PreLlmCall]
        );
    }
}
