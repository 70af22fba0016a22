//! runtime_footer: the model cannot know its own cost, so a footer it types is made up.
//! This guard removes such a footer from the very tail of the reply and appends the real
//! one from the runtime's `model` and `cost`; optionally it asks the model not to type one.

use crate::rules::LazyRegex as Regex;
use serde::Deserialize;
use serde_json::Value;

use crate::answer::{self, fill};
use crate::context::GuardContext;
use crate::rules::{self, RulesError, pick};

pub(crate) const DEFAULT_RULES: &str = include_str!("../../rules/runtime_footer.yaml");

/// How many stacked footers are removed from one tail at most.
const MAX_STRIPPED: usize = 3;

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Raw {
    strip: Option<bool>,
    strip_patterns: Option<Vec<String>>,
    separator_pattern: Option<String>,
    format: Option<String>,
    cost_decimals: Option<usize>,
    unknown_model: Option<String>,
    show_tokens: Option<bool>,
    tokens_format: Option<String>,
    show_credit: Option<bool>,
    credit_url: Option<String>,
    credit_field: Option<String>,
    credit_format: Option<String>,
    separator: Option<String>,
    prompt_context: Option<String>,
}

#[derive(Debug)]
pub(crate) struct RuntimeFooter {
    strip: bool,
    strip_patterns: Vec<Regex>,
    separator_line: Option<Regex>,
    format: String,
    cost_decimals: usize,
    unknown_model: String,
    show_tokens: bool,
    tokens_format: String,
    show_credit: bool,
    credit_url: String,
    credit_field: String,
    credit_format: String,
    separator: String,
    prompt_context: String,
}

impl RuntimeFooter {
    pub(crate) fn new(user_yaml: Option<&str>) -> Result<Self, RulesError> {
        let (user, def) = rules::load::<Raw>(DEFAULT_RULES, user_yaml)?;
        let separator_pattern: String = pick(user.separator_pattern, def.separator_pattern);
        Ok(Self {
            strip: pick(user.strip, def.strip),
            strip_patterns: rules::regexes(
                "strip_patterns",
                &pick(user.strip_patterns, def.strip_patterns),
            )?,
            separator_line: rules::optional_regex("separator_pattern", Some(&separator_pattern))?,
            format: pick(user.format, def.format),
            cost_decimals: pick(user.cost_decimals, def.cost_decimals),
            unknown_model: pick(user.unknown_model, def.unknown_model),
            show_tokens: pick(user.show_tokens, def.show_tokens),
            tokens_format: pick(user.tokens_format, def.tokens_format),
            show_credit: pick(user.show_credit, def.show_credit),
            credit_url: pick(user.credit_url, def.credit_url),
            credit_field: pick(user.credit_field, def.credit_field),
            credit_format: pick(user.credit_format, def.credit_format),
            separator: pick(user.separator, def.separator),
            prompt_context: pick(user.prompt_context, def.prompt_context),
        })
    }

    pub(crate) fn evaluate(&self, event: &str, payload: &Value, ctx: &mut GuardContext) -> Value {
        match event {
            "on_response_end" => self.response_end(payload, ctx),
            "pre_llm_call" if !self.prompt_context.trim().is_empty() => {
                answer::field("context", self.prompt_context.trim())
            }
            _ => answer::noop(),
        }
    }

    fn response_end(&self, payload: &Value, ctx: &GuardContext) -> Value {
        let original = answer::str_field(payload, "response");
        if original.trim().is_empty() {
            return answer::noop();
        }
        let body = if self.strip {
            self.strip_tail(original)
        } else {
            original
        };
        let footer = self.footer(payload, ctx);
        let out = match footer {
            Some(footer) => format!("{}{}{footer}", body.trim_end(), self.separator),
            None => body.to_owned(),
        };
        if out == original {
            answer::noop()
        } else {
            answer::field("response", out)
        }
    }

