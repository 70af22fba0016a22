//! The skill dialect (`docs/skill-hooks.md`), as open-strix runs it: hooks get the *skill view* of
//! an event — `type`, `timestamp`, `tool`/`args`, `status`/`result`/`error`, `prompt` — and answer
//! with an event that **replaces** it for the next hook, whole: fields a hook adds reach the next
//! one, fields it leaves out are gone. Only at the end does the chain's event take effect, read the
//! way the source runtime reads it: `args` (or the original arguments), `_block`, `result` of a
//! call that succeeded, `prompt` plus `append_prompt`. The dispatcher merges after every hook, so
//! each answer here carries the effects of the chain's event *so far*; a `_block` is provisional
//! until the chain ends, since a later hook may remove it.

use std::fs::File;
use std::io::{BufRead, BufReader};

use serde_json::{Map, Value};

use super::PayloadView;
use super::read;
use agent_hooks_core::answer::{Answer, Decision, Rewrite, Unusable};
use agent_hooks_core::diag::{DiagKind, DiagRecord};
use agent_hooks_core::event::{Event, RewriteRule};
use agent_hooks_transports::{Exit, Reply};

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

/// The keys of a chat-history message that open-strix hands a hook; the rest stay private.
const MESSAGE_KEYS: &[&str] = &[
    "timestamp",
    "channel_id",
    "channel_name",
    "author",
    "author_id",
    "content",
    "attachments",
    "attachment_names",
    "message_id",
    "is_bot",
    "source",
    "format",
    "reactions",
];

/// What `_block` in a `pre_tool_call` hook's answer is: open-strix's fork made it a verb that
/// stops the call; upstream open-strix has no such verb, and the field is just carried along
/// (the tool runs). `skill_hooks.block` in `config/agent.yaml` chooses; the fork's is the default.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum BlockVerb {
    /// `_block: {reason, result}` stops the call with that synthetic result.
    #[default]
    Fork,
    /// `_block` means nothing: the call proceeds with the chain's `args`.
    Upstream,
}

/// The event passed along one dispatch's skill hooks.
#[derive(Debug)]
pub struct Chain {
    /// The event as the chain began: what the source runtime falls back to for a field the
    /// final event lacks (the tool's own arguments, its result, the prompt).
    start: Map<String, Value>,
    /// The event as the last hook that answered returned it.
    current: Map<String, Value>,
}

/// Skill hooks chain on every event they take, lifecycle events included: the source runtime
/// runs them one after another, each on the event the previous one returned.
pub fn chains(_event: Event) -> bool {
    true
}

/// The skill view of the payload (without the conversation), as the chain's first hook gets it:
/// `type`, `timestamp`, `session_id` first, then the host's fields in the host's order with the
/// canonical names put back (`tool_name` → `tool`, `tool_input` → `args`, `tool_result` →
/// `result`), so the bytes are those the source runtime writes for the same event. Fields the
/// runtime filled in with an empty default (`agent_id`, `cwd`, an event's empty text fields)
/// are left out: the source runtime never sends them.
fn view_object(view: &PayloadView<'_>) -> Map<String, Value> {
    let p = view.payload;
    let mut obj = Map::new();
    obj.insert(
        "type".into(),
        Value::String(skill_name(view.event).unwrap_or(view.event.name()).into()),
    );
    // A timestamp the host gives is kept, as the source runtime keeps the event's own.
    let timestamp = p
        .get("timestamp")
        .filter(|t| t.as_str().is_some_and(|t| !t.is_empty()))
        .cloned()
        .unwrap_or_else(|| Value::String(agent_hooks_core::diag::now_isoformat()));
    obj.insert("timestamp".into(), timestamp);
    obj.insert(
        "session_id".into(),
        p.get("session_id")
            .cloned()
            .unwrap_or_else(|| Value::String(String::new())),
    );
    let tool_event = matches!(view.event, Event::PreToolCall | Event::PostToolCall);
    // A failed call has no result there: the hook gets the error (and its class).
    let failed = view.event == Event::PostToolCall && p.get("status").is_some_and(|s| s == "error");
    let root = view.ws.root().to_string_lossy();
    for (key, value) in p {
        let name = match key.as_str() {
            "event" | "timestamp" | "session_id" => continue,
            "tool_name" if tool_event => "tool",
            "tool_input" if tool_event => "args",
            "tool_result" if failed => continue,
            "tool_result" if view.event == Event::PostToolCall => "result",
            "agent_id" if value == "" => continue,
            "cwd" if value.as_str() == Some(&root) => continue,
            // Optional fields the host did not give are null here; they were never sent.
            "tool_result" | "error" if value.is_null() => continue,
            other => {
                if filled_default(view.event, other, value) {
                    continue;
                }
                other
            }
        };
        if !obj.contains_key(name) {
            obj.insert(name.to_owned(), value.clone());
        }
    }
    match view.event {
        Event::PreToolCall | Event::PostToolCall => {
            if !obj.contains_key("tool") {
                obj.insert("tool".into(), Value::Null);
            }
            if !obj.contains_key("args") {
                obj.insert("args".into(), Value::Object(Map::new()));
            }
            if view.event == Event::PostToolCall && !obj.contains_key("status") {
                obj.insert("status".into(), Value::String("success".into()));
            }
        }
        Event::PreLlmCall if !obj.get("prompt").is_some_and(Value::is_string) => {
            obj.insert("prompt".into(), Value::String(String::new()));
        }
        _ => {}
    }
    obj
}

