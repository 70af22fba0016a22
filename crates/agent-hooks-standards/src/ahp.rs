//! The engine as an Agent Hooks Protocol backend: one JSON-RPC 2.0 message in, at most one
//! out, for `agent-hooks ahp-serve` (stdio, one object per line) and the sidecar's route alike.
//! Each request's advertised effects bound the answer; whatever keeps the policy from being
//! fully evaluated is a backend error, so the harness applies that subscription's fail mode.

use std::sync::Arc;

use agent_hooks_core::answer::Decision;
use agent_hooks_core::event::Event;
use agent_hooks_core::outcome::Outcome;
use agent_hooks_runtime::Engine;
use agent_hooks_runtime::decisions::Surface;
use serde_json::{Map, Value, json};

use crate::run::{self, id_of};

/// The protocol version this backend speaks (the current draft).
pub const PROTOCOL_VERSION: &str = "draft";

/// What a subscription's deadline (`timeoutMs` on `hooks/configuration`) adds to its hooks'
/// own timeouts: the runtime's own work, and the message's way there and back.
pub const DEADLINE_MARGIN_MS: u64 = 1_000;

/// JSON-RPC and AHP error codes this backend answers.
mod code {
    pub(super) const PARSE: i64 = -32700;
    pub(super) const INVALID_REQUEST: i64 = -32600;
    pub(super) const METHOD_NOT_FOUND: i64 = -32601;
    pub(super) const INVALID_PARAMS: i64 = -32602;
    pub(super) const UNSUPPORTED_VERSION: i64 = -32001;
    pub(super) const UNSUPPORTED_EVENT: i64 = -32002;
    pub(super) const BACKEND_INTERNAL: i64 = -32004;
}

/// The events this backend intercepts, and the canonical event each one fires.
const INTERCEPTED: [(&str, Event); 3] = [
    ("tool.before", Event::PreToolCall),
    ("user.message.inbound", Event::OnUserMessage),
    ("user.message.outbound", Event::OnOutboundMessage),
];

/// The events it observes: every draft event with a canonical counterpart. The other draft
/// events (model switches, permissions, progress, compaction, changes of task, workspace,
/// file or configuration, elicitation, attention, hook failures) have none: an intercept of
/// one is answered "Unsupported event", an observation of one is taken and dropped.
/// `turn.finish.before` is observed and not intercepted: holding a turn open is a `flow`
/// effect this backend does not answer.
const OBSERVED: [(&str, Event); 10] = [
    ("tool.before", Event::PreToolCall),
    ("user.message.inbound", Event::OnUserMessage),
    ("user.message.outbound", Event::OnOutboundMessage),
    ("tool.after", Event::PostToolCall),
    ("session.start", Event::OnSessionStart),
    ("session.end", Event::OnSessionEnd),
    ("model.request.before", Event::PreLlmCall),
    ("model.response.after", Event::PostLlmCall),
    ("turn.end", Event::OnResponseEnd),
    ("turn.finish.before", Event::OnStop),
];

/// A workspace's hooks behind the Agent Hooks Protocol.
#[derive(Debug, Clone)]
pub struct Backend {
    engine: Arc<Engine>,
    surface: Surface,
}

impl Backend {
    /// A backend over `engine`; its tool calls are logged as coming through `surface`.
    pub fn new(engine: Arc<Engine>, surface: Surface) -> Backend {
        Backend { engine, surface }
    }

    /// The subscriptions this backend advertises on `hooks/configuration`: one per event it
    /// intercepts (tool calls, user messages), fail-closed, with the body of their text, and a
    /// deadline from the workspace's own hooks (see [`Backend::deadline_ms`]).
    pub fn configuration(&self) -> Value {
        let hooks = agent_hooks_runtime::hook_listing(&self.engine).hooks;
        let subscriptions: Vec<Value> = INTERCEPTED
            .iter()
            .map(|(name, event)| {
                json!({
                    "events": [name],
                    "mode": "intercept",
                    "timeoutMs": deadline_ms(&hooks, *event),
                    "failurePolicy": "fail-closed",
                    // Hooks match text: its body is sent, the rest (images, files) as metadata.
                    "content": {"default": "metadata", "text": "body"},
                })
            })
            .collect();
        json!({ "subscriptions": subscriptions })
    }

