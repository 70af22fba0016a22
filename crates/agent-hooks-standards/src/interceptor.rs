//! The engine as an AGENT-HOOKS-0.1 interceptor: any conforming host registers it and gets the
//! workspace's whole policy at each point. Whatever keeps the policy from being fully
//! evaluated is a fail-closed `deny` with a `runtime_error:` reason, never an allow.

use std::sync::Arc;

use agent_hooks_core::answer::Decision;
use agent_hooks_core::outcome::Outcome;
use agent_hooks_runtime::Engine;
use agent_hooks_runtime::decisions::Surface;
use agent_hooks_sdk::{
    AgentContext, InterceptionPoint, Interceptor, InterceptorResponse, RESPONSE_METADATA_MAX_BYTES,
    Verdict,
};
use serde_json::{Map, Value, json};

use crate::mapping::{self, Step};
use crate::run;

/// The extension namespace of our diagnostics in an interceptor response (`agent_hooks` is the
/// standard's own).
pub const EXTENSION: &str = "agent_hooks_runtime";

/// The name the interceptor gives a host for its records.
pub const NAME: &str = "agent-hooks";

/// The workspace's hooks as one AGENT-HOOKS-0.1 interceptor.
#[derive(Debug, Clone)]
pub struct EngineInterceptor {
    engine: Arc<Engine>,
    surface: Surface,
}

impl EngineInterceptor {
    /// An interceptor over `engine`, its tool calls written to the decision log as the
    /// library's (`host`).
    pub fn new(engine: Arc<Engine>) -> EngineInterceptor {
        EngineInterceptor {
            engine,
            surface: Surface::Host,
        }
    }

    /// The same, its tool calls logged as coming through `surface` (the sidecar's route says
    /// `sidecar`).
    pub fn through(engine: Arc<Engine>, surface: Surface) -> EngineInterceptor {
        EngineInterceptor { engine, surface }
    }

    /// The verdict for `ctx` with our account of it under [`EXTENSION`]: the events fired,
    /// each hook's report, diagnostics and lapses, and what the standard has no place for
    /// (context for the model, notes, a model swap, a synthetic tool result).
    pub async fn respond(&self, ctx: &AgentContext) -> InterceptorResponse {
        self.respond_judged(ctx).await.0
    }

    /// [`EngineInterceptor::respond`], with the outcome of each dispatch it made (one, or two
    /// for an output: the response's end, then the stop), for a server that counts and traces
    /// them. Their payloads hold the agent's content: they are for decisions and reports.
    pub async fn respond_judged(&self, ctx: &AgentContext) -> (InterceptorResponse, Vec<Outcome>) {
        let mut dispatched = Vec::new();
        let response = self.respond_into(ctx, &mut dispatched).await;
        (response, dispatched)
    }

    async fn respond_into(
        &self,
        ctx: &AgentContext,
        dispatched: &mut Vec<Outcome>,
    ) -> InterceptorResponse {
        let point = match mapping::point_of(ctx) {
            Ok(point) => point,
            Err(e) => return unjudged(e.code, e.detail),
        };
        let first = match mapping::step(point, ctx) {
            Ok(step) => step,
            Err(e) => return unjudged(e.code, e.detail),
        };
        let outcome = self.dispatch(&first).await;
        let mut verdict = self.judge(point, ctx, &outcome);
        let mut events = vec![summary(&first, &outcome)];
        if point == InterceptionPoint::Output && verdict.decision != agent_hooks_sdk::Decision::Deny
        {
            let response = outcome
                .payload
                .get("response")
                .cloned()
                .unwrap_or(Value::Null);
            let stop = mapping::output_stop(&first, response);
            let stopped = self.dispatch(&stop).await;
            let then = self.judge(point, ctx, &stopped);
            events.push(summary(&stop, &stopped));
            dispatched.push(stopped);
            if then.decision == agent_hooks_sdk::Decision::Deny {
                let mut withheld = then;
                withheld.message = Some(format!(
                    "output withheld: {}",
                    withheld.message.unwrap_or_default()
                ));
                withheld.warnings.splice(0..0, verdict.warnings);
                verdict = withheld;
            } else {
                verdict.warnings.extend(then.warnings);
            }
        }
        verdict.evidence = mapping::evidence(&self.pointers());
        if let Err(e) = verdict.validate() {
            verdict = mapping::lapse_verdict(
                "verdict_unbuildable",
                format!("the verdict built from the hooks' outcome is not valid: {e}"),
            );
        }
        let mut extensions = std::collections::BTreeMap::new();
        extensions.insert(EXTENSION.to_owned(), bounded(events));
        // First: the dispatches in the order they ran.
        dispatched.insert(0, outcome);
        InterceptorResponse {
            verdict,
            extensions,
        }
    }

    async fn dispatch(&self, step: &Step) -> Outcome {
        run::dispatch(&self.engine, self.surface, step.event, step.payload.clone()).await
    }

