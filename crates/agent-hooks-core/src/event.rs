//! The canonical events, their payload fields, and the capability table: which events let hooks
//! block, ask, rewrite which field, inject context, append notes, swap the model — and which only
//! observe (so their hooks run concurrently). The dispatcher, `doctor` and the docs all read
//! [`EventSpec`]; nothing else decides what an event allows.

use std::fmt;
use std::str::FromStr;

use serde_json::{Map, Value};

/// A lifecycle point of the host at which hooks run. The names are those of the shell-hook dialect
/// (`docs/protocol.md`); other dialects translate to and from them.
///
/// What hooks may do at each event is in its [`spec`](Event::spec). Events parse from and
/// display as their canonical names:
///
/// ```
/// use agent_hooks_core::Event;
///
/// let event: Event = "pre_tool_call".parse()?;
/// assert_eq!(event, Event::PreToolCall);
/// assert_eq!(event.to_string(), "pre_tool_call");
/// assert!(event.spec().may_block);
///
/// // A misspelt name comes back with a suggestion, ready for an error message.
/// let err = "pre_tool".parse::<Event>().unwrap_err();
/// assert_eq!(err.suggestion, Some("pre_tool_call"));
/// assert_eq!(
///     err.to_string(),
///     r#"unknown event "pre_tool" (did you mean "pre_tool_call"?)"#
/// );
/// # Ok::<(), agent_hooks_core::event::UnknownEvent>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Event {
    /// `on_user_message`: a user message arrives, before the model sees it.
    OnUserMessage,
    /// `pre_tool_call`: before a tool runs; hooks may block, ask or rewrite its input.
    PreToolCall,
    /// `post_tool_call`: after a tool ran.
    PostToolCall,
    /// `transform_tool_result`: a tool result, before the agent sees it.
    TransformToolResult,
    /// `pre_llm_call`: before each model call.
    PreLlmCall,
    /// `post_llm_call`: after each model reply.
    PostLlmCall,
    /// `on_response_end`: the final reply of a turn is assembled.
    OnResponseEnd,
    /// `on_stop`: the turn wants to end; a block makes the agent redo it.
    OnStop,
    /// `on_outbound_message`: before a push to an outside channel.
    OnOutboundMessage,
    /// `on_completion_claim`: the agent claims a goal is done; a block makes it redo.
    OnCompletionClaim,
    /// `on_session_start`: a session begins.
    OnSessionStart,
    /// `on_session_end`: a session ends.
    OnSessionEnd,
    /// `pre_startup`: the runtime is starting.
    PreStartup,
    /// `post_startup`: the runtime has started.
    PostStartup,
    /// `pre_shutdown`: the runtime is stopping.
    PreShutdown,
    /// `post_shutdown`: the runtime has stopped.
    PostShutdown,
}

/// The default a missing payload field gets, so a hook that indexes a documented field never
/// trips on its absence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum FieldKind {
    /// A string; defaults to `""`.
    Text,
    /// A JSON object; defaults to `{}`.
    Object,
    /// A JSON array; defaults to `[]`.
    List,
    /// A number; defaults to `0`.
    Number,
    /// A boolean; defaults to `false`.
    Bool,
    /// Absent unless the caller gives it (`error`, `cost`).
    Optional,
}

/// A payload field of one event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Field {
    /// The field's key in the payload.
    pub name: &'static str,
    /// Its type, which decides the default.
    pub kind: FieldKind,
}

const fn f(name: &'static str, kind: FieldKind) -> Field {
    Field { name, kind }
}

/// How a hook's rewrite of a payload field is applied.
///
/// Exhaustive on purpose: the dispatcher must apply every rule, and a wildcard arm there would
/// have no right behaviour to fall back on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RewriteRule {
    /// The value replaces the field (a string stays a string).
    Replace,
    /// Only keys that already exist may change; a new key is `hook_invalid_mutation`.
    ExistingKeys,
}

