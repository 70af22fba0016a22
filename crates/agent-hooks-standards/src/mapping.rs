//! AGENT-HOOKS-0.1's interception points read as this runtime's canonical events, and an
//! [`Outcome`] written back as the standard's verdict: which event each point fires, the
//! payload it gets from the context, and where a hook's rewrite lands under `$target`.

use agent_hooks_core::answer::Decision;
use agent_hooks_core::event::Event;
use agent_hooks_core::outcome::Outcome;
use agent_hooks_sdk::{AgentContext, Evidence, InterceptionPoint, Transform, Verdict, Warning};
use serde_json::{Map, Value, json};

use crate::run::id_of;

/// The prefix of every reason this runtime gives when it could not judge a context, as the
/// standard asks of a decision runtime behind an interceptor (`host_error:` is the host's).
pub const RUNTIME_ERROR: &str = "runtime_error:";

/// The one thing a context must have for us to judge it, missing or of the wrong shape.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unmappable {
    /// The `runtime_error:` code.
    pub code: &'static str,
    /// What was wrong, for the message.
    pub detail: String,
}

impl Unmappable {
    fn new(code: &'static str, detail: impl Into<String>) -> Unmappable {
        Unmappable {
            code,
            detail: detail.into(),
        }
    }
}

/// One dispatch a point comes to: the canonical event and its payload.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// The event fired.
    pub event: Event,
    /// Its payload, read from the context.
    pub payload: Map<String, Value>,
}

/// The interception point a context names.
pub fn point_of(ctx: &AgentContext) -> Result<InterceptionPoint, Unmappable> {
    let name = ctx
        .get("interception_point")
        .and_then(Value::as_str)
        .ok_or_else(|| {
            Unmappable::new(
                "context_invalid",
                "the context has no interception_point string",
            )
        })?;
    serde_json::from_value(Value::String(name.to_owned())).map_err(|_| {
        Unmappable::new(
            "context_invalid",
            format!("unknown interception_point {name:?}"),
        )
    })
}

/// The canonical event each point fires first (`output` also fires `on_stop`, see
/// [`output_stop`]).
pub fn event_of(point: InterceptionPoint) -> Event {
    match point {
        InterceptionPoint::AgentStartup => Event::OnSessionStart,
        InterceptionPoint::Input => Event::OnUserMessage,
        InterceptionPoint::PreModelCall => Event::PreLlmCall,
        InterceptionPoint::PostModelCall => Event::PostLlmCall,
        InterceptionPoint::PreToolCall => Event::PreToolCall,
        InterceptionPoint::PostToolCall => Event::PostToolCall,
        InterceptionPoint::Output => Event::OnResponseEnd,
        InterceptionPoint::AgentShutdown => Event::OnSessionEnd,
    }
}

