//! The log subscriber: `tracing` events at or above `$AGENT_HOOKS_LOG`'s levels (default
//! `warn`), on stderr as text, or as one JSON object a line for a log collector
//! (`$AGENT_HOOKS_LOG_FORMAT=json`, `serve --log-format json`).
//!
//! `agent-hooks guard`, `fire` and the agents' bridges get it built on first use:
//! tracing-subscriber's span registry fills a 32 KB table when it is made (8 page faults and
//! 0.03 million instructions), and these commands, started anew for every event, usually log
//! nothing. Every other command builds it at once.

use std::sync::OnceLock;

use tracing::level_filters::LevelFilter;
use tracing::span;
use tracing::subscriber::{Interest, Subscriber};
use tracing_subscriber::Registry;
use tracing_subscriber::filter::Targets;
use tracing_subscriber::layer::{Filter, Layer};
use tracing_subscriber::prelude::*;

/// How log lines are written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Format {
    /// One line of text per event, for people.
    #[default]
    Text,
    /// One JSON object per line (timestamp, level, target, fields, spans), for a collector.
    Json,
}

/// The format `$AGENT_HOOKS_LOG_FORMAT` names; `flag` (a command's `--log-format`) wins over
/// it. An unknown name is said on stderr and logs stay text: a typo in a log setting must
/// not fail an agent's hook call, whose bridge reads the same variable.
pub(crate) fn format(flag: Option<Format>) -> Format {
    if let Some(format) = flag {
        return format;
    }
    match std::env::var("AGENT_HOOKS_LOG_FORMAT") {
        Err(_) => Format::Text,
        Ok(name) => match name.trim().to_ascii_lowercase().as_str() {
            "" | "text" => Format::Text,
            "json" => Format::Json,
            _ => {
                eprintln!(
                    "agent-hooks: AGENT_HOOKS_LOG_FORMAT={name:?}: expected text or json; logging as text"
                );
                Format::Text
            }
        },
    }
}

/// `$AGENT_HOOKS_LOG`'s `target=level` directives (`warn`, `agent_hooks_runtime=debug`). A plain
/// target filter rather than an EnvFilter: the latter's regex machinery makes every regex in
/// the process, the guards' rules included, build a full DFA, which `agent-hooks guard` pays
/// per call.
fn filter() -> Targets {
    std::env::var("AGENT_HOOKS_LOG")
        .ok()
        .and_then(|directives| directives.parse::<Targets>().ok())
        .unwrap_or_else(|| Targets::new().with_default(tracing::Level::WARN))
}

fn subscriber(filter: Targets, format: Format) -> impl Subscriber + Send + Sync {
    let layer = tracing_subscriber::fmt::layer().with_writer(std::io::stderr);
    let layer: Box<dyn Layer<Registry> + Send + Sync> = match format {
        Format::Text => layer.with_filter(filter).boxed(),
        Format::Json => layer.json().with_filter(filter).boxed(),
    };
    tracing_subscriber::registry().with(layer)
}

/// The format `init` was given, for the lines a command writes to stderr itself.
static FORMAT: OnceLock<Format> = OnceLock::new();

/// Whether log lines are JSON: then a command's own notices go through the log as well, so
/// that a collector reading stderr gets nothing but JSON objects.
pub(crate) fn json() -> bool {
    FORMAT.get() == Some(&Format::Json)
}

/// Installs the subscriber for the process; `lazily`: built when first needed.
pub(crate) fn init(lazily: bool, format: Format) {
    let _ = FORMAT.set(format);
    let filter = filter();
    if lazily {
        OnFirstUse {
            hint: Filter::<Registry>::max_level_hint(&filter),
            make: move || subscriber(filter.clone(), format),
            built: OnceLock::new(),
        }
        .init();
    } else {
        subscriber(filter, format).init();
    }
}

/// The subscriber, built by the first call that needs it: the registration of a callsite at
/// a level the filter lets through (one below it is never registered), a span or an event.
/// Until then it only answers the filter's most verbose level. It holds the subscriber
/// itself, not a `Dispatch` of it: making a `Dispatch` registers it with every callsite,
/// through the global one, which is this, still being built.
struct OnFirstUse<S, F> {
    hint: Option<LevelFilter>,
    make: F,
    built: OnceLock<S>,
}

impl<S, F: Fn() -> S> OnFirstUse<S, F> {
    fn get(&self) -> &S {
        self.built.get_or_init(&self.make)
    }
}

impl<S, F> Subscriber for OnFirstUse<S, F>
where
    S: Subscriber,
    F: Fn() -> S + 'static,
{
    fn register_callsite(&self, metadata: &'static tracing::Metadata<'static>) -> Interest {
        self.get().register_callsite(metadata)
    }

    fn max_level_hint(&self) -> Option<LevelFilter> {
        self.hint
    }

    fn enabled(&self, metadata: &tracing::Metadata<'_>) -> bool {
        self.get().enabled(metadata)
    }

    fn new_span(&self, span: &span::Attributes<'_>) -> span::Id {
        self.get().new_span(span)
    }

    fn record(&self, span: &span::Id, values: &span::Record<'_>) {
        self.get().record(span, values);
    }

    fn record_follows_from(&self, span: &span::Id, follows: &span::Id) {
        self.get().record_follows_from(span, follows);
    }

    fn event_enabled(&self, event: &tracing::Event<'_>) -> bool {
        self.get().event_enabled(event)
    }

    fn event(&self, event: &tracing::Event<'_>) {
        self.get().event(event);
    }

    fn enter(&self, span: &span::Id) {
        self.get().enter(span);
    }

    fn exit(&self, span: &span::Id) {
        self.get().exit(span);
    }

    fn clone_span(&self, id: &span::Id) -> span::Id {
        self.get().clone_span(id)
    }

    fn try_close(&self, id: span::Id) -> bool {
        self.get().try_close(id)
    }

    fn current_span(&self) -> tracing_core::span::Current {
        self.get().current_span()
    }
}