/// What hooks may do at one event. One row per event in [`EVENTS`].
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct EventSpec {
    /// The event this row describes.
    pub event: Event,
    /// The event's canonical name, as written in configuration.
    pub name: &'static str,
    /// One line for `help`, `doctor` and the docs.
    pub fires: &'static str,
    /// The event-specific payload fields (besides [`COMMON_FIELDS`]).
    pub fields: &'static [Field],
    /// Whether a hook's block is honoured.
    pub may_block: bool,
    /// Whether a hook may ask the user to confirm.
    pub may_ask: bool,
    /// Payload fields a hook may rewrite, and how.
    pub rewrites: &'static [(&'static str, RewriteRule)],
    /// Whether hooks may inject context into the model's prompt.
    pub context: bool,
    /// Whether hooks may append notes to the tool result the agent sees.
    pub note: bool,
    /// Whether hooks may swap the model for the next call.
    pub model: bool,
    /// Whether a hook may hand the agent a result instead of running the tool (a skill hook's
    /// `_block`).
    pub result: bool,
    /// A block here means "redo" and is subject to the redo cap (`docs/protocol.md`).
    pub redo: bool,
    /// Hooks only observe: they run concurrently (a dialect that rewrites here still chains).
    pub observe_only: bool,
}

impl EventSpec {
    /// Whether a hook may rewrite `field` at this event, and how.
    pub fn rewrite_rule(&self, field: &str) -> Option<RewriteRule> {
        self.rewrites
            .iter()
            .find(|(name, _)| *name == field)
            .map(|(_, rule)| *rule)
    }
}

use FieldKind::{Bool, List, Number, Object, Optional, Text};
use RewriteRule::{ExistingKeys, Replace};

const fn spec(event: Event, name: &'static str, fires: &'static str) -> EventSpec {
    EventSpec {
        event,
        name,
        fires,
        fields: &[],
        may_block: false,
        may_ask: false,
        rewrites: &[],
        context: false,
        note: false,
        model: false,
        result: false,
        redo: false,
        observe_only: true,
    }
}

