//! The Metrics page's data: what the sidecar's statistics already keep (`GET /v1/stats` and
//! `GET /metrics`), read at the moment of asking; the page keeps the samples it draws.

use serde_json::{Value, json};

use crate::stats::Stats;

/// The counter the decisions are kept in, as `GET /metrics` writes it.
const DECISIONS: &str = "agent_hooks_decisions_total{";

/// The dispatches so far, their decisions by event, and each hook's run times.
pub(super) fn snapshot(stats: &Stats) -> Value {
    json!({
        "dispatches": stats.dispatches(),
        "decisions": decisions(&stats.prometheus()),
        "hooks": stats.report(),
    })
}

/// The decision counters of the exposition text, summed over routes and agents: `{"event",
/// "decision", "count"}` each.
fn decisions(text: &str) -> Vec<Value> {
    let mut counts = std::collections::BTreeMap::<(&str, &str), u64>::new();
    for line in text.lines() {
        let Some((labels, count)) = line
            .strip_prefix(DECISIONS)
            .and_then(|rest| rest.rsplit_once("} "))
        else {
            continue;
        };
        let label = |name: &str| {
            labels
                .split(',')
                .find_map(|pair| pair.strip_prefix(name)?.strip_prefix("=\""))
                .and_then(|v| v.strip_suffix('"'))
        };
        let (Some(event), Some(decision), Ok(count)) = (
            label("event"),
            label("decision"),
            count.trim().parse::<u64>(),
        ) else {
            continue;
        };
        *counts.entry((event, decision)).or_default() += count;
    }
    counts
        .into_iter()
        .map(|((event, decision), count)| {
            json!({"event": event, "decision": decision, "count": count})
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent_hooks_core::answer::Decision;
    use agent_hooks_core::event::Event;
    use agent_hooks_core::outcome::Outcome;

    #[test]
    fn the_decisions_are_read_from_the_statistics_own_counters() {
        let stats = Stats::default();
        for decision in [Decision::Block, Decision::Block, Decision::Continue] {
            let mut outcome = Outcome::unchanged(Event::PreToolCall, serde_json::Map::new());
            outcome.decision = decision;
            let via = crate::stats::Via {
                route: "/v1/events/{event}",
                agent: None,
            };
            stats.record(via, &outcome);
        }
        let mut counted = snapshot(&stats)["decisions"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        counted.sort_by_key(|d| d["decision"].to_string());
        assert_eq!(
            counted,
            vec![
                json!({"event": "pre_tool_call", "decision": "block", "count": 2}),
                json!({"event": "pre_tool_call", "decision": "continue", "count": 1}),
            ]
        );
    }
}
