//! budget_alert: a gentle user-facing warning when one turn costs more than a threshold.
//! No cost in the payload means nothing to say.

use serde::Deserialize;
use serde_json::Value;

use crate::answer::{self, fill};
use crate::context::GuardContext;
use crate::rules::{self, RulesError, pick};

pub(crate) const DEFAULT_RULES: &str = include_str!("../../rules/budget_alert.yaml");

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Raw {
    threshold_usd: Option<f64>,
    message: Option<String>,
    decimals: Option<usize>,
}

#[derive(Debug)]
pub(crate) struct BudgetAlert {
    threshold: f64,
    message: String,
    decimals: usize,
}

impl BudgetAlert {
    pub(crate) fn new(user_yaml: Option<&str>) -> Result<Self, RulesError> {
        let (user, def) = rules::load::<Raw>(DEFAULT_RULES, user_yaml)?;
        Ok(Self {
            threshold: pick(user.threshold_usd, def.threshold_usd),
            message: pick(user.message, def.message),
            decimals: pick(user.decimals, def.decimals),
        })
    }

    pub(crate) fn evaluate(&self, event: &str, payload: &Value, _ctx: &mut GuardContext) -> Value {
        if event != "on_response_end" {
            return answer::noop();
        }
        let Some(cost) = payload.get("cost").and_then(Value::as_f64) else {
            return answer::noop();
        };
        if !cost.is_finite() || cost <= self.threshold {
            return answer::noop();
        }
        let d = self.decimals;
        let text = fill(
            &self.message,
            &[
                ("cost", &format!("{cost:.d$}")),
                ("threshold", &format!("{:.d$}", self.threshold)),
            ],
        );
        answer::field("add_warning", text)
    }
}
