//! Entry points into the runtime's internals for its own benchmarks, which time pieces no host
//! calls on their own: the hash the trust gate records, the gate's whole check, and a bare POST
//! with the HTTP transport's client. Compiled only with the `internals` feature, which the
//! crate's dev-dependency on itself turns on for its tests and benchmarks; a host never sees
//! it. Not part of the API: anything here may change or go with any release.

use std::io;
use std::path::Path;
use std::sync::Arc;

use crate::engine::{Engine, Snapshot};
use crate::event::Event;
use crate::hook::Hook;
use crate::transport::http::HttpClient;
use crate::transport::ssrf::{Guard, SystemResolver};
use crate::trust::{DriftChecker, Verdict};

/// The environment variable that lets HTTP hooks reach this machine (`=1`).
pub const ALLOW_LOCAL_ENV: &str = crate::transport::ssrf::ALLOW_LOCAL_ENV;

/// The SHA-256 (lowercase hex) the trust gate records for a file.
///
/// # Errors
///
/// When the file cannot be opened or read.
pub fn hash_file(path: &Path) -> io::Result<String> {
    crate::trust::hash_file(path)
}

/// The trust gate's check of one declared hook at one event, with the engine's own drift
/// cache as a dispatch uses it.
#[derive(Debug)]
pub struct TrustCheck {
    drift: DriftChecker,
    snapshot: Arc<Snapshot>,
    hook: Arc<Hook>,
    event: Event,
}

impl TrustCheck {
    /// The check of the first hook wired to `event` in `engine`'s workspace, if there is one,
    /// with a drift cache that knows the workspace as the engine's does.
    pub fn first_hook(engine: &Engine, event: Event) -> Option<TrustCheck> {
        let snapshot = engine.snapshot();
        let hook = snapshot.hooks_for(event).first()?.clone();
        Some(TrustCheck {
            drift: DriftChecker::new(engine.workspace().root()),
            snapshot,
            hook,
            event,
        })
    }

    /// Runs the whole check (the approval, the command's files, their fingerprints and hashes)
    /// and says whether the hook may run.
    pub fn approved(&self) -> bool {
        matches!(
            self.drift
                .check(&self.snapshot.approvals, self.event, &self.hook),
            Verdict::Approved(_)
        )
    }
}

/// A client with the HTTP transport's settings (no proxy, no redirects, the SSRF guard's
/// resolver), with addresses on this machine allowed.
///
/// # Errors
///
/// When the TLS backend cannot be set up.
pub fn transport_client() -> Result<reqwest::Client, String> {
    HttpClient::new(Guard::new(Arc::new(SystemResolver), true)).map(|c| c.reqwest().clone())
}
