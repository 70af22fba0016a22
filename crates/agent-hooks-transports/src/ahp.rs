//! A hook that is an Agent Hooks Protocol backend (`type: ahp`): the command is started once
//! per event as a stdio backend, sent one `hooks/intercept` request built from the payload, and
//! its effects come back as the decision protocol's answer, so the dialect reads them as any
//! hook's. What the backend cannot be understood to say is a failure of the hook.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::{Map, Value, json};

use crate::pinned::Pinned;
use crate::{CommandSpec, Failure, Reply, RunPolicy};

/// The protocol version spoken (the current draft).
pub const PROTOCOL_VERSION: &str = "draft";

/// The events a `type: ahp` hook can be declared on, and the AHP event each one is sent as.
pub const EVENTS: [(&str, &str); 1] = [("pre_tool_call", "tool.before")];

/// Runs `spec` as a backend for the payload `input` (the canonical payload as JSON).
pub async fn run(
    spec: &CommandSpec,
    input: &[u8],
    env: &[(String, String)],
    timeout: Duration,
    program: Option<&Pinned>,
    policy: RunPolicy,
) -> Result<Reply, Failure> {
    let (id, request) = request(input)?;
    let mut line = request.to_string().into_bytes();
    line.push(b'\n');
    let reply = spec
        .run(Arc::from(line), env, timeout, program, policy)
        .await?;
    let answer = answer(&id, &reply.stdout)?;
    Ok(Reply {
        stdout: answer.to_string().into_bytes(),
        stdout_overflow: false,
        ..reply
    })
}

/// The `hooks/intercept` request for a payload, and its id.
fn request(input: &[u8]) -> Result<(String, Value), Failure> {
    let payload: Map<String, Value> = serde_json::from_slice(input)
        .map_err(|e| Failure::Exec(format!("the payload is not a JSON object: {e}")))?;
    let event = payload
        .get("event")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let Some(&(_, kind)) = EVENTS.iter().find(|(ours, _)| *ours == event) else {
        return Err(Failure::Exec(format!(
            "a type: ahp hook runs at pre_tool_call, not {event}"
        )));
    };
    let id = next_id();
    let tool_input = match payload.get("tool_input") {
        Some(Value::Object(input)) => Value::Object(input.clone()),
        _ => json!({}),
    };
    let mut ahp = json!({
        "id": id,
        "source": "urn:agent-hooks:runtime",
        "type": kind,
        "time": agent_hooks_core::diag::now_rfc3339(),
        "harness": {"name": "agent-hooks", "version": env!("CARGO_PKG_VERSION")},
        "call": {"id": payload.get("tool_use_id").and_then(Value::as_str).unwrap_or(&id)},
        "tool": {
            "name": payload.get("tool_name").and_then(Value::as_str).unwrap_or_default(),
            "input": tool_input,
            "origin": "native",
        },
        "path": "native",
    });
    if let Some(session) = payload.get("session_id").and_then(Value::as_str)
        && !session.is_empty()
    {
        ahp["session"] = json!({"id": session});
    }
    let request = json!({
        "jsonrpc": "2.0",
        "id": id,
        "method": "hooks/intercept",
        "params": {
            "protocolVersion": PROTOCOL_VERSION,
            "event": ahp,
            // What a pre_tool_call hook may do here: block, ask, rewrite the input.
            "capabilities": {
                "effects": ["allow", "deny", "ask", "modify"],
                "modify": {"input": {"replace": true, "merge": false}},
            },
            "state": {"permission": "none", "candidate": null},
        },
    });
    Ok((id, request))
}

