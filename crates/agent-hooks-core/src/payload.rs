//! Typed payloads for Rust hosts: one struct per event with the fields `docs/protocol.md` lists, so
//! a host cannot misspell a field or send it to the wrong event. The runtime's `Engine::fire`
//! dispatches one. Fields a host wants to add beyond these go in `extra` and reach hooks untouched.

use serde::Serialize;
use serde_json::{Map, Value};

use crate::event::Event;

/// A typed payload of one event.
pub trait Payload: Serialize {
    /// The event this payload is dispatched at.
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
            /// The session the event belongs to; empty is left out (hooks then see `""`).
            #[serde(skip_serializing_if = "String::is_empty")]
            pub session_id: String,
            /// The agent that raised the event, for hosts running several; empty is left out.
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
    UserMessage => Event::OnUserMessage, {
        /// The message text; hooks may rewrite it.
        message: String,
        /// Where the message came from (`cli`, `telegram`, ...), for hooks that treat channels
        /// differently.
        channel: String,
    }
);
payload!(
    /// `pre_tool_call`: before a tool runs.
    PreToolCall => Event::PreToolCall, {
        /// The tool the agent wants to call; what matchers test.
        tool_name: String,
        /// The call's arguments, a JSON object; hooks may change its existing keys.
        tool_input: Value,
    }
);
payload!(
    /// `post_tool_call`: after a tool ran (`status`: success, error or blocked).
    PostToolCall => Event::PostToolCall, {
        /// The tool that ran.
        tool_name: String,
        /// The arguments it ran with (after any rewrite).
        tool_input: Value,
        /// What the tool returned; `Null` is left out of the payload.
        tool_result: Value,
        /// `success`, `error` or `blocked`.
        status: String,
        /// The tool's error message when `status` is `error`.
        error: Option<String>,
    }
);
payload!(
    /// `transform_tool_result`: a tool's result before the agent sees it.
    TransformToolResult => Event::TransformToolResult, {
        /// The tool that produced the result.
        tool_name: String,
        /// The result; hooks may append notes to what the agent sees.
        tool_result: Value,
    }
);
payload!(
    /// `pre_llm_call`: before each model call.
    PreLlmCall => Event::PreLlmCall, {
        /// The system prompt of the call.
        system: String,
        /// The latest user message, for hooks that pick context by topic.
        last_user_message: String,
        /// The model about to be called.
        model: String,
        /// The prompt about to be sent, when the host passes it; skill hooks may replace it.
        prompt: Option<String>,
    }
);
payload!(
    /// `post_llm_call`: after each model reply.
    PostLlmCall => Event::PostLlmCall, {
        /// The model that replied.
        model: String,
        /// The reply text.
        response: String,
    }
);
payload!(
    /// `on_response_end`: the final reply of a turn is assembled.
    ResponseEnd => Event::OnResponseEnd, {
        /// The final reply; hooks may rewrite it.
        response: String,
        /// The model that produced it.
        model: String,
        /// Tokens spent this turn.
        tokens: Tokens,
        /// What the turn cost, when the host knows it (in the host's own unit).
        cost: Option<f64>,
        /// Names of the tools called this turn, in call order.
        tool_names: Vec<String>,
    }
);
payload!(
    /// `on_stop`: the turn wants to stop. Prefer the runtime's `host::Turn::stop`, which fills the
    /// redo fields.
    Stop => Event::OnStop, {
        /// The reply the turn would end with.
        response: String,
        /// Names of the tools called this turn, in call order.
        tool_names: Vec<String>,
        /// True when the turn is already a redo forced by a hook; verifiers should let it end.
        stop_hook_active: bool,
        /// How many redos hooks forced this turn; from [`REDO_CAP`](crate::event::REDO_CAP)
        /// on, a block is no longer honoured.
        redo_count: u64,
    }
);
payload!(
    /// `on_outbound_message`: before a push to an outside channel.
    OutboundMessage => Event::OnOutboundMessage, {
        /// The text to push; hooks may rewrite it.
        notification: String,
        /// The kind of push (`type` in the payload).
        r#type: String,
    }
);
payload!(
    /// `on_completion_claim`: the agent claims a goal is done.
    CompletionClaim => Event::OnCompletionClaim, {
        /// The goal the agent says it completed.
        goal: String,
        /// The agent's summary of what it did.
        summary: String,
        /// The reply that carries the claim.
        response: String,
        /// Names of the tools called this turn, in call order.
        tool_names: Vec<String>,
        /// True when the turn is already a redo forced by a hook.
        stop_hook_active: bool,
        /// How many redos hooks forced this turn.
        redo_count: u64,
    }
);
payload!(
    /// `on_session_start`.
    SessionStart => Event::OnSessionStart, {
        /// Free text from the host (`startup`, `resume`, ...).
        status: String,
    }
);
payload!(
    /// `on_session_end`.
    SessionEnd => Event::OnSessionEnd, {
        /// Free text from the host (why the session ended).
        status: String,
    }
);

/// Token counts of a turn.
#[derive(Debug, Clone, Copy, Default, Serialize, PartialEq, Eq)]
pub struct Tokens {
    /// Prompt tokens.
    pub input: u64,
    /// Completion tokens.
    pub output: u64,
}

impl PreToolCall {
    /// A call of `tool_name` with `tool_input` (a JSON object); the rest default.
    pub fn new(tool_name: impl Into<String>, tool_input: Value) -> Self {
        PreToolCall {
            tool_name: tool_name.into(),
            tool_input,
            ..Self::default()
        }
    }
}

impl UserMessage {
    /// A message `message` from `channel`; the rest default.
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
