//! Whether a hook is trusted: approved for each event it is declared for, nothing it runs
//! changed since, and no approval left for an event it is not declared for.

use std::collections::BTreeSet;

use super::{Context, Finding, FindingCode, Severity, names};
use crate::hook::Hook;
use crate::trust::{Verdict, quote};
use agent_hooks_core::event::Event;

/// Approval and drift of each declared event; returns the events whose approval holds.
pub(super) fn trust_findings(
    ctx: &Context<'_>,
    hook: &Hook,
    findings: &mut Vec<Finding>,
) -> Vec<Event> {
    let Some(key) = &hook.approval_key else {
        findings.push(Finding::new(
            FindingCode::NoApprovalNeeded,
            Severity::Info,
            format!("no approval needed ({})", hook.source.label()),
        ));
        return Vec::new();
    };
    let approvals = &ctx.snapshot.approvals;
    let mut approved = Vec::new();
    let mut missing = Vec::new();
    for &event in &hook.events {
        match ctx.drift.check(approvals, event, hook) {
            Verdict::Approved(_) => approved.push(event),
            Verdict::NotApproved => missing.push(event),
            Verdict::Drifted(why) => findings.push(
                Finding::new(
                    FindingCode::Drift,
                    Severity::Error,
                    format!("changed since approval: {why}; it does not run"),
                )
                .event(event)
                .fix(format!(
                    "review the change, then: /hooks approve {}",
                    quote(key)
                )),
            ),
        }
    }
    // Approvals of this command for events no hook with this command is declared for.
    let declared: BTreeSet<&str> = ctx
        .snapshot
        .config
        .hooks_with_key(key)
        .flat_map(|h| h.events.iter().map(|e| e.name()))
        .collect();
    let stray: Vec<&str> = approvals
        .events_of(key)
        .filter(|e| !declared.contains(e))
        .collect();
    if !missing.is_empty() {
        let names = names(&missing);
        if approved.is_empty() && !stray.is_empty() {
            findings.push(
                Finding::new(
                    FindingCode::ApprovedNotDeclared,
                    Severity::Error,
                    format!(
                        "approved for {}, but declared for {names}: it never fires",
                        stray.join(", ")
                    ),
                )
                .fix(format!(
                    "re-approve it for the event it is declared for: /hooks approve {}",
                    quote(key)
                )),
            );
        } else {
            let mut finding = Finding::new(
                FindingCode::NotApproved,
                Severity::Error,
                format!("not approved for {names}: it does not run there"),
            )
            .fix(format!("/hooks approve {}", quote(key)));
            if missing.len() == 1 {
                finding = finding.event(missing[0]);
            }
            findings.push(finding);
        }
    } else if !stray.is_empty() {
        findings.push(
            Finding::new(
                FindingCode::ApprovedNotDeclared,
                Severity::Warning,
                format!(
                    "also approved for {}, which it is not declared for (that approval is unused)",
                    stray.join(", ")
                ),
            )
            .fix(format!(
                "/hooks revoke {k}, then /hooks approve {k}",
                k = quote(key)
            )),
        );
    }
    approved
}
