//! OpenTelemetry traces over OTLP/HTTP (protobuf), when `OTEL_EXPORTER_OTLP_ENDPOINT` (or
//! `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is set: one span per dispatch on every route, a child
//! per hook that ran, with the route, agent, event, decision and hook status as attributes —
//! never the tool's input or any payload field. Spans are batched and sent from a task of their own; a collector that
//! is slow or down never holds up a dispatch (spans beyond the queue are dropped and counted).
//!
//! The few OTLP messages used are encoded here by hand (field numbers from
//! `opentelemetry/proto/trace/v1/trace.proto`); the test decodes them with the official
//! definitions.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use agent_hooks_core::outcome::{HookReport, HookStatus, Outcome};
use tokio::sync::mpsc;

use crate::stats::Via;

/// Spans waiting to be sent, at most: beyond it new spans are dropped.
const QUEUE: usize = 8192;
/// Spans sent in one request, at most.
const BATCH: usize = 512;
/// How long a span waits for its batch to fill.
const FLUSH: Duration = Duration::from_secs(1);
/// How long a collector may take to answer.
const SEND_TIMEOUT: Duration = Duration::from_secs(5);

/// One finished span.
#[derive(Debug, Clone)]
pub(crate) struct Span {
    trace_id: [u8; 16],
    span_id: [u8; 8],
    parent: Option<[u8; 8]>,
    name: String,
    server: bool,
    start: SystemTime,
    end: SystemTime,
    attributes: Vec<(&'static str, String)>,
    error: bool,
}

/// What a dispatch span says, and its hooks.
#[derive(Debug)]
pub(crate) struct Dispatch<'a> {
    via: Via,
    event: Option<&'static str>,
    decision: &'static str,
    status: u16,
    start: SystemTime,
    /// Every hook's report; those that ran become children.
    hooks: &'a [HookReport],
}

impl Dispatch<'_> {
    /// The span of `outcome`, dispatched through `via` from `start` and answered `status`.
    pub(crate) fn of(via: Via, status: u16, start: SystemTime, outcome: &Outcome) -> Dispatch<'_> {
        Dispatch {
            via,
            event: Some(outcome.event.name()),
            decision: outcome.decision.as_str(),
            status,
            start,
            hooks: &outcome.hooks,
        }
    }

    /// The span of an answer given without a dispatch (an agent's input that could not be
    /// read, or an event with no counterpart): no event, no hooks.
    pub(crate) fn undispatched(
        via: Via,
        status: u16,
        start: SystemTime,
        decision: &'static str,
    ) -> Dispatch<'static> {
        Dispatch {
            via,
            event: None,
            decision,
            status,
            start,
            hooks: &[],
        }
    }
}

/// The exporter's handle: cheap to clone, never blocks.
#[derive(Debug, Clone)]
pub(crate) struct Traces {
    queue: mpsc::Sender<Span>,
}

fn random<const N: usize>() -> [u8; N] {
    let mut bytes = [0u8; N];
    if getrandom::fill(&mut bytes).is_err() || bytes.iter().all(|b| *b == 0) {
        // An all-zero id is invalid in OTLP; the clock is unique enough for one process.
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(1, |d| d.as_nanos())
            .to_le_bytes();
        for (i, b) in bytes.iter_mut().enumerate() {
            *b = nanos[i % nanos.len()] | 1;
        }
    }
    bytes
}

impl Traces {
    /// The exporter the environment asks for, started; `None` without an endpoint.
    pub(crate) fn from_env() -> Option<Traces> {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
        let url = match var("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") {
            Some(url) => url,
            None => format!(
                "{}/v1/traces",
                var("OTEL_EXPORTER_OTLP_ENDPOINT")?.trim_end_matches('/')
            ),
        };
        let service = var("OTEL_SERVICE_NAME").unwrap_or_else(|| "agent-hooks".to_owned());
        let _ = rustls::crypto::ring::default_provider().install_default();
        let client = match reqwest::Client::builder()
            .no_proxy()
            .timeout(SEND_TIMEOUT)
            .build()
        {
            Ok(client) => client,
            Err(e) => {
                tracing::warn!("traces are off: cannot build the OTLP client: {e}");
                return None;
            }
        };
        let (queue, spans) = mpsc::channel(QUEUE);
        tokio::spawn(send_batches(client, url.clone(), service, spans));
        tracing::info!("sending a span per dispatch to {url}");
        Some(Traces { queue })
    }

