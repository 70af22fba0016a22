//! The nine guards, one module each, and [`GUARDS`]: one row per guard (name, summary, events,
//! default rules, sample, builder), the only place that maps a name to its code. Each module
//! owns its default rules file, its compiled rules and its `evaluate`.

mod budget_alert;
mod inject_reminder;
mod pii_redactor;
mod runtime_footer;
mod security_guard;

/// The security guard's default rules in binary form, whose strings `rules::Text` borrows.
mod tool_audit_log;
mod verify_code_changes;
mod verify_commitments;
mod verify_publish_claims;

pub(crate) use security_guard::default_scanner;
pub use security_guard::{
    ExplainedCommand, ExplainedRule, Explanation, RulePacks, explain_command, rule_packs,
};
use serde_json::Value;

use crate::context::GuardContext;
use crate::rules::RulesError;
use crate::{GuardEvent, GuardInfo, GuardSample};

/// A compiled guard: its `evaluate`, whatever its type.
pub(crate) type Compiled = Box<dyn Fn(&str, &Value, &mut GuardContext) -> Value + Send + Sync>;

/// How a row compiles its guard from the user's rules (`None`: the defaults).
pub(crate) type Build = fn(Option<&str>) -> Result<Compiled, RulesError>;

/// Wraps a guard compiled by its module and that module's `evaluate`.
fn compiled<G: Send + Sync + 'static>(
    guard: G,
    evaluate: fn(&G, &str, &Value, &mut GuardContext) -> Value,
) -> Result<Compiled, RulesError> {
    Ok(Box::new(move |event, payload, ctx| {
        evaluate(&guard, event, payload, ctx)
    }))
}

const fn on(event: &'static str) -> GuardEvent {
    GuardEvent {
        event,
        matcher: None,
    }
}

