//! verify_commitments: "I'll let you know when it finishes" is a promise only a scheduled
//! task can keep. on_stop refuses to end the turn when such a promise has nothing
//! registered behind it (this turn or recently), a bounded number of times per session.

use crate::rules::LazyRegex as Regex;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::answer::{self, fill};
use crate::context::{GuardContext, unix_seconds};
use crate::records;
use crate::rules::{self, RulesError, pick};

pub(crate) const DEFAULT_RULES: &str = include_str!("../../rules/verify_commitments.yaml");
const NAME: &str = "verify_commitments";

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Raw {
    notify_patterns: Option<Vec<String>>,
    cue_patterns: Option<Vec<String>>,
    immediate_patterns: Option<Vec<String>>,
    scheduling_tools: Option<Vec<String>>,
    recent_seconds: Option<u64>,
    registry_files: Option<Vec<String>>,
    max_blocks_per_session: Option<u64>,
    session_ttl_seconds: Option<u64>,
    block_reason: Option<String>,
    warning: Option<String>,
}

#[derive(Debug)]
pub(crate) struct VerifyCommitments {
    notify: Vec<Regex>,
    cues: Vec<Regex>,
    immediate: Vec<Regex>,
    scheduling_tools: Vec<String>,
    recent: f64,
    registry_files: Vec<String>,
    max_blocks: u64,
    ttl: u64,
    block_reason: String,
    warning: String,
}

impl VerifyCommitments {
    pub(crate) fn new(user_yaml: Option<&str>) -> Result<Self, RulesError> {
        let (user, def) = rules::load::<Raw>(DEFAULT_RULES, user_yaml)?;
        let recent: u64 = pick(user.recent_seconds, def.recent_seconds);
        Ok(Self {
            notify: rules::regexes(
                "notify_patterns",
                &pick(user.notify_patterns, def.notify_patterns),
            )?,
            cues: rules::regexes("cue_patterns", &pick(user.cue_patterns, def.cue_patterns))?,
            immediate: rules::regexes(
                "immediate_patterns",
                &pick(user.immediate_patterns, def.immediate_patterns),
            )?,
            scheduling_tools: pick(user.scheduling_tools, def.scheduling_tools),
            recent: recent as f64,
            registry_files: pick(user.registry_files, def.registry_files),
            max_blocks: pick(user.max_blocks_per_session, def.max_blocks_per_session),
            ttl: pick(user.session_ttl_seconds, def.session_ttl_seconds),
            block_reason: pick(user.block_reason, def.block_reason),
            warning: pick(user.warning, def.warning),
        })
    }

    pub(crate) fn evaluate(&self, event: &str, payload: &Value, ctx: &mut GuardContext) -> Value {
        if event != "on_stop" {
            return answer::noop();
        }
        let session = answer::session(payload).to_owned();
        let mut state = ctx.load(NAME, &session);
        let now = unix_seconds(ctx.now());
        let scheduled_now = answer::tool_names(payload)
            .iter()
            .any(|t| answer::tool_in(&self.scheduling_tools, t));
        if scheduled_now {
            set(&mut state, "last_scheduled", json!(now));
            ctx.save(NAME, &session, &state, self.ttl);
            return answer::noop();
        }
        let Some(promise) = self.promise(answer::str_field(payload, "response")) else {
            return answer::noop();
        };
        let recently = state
            .get("last_scheduled")
            .and_then(Value::as_f64)
            .is_some_and(|at| now - at < self.recent)
            || records::recent_live_record(ctx, &self.registry_files, self.recent);
        if recently {
            return answer::noop();
        }
        let blocks = state.get("blocks").and_then(Value::as_u64).unwrap_or(0);
        if blocks >= self.max_blocks || answer::stop_hook_active(payload) {
            return answer::field("add_warning", self.warning.clone());
        }
        set(&mut state, "blocks", json!(blocks + 1));
        ctx.save(NAME, &session, &state, self.ttl);
        answer::block(fill(&self.block_reason, &[("promise", promise.trim())]))
    }

    /// The first sentence with a notify verb and a time/condition cue, and no immediate
    /// delivery.
    fn promise<'a>(&self, reply: &'a str) -> Option<&'a str> {
        reply
            .split(['.', '!', '?', '\n', '。', '！', '？', ';', '；'])
            .find(|sentence| {
                self.notify.iter().any(|re| re.is_match(sentence))
                    && self.cues.iter().any(|re| re.is_match(sentence))
                    && !self.immediate.iter().any(|re| re.is_match(sentence))
            })
    }
}

fn set(state: &mut Value, key: &str, value: Value) {
    if !state.is_object() {
        *state = json!({});
    }
    if let Some(map) = state.as_object_mut() {
        map.insert(key.to_owned(), value);
    }
}
