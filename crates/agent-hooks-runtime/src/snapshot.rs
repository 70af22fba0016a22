//! The configuration in force, as one dispatch reads it: the loaded hooks indexed by event,
//! and the approvals. Built once per load, shared, never changed; a reload swaps it whole.

use std::sync::Arc;

use agent_hooks_core::config_error::ConfigError;
use agent_hooks_core::event::Event;

use crate::config::Config;
use crate::hook::Hook;
use crate::trust::{Approvals, TrustSettings};

/// Everything a dispatch reads; cheap to share, never changed once built.
#[derive(Debug)]
pub struct Snapshot {
    /// The loaded configuration.
    pub(crate) config: Config,
    /// The approvals in force.
    pub(crate) approvals: Approvals,
    /// Hooks per event (indexed by `Event as usize`), in run order.
    by_event: Vec<Vec<Arc<Hook>>>,
    /// Some hook runs in the background, so dispatches look for what such hooks left.
    background: bool,
    /// What governs approval beside the approvals, when those are outside the workspace.
    trust: TrustSettings,
    /// Why that file could not be used, if it could not.
    trust_error: Option<ConfigError>,
}

impl Snapshot {
    /// Indexes `config`'s hooks by event, so a dispatch finds its hooks without a scan.
    pub(crate) fn new(config: Config, approvals: Approvals) -> Snapshot {
        let by_event = Event::all()
            .map(|event| {
                let mut hooks: Vec<Arc<Hook>> = config
                    .hooks
                    .iter()
                    .filter(|h| h.handles(event))
                    .cloned()
                    .collect();
                // Stable: declaration order within a source, sources in `docs/configuration.md`
                // order.
                hooks.sort_by_key(|h| h.source);
                hooks
            })
            .collect();
        let background = config
            .hooks
            .iter()
            .any(|h| h.dialect.background().is_some());
        Snapshot {
            config,
            approvals,
            by_event,
            background,
            trust: TrustSettings::default(),
            trust_error: None,
        }
    }

    /// The snapshot with the trust settings read beside the approvals, and the problem of
    /// their file, if any.
    pub(crate) fn with_trust(
        mut self,
        (trust, error): (TrustSettings, Option<ConfigError>),
    ) -> Snapshot {
        self.trust = trust;
        self.trust_error = error;
        self
    }

    /// Whether the master switch is on: with it off, no hook that needs approval runs.
    pub fn master_enabled(&self) -> bool {
        self.config.master_enabled
    }

    /// The hooks wired to `event`, in run order.
    pub(crate) fn hooks_for(&self, event: Event) -> &[Arc<Hook>] {
        &self.by_event[event as usize]
    }

    /// Whether any hook runs in the background (Claude Code's `async`).
    pub(crate) fn has_background(&self) -> bool {
        self.background
    }

    /// How many hooks are wired to `event`, whether or not the trust gate lets them run. With
    /// none, a host may skip building the event's payload.
    pub fn hook_count(&self, event: Event) -> usize {
        self.by_event[event as usize].len()
    }

    /// How many hooks would run now: declared, needing approval, and approved for one of
    /// their events.
    pub fn approved_hook_count(&self) -> usize {
        self.config
            .hooks
            .iter()
            .filter(|h| {
                h.approval_key.as_deref().is_some_and(|key| {
                    h.events
                        .iter()
                        .any(|e| self.approvals.find(*e, key).is_some())
                })
            })
            .count()
    }

    /// The largest request body the sidecar accepts (`sidecar.max_body` in
    /// `config/agent.yaml`).
    pub fn max_body(&self) -> usize {
        self.config.agent.max_body
    }

    /// Whether the host fires the lifecycle events itself (`host_lifecycle`), so the sidecar
    /// does not.
    pub fn host_lifecycle(&self) -> bool {
        self.config.agent.host_lifecycle
    }

    /// Whether the agent may approve hooks itself through the sidecar. With approvals kept
    /// outside the workspace, the trust settings beside them decide ([`Snapshot::trust_file`]);
    /// `shell_hooks.self_approve` in `config/agent.yaml`, which the agent can write, can only
    /// turn it off.
    pub fn self_approve(&self) -> bool {
        self.trust.self_approve && self.config.agent.self_approve
    }

    /// The file that governs approval beside approvals kept outside the workspace
    /// (`<approvals>.trust.yaml`, whether or not it exists); `None` when approvals live in
    /// the workspace and `config/agent.yaml` alone decides.
    pub fn trust_file(&self) -> Option<&std::path::Path> {
        self.trust.file.as_deref()
    }

    /// How many hooks are declared, on every event together.
    pub fn hook_total(&self) -> usize {
        self.config.hooks.len()
    }

    /// Every configuration error of the loaded files (`config/agent.yaml` first), located by
    /// file, line and column. A file that does not load changes which hooks run, so a host
    /// shows these where its user looks.
    pub fn errors(&self) -> impl Iterator<Item = &ConfigError> {
        self.config.errors().chain(&self.trust_error)
    }

    /// The approval key of every declared hook that needs one (its command, URL or
    /// `builtin:<name>`), in declaration order: what [`Engine::approve`](crate::Engine::approve)
    /// takes.
    pub fn approval_keys(&self) -> impl Iterator<Item = &str> {
        self.config
            .hooks
            .iter()
            .filter_map(|h| h.approval_key.as_deref())
    }
}