/// The nine ready-made guards, in the order `help` numbers them (1-based): one row each.
pub const GUARDS: &[GuardInfo] = &[
    GuardInfo {
        name: "security_guard",
        waits_on: &[],
        summary: "Blocks pasted or exfiltrated credentials and irreversible shell commands; masks keys in replies and messages.",
        events: &[
            on("on_user_message"),
            GuardEvent {
                event: "pre_tool_call",
                // A pre-filter only: every program and tool the default rules look at
                // (`tests/cases.rs` checks that every refused case gets through it).
                matcher: Some(
                    r"rm|dd|mkfs|mke2fs|mkswap|newfs|chmod|chown|chgrp|reset|\(\)|/dev/|curl|wget|nc|socat|telnet|scp|sftp|rsync|ftp|http|xh|env|eval|sh|send|message|post|notify|git|find|remove|unlink|fork|wipe|shred|blkdiscard|disk|\.ssh|\.aws|credential|secret|id_rsa|id_ed|fetch|socket|tar|mv|cp|truncate|parted|fdisk|gdisk|wipefs|kill|init|shutdown|reboot|halt|poweroff|systemctl|tables|nft|ufw|firewall|pf|terraform|tofu|kubectl|helm|aws|gcloud|gsutil|az|psql|mysql|mariadb|sqlite|mongo|redis|drop|flush|truncate|db|rake|rails|prisma|manage|dig|nslookup|host|drill|pip|npm|yarn|pnpm|uv|poetry|gem|cargo|go|cron|launch|profile|rc|hooks|authorized|config|settings|\.env|netrc|pgpass|\.kube|\.docker|gnupg|shadow|\.pem|\.key|agent\.yaml|approvals|Write|Edit|Read|write|edit|read|replace|patch|delete|move|file",
                ),
            },
            on("transform_tool_result"),
            on("on_response_end"),
            on("on_outbound_message"),
        ],
        default_rules: security_guard::DEFAULT_RULES,
        sample: &[GuardSample {
            event: "pre_tool_call",
            payload: r#"{"tool_name": "bash", "tool_input": {"command": "rm -rf /"}}"#,
        }],
        build: |rules| {
            compiled(
                security_guard::SecurityGuard::new(rules)?,
                security_guard::SecurityGuard::evaluate,
            )
        },
    },
    GuardInfo {
        name: "verify_publish_claims",
        waits_on: &[],
        summary: "Refuses a past-tense 'published/deployed' claim whose link or id is not in the publish records.",
        events: &[
            on("on_stop"),
            on("on_completion_claim"),
            on("on_response_end"),
        ],
        default_rules: verify_publish_claims::DEFAULT_RULES,
        sample: &[GuardSample {
            event: "on_stop",
            payload: r#"{"response": "Published! https://example.com/p/made-up-123", "tool_names": []}"#,
        }],
        build: |rules| {
            compiled(
                verify_publish_claims::VerifyPublishClaims::new(rules)?,
                verify_publish_claims::VerifyPublishClaims::evaluate,
            )
        },
    },
    GuardInfo {
        name: "verify_code_changes",
        waits_on: &[],
        summary: "Makes the agent run tests, a build or a linter before it stops after editing source files.",
        events: &[on("pre_tool_call"), on("on_stop")],
        default_rules: verify_code_changes::DEFAULT_RULES,
        sample: &[
            GuardSample {
                event: "pre_tool_call",
                payload: r#"{"tool_name": "edit_file", "tool_input": {"path": "src/app.py"}}"#,
            },
            GuardSample {
                event: "on_stop",
                payload: r#"{"response": "Done.", "tool_names": ["edit_file"]}"#,
            },
        ],
        build: |rules| {
            compiled(
                verify_code_changes::VerifyCodeChanges::new(rules)?,
                verify_code_changes::VerifyCodeChanges::evaluate,
            )
        },
    },
    GuardInfo {
        name: "verify_commitments",
        waits_on: &[],
        summary: "Refuses to stop when the reply promises a later notification but nothing was scheduled.",
        events: &[on("on_stop")],
        default_rules: verify_commitments::DEFAULT_RULES,
        sample: &[GuardSample {
            event: "on_stop",
            payload: r#"{"response": "I'll let you know when the build finishes.", "tool_names": []}"#,
        }],
        build: |rules| {
            compiled(
                verify_commitments::VerifyCommitments::new(rules)?,
                verify_commitments::VerifyCommitments::evaluate,
            )
        },
    },
    GuardInfo {
        name: "runtime_footer",
        waits_on: &["on_response_end"],
        summary: "Replaces a model-typed footer with the real model and cost of the turn.",
        events: &[on("on_response_end"), on("pre_llm_call")],
        default_rules: runtime_footer::DEFAULT_RULES,
        sample: &[GuardSample {
            event: "on_response_end",
            payload: r#"{"response": "Done.", "model": "example-model", "cost": 0.0123}"#,
        }],
        build: |rules| {
            compiled(
                runtime_footer::RuntimeFooter::new(rules)?,
                runtime_footer::RuntimeFooter::evaluate,
            )
        },
    },
    GuardInfo {
        name: "pii_redactor",
        waits_on: &[],
        summary: "Masks email addresses and phone numbers in replies; notes them in tool results.",
        events: &[
            GuardEvent {
                event: "transform_tool_result",
                matcher: Some(r"@|\+?\d[\d\s().-]{6,}\d"),
            },
            GuardEvent {
                event: "on_response_end",
                matcher: Some(r"@|\+?\d[\d\s().-]{6,}\d"),
            },
        ],
        default_rules: pii_redactor::DEFAULT_RULES,
        sample: &[GuardSample {
            event: "on_response_end",
            payload: r#"{"response": "Write to jane.doe@example.com."}"#,
        }],
        build: |rules| {
            compiled(
                pii_redactor::PiiRedactor::new(rules)?,
                pii_redactor::PiiRedactor::evaluate,
            )
        },
    },
    GuardInfo {
        name: "tool_audit_log",
        waits_on: &[],
        summary: "Appends one JSON line per tool call to an audit log.",
        events: &[on("post_tool_call")],
        default_rules: tool_audit_log::DEFAULT_RULES,
        // Its only effect is a line in the user's audit log.
        sample: &[],
        build: |rules| {
            compiled(
                tool_audit_log::ToolAuditLog::new(rules)?,
                tool_audit_log::ToolAuditLog::evaluate,
            )
        },
    },
    GuardInfo {
        name: "budget_alert",
        waits_on: &[],
        summary: "Warns when a turn costs more than a threshold.",
        events: &[on("on_response_end")],
        default_rules: budget_alert::DEFAULT_RULES,
        sample: &[GuardSample {
            event: "on_response_end",
            payload: r#"{"response": "Done.", "model": "example-model", "cost": 12.5}"#,
        }],
        build: |rules| {
            compiled(
                budget_alert::BudgetAlert::new(rules)?,
                budget_alert::BudgetAlert::evaluate,
            )
        },
    },
    GuardInfo {
        name: "inject_reminder",
        waits_on: &[],
        summary: "Adds a standing reminder from the rules file to every model call.",
        events: &[on("pre_llm_call")],
        default_rules: inject_reminder::DEFAULT_RULES,
        sample: &[GuardSample {
            event: "pre_llm_call",
            payload: r#"{"model": "example-model"}"#,
        }],
        build: |rules| {
            compiled(
                inject_reminder::InjectReminder::new(rules)?,
                inject_reminder::InjectReminder::evaluate,
            )
        },
    },
];

#[cfg(test)]
mod tests {
    use super::GUARDS;

    #[test]
    fn every_row_compiles_its_defaults_and_samples_only_its_own_events() {
        for guard in GUARDS {
            assert!(
                crate::Guard::new(guard.name, Some(guard.default_rules)).is_ok(),
                "{}: the default rules compile",
                guard.name
            );
            for step in guard.sample {
                let payload: serde_json::Value =
                    serde_json::from_str(step.payload).unwrap_or_default();
                assert!(payload.is_object(), "{}: {}", guard.name, step.payload);
                assert!(
                    guard.events.iter().any(|e| e.event == step.event),
                    "{} samples {}, which it does not handle",
                    guard.name,
                    step.event
                );
            }
        }
        let mut names: Vec<_> = GUARDS.iter().map(|g| g.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), GUARDS.len(), "one row per name");
    }
}
