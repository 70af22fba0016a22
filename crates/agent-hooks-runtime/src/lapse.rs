//! The lapse rule (`docs/agents.md`): whenever the policy could not be fully evaluated for an
//! event — a configuration file that did not load, input that could not be read, a hook that
//! failed, timed out, hit a limit or was kept from running by the trust gate — the outcome says
//! so to the user, and under `on_failure: block` (or a bridge's `--fail-closed`) an event that
//! can block is denied. Every surface applies it: the bridges, the sidecar's routes, `fire` and
//! the host helpers.

use crate::engine::Engine;
use crate::hook::{OnError, SourceKind};
use agent_hooks_core::outcome::{Lapse, LapseKind, Outcome};

pub use agent_hooks_core::outcome::OnFailure;

/// The mode in force for `engine`: `on_failure` in its `config/agent.yaml`, made stricter by
/// `forced` (a bridge's `--fail-closed`), which holds even when the file does not load.
pub fn mode(engine: &Engine, forced: OnFailure) -> OnFailure {
    forced.max(engine.snapshot().config.agent.on_failure)
}

/// Applies the lapse rule to `outcome`, a dispatch of `engine`: each configuration error (but
/// those of `own`'s files, the agent whose bridge this is, which reports its own) and each
/// hook that failed or was not trusted becomes a lapse told in the warnings; then, under
/// `block` — or for a lapse of a hook declared `on_error: block` — an event that can block is
/// denied. Lapses already in the outcome (unreadable input, no workspace) count too.
pub fn settle(engine: &Engine, outcome: &mut Outcome, forced: OnFailure, own: Option<SourceKind>) {
    let snapshot = engine.snapshot();
    let config = &snapshot.config;
    for error in config.agent.error.iter() {
        outcome.add_lapse(config_lapse(error));
    }
    for file in config.files.iter().filter(|f| Some(f.source) != own) {
        for error in &file.errors {
            outcome.add_lapse(config_lapse(error));
        }
    }
    let mut hook_blocks = false;
    let reports: Vec<Lapse> = outcome
        .hooks
        .iter()
        .filter_map(|report| {
            let lapse = report.lapse()?;
            // A hook that says `on_error: block` fails closed on every lapse of its own, the
            // trust gate's included (its failures the dispatcher already blocked on).
            hook_blocks |= config.hooks.iter().any(|h| {
                *h.name == *report.hook
                    && *h.file_display == *report.source
                    && h.on_error == OnError::Block
            });
            Some(lapse)
        })
        .collect();
    for lapse in reports {
        outcome.add_lapse(lapse);
    }
    if mode(engine, forced) == OnFailure::Block || hook_blocks {
        outcome.fail_closed();
    }
}

/// A configuration error as a lapse: the hooks of that file may not all be in force.
fn config_lapse(error: &agent_hooks_core::config_error::ConfigError) -> Lapse {
    Lapse::new(
        LapseKind::ConfigError,
        format!("configuration error: {error} (the hooks it declares may not have run)"),
    )
}

/// The lapse of a bridge that found no workspace: no hook ran.
pub fn no_workspace(why: &str) -> Lapse {
    Lapse::new(
        LapseKind::NoWorkspace,
        format!("agent-hooks found no workspace, so no hook ran: {why}"),
    )
}
