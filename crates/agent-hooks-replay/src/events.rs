//! A session's steps as the canonical events they were, in order: the session's start, each
//! prompt (`on_user_message`), tool call (`pre_tool_call`), its result (`post_tool_call`),
//! model reply (`post_llm_call`), and each turn's end (`on_response_end`, then `on_stop`).
//! Steps no event stands for (a compaction, an interrupted call's result, an interrupted
//! turn's end) stay in the timeline with no event.

use agent_hooks_runtime::audit::{Entry, ResultStatus, Session, Step, as_hooks_see_it};
use agent_hooks_runtime::{Event, json_kind};
use serde_json::{Map, Value, json};

/// One step of a session and the event it was, if any.
#[derive(Debug, Clone)]
pub(crate) struct Replayed {
    /// What the timeline shows.
    pub step: &'static str,
    /// The event dispatched for it, with its payload.
    pub event: Option<(Event, Map<String, Value>)>,
    /// The tool, for tool steps.
    pub tool_name: Option<String>,
    /// The tool's input, for tool steps.
    pub input: Option<Value>,
    /// Where it was read: `file:line`.
    pub place: String,
    /// When it happened, as the agent wrote it.
    pub timestamp: Option<String>,
    /// The subagent that did it.
    pub subagent: Option<String>,
}

/// The events of `session`, a session of `agent`'s, in order.
pub(crate) fn of_session(agent: &str, session: &Session) -> Vec<Replayed> {
    let mut out = Vec::with_capacity(session.entries.len() * 2 + 1);
    let base = |extra: Value| -> Map<String, Value> {
        let mut payload = Map::new();
        payload.insert("session_id".into(), Value::String(session.id.clone()));
        if let Value::Object(extra) = extra {
            payload.extend(extra);
        }
        payload
    };
    let first = session.entries.first();
    out.push(Replayed {
        step: "session start",
        event: Some((Event::OnSessionStart, base(json!({})))),
        tool_name: None,
        input: None,
        place: first.map(place).unwrap_or_default(),
        timestamp: first.and_then(|e| e.timestamp.clone()),
        subagent: None,
    });
    // What the turn so far said and used, for its end.
    let mut reply = String::new();
    let mut tools: Vec<String> = Vec::new();
    // The stops of the turn so far that a hook refused, as the transcript records them: the
    // next stop is replayed with this `redo_count`, as the agent asked it live.
    let mut redos: u64 = 0;
    for entry in &session.entries {
        let payload = |extra: Value| {
            let mut payload = base(extra);
            if let Some(agent) = &entry.subagent {
                payload.insert("agent_id".into(), Value::String(agent.clone()));
            }
            payload
        };
        let replayed = |step, event, tool: Option<(&str, &Value)>| Replayed {
            step,
            event,
            tool_name: tool.map(|(name, _)| name.to_owned()),
            input: tool.map(|(_, input)| input.clone()),
            place: place(entry),
            timestamp: entry.timestamp.clone(),
            subagent: entry.subagent.clone(),
        };
        match &entry.step {
            Step::Prompt { text } => {
                reply.clear();
                tools.clear();
                redos = 0;
                out.push(replayed(
                    "prompt",
                    Some((Event::OnUserMessage, payload(json!({ "message": text })))),
                    None,
                ));
            }
            Step::ToolCall {
                id,
                tool_name,
                input,
            } => {
                let (tool_name, input) = &as_hooks_see_it(agent, tool_name, input);
                if !tools.contains(tool_name) {
                    tools.push(tool_name.clone());
                }
                let mut fields = payload(json!({
                    "tool_name": tool_name,
                    "tool_input": tool_input(input),
                }));
                if let Some(id) = id {
                    fields.insert("tool_use_id".into(), Value::String(id.clone()));
                }
                out.push(replayed(
                    "tool call",
                    Some((Event::PreToolCall, fields)),
                    Some((tool_name, input)),
                ));
            }
            Step::ToolResult {
                id,
                tool_name,
                input,
                output,
                status,
            } => {
                let (tool_name, input) = &as_hooks_see_it(agent, tool_name, input);
                // An interrupted call never returned: no hook ran after it.
                if *status == ResultStatus::Interrupted {
                    out.push(replayed("tool interrupted", None, Some((tool_name, input))));
                    continue;
                }
                let failed = *status == ResultStatus::Error;
                let mut fields = payload(json!({
                    "tool_name": tool_name,
                    "tool_input": tool_input(input),
                    "tool_result": output,
                    "status": status.as_str(),
                    "error": if failed { Value::String(result_text(output)) } else { Value::Null },
                }));
                if let Some(id) = id {
                    fields.insert("tool_use_id".into(), Value::String(id.clone()));
                }
                out.push(replayed(
                    if failed { "tool error" } else { "tool result" },
                    Some((Event::PostToolCall, fields)),
                    Some((tool_name, input)),
                ));
            }
            Step::Reply { text } => {
                reply.clone_from(text);
                out.push(replayed(
                    "reply",
                    Some((Event::PostLlmCall, payload(json!({ "response": text })))),
                    None,
                ));
            }
            Step::TurnEnd { interrupted: true } => {
                redos = 0;
                out.push(replayed("turn interrupted", None, None));
            }
            Step::StopRefused { .. } => {
                out.push(replayed(
                    "stop refused",
                    Some((Event::OnStop, payload(stop(&reply, &tools, redos)))),
                    None,
                ));
                redos += 1;
            }
            Step::TurnEnd { interrupted: false } => {
                out.push(replayed(
                    "response end",
                    Some((
                        Event::OnResponseEnd,
                        payload(json!({ "response": reply, "tool_names": tools })),
                    )),
                    None,
                ));
                out.push(replayed(
                    "stop",
                    Some((Event::OnStop, payload(stop(&reply, &tools, redos)))),
                    None,
                ));
                reply.clear();
                tools.clear();
                redos = 0;
            }
            Step::Compaction => out.push(replayed("compaction", None, None)),
            _ => out.push(replayed("other", None, None)),
        }
    }
    out
}

/// A stop's payload after `redos` refused stops of the same turn.
fn stop(reply: &str, tools: &[String], redos: u64) -> Value {
    json!({
        "response": reply,
        "tool_names": tools,
        "stop_hook_active": redos > 0,
        "redo_count": redos,
    })
}

/// A tool input as the payload's `tool_input` object: an input that is not an object (Codex's
/// free-form `apply_patch` text) is kept under `input`.
fn tool_input(input: &Value) -> Value {
    match input {
        Value::Object(_) => input.clone(),
        Value::Null => json!({}),
        other => json!({ "input": other }),
    }
}

/// A failed result's text, for the payload's `error`.
fn result_text(output: &Value) -> String {
    match output {
        Value::String(s) => s.clone(),
        other => format!("({}) {other}", json_kind(other)),
    }
}

fn place(entry: &Entry) -> String {
    format!("{}:{}", entry.transcript.display(), entry.line)
}
