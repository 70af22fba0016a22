//! Per-hook counters for `GET /v1/stats`: calls, failures by kind, and latency percentiles over
//! a bounded window of recent calls, so memory stays flat however long the sidecar runs; and the
//! same dispatches as Prometheus metrics for `GET /metrics`, by the route and agent they came
//! through. Every label value is a route, an agent, an event, a hook of the configuration or a
//! fixed word: nothing a request says becomes a label, so the series stay bounded.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;
use serde::Serialize;

use agent_hooks_core::answer::Decision;
use agent_hooks_core::outcome::{HookStatus, LapseKind, Outcome};
use agent_hooks_dialects::agent::Agent;

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
pub(crate) struct Stats {
    hooks: Mutex<HashMap<(String, String), HookStats>>,
    dispatches: Mutex<u64>,
    metrics: Metrics,
}

/// The label of a route that is no agent's (`/v1/events/{event}`, the standards' routes).
pub(crate) const NO_AGENT: &str = "-";

/// The event label of an answer given without an event: an agent's input that could not be
/// read, or whose event has no counterpart here. Whatever event name the request carried, it is
/// counted under this one word.
pub(crate) const OTHER_EVENT: &str = "other";

/// Where a dispatch came in: its route as declared, and the agent whose route it is.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Via {
    /// The route as declared (`/v1/events/{event}`, `/v1/hooks/claude-code`).
    pub(crate) route: &'static str,
    /// The agent whose route it is.
    pub(crate) agent: Option<Agent>,
}

impl Via {
    fn agent_label(self) -> &'static str {
        agent_label(self.agent)
    }
}

/// How every metric labels an agent: its name (`claude`, `codex`), or [`NO_AGENT`].
pub(crate) fn agent_label(agent: Option<Agent>) -> &'static str {
    agent.map_or(NO_AGENT, Agent::name)
}

/// The labels of a dispatch's decision.
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct DecisionLabels {
    route: &'static str,
    agent: &'static str,
    event: &'static str,
    decision: &'static str,
}

/// The labels of one hook's run in one dispatch.
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct HookLabels {
    route: &'static str,
    agent: &'static str,
    hook: Arc<str>,
    source: Arc<str>,
    event: &'static str,
    status: &'static str,
}

/// The labels of one hook's run time.
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct LatencyLabels {
    route: &'static str,
    agent: &'static str,
    hook: Arc<str>,
    source: Arc<str>,
    event: &'static str,
}

/// The labels of a request: its route (as declared, `/v1/events/{event}`), the agent whose
/// route it is (`-` for the others), and its status code. Never the caller: a label per token
/// holder would grow without bound, and names are the logs' business.
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestLabels {
    route: String,
    agent: String,
    status: String,
}

/// The labels of a request's latency.
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RouteLabels {
    route: String,
    agent: String,
}

/// The labels of a lapse: the route and agent, the event it concerned and its kind
/// (`hook_failed`, `config_error`...).
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct LapseLabels {
    route: &'static str,
    agent: &'static str,
    event: &'static str,
    kind: &'static str,
}

/// A request's latency histogram: 0.1 ms to about 13 s, doubling.
fn request_histogram() -> Histogram {
    Histogram::new(exponential_buckets(0.0001, 2.0, 18))
}

/// The hook's run-time histogram: 0.5 ms to about 65 s, doubling.
fn latency_histogram() -> Histogram {
    Histogram::new(exponential_buckets(0.0005, 2.0, 18))
}

/// Prometheus metrics of the dispatches: every decision, every hook run by status (failures
/// included), and hook run times.
#[derive(Debug)]
struct Metrics {
    registry: Registry,
    decisions: Family<DecisionLabels, Counter>,
    hook_runs: Family<HookLabels, Counter>,
    latency: Family<LatencyLabels, Histogram, fn() -> Histogram>,
    requests: Family<RequestLabels, Counter>,
    request_latency: Family<RouteLabels, Histogram, fn() -> Histogram>,
    lapses: Family<LapseLabels, Counter>,
}

