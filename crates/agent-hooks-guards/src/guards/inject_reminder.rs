//! inject_reminder: a standing reminder, from the rules file, injected as context before
//! each model call — optionally only when the user's last message matches a pattern.

use crate::rules::LazyRegex as Regex;
use serde::Deserialize;
use serde_json::Value;

use crate::answer;
use crate::context::GuardContext;
use crate::rules::{self, RulesError, pick};

pub(crate) const DEFAULT_RULES: &str = include_str!("../../rules/inject_reminder.yaml");

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Raw {
    text: Option<String>,
    when_user_message_matches: Option<String>,
}

#[derive(Debug)]
pub(crate) struct InjectReminder {
    text: String,
    when: Option<Regex>,
}

impl InjectReminder {
    pub(crate) fn new(user_yaml: Option<&str>) -> Result<Self, RulesError> {
        let (user, def) = rules::load::<Raw>(DEFAULT_RULES, user_yaml)?;
        let when: String = pick(
            user.when_user_message_matches,
            def.when_user_message_matches,
        );
        Ok(Self {
            text: pick(user.text, def.text),
            when: rules::optional_regex("when_user_message_matches", Some(&when))?,
        })
    }

    pub(crate) fn evaluate(&self, event: &str, payload: &Value, _ctx: &mut GuardContext) -> Value {
        if event != "pre_llm_call" || self.text.trim().is_empty() {
            return answer::noop();
        }
        if let Some(when) = &self.when
            && !when.is_match(answer::str_field(payload, "last_user_message"))
        {
            return answer::noop();
        }
        answer::field("context", self.text.trim())
    }
}
