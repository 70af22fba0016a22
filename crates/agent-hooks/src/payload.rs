//! Typed payloads for Rust hosts: one struct per event with the fields of SPEC §3, so a host
//! cannot misspell a field or send it to the wrong event. [`Engine::fire`] dispatches one.
//! Fields a host wants to add beyond these go in `extra` and reach hooks untouched.
//!
//! ```no_run
//! # async fn demo(engine: &agent_hooks::Engine) {
//! use agent_hooks::payload::PreToolCall;
//! let outcome = engine
//!     .fire(PreToolCall::new("bash", serde_json::json!({"command": "ls -la"})))
//!     .await;
//! if outcome.is_blocked() {
//!     println!("refused: {}", outcome.reason.unwrap_or_default());
//! }
//! # }
//! ```
//!
//! [`Engine::fire`]: crate::Engine::fire

use serde::Serialize;
use serde_json::{Map, Value};

use crate::event::Event;

/// A typed payload of one event.
pub trait Payload: Serialize {
    const EVENT: Event;

    /// The payload as the JSON object hooks receive.
    fn into_map(self) -> Map<String, Value>
    where
        Self: Sized,
    {
        match serde_json::to_value(self) {
            Ok(Value::Object(mut map)) => {
                // `extra` is flattened by hand: its keys sit beside the typed ones.
                if let Some(Value::Object(extra)) = map.remove("extra") {
                    for (k, v) in extra {
                        map.entry(k).or_insert(v);
                    }
                }
                map.retain(|_, v| !v.is_null());
                map
            }
            _ => Map::new(),
        }
    }
}

macro_rules! payload {
    ($(#[$doc:meta])* $name:ident => $event:expr, { $($(#[$fdoc:meta])* $field:ident : $ty:ty),* $(,)? }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Default, Serialize, PartialEq)]
        pub struct $name {
            $($(#[$fdoc])* pub $field: $ty,)*
            #[serde(skip_serializing_if = "String::is_empty")]
            pub session_id: String,
            #[serde(skip_serializing_if = "String::is_empty")]
            pub agent_id: String,
            /// Host-specific fields, passed to hooks untouched.
            #[serde(skip_serializing_if = "Map::is_empty")]
            pub extra: Map<String, Value>,
        }

        impl Payload for $name {
            const EVENT: Event = $event;
        }

        impl $name {
            /// Sets the session this event belongs to.
            pub fn session(mut self, session_id: impl Into<String>) -> Self {
                self.session_id = session_id.into();
                self
            }
        }
    };
}

payload!(
    /// `on_user_message`: a user message arrives, before the model sees it.
    UserMessage => Event::OnUserMessage, { message: String, channel: String }
);
payload!(
    /// `pre_tool_call`: before a tool runs.
    PreToolCall => Event::PreToolCall, { tool_name: String, tool_input: Value }
);
payload!(
    /// `post_tool_call`: after a tool ran (`status`: success, error or blocked).
    PostToolCall => Event::PostToolCall, {
        tool_name: String, tool_input: Value, tool_result: Value, status: String,
        error: Option<String>
    }
);
payload!(
    /// `transform_tool_result`: a tool's result before the agent sees it.
    TransformToolResult => Event::TransformToolResult, { tool_name: String, tool_result: Value }
);
payload!(
    /// `pre_llm_call`: before each model call.
    PreLlmCall => Event::PreLlmCall, {
        system: String, last_user_message: String, model: String, prompt: Option<String>
    }
);
payload!(
    /// `post_llm_call`: after each model reply.
    PostLlmCall => Event::PostLlmCall, { model: String, response: String }
);
payload!(
    /// `on_response_end`: the final reply of a turn is assembled.
    ResponseEnd => Event::OnResponseEnd, {
        response: String, model: String, tokens: Tokens, cost: Option<f64>, tool_names: Vec<String>
    }
);
payload!(
    /// `on_stop`: the turn wants to stop. Prefer [`crate::host::Turn::stop`], which fills the
    /// redo fields.
    Stop => Event::OnStop, {
        response: String, tool_names: Vec<String>, stop_hook_active: bool, redo_count: u64
    }
);
payload!(
    /// `on_outbound_message`: before a push to an outside channel.
    OutboundMessage => Event::OnOutboundMessage, {
        notification: String,
        /// The kind of push (`type` in the payload).
        r#type: String
    }
);
payload!(
    /// `on_completion_claim`: the agent claims a goal is done.
    CompletionClaim => Event::OnCompletionClaim, {
        goal: String, summary: String, response: String, tool_names: Vec<String>,
        stop_hook_active: bool, redo_count: u64
    }
);
payload!(
    /// `on_session_start`.
    SessionStart => Event::OnSessionStart, { status: String }
);
payload!(
    /// `on_session_end`.
    SessionEnd => Event::OnSessionEnd, { status: String }
);

/// Token counts of a turn.
#[derive(Debug, Clone, Copy, Default, Serialize, PartialEq, Eq)]
pub struct Tokens {
    pub input: u64,
    pub output: u64,
}

impl PreToolCall {
    pub fn new(tool_name: impl Into<String>, tool_input: Value) -> Self {
        PreToolCall {
            tool_name: tool_name.into(),
            tool_input,
            ..Self::default()
        }
    }
}

impl UserMessage {
    pub fn new(message: impl Into<String>, channel: impl Into<String>) -> Self {
        UserMessage {
            message: message.into(),
            channel: channel.into(),
            ..Self::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_payloads_become_the_documented_object() {
        let mut p = PreToolCall::new("bash", serde_json::json!({"command": "ls"})).session("s1");
        p.extra.insert("channel_id".into(), Value::from("c9"));
        let map = p.into_map();
        assert_eq!(map["tool_name"], "bash");
        assert_eq!(map["tool_input"]["command"], "ls");
        assert_eq!(map["session_id"], "s1");
        assert_eq!(map["channel_id"], "c9");
        assert!(!map.contains_key("agent_id"));
        let out = OutboundMessage {
            notification: "hi".into(),
            r#type: "telegram".into(),
            ..Default::default()
        };
        assert_eq!(out.into_map()["type"], "telegram");
    }
}