    /// Queues the spans of one dispatch: the dispatch, and a child per hook that ran (each
    /// child starts with the dispatch; its length is the hook's run time).
    pub(crate) fn dispatch(&self, d: Dispatch<'_>) {
        let end = SystemTime::now();
        let trace_id = random::<16>();
        let span_id = random::<8>();
        let route = d.via.route;
        // Each hook's span says whose dispatch it is, so a collector can filter hooks alone.
        let mut context = Vec::with_capacity(2);
        if let Some(agent) = d.via.agent {
            context.push(("agent_hooks.agent", agent.name().to_owned()));
        }
        if let Some(event) = d.event {
            context.push(("agent_hooks.event", event.to_owned()));
        }
        let mut attributes = vec![
            ("http.route", route.to_owned()),
            ("http.response.status_code", d.status.to_string()),
            ("agent_hooks.decision", d.decision.to_owned()),
        ];
        attributes.extend(context.iter().cloned());
        let name = match d.event {
            Some(event) => format!("dispatch {event}"),
            None => format!("dispatch {route}"),
        };
        let mut spans = vec![Span {
            trace_id,
            span_id,
            parent: None,
            name,
            server: true,
            start: d.start,
            end,
            attributes,
            error: d.status >= 500,
        }];
        for report in d.hooks.iter().filter(|r| r.status != HookStatus::Skipped) {
            let mut attributes = vec![
                ("agent_hooks.hook", report.hook.to_string()),
                ("agent_hooks.source", report.source.to_string()),
                ("agent_hooks.hook.status", report.status.as_str().to_owned()),
            ];
            attributes.extend(context.iter().cloned());
            spans.push(Span {
                trace_id,
                span_id: random::<8>(),
                parent: Some(span_id),
                name: report.hook.to_string(),
                server: false,
                start: d.start,
                end: d.start + Duration::from_secs_f64(report.ms.max(0.0) / 1000.0),
                attributes,
                error: report.status.is_failure(),
            });
        }
        for span in spans {
            if self.queue.try_send(span).is_err() {
                tracing::debug!("a span was dropped: the trace queue is full");
            }
        }
    }
}

async fn send_batches(
    client: reqwest::Client,
    url: String,
    service: String,
    mut spans: mpsc::Receiver<Span>,
) {
    let mut batch = Vec::with_capacity(BATCH);
    let mut failing = false;
    loop {
        let first = match spans.recv().await {
            Some(span) => span,
            None => return,
        };
        batch.push(first);
        let deadline = tokio::time::Instant::now() + FLUSH;
        while batch.len() < BATCH {
            match tokio::time::timeout_at(deadline, spans.recv()).await {
                Ok(Some(span)) => batch.push(span),
                Ok(None) | Err(_) => break,
            }
        }
        let body = encode(&service, &batch);
        batch.clear();
        let sent = client
            .post(&url)
            .header("content-type", "application/x-protobuf")
            .body(body)
            .send()
            .await;
        match sent {
            Ok(r) if r.status().is_success() => failing = false,
            Ok(r) if !failing => {
                tracing::warn!(
                    "the OTLP collector at {url} answered {}; spans are dropped until it accepts them",
                    r.status()
                );
                failing = true;
            }
            Err(e) if !failing => {
                tracing::warn!(
                    "the OTLP collector at {url} did not answer ({e}); spans are dropped until it does"
                );
                failing = true;
            }
            _ => {}
        }
    }
}

// Protobuf, by hand: a field's key is (number << 3 | wire type).
fn varint(out: &mut Vec<u8>, mut n: u64) {
    while n >= 0x80 {
        out.push((n as u8) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

fn bytes_field(out: &mut Vec<u8>, field: u64, bytes: &[u8]) {
    varint(out, field << 3 | 2);
    varint(out, bytes.len() as u64);
    out.extend_from_slice(bytes);
}

fn fixed64_field(out: &mut Vec<u8>, field: u64, n: u64) {
    varint(out, field << 3 | 1);
    out.extend_from_slice(&n.to_le_bytes());
}

fn varint_field(out: &mut Vec<u8>, field: u64, n: u64) {
    varint(out, field << 3);
    varint(out, n);
}

/// A `KeyValue` with a string `AnyValue`.
fn attribute(key: &str, value: &str) -> Vec<u8> {
    let mut any = Vec::new();
    bytes_field(&mut any, 1, value.as_bytes());
    let mut kv = Vec::new();
    bytes_field(&mut kv, 1, key.as_bytes());
    bytes_field(&mut kv, 2, &any);
    kv
}

fn nanos(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
}

fn span(s: &Span) -> Vec<u8> {
    let mut out = Vec::new();
    bytes_field(&mut out, 1, &s.trace_id);
    bytes_field(&mut out, 2, &s.span_id);
    if let Some(parent) = &s.parent {
        bytes_field(&mut out, 4, parent);
    }
    bytes_field(&mut out, 5, s.name.as_bytes());
    // SPAN_KIND_SERVER = 2, SPAN_KIND_INTERNAL = 1.
    varint_field(&mut out, 6, if s.server { 2 } else { 1 });
    fixed64_field(&mut out, 7, nanos(s.start));
    fixed64_field(&mut out, 8, nanos(s.end));
    for (key, value) in &s.attributes {
        bytes_field(&mut out, 9, &attribute(key, value));
    }
    // Status: code 1 OK, 2 ERROR.
    let mut status = Vec::new();
    varint_field(&mut status, 3, if s.error { 2 } else { 1 });
    bytes_field(&mut out, 15, &status);
    out
}

/// An `ExportTraceServiceRequest` of `spans`, from the service `service`.
fn encode(service: &str, spans: &[Span]) -> Vec<u8> {
    let mut resource = Vec::new();
    bytes_field(&mut resource, 1, &attribute("service.name", service));
    let mut scope = Vec::new();
    bytes_field(&mut scope, 1, b"agent-hooks");
    bytes_field(&mut scope, 2, env!("CARGO_PKG_VERSION").as_bytes());
    let mut scope_spans = Vec::new();
    bytes_field(&mut scope_spans, 1, &scope);
    for s in spans {
        bytes_field(&mut scope_spans, 2, &span(s));
    }
    let mut resource_spans = Vec::new();
    bytes_field(&mut resource_spans, 1, &resource);
    bytes_field(&mut resource_spans, 2, &scope_spans);
    let mut request = Vec::new();
    bytes_field(&mut request, 1, &resource_spans);
    request
}