impl Default for Metrics {
    fn default() -> Metrics {
        let mut registry = Registry::with_prefix("agent_hooks");
        let decisions = Family::<DecisionLabels, Counter>::default();
        registry.register(
            "decisions",
            "Answers by route, agent, event and final decision (continue, block, ask)",
            decisions.clone(),
        );
        let hook_runs = Family::<HookLabels, Counter>::default();
        registry.register(
            "hook_runs",
            "Hook reports by route, agent, event, hook and status; failures are the timeout, error and invalid_output statuses",
            hook_runs.clone(),
        );
        let latency = Family::<LatencyLabels, Histogram, fn() -> Histogram>::new_with_constructor(
            latency_histogram,
        );
        registry.register(
            "hook_duration_seconds",
            "Run time of each hook that ran, by route, agent, event and hook, in seconds",
            latency.clone(),
        );
        let requests = Family::<RequestLabels, Counter>::default();
        registry.register(
            "requests",
            "Requests answered, by route, agent and status code",
            requests.clone(),
        );
        let request_latency =
            Family::<RouteLabels, Histogram, fn() -> Histogram>::new_with_constructor(
                request_histogram,
            );
        registry.register(
            "request_duration_seconds",
            "Time from a request's routing to its answer, by route and agent, in seconds",
            request_latency.clone(),
        );
        let lapses = Family::<LapseLabels, Counter>::default();
        registry.register(
            "lapses",
            "Answers whose policy could not be fully evaluated, by route, agent, event and kind of lapse (each lapse counted)",
            lapses.clone(),
        );
        Metrics {
            registry,
            decisions,
            hook_runs,
            latency,
            requests,
            request_latency,
            lapses,
        }
    }
}

/// One hook's line in `GET /v1/stats`.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub(crate) struct HookStatsReport {
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
    /// Counts one dispatch that came in through `via`, and each of its hook reports.
    pub(crate) fn record(&self, via: Via, outcome: &Outcome) {
        *self.dispatches.lock().unwrap_or_else(|p| p.into_inner()) += 1;
        let (route, agent) = (via.route, via.agent_label());
        let event = outcome.event.name();
        self.count_answer(via, event, outcome.decision);
        for lapse in &outcome.lapses {
            self.count_lapse(via, event, lapse.kind);
        }
        if outcome.hooks.is_empty() {
            return;
        }
        for report in &outcome.hooks {
            self.metrics
                .hook_runs
                .get_or_create(&HookLabels {
                    route,
                    agent,
                    hook: report.hook.clone(),
                    source: report.source.clone(),
                    event,
                    status: report.status.as_str(),
                })
                .inc();
            if report.status != HookStatus::Skipped {
                self.metrics
                    .latency
                    .get_or_create(&LatencyLabels {
                        route,
                        agent,
                        hook: report.hook.clone(),
                        source: report.source.clone(),
                        event,
                    })
                    .observe(report.ms / 1000.0);
            }
        }
        let mut hooks = self.hooks.lock().unwrap_or_else(|p| p.into_inner());
        for report in &outcome.hooks {
            let entry = hooks
                .entry((report.hook.to_string(), report.source.to_string()))
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

    /// Counts an agent's call answered without a dispatch (its input unread, or its event
    /// without a counterpart) under the event [`OTHER_EVENT`], with its lapse if it is one.
    pub(crate) fn record_undispatched(
        &self,
        via: Via,
        decision: Decision,
        lapse: Option<LapseKind>,
    ) {
        self.count_answer(via, OTHER_EVENT, decision);
        if let Some(kind) = lapse {
            self.count_lapse(via, OTHER_EVENT, kind);
        }
    }

    fn count_answer(&self, via: Via, event: &'static str, decision: Decision) {
        self.metrics
            .decisions
            .get_or_create(&DecisionLabels {
                route: via.route,
                agent: via.agent_label(),
                event,
                decision: decision.as_str(),
            })
            .inc();
    }

    fn count_lapse(&self, via: Via, event: &'static str, kind: LapseKind) {
        self.metrics
            .lapses
            .get_or_create(&LapseLabels {
                route: via.route,
                agent: via.agent_label(),
                event,
                kind: kind.as_str(),
            })
            .inc();
    }

    /// Counts one answered request of `route` (as declared) and its time.
    pub(crate) fn request(&self, route: &str, agent: &str, status: u16, seconds: f64) {
        self.metrics
            .requests
            .get_or_create(&RequestLabels {
                route: route.to_owned(),
                agent: agent.to_owned(),
                status: status.to_string(),
            })
            .inc();
        self.metrics
            .request_latency
            .get_or_create(&RouteLabels {
                route: route.to_owned(),
                agent: agent.to_owned(),
            })
            .observe(seconds);
    }

    /// How many dispatches have been recorded.
    pub(crate) fn dispatches(&self) -> u64 {
        *self.dispatches.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The metrics in the Prometheus text exposition format.
    pub(crate) fn prometheus(&self) -> String {
        let mut text = String::new();
        // Writing into a String cannot fail.
        let _ = prometheus_client::encoding::text::encode(&mut text, &self.metrics.registry);
        text
    }

    /// Every hook, slowest (by p99) first.
    pub(crate) fn report(&self) -> Vec<HookStatsReport> {
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
