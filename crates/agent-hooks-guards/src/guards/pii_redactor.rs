//! pii_redactor: masks email addresses and phone numbers in the final reply and notes
//! them in tool results, while leaving version numbers, dates, IPs and ids alone.

use crate::rules::LazyRegex as Regex;
use serde::Deserialize;
use serde_json::Value;

use crate::answer::{self, fill};
use crate::context::GuardContext;
use crate::rules::{self, RulesError, pick};

pub(crate) const DEFAULT_RULES: &str = include_str!("../../rules/pii_redactor.yaml");

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Raw {
    email_pattern: Option<String>,
    email_ignore: Option<String>,
    phone_patterns: Option<Vec<String>>,
    phone_min_digits: Option<usize>,
    phone_max_digits: Option<usize>,
    email_replacement: Option<String>,
    phone_replacement: Option<String>,
    note: Option<String>,
}

#[derive(Debug)]
pub(crate) struct PiiRedactor {
    email: Option<Regex>,
    email_ignore: Option<Regex>,
    phones: Vec<Regex>,
    min_digits: usize,
    max_digits: usize,
    email_replacement: String,
    phone_replacement: String,
    note: String,
}

impl PiiRedactor {
    pub(crate) fn new(user_yaml: Option<&str>) -> Result<Self, RulesError> {
        let (user, def) = rules::load::<Raw>(DEFAULT_RULES, user_yaml)?;
        let email: String = pick(user.email_pattern, def.email_pattern);
        let ignore: String = pick(user.email_ignore, def.email_ignore);
        Ok(Self {
            email: rules::optional_regex("email_pattern", Some(&email))?,
            email_ignore: rules::optional_regex("email_ignore", Some(&ignore))?,
            phones: rules::regexes(
                "phone_patterns",
                &pick(user.phone_patterns, def.phone_patterns),
            )?,
            min_digits: pick(user.phone_min_digits, def.phone_min_digits),
            max_digits: pick(user.phone_max_digits, def.phone_max_digits),
            email_replacement: pick(user.email_replacement, def.email_replacement),
            phone_replacement: pick(user.phone_replacement, def.phone_replacement),
            note: pick(user.note, def.note),
        })
    }

    pub(crate) fn evaluate(&self, event: &str, payload: &Value, _ctx: &mut GuardContext) -> Value {
        match event {
            "on_response_end" => {
                let text = answer::str_field(payload, "response");
                let spans = self.find(text);
                if spans.is_empty() {
                    return answer::noop();
                }
                let mut out = String::with_capacity(text.len());
                let mut at = 0;
                for (start, end, replacement) in spans {
                    out.push_str(&text[at..start]);
                    out.push_str(replacement);
                    at = end;
                }
                out.push_str(&text[at..]);
                answer::field("response", out)
            }
            "transform_tool_result" => {
                let count = self.find(&answer::result_text(payload)).len();
                if count == 0 {
                    answer::noop()
                } else {
                    answer::field("note", fill(&self.note, &[("count", &count.to_string())]))
                }
            }
            _ => answer::noop(),
        }
    }

    /// Non-overlapping (start, end, replacement) spans, in order.
    fn find(&self, text: &str) -> Vec<(usize, usize, &str)> {
        let mut spans: Vec<(usize, usize, &str)> = Vec::new();
        if let Some(email) = &self.email {
            for m in email.find_iter(text) {
                let ignored = self
                    .email_ignore
                    .as_ref()
                    .is_some_and(|re| re.is_match(m.as_str()));
                if !ignored {
                    spans.push((m.start(), m.end(), &self.email_replacement));
                }
            }
        }
        for phone in &self.phones {
            for m in phone.find_iter(text) {
                let digits = m.as_str().chars().filter(char::is_ascii_digit).count();
                if digits < self.min_digits
                    || digits > self.max_digits
                    || !free_standing(text, m.start(), m.end())
                {
                    continue;
                }
                spans.push((m.start(), m.end(), &self.phone_replacement));
            }
        }
        spans.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
        let mut kept: Vec<(usize, usize, &str)> = Vec::with_capacity(spans.len());
        for span in spans {
            if kept.last().is_none_or(|last| span.0 >= last.1) {
                kept.push(span);
            }
        }
        kept
    }
}

/// A phone number stands alone: not glued to letters, digits, or the punctuation that
/// builds versions, dates, paths and ids (`v1.415.555.0134`, `ORD-415-555-0134`).
fn free_standing(text: &str, start: usize, end: usize) -> bool {
    let before = text[..start].chars().next_back();
    let mut after = text[end..].chars();
    let next = after.next();
    let next2 = after.next();
    let glued_before = before.is_some_and(|c| c.is_alphanumeric() || "._-/#@+:=".contains(c));
    let glued_after = next.is_some_and(|c| c.is_alphanumeric() || "_-/@".contains(c))
        || (matches!(next, Some('.' | ':' | ',')) && next2.is_some_and(|c| c.is_ascii_digit()));
    !glued_before && !glued_after
}