/// Whether `key: value` is one of the event's documented fields holding the empty default the
/// runtime fills in (`""`, `{}`, `[]`, `0`, `false`) — not something the host sent.
fn filled_default(event: Event, key: &str, value: &Value) -> bool {
    use agent_hooks_core::event::FieldKind;
    // The fields the skill view always carries are kept whatever their value.
    match (event, key) {
        (Event::PreLlmCall, "prompt") | (Event::PostToolCall, "status") => return false,
        (_, "tool_name" | "tool_input") => return false,
        _ => {}
    }
    event
        .spec()
        .fields
        .iter()
        .find(|f| f.name == key)
        .is_some_and(|f| match f.kind {
            FieldKind::Text => value == "",
            FieldKind::Object => value.as_object().is_some_and(Map::is_empty),
            FieldKind::List => value.as_array().is_some_and(Vec::is_empty),
            FieldKind::Number => value == 0,
            FieldKind::Bool => value == false,
            FieldKind::Optional => value.is_null(),
            _ => false,
        })
}

/// How much more than its input a skill hook's answer may be: hooks echo the event, and one
/// may add a file's worth (a replaced tool result, appended context). open-strix reads stdout
/// without a bound; this one only stops a runaway hook, and a larger answer is discarded as
/// `hook_invalid_output` while the call goes on (`docs/skill-hooks.md`).
pub const ANSWER_HEADROOM: usize = 16 * 1024 * 1024;

/// What a skill hook reads on stdin: the event its source runtime would pass (as the chain of
/// skill hooks left it), with the conversation when the hook asks for it.
pub fn input(view: &PayloadView<'_>, include_conversation: bool) -> Vec<u8> {
    let mut obj = with_chain(view, |chain| chain.current.clone());
    if include_conversation {
        let conversation = view
            .cache
            .conversation
            .get_or_init(|| read_conversation(view))
            .clone();
        obj.insert("conversation".into(), conversation);
    }
    // `json.dumps(event, ensure_ascii=True) + "\n"`, byte for byte.
    let mut bytes = Vec::with_capacity(256);
    crate::json::python_dumps(&Value::Object(obj), &mut bytes);
    bytes.push(b'\n');
    bytes
}

/// Streams `logs/chat-history.jsonl` once: every `type: "message"` line with the keys open-strix
/// hands on, and those of the payload's channel. A malformed line is skipped, never fatal. With
/// no message in the file (or no file) the source runtime falls back to the history it holds
/// in memory (`source: "memory"`); this runtime holds none, so those lists are empty.
fn read_conversation(view: &PayloadView<'_>) -> Value {
    let mut all = Vec::new();
    if let Ok(file) = File::open(view.ws.chat_history()) {
        for line in BufReader::new(file).lines() {
            let Ok(line) = line else {
                // Unreadable bytes: skip the line, like a malformed one.
                continue;
            };
            let Ok(Value::Object(message)) = serde_json::from_str::<Value>(line.trim()) else {
                continue;
            };
            if message.get("type").and_then(Value::as_str) != Some("message") {
                continue;
            }
            all.push(kept_keys(message));
        }
    }
    let source = if all.is_empty() {
        "memory"
    } else {
        "chat_history_log"
    };
    conversation(view.payload, all, source, None)
}

/// The conversation a host sent with its request (the sidecar's `conversation`), in the shape
/// `read_conversation` gives: `source` is `"host"`. Entries that are not objects are skipped.
/// `channel` is the host's current channel, used when the payload names none.
pub fn host_conversation(
    payload: &Map<String, Value>,
    messages: Vec<Value>,
    channel: Option<Value>,
) -> Value {
    let all = messages
        .into_iter()
        .filter_map(|m| match m {
            Value::Object(message) => Some(kept_keys(message)),
            _ => None,
        })
        .collect();
    conversation(payload, all, "host", channel)
}

