//! `serve --policy <bundle|dir>`: the service's workspace is a signed bundle. Each version is
//! verified whole, unpacked into a fresh directory and loaded into an engine of its own before
//! it is swapped in, in one step; dispatches already running finish on the engine they began
//! with. A version that fails verification is refused, naming the file, and the one in force
//! stays. A signed bundle is approved as a whole: every hook it declares runs.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use agent_hooks_runtime::{Engine, Workspace};
use ed25519_dalek::VerifyingKey;
use sha2::{Digest, Sha256};

use crate::bundle::{self, BundleError, MANIFEST, SIGNATURES};

/// How often the bundle is looked at: a new version is in force within about this long plus
/// the time to verify and load it.
const POLL: Duration = Duration::from_millis(500);

/// How many unpacked versions are kept: the one in force, and the one before it, which
/// dispatches that began on it may still be reading.
const KEEP: usize = 2;

/// The engine every route dispatches through, replaced whole when a new policy is in force.
pub(crate) type Slot = Arc<RwLock<Arc<Engine>>>;

/// A signed policy, followed as it changes.
#[derive(Debug)]
pub struct Policy {
    source: PathBuf,
    keys: Vec<VerifyingKey>,
    base: PathBuf,
    seen: Mutex<Seen>,
}

#[derive(Debug, Default)]
struct Seen {
    /// What the source looked like at the last attempt.
    mark: Option<Vec<u8>>,
    /// Whether that attempt succeeded.
    applied: bool,
    /// The manifest digest in force.
    digest: String,
    /// The unpacked versions, oldest first.
    unpacked: Vec<PathBuf>,
}

impl Policy {
    /// Verifies the policy at `source` (a `.tar.zst` bundle or a directory holding an unpacked
    /// one) against `keys`, unpacks it under `base` (made private; `state/` and `logs/` there
    /// are kept across versions) and loads it.
    ///
    /// # Errors
    ///
    /// The first problem, naming the file: no trusted signature, a changed, missing or extra
    /// file, or a directory that cannot be written.
    pub fn open(
        source: &Path,
        keys: Vec<VerifyingKey>,
        base: &Path,
    ) -> Result<(Policy, Arc<Engine>), BundleError> {
        crate::owner::private_dir(base).map_err(|e| bundle_io(base, e))?;
        let policy = Policy {
            source: source.to_path_buf(),
            keys,
            base: base.to_path_buf(),
            seen: Mutex::new(Seen::default()),
        };
        let engine = match policy.next() {
            Some(Ok(engine)) => engine,
            Some(Err(e)) => return Err(e),
            None => return Err(bundle_io(source, "nothing to load")),
        };
        Ok((policy, engine))
    }

    /// Where the policy comes from.
    pub fn source(&self) -> &Path {
        &self.source
    }

    /// The manifest digest of the version in force.
    pub fn digest(&self) -> String {
        self.seen
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .digest
            .clone()
    }

    /// A mark that changes when the source does: a file's identity and times; a directory's
    /// manifest and signatures.
    fn mark(&self) -> Option<Vec<u8>> {
        if self.source.is_dir() {
            let mut hash = Sha256::new();
            hash.update(std::fs::read(self.source.join(MANIFEST)).ok()?);
            hash.update(std::fs::read(self.source.join(SIGNATURES)).unwrap_or_default());
            Some(hash.finalize().to_vec())
        } else {
            use std::os::unix::fs::MetadataExt;
            let meta = std::fs::metadata(&self.source).ok()?;
            let mark = [
                meta.dev(),
                meta.ino(),
                meta.size(),
                meta.mtime() as u64,
                meta.mtime_nsec() as u64,
            ];
            Some(mark.iter().flat_map(|n| n.to_le_bytes()).collect())
        }
    }