/// The capability table (`docs/protocol.md`), in the order `help` lists the events.
///
/// Rows are in [`Event`] declaration order, so `EVENTS[event as usize]` is that event's row
/// ([`Event::spec`] relies on it). Adding an event means adding a variant and a row here; the
/// dispatcher, `doctor` and `help` pick it up from this table.
pub static EVENTS: &[EventSpec] = &[
    EventSpec {
        fields: &[f("message", Text), f("channel", Text)],
        may_block: true,
        rewrites: &[("message", Replace)],
        context: true,
        observe_only: false,
        ..spec(
            Event::OnUserMessage,
            "on_user_message",
            "a user message arrives, before the model sees it",
        )
    },
    EventSpec {
        fields: &[f("tool_name", Text), f("tool_input", Object)],
        may_block: true,
        may_ask: true,
        rewrites: &[("tool_input", ExistingKeys)],
        result: true,
        // Text for the model next to the tool's result (Claude Code's PreToolUse
        // `additionalContext`).
        context: true,
        observe_only: false,
        ..spec(Event::PreToolCall, "pre_tool_call", "before a tool runs")
    },
    EventSpec {
        fields: &[
            f("tool_name", Text),
            f("tool_input", Object),
            f("tool_result", Optional),
            f("status", Text),
            f("error", Optional),
        ],
        // Only skill hooks may replace the result. Claude Code hooks may feed the model a note
        // about the result (PostToolUse `decision: block` / exit 2); the rest observe.
        rewrites: &[("tool_result", Replace)],
        note: true,
        ..spec(Event::PostToolCall, "post_tool_call", "after a tool ran")
    },
    EventSpec {
        fields: &[f("tool_name", Text), f("tool_result", Optional)],
        note: true,
        observe_only: false,
        ..spec(
            Event::TransformToolResult,
            "transform_tool_result",
            "a tool result, before the agent sees it",
        )
    },
    EventSpec {
        fields: &[
            f("system", Text),
            f("last_user_message", Text),
            f("model", Text),
            f("prompt", Optional),
        ],
        context: true,
        rewrites: &[("prompt", Replace)],
        observe_only: false,
        ..spec(Event::PreLlmCall, "pre_llm_call", "before each model call")
    },
    EventSpec {
        fields: &[f("model", Text), f("response", Text)],
        model: true,
        ..spec(
            Event::PostLlmCall,
            "post_llm_call",
            "after each model reply",
        )
    },
    EventSpec {
        fields: &[
            f("response", Text),
            f("model", Text),
            f("tokens", Object),
            f("cost", Optional),
            f("tool_names", List),
        ],
        rewrites: &[("response", Replace)],
        observe_only: false,
        ..spec(
            Event::OnResponseEnd,
            "on_response_end",
            "the final reply is assembled, once a turn",
        )
    },
    EventSpec {
        fields: &[
            f("response", Text),
            f("tool_names", List),
            f("stop_hook_active", Bool),
            f("redo_count", Number),
        ],
        may_block: true,
        redo: true,
        observe_only: false,
        ..spec(
            Event::OnStop,
            "on_stop",
            "turn boundary, after on_response_end",
        )
    },
    EventSpec {
        fields: &[f("notification", Text), f("type", Text)],
        may_block: true,
        rewrites: &[("notification", Replace)],
        observe_only: false,
        ..spec(
            Event::OnOutboundMessage,
            "on_outbound_message",
            "before a push to an outside channel",
        )
    },
    EventSpec {
        fields: &[
            f("goal", Text),
            f("summary", Text),
            f("response", Text),
            f("tool_names", List),
            f("stop_hook_active", Bool),
            f("redo_count", Number),
        ],
        may_block: true,
        redo: true,
        observe_only: false,
        ..spec(
            Event::OnCompletionClaim,
            "on_completion_claim",
            "the agent claims a goal is done",
        )
    },
    EventSpec {
        fields: &[f("status", Text)],
        context: true,
        ..spec(
            Event::OnSessionStart,
            "on_session_start",
            "a session begins",
        )
    },
    EventSpec {
        fields: &[f("status", Text)],
        ..spec(Event::OnSessionEnd, "on_session_end", "a session ends")
    },
    EventSpec {
        fields: &[f("status", Text)],
        ..spec(Event::PreStartup, "pre_startup", "the runtime is starting")
    },
    EventSpec {
        fields: &[f("status", Text)],
        ..spec(
            Event::PostStartup,
            "post_startup",
            "the runtime has started",
        )
    },
    EventSpec {
        fields: &[f("status", Text)],
        ..spec(
            Event::PreShutdown,
            "pre_shutdown",
            "the runtime is stopping",
        )
    },
    EventSpec {
        fields: &[f("status", Text)],
        ..spec(
            Event::PostShutdown,
            "post_shutdown",
            "the runtime has stopped",
        )
    },
];

/// The fields every payload carries (`docs/protocol.md`). They are not searched by matchers.
pub const COMMON_FIELDS: &[&str] = &["event", "session_id", "agent_id", "cwd"];

/// How many redos hooks may force in one turn before a block is no longer honoured
/// (`docs/protocol.md`).
pub const REDO_CAP: u64 = 3;

/// A payload's `redo_count` as a count (`docs/protocol.md`). Absent or null is 0; an integral
/// number, or a string holding one, is coerced (`"3"`, `3.0`; past `u64` it saturates, so `1e308`
/// is far above any cap). Anything else — negative, fractional, a word, a list — is rejected with
/// the value as shown, and callers treat it as the cap reached: a count nobody can read must never
/// let a hook force redos forever.
pub fn redo_count(value: Option<&Value>) -> Result<u64, UnreadableCount> {
    fn integral(n: f64) -> Option<u64> {
        // `as` saturates, and NaN or infinity fail the `fract` test.
        (n >= 0.0 && n.fract() == 0.0).then_some(n as u64)
    }
    let count = match value {
        None | Some(Value::Null) => Some(0),
        Some(Value::Number(n)) => n.as_u64().or_else(|| n.as_f64().and_then(integral)),
        Some(Value::String(s)) => {
            let s = s.trim();
            s.parse::<u64>()
                .ok()
                .or_else(|| s.parse::<f64>().ok().and_then(integral))
        }
        Some(_) => None,
    };
    count.ok_or_else(|| UnreadableCount {
        shown: value.map(Value::to_string).unwrap_or_default(),
    })
}