    /// The reply without footers typed at its very end (only strict shapes, only the tail).
    fn strip_tail<'a>(&self, text: &'a str) -> &'a str {
        let mut body = text.trim_end();
        for _ in 0..MAX_STRIPPED {
            let (head, last) = match body.rfind('\n') {
                Some(at) => (&body[..at], &body[at + 1..]),
                None => ("", body),
            };
            if !self.strip_patterns.iter().any(|re| re.is_match(last)) {
                break;
            }
            body = head.trim_end();
            // Drop a rule line that introduced the footer.
            while let Some(at) = body.rfind('\n') {
                let line = &body[at + 1..];
                if !line.trim().is_empty()
                    && self
                        .separator_line
                        .as_ref()
                        .is_some_and(|re| re.is_match(line))
                {
                    body = body[..at].trim_end();
                } else {
                    break;
                }
            }
        }
        body
    }

    fn footer(&self, payload: &Value, ctx: &GuardContext) -> Option<String> {
        // `cost` is the canonical name; Starchild's hosts send `turn_cost_usd`.
        let cost = ["cost", "turn_cost_usd"]
            .iter()
            .find_map(|k| payload.get(*k).and_then(Value::as_f64))?;
        if !cost.is_finite() || cost < 0.0 {
            return None;
        }
        let tokens = payload.get("tokens");
        let count = |key: &str| {
            tokens
                .and_then(|t| t.get(key))
                .and_then(Value::as_u64)
                .unwrap_or(0)
        };
        // A host that knows nothing sends `cost: 0.0, tokens: {}`: that is no usage, not a
        // free turn, and a `$0.0000` footer would be made up.
        let used = ["input", "output", "cache_read", "cache_creation"]
            .iter()
            .any(|k| count(k) > 0);
        if cost == 0.0 && !used {
            return None;
        }
        let model = match answer::str_field(payload, "model") {
            "" => self.unknown_model.as_str(),
            model => model,
        };
        let d = self.cost_decimals;
        let cost = format!("${cost:.d$}");
        let input = thousands(count("input"));
        let output = thousands(count("output"));
        let wants_credit = self.format.contains("{credit}") || self.show_credit;
        let credit = if wants_credit { self.credit(ctx) } else { None };
        let values = [
            ("model", model),
            ("cost", cost.as_str()),
            ("input", input.as_str()),
            ("output", output.as_str()),
            ("credit", credit.as_deref().unwrap_or("")),
        ];
        let mut footer = fill(&self.format, &values);
        if self.show_tokens {
            footer.push_str(&fill(&self.tokens_format, &values));
        }
        if self.show_credit && credit.is_some() {
            footer.push_str(&fill(&self.credit_format, &values));
        }
        Some(footer)
    }

    /// The balance as `$1,234.56`, from an answer that is a number or a JSON object holding
    /// one under `credit_field`; `None` when there is no lookup or its answer is neither.
    fn credit(&self, ctx: &GuardContext) -> Option<String> {
        if self.credit_url.is_empty() {
            return None;
        }
        let body = (ctx.balance.as_ref()?)(&self.credit_url)?;
        let value: Value = serde_json::from_str(body.trim()).ok()?;
        let balance = match &value {
            Value::Object(map) => map.get(&self.credit_field)?,
            other => other,
        };
        let balance = match balance {
            Value::String(s) => s.trim().parse::<f64>().ok()?,
            other => other.as_f64()?,
        };
        if !balance.is_finite() {
            return None;
        }
        let cents = (balance.abs() * 100.0).round() as u64;
        let sign = if balance < 0.0 && cents > 0 { "-" } else { "" };
        Some(format!(
            "{sign}${}.{:02}",
            thousands(cents / 100),
            cents % 100
        ))
    }
}

/// `1234567` as `1,234,567`.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::thousands;

    #[test]
    fn thousands_groups_by_three() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(1234567), "1,234,567");
    }
}