    /// The deadline this backend advertises for `event`, in ms: what its hooks may take.
    pub fn deadline_ms(&self, event: Event) -> u64 {
        deadline_ms(
            &agent_hooks_runtime::hook_listing(&self.engine).hooks,
            event,
        )
    }

    /// Answers one message (`line`, one JSON value). `None` for a notification, which is
    /// never answered.
    pub async fn handle(&self, line: &[u8]) -> Option<Value> {
        self.handle_judged(line).await.0
    }

    /// [`Backend::handle`], with the outcome of the dispatch the message made (an intercept's
    /// or an observation's; none for the others), for a server that counts and traces it. Its
    /// payload holds the event's content: it is for the decision and the hooks' reports.
    pub async fn handle_judged(&self, line: &[u8]) -> (Option<Value>, Vec<Outcome>) {
        let mut dispatched = Vec::new();
        let answer = self.handle_into(line, &mut dispatched).await;
        (answer, dispatched)
    }

    async fn handle_into(&self, line: &[u8], dispatched: &mut Vec<Outcome>) -> Option<Value> {
        let message: Value = match serde_json::from_slice(line) {
            Ok(message) => message,
            Err(_) => return Some(error(Value::Null, code::PARSE, "Parse error", None)),
        };
        let Some(object) = message.as_object() else {
            return Some(invalid_request());
        };
        let id = object.get("id").cloned();
        let notification = id.is_none();
        let method = object.get("method").and_then(Value::as_str);
        let id_ok = matches!(
            id,
            None | Some(Value::String(_) | Value::Number(_) | Value::Null)
        );
        let (Some(method), true, true) =
            (method, object.get("jsonrpc") == Some(&json!("2.0")), id_ok)
        else {
            return Some(invalid_request());
        };
        let id = id.unwrap_or(Value::Null);
        let params = object.get("params").and_then(Value::as_object);
        if let Some(version) = params
            .and_then(|p| p.get("protocolVersion"))
            .and_then(Value::as_str)
            && version != PROTOCOL_VERSION
        {
            return (!notification).then(|| {
                error(
                    id,
                    code::UNSUPPORTED_VERSION,
                    "Unsupported AHP protocol version",
                    Some(json!({"supported": [PROTOCOL_VERSION]})),
                )
            });
        }
        let answer = match method {
            "hooks/configuration" if !notification => Ok(json!({
                "protocolVersion": PROTOCOL_VERSION,
                "configuration": self.configuration(),
            })),
            "hooks/intercept" if !notification => self.intercept(&id, params, dispatched).await,
            "hooks/observe" => {
                self.observe(params, dispatched).await;
                return None;
            }
            _ if notification => return None,
            _ => Err((code::METHOD_NOT_FOUND, "Method not found")),
        };
        Some(match answer {
            Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
            Err((code, message)) => error(id, code, message, None),
        })
    }

    async fn intercept(
        &self,
        id: &Value,
        params: Option<&Map<String, Value>>,
        dispatched: &mut Vec<Outcome>,
    ) -> Result<Value, (i64, &'static str)> {
        let invalid = (code::INVALID_PARAMS, "Invalid params");
        let params = params.ok_or(invalid)?;
        let event = params
            .get("event")
            .and_then(Value::as_object)
            .ok_or(invalid)?;
        let kind = event.get("type").and_then(Value::as_str).ok_or(invalid)?;
        let Some(&(_, canonical)) = INTERCEPTED.iter().find(|(name, _)| *name == kind) else {
            return Err((code::UNSUPPORTED_EVENT, "Unsupported event"));
        };
        // The request's id is the event's: a response is correlated by it.
        if event.get("id") != Some(id) {
            return Err(invalid);
        }
        let granted = Grants::of(params.get("capabilities").ok_or(invalid)?);
        let payload = payload(canonical, event).ok_or(invalid)?;
        let outcome = self.dispatch(canonical, payload).await;
        let answer = answer(canonical, &outcome, &granted);
        dispatched.push(outcome);
        answer
    }