    /// The engine of a new version, if the source changed into one: verified, unpacked, loaded.
    /// A directory whose last look failed is looked at again (a checkout may be half done); a
    /// bundle file only when it changes.
    fn next(&self) -> Option<Result<Arc<Engine>, BundleError>> {
        let mark = self.mark();
        {
            let seen = self.seen.lock().unwrap_or_else(|p| p.into_inner());
            if seen.mark.is_some() && seen.mark == mark && (seen.applied || !self.source.is_dir()) {
                return None;
            }
        }
        let attempt = self.load();
        let mut seen = self.seen.lock().unwrap_or_else(|p| p.into_inner());
        seen.mark = mark;
        match attempt {
            Ok(None) => {
                seen.applied = true;
                None
            }
            Ok(Some((digest, dir, engine))) => {
                seen.applied = true;
                seen.digest = digest;
                seen.unpacked.push(dir);
                while seen.unpacked.len() > KEEP {
                    let old = seen.unpacked.remove(0);
                    let _ = std::fs::remove_dir_all(&old);
                }
                Some(Ok(engine))
            }
            Err(e) => {
                seen.applied = false;
                Some(Err(e))
            }
        }
    }

    /// Verifies and, when it is a new version, unpacks and loads it.
    #[allow(clippy::type_complexity)]
    fn load(&self) -> Result<Option<(String, PathBuf, Arc<Engine>)>, BundleError> {
        let verified = bundle::verify(&self.source, &self.keys)?;
        if verified.digest == self.digest() {
            return Ok(None);
        }
        let stamp = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let dir = self
            .base
            .join(format!("v-{}-{stamp}", &verified.digest[..16]));
        verified.unpack(&dir)?;
        // Sessions and logs outlive a version: each version's state/ and logs/ are the base's.
        for shared in ["state", "logs"] {
            let kept = self.base.join(shared);
            std::fs::create_dir_all(&kept).map_err(|e| bundle_io(&kept, e))?;
            std::os::unix::fs::symlink(&kept, dir.join(shared))
                .map_err(|e| bundle_io(dir.join(shared), e))?;
        }
        let engine = Arc::new(Engine::open(Workspace::new(&dir)));
        // A signed bundle is approved as a whole: the signature covers every byte of every
        // hook, so each hook it declares is approved here, pinned to the verified copy.
        let keys: Vec<String> = engine
            .snapshot()
            .approval_keys()
            .map(str::to_owned)
            .collect();
        for key in keys {
            engine.approve(None, &key).map_err(|e| {
                bundle_io(
                    &dir,
                    format!("cannot approve {key} in the unpacked copy: {e}"),
                )
            })?;
        }
        tracing::info!(
            "policy {} in force: {} files, manifest {}, signed by {}",
            self.source.display(),
            verified.len(),
            &verified.digest[..16],
            &verified.signer[..16]
        );
        Ok(Some((verified.digest.clone(), dir, engine)))
    }
}

fn bundle_io(place: impl AsRef<Path>, why: impl std::fmt::Display) -> BundleError {
    // The same error type as the bundle's, so every message names its file the same way.
    bundle::error(place, why)
}

/// Follows `policy` until `stop`: each new version that verifies replaces the engine in `slot`
/// in one step; one that does not is refused with the file named, and the version in force
/// stays.
pub(crate) async fn follow(
    policy: Arc<Policy>,
    slot: Slot,
    mut stop: tokio::sync::watch::Receiver<bool>,
) {
    let mut tick = tokio::time::interval(POLL);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    // A directory that stays broken is looked at each time; its refusal is said once.
    let mut refused: Option<String> = None;
    loop {
        tokio::select! {
            _ = tick.tick() => {}
            _ = stop.wait_for(|s| *s) => return,
        }
        let looked = {
            let policy = policy.clone();
            tokio::task::spawn_blocking(move || policy.next()).await
        };
        match looked {
            Ok(Some(Ok(engine))) => {
                *slot.write().unwrap_or_else(|p| p.into_inner()) = engine;
                refused = None;
            }
            Ok(Some(Err(e))) => {
                let why = e.to_string();
                if refused.as_ref() != Some(&why) {
                    tracing::warn!(
                        "refused a new version of the policy: {why}; the version in force ({}) stays",
                        policy.digest().get(..16).unwrap_or("?")
                    );
                    refused = Some(why);
                }
            }
            Ok(None) | Err(_) => {}
        }
    }
}
