//! Per-hook counters for `GET /v1/stats`: calls, failures by kind, and latency percentiles over
//! a bounded window of recent calls, so memory stays flat however long the sidecar runs.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

use serde::Serialize;

use crate::outcome::{HookStatus, Outcome};

/// How many recent latencies each hook keeps for its percentiles.
const WINDOW: usize = 1024;

#[derive(Debug, Default)]
struct HookStats {
    calls: u64,
    failures: HashMap<&'static str, u64>,
    skipped: u64,
    recent_ms: VecDeque<f64>,
}

/// Statistics of every hook the sidecar has dispatched to.
#[derive(Debug, Default)]
pub struct Stats {
    hooks: Mutex<HashMap<(String, String), HookStats>>,
    dispatches: Mutex<u64>,
}

/// One hook's line in `GET /v1/stats`.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct HookStatsReport {
    /// The hook's name.
    pub hook: String,
    /// Its declaring file, workspace-relative.
    pub source: String,
    /// Dispatches that ran it.
    pub calls: u64,
    /// Dispatches that skipped it (no match, not approved, ...).
    pub skipped: u64,
    /// Failed runs by status (`timeout`, `error`, `invalid_output`).
    pub failures: HashMap<&'static str, u64>,
    /// Median run time over its last 1024 runs, in milliseconds.
    pub p50_ms: f64,
    /// 99th-percentile run time over its last 1024 runs, in milliseconds.
    pub p99_ms: f64,
}

impl Stats {
    /// Counts one dispatch and each of its hook reports.
    pub fn record(&self, outcome: &Outcome) {
        *self.dispatches.lock().unwrap_or_else(|p| p.into_inner()) += 1;
        if outcome.hooks.is_empty() {
            return;
        }
        let mut hooks = self.hooks.lock().unwrap_or_else(|p| p.into_inner());
        for report in &outcome.hooks {
            let entry = hooks
                .entry((report.hook.clone(), report.source.clone()))
                .or_default();
            if report.status == HookStatus::Skipped {
                entry.skipped += 1;
                continue;
            }
            entry.calls += 1;
            if report.status.is_failure() {
                *entry.failures.entry(report.status.as_str()).or_default() += 1;
            }
            if entry.recent_ms.len() == WINDOW {
                entry.recent_ms.pop_front();
            }
            entry.recent_ms.push_back(report.ms);
        }
    }

    /// How many dispatches have been recorded.
    pub fn dispatches(&self) -> u64 {
        *self.dispatches.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Every hook, slowest (by p99) first.
    pub fn report(&self) -> Vec<HookStatsReport> {
        let hooks = self.hooks.lock().unwrap_or_else(|p| p.into_inner());
        let mut out: Vec<HookStatsReport> = hooks
            .iter()
            .map(|((hook, source), s)| {
                let mut sorted: Vec<f64> = s.recent_ms.iter().copied().collect();
                sorted.sort_by(f64::total_cmp);
                HookStatsReport {
                    hook: hook.clone(),
                    source: source.clone(),
                    calls: s.calls,
                    skipped: s.skipped,
                    failures: s.failures.clone(),
                    p50_ms: percentile(&sorted, 0.50),
                    p99_ms: percentile(&sorted, 0.99),
                }
            })
            .collect();
        out.sort_by(|a, b| {
            b.p99_ms
                .total_cmp(&a.p99_ms)
                .then(b.p50_ms.total_cmp(&a.p50_ms))
        });
        out
    }
}

fn percentile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = ((sorted.len() as f64 - 1.0) * q).round() as usize;
    sorted[rank.min(sorted.len() - 1)]
}