    async fn observe(&self, params: Option<&Map<String, Value>>, dispatched: &mut Vec<Outcome>) {
        let Some(event) = params
            .and_then(|p| p.get("event"))
            .and_then(Value::as_object)
        else {
            return;
        };
        let kind = event
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let Some(&(_, canonical)) = OBSERVED.iter().find(|(name, _)| *name == kind) else {
            return;
        };
        if let Some(payload) = payload(canonical, event) {
            // Observation carries no effect: what the hooks said is logged, not answered.
            dispatched.push(self.dispatch(canonical, payload).await);
        }
    }

    async fn dispatch(&self, event: Event, payload: Map<String, Value>) -> Outcome {
        run::dispatch(&self.engine, self.surface, event, payload).await
    }
}

/// What an intercept answers for `outcome`: its effects, within what the request grants.
fn answer(
    canonical: Event,
    outcome: &Outcome,
    granted: &Grants,
) -> Result<Value, (i64, &'static str)> {
    if !outcome.lapses.is_empty() && outcome.decision != Decision::Block {
        // Not fully evaluated: the harness's failure policy for this subscription decides.
        return Err((
            code::BACKEND_INTERNAL,
            "Backend internal error: the policy could not be fully evaluated",
        ));
    }
    let effects = effects(canonical, outcome, granted).ok_or((
        code::BACKEND_INTERNAL,
        "Backend internal error: the decision needs an effect this request does not advertise",
    ))?;
    Ok(json!({"protocolVersion": PROTOCOL_VERSION, "effects": effects}))
}

/// The deadline for `event` given the workspace's `hooks` (as `agent-hooks hooks --json` lists
/// them): hooks that may change a decision run one after another, so at worst the sum of their
/// own timeouts, plus [`DEADLINE_MARGIN_MS`]. A harness that waited less would apply its fail
/// mode to an answer still coming.
fn deadline_ms(hooks: &[Value], event: Event) -> u64 {
    let hooks_ms: f64 = hooks
        .iter()
        .filter(|h| {
            h["events"]
                .as_array()
                .is_some_and(|events| events.iter().any(|e| e == event.name()))
        })
        .filter_map(|h| h["timeout_s"].as_f64())
        .map(|s| (s * 1000.0).ceil())
        .sum();
    // Whole milliseconds; a sum too large for u64 saturates.
    (hooks_ms as u64).saturating_add(DEADLINE_MARGIN_MS)
}

/// The effects a request lets this backend answer.
#[derive(Debug, Default)]
struct Grants {
    deny: bool,
    ask: bool,
    replace_input: bool,
}