fn kept_keys(message: Map<String, Value>) -> Value {
    Value::Object(
        message
            .into_iter()
            .filter(|(key, _)| MESSAGE_KEYS.contains(&key.as_str()))
            .collect(),
    )
}

/// The `conversation` object: every message, and those of the payload's channel.
fn conversation(
    payload: &Map<String, Value>,
    all: Vec<Value>,
    source: &str,
    current: Option<Value>,
) -> Value {
    let channel = payload
        .get("channel_id")
        .or_else(|| payload.get("channel"))
        .filter(|v| !v.is_null())
        .cloned()
        .or(current.filter(|v| !v.is_null()));
    let in_channel: Vec<Value> = match &channel {
        Some(c) => all
            .iter()
            .filter(|m| m.get("channel_id") == Some(c))
            .cloned()
            .collect(),
        None => Vec::new(),
    };
    let mut conversation = Map::new();
    conversation.insert("current_channel_id".into(), channel.unwrap_or(Value::Null));
    conversation.insert("source".into(), Value::String(source.into()));
    conversation.insert("all_messages".into(), Value::Array(all));
    conversation.insert("channel_messages".into(), Value::Array(in_channel));
    Value::Object(conversation)
}

/// A skill hook's reply read as its source runtime reads it: a non-zero exit is a failure, the
/// stdout's object the (possibly rewritten) event.
pub fn interpret(
    view: &PayloadView<'_>,
    reply: &Reply,
    verb: BlockVerb,
) -> Result<Answer, Unusable> {
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
    read::refuse_overflow(reply)?;
    // The source runtime decodes stdout with replacement characters rather than refusing it.
    let text = String::from_utf8_lossy(&reply.stdout);
    let text = text.trim();
    if text.is_empty() {
        return Ok(Answer::default());
    }
    // Read by Python's rules, as `json.loads` reads it: `NaN`, the infinities and integers of
    // any size are numbers, carried exactly to the next hook and the host.
    let returned = match crate::json::read_python_exact(text.as_bytes()).map(|(value, _)| value) {
        Ok(Value::Object(map)) => map,
        Ok(other) => {
            return Err(Unusable {
                kind: DiagKind::HookInvalidOutput,
                detail: format!(
                    "hook stdout must be a JSON object, found {}",
                    agent_hooks_core::wording::kind_of(&other)
                ),
            });
        }
        Err(e) => {
            let why = match e {
                crate::json::Unreadable::NotJson(why) => why,
                other => other.to_string(),
            };
            return Err(Unusable {
                kind: DiagKind::HookInvalidOutput,
                detail: format!("stdout is not JSON: {why}"),
            });
        }
    };
    let mut returned = returned;
    // The conversation is the runtime's to add; it never travels along the chain.
    returned.remove("conversation");
    Ok(with_chain(view, |chain| {
        let previous = std::mem::replace(&mut chain.current, returned);
        effects(view, &chain.start, &previous, &chain.current, verb)
    }))
}

/// Runs `f` on the dispatch's chain, begun from the payload by whichever hook comes first.
fn with_chain<R>(view: &PayloadView<'_>, f: impl FnOnce(&mut Chain) -> R) -> R {
    let mut chain = view
        .cache
        .skill_chain
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    f(chain.get_or_insert_with(|| {
        let start = view_object(view);
        Chain {
            current: start.clone(),
            start,
        }
    }))
}