/// A `redo_count` that is not a count (see [`redo_count`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("redo_count {shown} is not a non-negative integer")]
#[non_exhaustive]
pub struct UnreadableCount {
    /// The value as given, as JSON.
    pub shown: String,
}

impl Event {
    /// Every event, in table order.
    pub fn all() -> impl Iterator<Item = Event> {
        EVENTS.iter().map(|s| s.event)
    }

    /// This event's row of the capability table.
    pub fn spec(self) -> &'static EventSpec {
        // The table is in enum order; the assertion test pins that.
        &EVENTS[self as usize]
    }

    /// The canonical name (`pre_tool_call`, ...), as in configuration, payloads and logs.
    pub fn name(self) -> &'static str {
        self.spec().name
    }

    /// The nearest event name to a misspelt one, for "did you mean" hints. (An agent's own
    /// name for an event, such as Claude Code's `PreToolUse`, is suggested by the dialects'
    /// `parse_event`, which knows those names.)
    pub fn suggest(name: &str) -> Option<&'static str> {
        crate::wording::nearest(name, EVENTS.iter().map(|s| s.name), |d, candidate| {
            d <= 3.max(candidate.len() / 3) || candidate.starts_with(name)
        })
    }
}

impl fmt::Display for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An event name that is not in the table.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown event \"{name}\"{}", crate::wording::did_you_mean(*.suggestion))]
#[non_exhaustive]
pub struct UnknownEvent {
    /// The name as given.
    pub name: String,
    /// The nearest known name, when one is close enough.
    pub suggestion: Option<&'static str>,
}

impl FromStr for Event {
    type Err = UnknownEvent;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        EVENTS
            .iter()
            .find(|spec| spec.name == s)
            .map(|spec| spec.event)
            .ok_or_else(|| UnknownEvent {
                name: s.to_owned(),
                suggestion: Event::suggest(s),
            })
    }
}

