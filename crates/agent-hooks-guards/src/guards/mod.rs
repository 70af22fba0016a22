//! The nine guards, one module each, and the one place that maps a name to its code.
//! Each module owns its default rules file, its compiled rules and its `evaluate`.

mod budget_alert;
mod inject_reminder;
mod pii_redactor;
mod runtime_footer;
mod security_guard;
mod tool_audit_log;
mod verify_code_changes;
mod verify_commitments;
mod verify_publish_claims;

use serde_json::Value;

use crate::context::GuardContext;
use crate::rules::RulesError;

/// A compiled guard of any kind.
#[derive(Debug)]
pub(crate) enum Kind {
    SecurityGuard(Box<security_guard::SecurityGuard>),
    VerifyPublishClaims(verify_publish_claims::VerifyPublishClaims),
    VerifyCodeChanges(verify_code_changes::VerifyCodeChanges),
    VerifyCommitments(verify_commitments::VerifyCommitments),
    RuntimeFooter(runtime_footer::RuntimeFooter),
    PiiRedactor(pii_redactor::PiiRedactor),
    ToolAuditLog(tool_audit_log::ToolAuditLog),
    BudgetAlert(budget_alert::BudgetAlert),
    InjectReminder(inject_reminder::InjectReminder),
}

pub(crate) fn default_rules(name: &str) -> Option<&'static str> {
    Some(match name {
        "security_guard" => security_guard::DEFAULT_RULES,
        "verify_publish_claims" => verify_publish_claims::DEFAULT_RULES,
        "verify_code_changes" => verify_code_changes::DEFAULT_RULES,
        "verify_commitments" => verify_commitments::DEFAULT_RULES,
        "runtime_footer" => runtime_footer::DEFAULT_RULES,
        "pii_redactor" => pii_redactor::DEFAULT_RULES,
        "tool_audit_log" => tool_audit_log::DEFAULT_RULES,
        "budget_alert" => budget_alert::DEFAULT_RULES,
        "inject_reminder" => inject_reminder::DEFAULT_RULES,
        _ => return None,
    })
}

impl Kind {
    /// `name` is known: [`crate::Guard::new`] checked it against `GUARDS`.
    pub(crate) fn new(name: &str, rules: Option<&str>) -> Result<Self, RulesError> {
        Ok(match name {
            "security_guard" => {
                Kind::SecurityGuard(Box::new(security_guard::SecurityGuard::new(rules)?))
            }
            "verify_publish_claims" => {
                Kind::VerifyPublishClaims(verify_publish_claims::VerifyPublishClaims::new(rules)?)
            }
            "verify_code_changes" => {
                Kind::VerifyCodeChanges(verify_code_changes::VerifyCodeChanges::new(rules)?)
            }
            "verify_commitments" => {
                Kind::VerifyCommitments(verify_commitments::VerifyCommitments::new(rules)?)
            }
            "runtime_footer" => Kind::RuntimeFooter(runtime_footer::RuntimeFooter::new(rules)?),
            "pii_redactor" => Kind::PiiRedactor(pii_redactor::PiiRedactor::new(rules)?),
            "tool_audit_log" => Kind::ToolAuditLog(tool_audit_log::ToolAuditLog::new(rules)?),
            "budget_alert" => Kind::BudgetAlert(budget_alert::BudgetAlert::new(rules)?),
            "inject_reminder" => Kind::InjectReminder(inject_reminder::InjectReminder::new(rules)?),
            other => {
                return Err(RulesError::UnknownGuard {
                    name: other.to_owned(),
                    known: String::new(),
                });
            }
        })
    }

    pub(crate) fn evaluate(&self, event: &str, payload: &Value, ctx: &mut GuardContext) -> Value {
        match self {
            Kind::SecurityGuard(g) => g.evaluate(event, payload, ctx),
            Kind::VerifyPublishClaims(g) => g.evaluate(event, payload, ctx),
            Kind::VerifyCodeChanges(g) => g.evaluate(event, payload, ctx),
            Kind::VerifyCommitments(g) => g.evaluate(event, payload, ctx),
            Kind::RuntimeFooter(g) => g.evaluate(event, payload, ctx),
            Kind::PiiRedactor(g) => g.evaluate(event, payload, ctx),
            Kind::ToolAuditLog(g) => g.evaluate(event, payload, ctx),
            Kind::BudgetAlert(g) => g.evaluate(event, payload, ctx),
            Kind::InjectReminder(g) => g.evaluate(event, payload, ctx),
        }
    }
}