/// What the chain's event, as `current` now stands, means for the canonical payload.
fn effects(
    view: &PayloadView<'_>,
    start: &Map<String, Value>,
    previous: &Map<String, Value>,
    current: &Map<String, Value>,
    verb: BlockVerb,
) -> Answer {
    let mut answer = Answer::default();
    let event_name = skill_name(view.event).unwrap_or(view.event.name());
    let changed = |key: &str| {
        current
            .get(key)
            .is_some_and(|v| previous.get(key) != Some(v))
    };
    let mut dropped: Vec<&str> = Vec::new();
    if changed("type") {
        dropped.push("type (the event type)");
    }
    if changed("tool") {
        dropped.push("tool (the tool name)");
    }
    let payload = view.payload;
    let mut rewrite = |field: &str, value: Value| {
        if payload.get(field) != Some(&value) {
            answer.rewrites.push(Rewrite {
                field: field.to_owned(),
                value,
                rule: Some(RewriteRule::Replace),
            });
        }
    };
    match view.event {
        Event::PreToolCall => {
            let args = match current.get("args") {
                Some(args @ Value::Object(_)) => args.clone(),
                other => {
                    if other.is_some() && changed("args") {
                        dropped.push("args (it must remain a JSON object)");
                    }
                    start.get("args").cloned().unwrap_or(Value::Null)
                }
            };
            rewrite("tool_input", args);
        }
        Event::PostToolCall => {
            let succeeded = payload
                .get("status")
                .is_none_or(|s| s == "success" || s.is_null());
            if succeeded {
                if let Some(result) = current.get("result").or_else(|| start.get("result")) {
                    rewrite("tool_result", result.clone());
                }
            } else if changed("result") {
                dropped.push("result (the call did not succeed, so no result reaches the agent)");
            }
        }
        Event::PreLlmCall => {
            let mut prompt = match current.get("prompt") {
                Some(Value::String(p)) => p.clone(),
                other => {
                    if other.is_some() && changed("prompt") {
                        dropped.push("prompt (it must remain a string)");
                    }
                    start
                        .get("prompt")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_owned()
                }
            };
            match current.get("append_prompt") {
                Some(Value::String(extra)) if !extra.is_empty() => {
                    prompt = format!("{prompt}\n\n{extra}");
                }
                None | Some(Value::Null) | Some(Value::String(_)) => {}
                Some(_) if changed("append_prompt") => {
                    dropped.push("append_prompt (not a string)");
                }
                Some(_) => {}
            }
            rewrite("prompt", Value::String(prompt));
        }
        _ => {}
    }
    if verb == BlockVerb::Upstream {
        // Upstream open-strix reads no `_block`: it is one more field of the event.
    } else if view.event == Event::PreToolCall {
        block(current, previous, &mut answer);
    } else if changed("_block") {
        answer.problems.push((
            DiagKind::HookInvalidBlock,
            format!("_block is only honoured on pre_tool_call, not {event_name}"),
        ));
    }
    if !dropped.is_empty() {
        answer.problems.push((
            DiagKind::HookInvalidMutation,
            format!("{} ignored on {event_name}", dropped.join(", ")),
        ));
    }
    answer
}

/// Reads the chain's `_block: {reason, result}`. The answer's decision is provisional: `Block`
/// when this hook added or changed a valid block, `Continue` when it removed the one there was.
fn block(current: &Map<String, Value>, previous: &Map<String, Value>, answer: &mut Answer) {
    answer.provisional = true;
    let valid = |event: &Map<String, Value>| {
        let spec = event.get("_block")?;
        let reason = spec.get("reason")?.as_str()?;
        let result = spec.get("result")?.as_str()?;
        spec.is_object()
            .then(|| (reason.to_owned(), result.to_owned()))
    };
    let now = valid(current);
    let before = valid(previous);
    match now {
        Some((reason, result)) if before.as_ref() != Some(&(reason.clone(), result.clone())) => {
            answer.decision = Some(Decision::Block);
            answer
                .records
                .push((DiagKind::HookBlockedToolCall, reason.clone()));
            answer.reason = Some(reason);
            answer.result = Some(Value::String(result));
        }
        Some(_) => {}
        None => {
            if before.is_some() {
                answer.decision = Some(Decision::Continue);
            }
            if let Some(spec) = current.get("_block")
                && previous.get("_block") != Some(spec)
            {
                answer.problems.push((
                    DiagKind::HookInvalidBlock,
                    format!(
                        "'_block' must be an object with string 'reason' and 'result' fields, got {}; the call proceeds",
                        read::answer_preview(&spec.to_string())
                    ),
                ));
            }
        }
    }
}

/// A record about a skill hook, with open-strix's field names (and its `tool`, `channel_id`).
pub fn shape_record(record: DiagRecord, event: Event, payload: &Map<String, Value>) -> DiagRecord {
    let session = payload
        .get("session_id")
        .and_then(Value::as_str)
        .map(str::to_owned);
    let kind = record.kind;
    let mut record = record.open_strix(session, skill_name(event));
    if matches!(event, Event::PreToolCall | Event::PostToolCall)
        && matches!(
            kind,
            DiagKind::HookBlockedToolCall
                | DiagKind::HookInvalidBlock
                | DiagKind::HookInvalidMutation
        )
    {
        record = record.field(
            "tool",
            payload.get("tool_name").cloned().unwrap_or(Value::Null),
        );
    }
    if kind == DiagKind::HookBlockedToolCall {
        record = record.field(
            "channel_id",
            payload.get("channel_id").cloned().unwrap_or(Value::Null),
        );
    }
    record
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
    fn skill_hooks_chain_on_every_event_they_take() {
        // open-strix runs the hooks of an event one after another, lifecycle events included.
        assert!(SKILL_EVENTS.iter().all(|(_, e)| chains(*e)));
    }
}