/// Fills the common fields and every documented field of `event` that the caller left out, so
/// hooks see the whole documented shape. Fields the caller added are kept untouched.
pub fn complete_payload(event: Event, payload: &mut Map<String, Value>, cwd: &str) {
    payload.insert("event".into(), Value::String(event.name().into()));
    // Look before inserting: `Map::entry` takes an owned key, an allocation per field even when
    // the caller gave it, and this runs on every dispatch.
    let mut fill = |key: &str, default: &dyn Fn() -> Value| {
        if !payload.contains_key(key) {
            payload.insert(key.to_owned(), default());
        }
    };
    fill("session_id", &|| Value::String(String::new()));
    fill("agent_id", &|| Value::String(String::new()));
    fill("cwd", &|| Value::String(cwd.into()));
    if event.spec().redo && !payload.contains_key("stop_hook_active") {
        let active = redo_count(payload.get("redo_count")).is_ok_and(|n| n > 0);
        payload.insert("stop_hook_active".into(), Value::Bool(active));
    }
    for field in event.spec().fields {
        let default = match field.kind {
            Text => Value::String(String::new()),
            Object => Value::Object(Map::new()),
            List => Value::Array(Vec::new()),
            Number => Value::from(0),
            Bool => Value::Bool(false),
            Optional => continue,
        };
        if !payload.contains_key(field.name) {
            payload.insert(field.name.to_owned(), default);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// docs/protocol.md writes the capability table out; every row must say what `EVENTS` says.
    #[test]
    fn protocol_doc_matches_the_table() {
        const DOC: &str = include_str!("../../../docs/protocol.md");
        const REWRITABLE: [&str; 6] = [
            "message",
            "tool_input",
            "tool_result",
            "prompt",
            "response",
            "notification",
        ];
        let rows: Vec<Vec<&str>> = DOC
            .lines()
            .filter(|l| l.starts_with("| `"))
            .map(|l| l.trim_matches('|').split(" | ").map(str::trim).collect())
            .collect();
        let names: Vec<&str> = rows.iter().map(|r| r[0].trim_matches('`')).collect();
        let expected: Vec<&str> = EVENTS.iter().map(|s| s.name).collect();
        assert_eq!(names, expected, "docs/protocol.md lists other events");
        for (row, spec) in rows.iter().zip(EVENTS) {
            let [_, fires, gets, answers] = row[..] else {
                panic!("{}: expected four cells, found {row:?}", spec.name);
            };
            assert_eq!(fires.replace('`', ""), spec.fires, "{}: fires", spec.name);
            let fields: Vec<String> = spec
                .fields
                .iter()
                .map(|f| format!("`{}`", f.name))
                .collect();
            assert_eq!(gets, fields.join(", "), "{}: gets", spec.name);
            let says = |token: &str| answers.contains(token);
            let claims = [
                ("`decision: block`", spec.may_block),
                ("`ask`", spec.may_ask),
                ("`context`", spec.context),
                ("`note`", spec.note),
                ("`model`", spec.model),
                ("`_block`", spec.result),
                ("redo", spec.redo),
                ("observe", spec.observe_only),
            ];
            for (token, allowed) in claims {
                assert_eq!(
                    says(token),
                    allowed,
                    "{}: {token} in {answers:?}",
                    spec.name
                );
            }
            for field in REWRITABLE {
                let allowed = spec.rewrite_rule(field).is_some();
                assert_eq!(
                    says(&format!("`{field}`")),
                    allowed,
                    "{}: `{field}`",
                    spec.name
                );
            }
        }
    }

    #[test]
    fn table_is_in_enum_order() {
        for (i, spec) in EVENTS.iter().enumerate() {
            assert_eq!(spec.event as usize, i, "{} is out of order", spec.name);
        }
    }

    #[test]
    fn names_round_trip() {
        for event in Event::all() {
            assert_eq!(event.name().parse::<Event>(), Ok(event));
        }
    }

    #[test]
    fn misspelt_event_gets_a_suggestion() {
        let err = "pre_tool".parse::<Event>().unwrap_err();
        assert_eq!(err.suggestion, Some("pre_tool_call"));
        assert_eq!(
            err.to_string(),
            "unknown event \"pre_tool\" (did you mean \"pre_tool_call\"?)"
        );
        assert_eq!(
            "zzzzzzzzzzzzzzzzzzzzzzz"
                .parse::<Event>()
                .unwrap_err()
                .suggestion,
            None
        );
    }

    #[test]
    fn a_short_name_suggests_the_event_it_starts() {
        assert_eq!(Event::suggest("stop"), Some("on_stop"));
    }

    #[test]
    fn blocking_events_are_sequential() {
        for spec in EVENTS {
            if spec.event == Event::PostToolCall {
                continue;
            }
            if spec.may_block || spec.note || !spec.rewrites.is_empty() {
                assert!(!spec.observe_only, "{}", spec.name);
            }
        }
    }

    #[test]
    fn completion_fills_defaults_and_keeps_extras() {
        let mut p = Map::new();
        p.insert("extra".into(), Value::from(1));
        p.insert("redo_count".into(), Value::from(2));
        complete_payload(Event::OnStop, &mut p, "/ws");
        assert_eq!(p["event"], "on_stop");
        assert_eq!(p["cwd"], "/ws");
        assert_eq!(p["response"], "");
        assert_eq!(p["stop_hook_active"], true);
        assert_eq!(p["extra"], 1);
    }
}