/// The first step of `point` for `ctx`: the event and the payload its hooks read.
pub fn step(point: InterceptionPoint, ctx: &AgentContext) -> Result<Step, Unmappable> {
    let mut payload = Map::new();
    if let Some(session) = id_of(ctx, "session") {
        payload.insert("session_id".into(), session.into());
    }
    if let Some(agent) = id_of(ctx, "agent") {
        payload.insert("agent_id".into(), agent.into());
    }
    match point {
        InterceptionPoint::AgentStartup => {
            payload.insert("status".into(), "startup".into());
        }
        InterceptionPoint::AgentShutdown => {
            let reason = section(ctx, "summary")?
                .get("reason")
                .and_then(Value::as_str)
                .unwrap_or("shutdown");
            payload.insert("status".into(), reason.into());
        }
        InterceptionPoint::Input => {
            let input = section(ctx, "input")?;
            payload.insert("message".into(), text(input.get("content")).into());
            if let Some(role) = input.get("role").and_then(Value::as_str) {
                payload.insert("channel".into(), role.into());
            }
        }
        InterceptionPoint::PreModelCall => {
            let messages = ctx
                .get("messages")
                .and_then(Value::as_array)
                .ok_or_else(|| field_missing("pre_model_call", "messages", "a list"))?;
            payload.insert("model".into(), model_id(ctx).into());
            payload.insert("prompt".into(), Value::Array(messages.clone()));
            let content_of = |role: &str, last: bool| {
                let mut found = messages
                    .iter()
                    .filter(|m| m.get("role").and_then(Value::as_str) == Some(role));
                let m = if last {
                    found.next_back()
                } else {
                    found.next()
                };
                m.map(|m| text(m.get("content"))).unwrap_or_default()
            };
            payload.insert("system".into(), content_of("system", false).into());
            payload.insert("last_user_message".into(), content_of("user", true).into());
        }
        InterceptionPoint::PostModelCall => {
            let response = section(ctx, "response")?;
            payload.insert("model".into(), model_id(ctx).into());
            payload.insert("response".into(), text(response.get("content")).into());
        }
        InterceptionPoint::PreToolCall | InterceptionPoint::PostToolCall => {
            let call = section(ctx, "tool_call")?;
            let name = call
                .get("name")
                .and_then(Value::as_str)
                .ok_or_else(|| field_missing(point.as_str(), "tool_call.name", "a string"))?;
            payload.insert("tool_name".into(), name.into());
            payload.insert(
                "tool_input".into(),
                call.get("args").cloned().unwrap_or_else(|| json!({})),
            );
            if point == InterceptionPoint::PostToolCall {
                let result = section(ctx, "tool_result")?;
                let failed = result.get("is_error").and_then(Value::as_bool) == Some(true);
                let value = result.get("value").cloned().unwrap_or(Value::Null);
                payload.insert(
                    "status".into(),
                    if failed { "error" } else { "success" }.into(),
                );
                if failed {
                    payload.insert("error".into(), text(Some(&value)).into());
                }
                payload.insert("tool_result".into(), value);
            }
        }
        InterceptionPoint::Output => {
            let output = section(ctx, "output")?;
            payload.insert("response".into(), text(output.get("content")).into());
        }
    }
    Ok(Step {
        event: event_of(point),
        payload,
    })
}

/// The `on_stop` step that follows `on_response_end` at `output`: a block there holds the
/// output back, since a host of the standard cannot be asked to redo the turn. `response` is
/// the reply after `on_response_end`'s rewrites.
pub fn output_stop(first: &Step, response: Value) -> Step {
    let mut payload = Map::new();
    for key in ["session_id", "agent_id"] {
        if let Some(v) = first.payload.get(key) {
            payload.insert(key.into(), v.clone());
        }
    }
    payload.insert("response".into(), response);
    payload.insert("tool_names".into(), json!([]));
    payload.insert("stop_hook_active".into(), false.into());
    payload.insert("redo_count".into(), 0.into());
    Step {
        event: Event::OnStop,
        payload,
    }
}

fn section<'a>(
    ctx: &'a AgentContext,
    name: &'static str,
) -> Result<&'a Map<String, Value>, Unmappable> {
    ctx.get(name)
        .and_then(Value::as_object)
        .ok_or_else(|| field_missing(point_name(ctx), name, "an object"))
}

fn point_name(ctx: &AgentContext) -> &str {
    ctx.get("interception_point")
        .and_then(Value::as_str)
        .unwrap_or("the point")
}

fn field_missing(point: &str, field: &str, kind: &str) -> Unmappable {
    Unmappable::new(
        "context_invalid",
        format!("{point}: the context's {field} is not {kind}"),
    )
}

fn model_id(ctx: &AgentContext) -> String {
    ctx.get("model")
        .and_then(|m| m.get("id"))
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

/// A message's content as the text hooks match: a string as it is, parts joined by their
/// `text`, anything else as JSON.
fn text(content: Option<&Value>) -> String {
    match content {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) if parts.iter().all(|p| p.get("text").is_some()) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        Some(other) => other.to_string(),
    }
}