impl Grants {
    fn of(capabilities: &Value) -> Grants {
        let effects: Vec<&str> = capabilities
            .get("effects")
            .and_then(Value::as_array)
            .map(|e| e.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        Grants {
            deny: effects.contains(&"deny"),
            ask: effects.contains(&"ask"),
            replace_input: effects.contains(&"modify")
                && capabilities.pointer("/modify/input/replace") == Some(&Value::Bool(true)),
        }
    }
}

/// Our payload for an AHP event, `None` when the event lacks what the canonical event needs.
fn payload(event: Event, ahp: &Map<String, Value>) -> Option<Map<String, Value>> {
    let mut payload = Map::new();
    if let Some(session) = id_of(ahp, "session") {
        payload.insert("session_id".into(), session.into());
    }
    match event {
        Event::PreToolCall | Event::PostToolCall => {
            let tool = ahp.get("tool")?.as_object()?;
            payload.insert("tool_name".into(), tool.get("name")?.as_str()?.into());
            payload.insert("tool_input".into(), tool.get("input")?.clone());
            if event == Event::PostToolCall {
                let outcome = ahp.get("outcome").and_then(Value::as_str).unwrap_or("ok");
                payload.insert(
                    "status".into(),
                    if outcome == "ok" { "success" } else { outcome }.into(),
                );
            }
        }
        Event::OnUserMessage => {
            // The message's own messages; an adapter may give the model-visible items instead.
            let message = ahp.get("message");
            let messages = message.and_then(|m| m.get("messages"));
            let text = match messages {
                Some(messages) => text_of(Some(messages)),
                None => text_of(ahp.get("items")),
            };
            payload.insert("message".into(), text.into());
            if let Some(channel) = message
                .and_then(|m| m.get("channel"))
                .and_then(Value::as_str)
            {
                payload.insert("channel".into(), channel.into());
            }
        }
        Event::OnOutboundMessage => {
            let message = ahp.get("message")?;
            payload.insert(
                "notification".into(),
                text_of(message.get("messages")).into(),
            );
            payload.insert("type".into(), message.get("channel")?.as_str()?.into());
        }
        Event::PreLlmCall | Event::PostLlmCall => {
            let model = ahp.get("model")?.get("id")?.as_str()?;
            payload.insert("model".into(), model.into());
            let items = ahp.get("items")?.as_array()?;
            if event == Event::PreLlmCall {
                // The model is asked about the user's last message.
                let last = items.iter().rev().find(|i| i["role"] == "user");
                let text = text_of(Some(&Value::Array(last.into_iter().cloned().collect())));
                payload.insert("last_user_message".into(), text.into());
            } else {
                payload.insert("response".into(), text_of(ahp.get("items")).into());
            }
        }
        Event::OnResponseEnd | Event::OnStop => {
            payload.insert("response".into(), text_of(ahp.get("items")).into());
            if event == Event::OnStop {
                let redos = ahp.get("continuationCount")?.as_u64()?;
                payload.insert("redo_count".into(), redos.into());
                payload.insert("stop_hook_active".into(), (redos > 0).into());
            }
        }
        Event::OnSessionStart | Event::OnSessionEnd => {
            let status = ahp
                .get("trigger")
                .and_then(Value::as_str)
                .unwrap_or("session");
            payload.insert("status".into(), status.into());
        }
        _ => return None,
    }
    Some(payload)
}

/// The text of a list of messages (or model-visible items): every text part, in order.
fn text_of(items: Option<&Value>) -> String {
    let mut out = Vec::new();
    for item in items.and_then(Value::as_array).into_iter().flatten() {
        for part in item
            .get("parts")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if let Some(text) = part.get("text").and_then(Value::as_str) {
                out.push(text);
            }
        }
    }
    out.join("\n")
}

/// The effects for `outcome`, within `granted`; `None` when the decision needs an effect the
/// request does not advertise (a block without `deny`, a rewrite without `modify` of the
/// input): answering less would let through what the hooks refused or changed.
fn effects(event: Event, outcome: &Outcome, granted: &Grants) -> Option<Vec<Value>> {
    let reason = || {
        outcome
            .reason
            .clone()
            .filter(|r| !r.is_empty())
            .unwrap_or_else(|| "refused by a hook".to_owned())
    };
    match outcome.decision {
        Decision::Block => granted
            .deny
            .then(|| vec![json!({"type": "deny", "reason": reason()})]),
        Decision::Ask if granted.ask => Some(vec![json!({"type": "ask"})]),
        // Without `ask`, a question nobody can answer is a refusal.
        Decision::Ask => granted
            .deny
            .then(|| vec![json!({"type": "deny", "reason": reason()})]),
        Decision::Continue => {
            let changed = |field: &str| outcome.changed.iter().any(|f| f == field);
            if changed("message") || changed("notification") {
                // This backend answers no rewrite of a message.
                return None;
            }
            if !(event == Event::PreToolCall && changed("tool_input")) {
                return Some(Vec::new());
            }
            let value = outcome.payload.get("tool_input")?.clone();
            (granted.replace_input && value.is_object()).then(|| {
                vec![json!({"type": "modify", "target": "input", "operation": "replace", "value": value})]
            })
        }
    }
}

fn error(id: Value, code: i64, message: &str, data: Option<Value>) -> Value {
    let mut error = json!({"code": code, "message": message});
    if let Some(data) = data {
        error["data"] = data;
    }
    json!({"jsonrpc": "2.0", "id": id, "error": error})
}

fn invalid_request() -> Value {
    error(Value::Null, code::INVALID_REQUEST, "Invalid Request", None)
}