    /// A hook's decision first; then any lapse denies.
    fn judge(&self, point: InterceptionPoint, ctx: &AgentContext, outcome: &Outcome) -> Verdict {
        let verdict = mapping::verdict(point, ctx, outcome);
        if outcome.decision == Decision::Block || outcome.lapses.is_empty() {
            return verdict;
        }
        let kind = outcome.lapses[0].kind.as_str();
        let message = outcome
            .lapses
            .iter()
            .map(|l| l.message.as_str())
            .collect::<Vec<_>>()
            .join("; ");
        let mut denied = mapping::lapse_verdict(kind, message);
        denied.warnings = verdict.warnings;
        denied
    }

    fn pointers(&self) -> Vec<(&'static str, String)> {
        let mut out = Vec::new();
        if let Some(path) = self.engine.decision_log_path() {
            out.push(("decision_log", format!("file://{}", path.display())));
        }
        if let Some(path) = self.engine.event_log_path() {
            out.push(("event_log", format!("file://{}", path.display())));
        }
        out
    }
}

#[async_trait::async_trait]
impl Interceptor for EngineInterceptor {
    async fn intercept(&self, context: &AgentContext) -> Verdict {
        self.respond(context).await.verdict
    }

    fn name(&self) -> Option<String> {
        Some(NAME.to_owned())
    }
}

/// The sidecar's route: `body` is one agent context as JSON; the answer is the interceptor
/// response, as JSON. Never an error: a body that is not a context is judged like any other
/// context this runtime cannot read, a fail-closed deny.
pub async fn respond_json(engine: Arc<Engine>, body: &[u8]) -> Value {
    respond_json_judged(engine, body).await.0
}

/// [`respond_json`], with the outcome of each dispatch it made
/// ([`EngineInterceptor::respond_judged`]); none for a body that is not a context.
pub async fn respond_json_judged(engine: Arc<Engine>, body: &[u8]) -> (Value, Vec<Outcome>) {
    let mut dispatched = Vec::new();
    let response = match serde_json::from_slice::<Value>(body) {
        Ok(Value::Object(ctx)) => {
            EngineInterceptor::through(engine, Surface::Sidecar)
                .respond_into(&ctx, &mut dispatched)
                .await
        }
        Ok(other) => unjudged(
            "context_invalid",
            format!(
                "an agent context is a JSON object, not {}",
                agent_hooks_core::wording::kind_of(&other)
            ),
        ),
        Err(e) => unjudged("context_invalid", format!("the body is not JSON: {e}")),
    };
    (wire(&response), dispatched)
}

/// `response` as the standard's wire form: a bare verdict without extensions, else the
/// envelope.
pub fn wire(response: &InterceptorResponse) -> Value {
    let verdict = serde_json::to_value(&response.verdict).unwrap_or_else(
        |_| json!({"decision": "deny", "reason": "runtime_error:verdict_unbuildable"}),
    );
    if response.extensions.is_empty() {
        return verdict;
    }
    json!({"verdict": verdict, "extensions": response.extensions})
}

fn unjudged(code: &str, detail: String) -> InterceptorResponse {
    let mut extensions = std::collections::BTreeMap::new();
    extensions.insert(EXTENSION.to_owned(), json!({"error": detail}));
    InterceptorResponse {
        verdict: mapping::lapse_verdict(code, detail),
        extensions,
    }
}

/// What one dispatch did, payload-free but for what the standard cannot carry.
fn summary(step: &Step, outcome: &Outcome) -> Value {
    let mut out = Map::new();
    out.insert("event".into(), step.event.name().into());
    out.insert("decision".into(), outcome.decision.as_str().into());
    let fields: [(&str, Value); 8] = [
        ("reason", json!(outcome.reason)),
        ("hooks", json!(outcome.hooks)),
        ("lapses", json!(outcome.lapses)),
        ("diagnostics", json!(outcome.diagnostics)),
        ("context", json!(outcome.context)),
        ("notes", json!(outcome.notes)),
        ("model", json!(outcome.model)),
        ("result", json!(outcome.result)),
    ];
    for (key, value) in fields {
        let empty = match &value {
            Value::Null => true,
            Value::Array(a) => a.is_empty(),
            _ => false,
        };
        if !empty {
            out.insert(key.into(), value);
        }
    }
    Value::Object(out)
}

/// `events` under the standard's cap on response metadata: past it, the bulky members
/// (diagnostics, context, notes, result) go, and the answer says so.
fn bounded(events: Vec<Value>) -> Value {
    let full = json!({"events": events});
    if size(&json!({EXTENSION: &full})) <= RESPONSE_METADATA_MAX_BYTES {
        return full;
    }
    let trimmed: Vec<Value> = events
        .into_iter()
        .map(|mut e| {
            if let Some(map) = e.as_object_mut() {
                for key in ["diagnostics", "context", "notes", "result", "lapses"] {
                    map.remove(key);
                }
            }
            e
        })
        .collect();
    let trimmed = json!({"events": trimmed, "truncated": true});
    if size(&json!({EXTENSION: &trimmed})) <= RESPONSE_METADATA_MAX_BYTES {
        return trimmed;
    }
    json!({"truncated": true})
}

fn size(value: &Value) -> usize {
    agent_hooks_sdk::canonical_json(value).len()
}