/// The decision protocol's answer for the backend's response (its first line on stdout).
fn answer(id: &str, stdout: &[u8]) -> Result<Value, Failure> {
    let line = stdout.split(|b| *b == b'\n').next().unwrap_or_default();
    let bad = |why: String| Failure::Exec(format!("the AHP backend's answer {why}"));
    let response: Value = serde_json::from_slice(line)
        .map_err(|e| bad(format!("is not one JSON-RPC message on a line: {e}")))?;
    if response.get("id").and_then(Value::as_str) != Some(id) {
        return Err(bad("does not answer the request's id".into()));
    }
    if let Some(error) = response.get("error") {
        return Err(bad(format!("is an error: {error}")));
    }
    let result = response
        .get("result")
        .ok_or_else(|| bad("has neither result nor error".into()))?;
    if result.get("protocolVersion").and_then(Value::as_str) != Some(PROTOCOL_VERSION) {
        return Err(bad(format!(
            "is not of protocol version {PROTOCOL_VERSION}"
        )));
    }
    let effects = result
        .get("effects")
        .and_then(Value::as_array)
        .ok_or_else(|| bad("has no effects list".into()))?;
    let mut out = Map::new();
    for effect in effects {
        match effect.get("type").and_then(Value::as_str) {
            Some("allow") => {}
            Some("deny") => {
                let reason = effect.get("reason").and_then(Value::as_str).unwrap_or("");
                out.insert("decision".into(), "block".into());
                out.insert("reason".into(), reason.into());
            }
            Some("ask") if !out.contains_key("decision") => {
                out.insert("decision".into(), "ask".into());
                out.insert(
                    "reason".into(),
                    "the AHP backend asks for confirmation".into(),
                );
            }
            Some("ask") => {}
            Some("modify") if effect.get("target") == Some(&json!("input")) => {
                let value = effect
                    .get("value")
                    .and_then(Value::as_object)
                    .ok_or_else(|| bad("modifies the input with no object".into()))?;
                // Only replacement is advertised.
                let operation = effect.get("operation").and_then(Value::as_str);
                if operation != Some("replace") {
                    return Err(bad(format!(
                        "modifies the input by {operation:?}, not replace"
                    )));
                }
                out.insert("tool_input".into(), Value::Object(value.clone()));
            }
            other => {
                return Err(bad(format!(
                    "has an effect the request did not advertise: {}",
                    other.unwrap_or("(no type)")
                )));
            }
        }
    }
    Ok(Value::Object(out))
}

/// An id unique to this process: its pid, a counter and the time.
fn next_id() -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    format!("agent-hooks-{}-{n}-{nanos}", std::process::id())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_request_carries_the_tool_call_and_what_the_hook_may_do() {
        let payload =
            br#"{"event": "pre_tool_call", "tool_name": "bash", "tool_input": {"command": "ls"}, "session_id": "s"}"#;
        let (id, request) = request(payload).expect("a request");
        assert_eq!(request["id"], id);
        assert_eq!(request["params"]["event"]["id"], id);
        assert_eq!(request["params"]["event"]["type"], "tool.before");
        assert_eq!(request["params"]["event"]["tool"]["input"]["command"], "ls");
        assert_eq!(request["params"]["event"]["session"]["id"], "s");
        let time = request["params"]["event"]["time"].as_str().expect("a time");
        assert!(
            time.len() >= 20 && &time[10..11] == "T" && time.ends_with('Z'),
            "{time}"
        );
        assert!(super::request(br#"{"event": "on_stop"}"#).is_err());
    }

    #[test]
    fn effects_become_the_decision_protocols_answer() {
        let ok = |effects: Value| {
            json!({"jsonrpc": "2.0", "id": "x", "result": {"protocolVersion": "draft", "effects": effects}})
                .to_string()
        };
        let deny = ok(json!([{"type": "deny", "reason": "no"}]));
        assert_eq!(
            answer("x", deny.as_bytes()).expect("read"),
            json!({"decision": "block", "reason": "no"})
        );
        let modify = ok(
            json!([{"type": "modify", "target": "input", "operation": "replace", "value": {"a": 1}}]),
        );
        assert_eq!(
            answer("x", modify.as_bytes()).expect("read"),
            json!({"tool_input": {"a": 1}})
        );
        assert_eq!(
            answer("x", ok(json!([])).as_bytes()).expect("read"),
            json!({})
        );
        assert!(answer("y", deny.as_bytes()).is_err(), "another id");
        assert!(
            answer(
                "x",
                ok(json!([{"type": "flow", "operation": "stop", "reason": "r"}])).as_bytes()
            )
            .is_err()
        );
        assert!(
            answer(
                "x",
                br#"{"jsonrpc":"2.0","id":"x","error":{"code":-32004,"message":"m"}}"#
            )
            .is_err()
        );
        assert!(answer("x", b"").is_err());
    }
}