/// The rewrite the outcome of `step` carries, as the standard's transform: the rewritten
/// field's new value at its place under `$target`. `None` when the hooks rewrote nothing
/// this point's target holds.
pub fn transform(
    point: InterceptionPoint,
    ctx: &AgentContext,
    outcome: &Outcome,
) -> Option<Transform> {
    let changed = |field: &str| outcome.changed.iter().any(|c| c == field);
    let new = |field: &str| outcome.payload.get(field).cloned();
    let at = |path: &str, value: Value| {
        Some(Transform {
            path: path.to_owned(),
            value,
        })
    };
    match point {
        InterceptionPoint::Input if changed("message") => at("$target.content", new("message")?),
        InterceptionPoint::Output if changed("response") => at("$target.content", new("response")?),
        InterceptionPoint::PreToolCall if changed("tool_input") => {
            at("$target", new("tool_input")?)
        }
        InterceptionPoint::PostToolCall if changed("tool_result") => {
            at("$target", new("tool_result")?)
        }
        InterceptionPoint::PreModelCall if changed("prompt") => match new("prompt")? {
            list @ Value::Array(_) => at("$target", list),
            // A prompt rewritten as text replaces the last user message's content: the
            // messages keep their shape.
            text => {
                let messages = ctx.get("messages")?.as_array()?;
                let last = messages
                    .iter()
                    .rposition(|m| m.get("role").and_then(Value::as_str) == Some("user"))?;
                at(&format!("$target[{last}].content"), text)
            }
        },
        _ => None,
    }
}

/// The verdict for `outcome`, `step`'s dispatch at `point`. A block denies; an ask denies
/// in a way an approver may lift; a rewrite transforms; warnings ride along on any verdict.
pub fn verdict(point: InterceptionPoint, ctx: &AgentContext, outcome: &Outcome) -> Verdict {
    let mut verdict = match outcome.decision {
        Decision::Block => Verdict::deny(Some(hook_reason(outcome)), outcome.reason.clone()),
        Decision::Ask => Verdict::escalate(Some(hook_reason(outcome)), outcome.reason.clone()),
        Decision::Continue => match transform(point, ctx, outcome) {
            Some(t) => Verdict {
                decision: agent_hooks_sdk::Decision::Transform,
                transform: Some(t),
                ..Verdict::allow()
            },
            None => Verdict::allow(),
        },
    };
    if let Some(stop) = &outcome.stop {
        // A hook asked the agent to stop its turn: nothing of it may go on.
        verdict = Verdict::deny(Some(hook_reason(outcome)), Some(stop.reason.clone()));
    }
    verdict.warnings = outcome
        .warnings
        .iter()
        .map(|w| Warning {
            reason: None,
            message: Some(w.clone()),
        })
        .collect();
    verdict
}

/// The machine reason of a hook's decision: the deciding hook's name.
fn hook_reason(outcome: &Outcome) -> String {
    let hook = outcome
        .blocked_by()
        .or_else(|| {
            outcome
                .hooks
                .iter()
                .find(|h| h.status.as_str() == "ok")
                .map(|h| &*h.hook)
        })
        .unwrap_or("policy");
    format!("hook:{hook}")
}

/// The fail-closed deny of a context this runtime could not judge.
pub fn lapse_verdict(code: &str, message: String) -> Verdict {
    Verdict::deny(Some(format!("{RUNTIME_ERROR}{code}")), Some(message))
}

/// Pointers to where this runtime keeps its own account of the decision, kept under the
/// standard's evidence cap ([`agent_hooks_sdk::EVIDENCE_MAX_BYTES`]): whichever pointer would
/// overflow it is left out.
pub fn evidence(pointers: &[(&str, String)]) -> Option<Evidence> {
    let mut evidence = Evidence::default();
    for (name, uri) in pointers {
        evidence
            .verification_pointers
            .insert((*name).to_owned(), uri.clone());
        let size = serde_json::to_value(&evidence)
            .map(|v| agent_hooks_sdk::canonical_json(&v).len())
            .unwrap_or(usize::MAX);
        if size > agent_hooks_sdk::EVIDENCE_MAX_BYTES {
            evidence.verification_pointers.remove(*name);
        }
    }
    (!evidence.verification_pointers.is_empty()).then_some(evidence)
}
