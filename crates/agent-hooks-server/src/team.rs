//! Who may use a team service, and for what: the token store (one bearer token per agent or
//! person, kept as a SHA-256 digest with a name and a role) and which role each route needs.
//! The owner's sidecar has one token and one user; a team service has many callers, and an
//! agent that may ask before a tool runs must not be able to approve hooks or reload policy.

use std::collections::HashMap;
use std::io::Read;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::RwLock;

use axum::http::Method;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::owner::{Fingerprint, OwnerError, io, my_uid, private_dir, random_hex, unsafe_path};

/// The token store's file in the state directory, unless `serve --tokens` names another.
pub const TOKENS_FILE: &str = "tokens.json";

/// What a token prefix says: a reader of a log or a leaked paste knows what it found.
const TOKEN_PREFIX: &str = "ahk_";

/// What a caller of a team service may do. An operator may do everything an agent may.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Role {
    /// Dispatch: the agents' routes and `POST /v1/events/{event}`.
    Agent,
    /// Everything else as well: approve, revoke, reload, the hook list, `/hooks` commands,
    /// stats and metrics.
    Operator,
}

impl Role {
    /// `agent` or `operator`.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Agent => "agent",
            Role::Operator => "operator",
        }
    }
}

impl std::str::FromStr for Role {
    type Err = String;

    fn from_str(text: &str) -> Result<Role, String> {
        match text {
            "agent" => Ok(Role::Agent),
            "operator" => Ok(Role::Operator),
            other => Err(format!(
                "unknown role \"{other}\": expected agent (may dispatch) or operator (may also approve, revoke, reload and read the hooks, stats and metrics)"
            )),
        }
    }
}

/// The role a request needs: `None` for `GET /v1/health`, which anyone may ask; the agent
/// role for the dispatch routes; the operator role for every other route, unknown ones
/// included (an agent learns nothing about which routes exist).
pub(crate) fn required_role(method: &Method, path: &str) -> Option<Role> {
    if method == Method::GET && path == "/v1/health" {
        return None;
    }
    let dispatch = method == Method::POST
        && (path
            .strip_prefix("/v1/events/")
            .is_some_and(|event| !event.is_empty() && !event.contains('/'))
            || agent_hooks_dialects::agent::Agent::ALL
                .into_iter()
                .any(|agent| agent.home().has_sidecar_route() && agent.http_route() == path));
    Some(if dispatch {
        Role::Agent
    } else {
        Role::Operator
    })
}

/// One token as the store keeps it: never the token itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenEntry {
    /// Who holds it: an agent, a person, a CI job. Unique in the store.
    pub name: String,
    /// What it may do.
    pub role: Role,
    /// The SHA-256 of the token, as hex digits.
    pub sha256: String,
    /// When it was made, in seconds since the Unix epoch.
    pub created: u64,
}

#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct StoreFile {
    tokens: Vec<TokenEntry>,
}

/// The token store: a file of [`TokenEntry`] lines, private to its owner (0600 in a 0700
/// directory). A running service reads it again at the first request after it changes, so a
/// token added or revoked with `agent-hooks token` takes effect at once on every replica that
/// reads the same file.
#[derive(Debug)]
pub struct TokenStore {
    path: PathBuf,
    current: RwLock<Known>,
}

#[derive(Debug)]
struct Known {
    fingerprint: Option<Fingerprint>,
    by_digest: HashMap<[u8; 32], (String, Role)>,
}

impl TokenStore {
    /// The store at `path`, read now.
    ///
    /// # Errors
    ///
    /// As `read_store`: a file others may read or that is not this user's, or one that is not
    /// a token store.
    pub fn open(path: &Path) -> Result<TokenStore, OwnerError> {
        let (fingerprint, file) = read_store(path)?;
        Ok(TokenStore {
            path: path.to_path_buf(),
            current: RwLock::new(Known::of(fingerprint, &file)),
        })
    }

    /// Where the store is kept.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// How many tokens the store holds now.
    pub fn len(&self) -> usize {
        self.current
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .by_digest
            .len()
    }

    /// Whether the store holds no token.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The name and role of `presented`, if it is a token of the store. The file is looked at
    /// first (one `stat`); a changed one is read again, and one that went missing or turned
    /// unsafe leaves the last good store in force, and says so. The lookup is by the token's
    /// digest: a token is 32 random bytes, so the timing of a map lookup on its digest tells an
    /// attacker nothing about any token.
    pub(crate) fn identify(&self, presented: &[u8]) -> Option<(String, Role)> {
        self.identify_digest(&Sha256::digest(presented).into())
    }

    /// [`TokenStore::identify`] by the token's SHA-256, which is what a console session keeps
    /// of the token it signed in with.
    pub(crate) fn identify_digest(&self, digest: &[u8; 32]) -> Option<(String, Role)> {
        let now = std::fs::symlink_metadata(&self.path)
            .ok()
            .map(|m| Fingerprint::of(&m));
        let stale = self
            .current
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .fingerprint
            != now;
        if stale {
            match read_store(&self.path) {
                Ok((fingerprint, file)) => {
                    *self.current.write().unwrap_or_else(|p| p.into_inner()) =
                        Known::of(fingerprint, &file);
                }
                Err(e) => tracing::warn!("{e}; the service keeps the tokens it read before"),
            }
        }
        self.current
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .by_digest
            .get(digest)
            .cloned()
    }
}

impl Known {
    fn of(fingerprint: Option<Fingerprint>, file: &StoreFile) -> Known {
        let by_digest = file
            .tokens
            .iter()
            .filter_map(|entry| {
                let digest = hex32(&entry.sha256)?;
                Some((digest, (entry.name.clone(), entry.role)))
            })
            .collect();
        Known {
            fingerprint,
            by_digest,
        }
    }
}

fn hex32(text: &str) -> Option<[u8; 32]> {
    if text.len() != 64 {
        return None;
    }
    let mut out = [0u8; 32];
    for (i, byte) in out.iter_mut().enumerate() {
        *byte = u8::from_str_radix(text.get(2 * i..2 * i + 2)?, 16).ok()?;
    }
    Some(out)
}

/// The default token store: [`TOKENS_FILE`] in the state directory.
///
/// # Errors
///
/// [`OwnerError::NoStateDir`] when there is no state directory.
pub fn default_tokens() -> Result<PathBuf, OwnerError> {
    Ok(crate::owner::state_dir()?.join(TOKENS_FILE))
}

/// Reads the store at `path`; a missing file is an empty store. Refuses a file that is not a
/// regular file of this user's or that others may read: digests of 32 random bytes cannot be
/// turned back into tokens, but the names and roles are the team's to keep.
fn read_store(path: &Path) -> Result<(Option<Fingerprint>, StoreFile), OwnerError> {
    let mut file = match std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(nix::fcntl::OFlag::O_NOFOLLOW.bits())
        .open(path)
    {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok((None, StoreFile::default()));
        }
        Err(e) => return Err(io("open", path)(e)),
    };
    let meta = file.metadata().map_err(io("read", path))?;
    let shown = path.display();
    if !meta.is_file() || meta.uid() != my_uid() || meta.mode() & 0o077 != 0 {
        return Err(unsafe_path(
            path,
            format!(
                "the token store must be a regular file of yours that no one else may read or write (it is uid {}, mode {:04o}); run: chown \"$(id -u)\" {shown} && chmod 600 {shown}",
                meta.uid(),
                meta.mode() & 0o7777
            ),
        ));
    }
    let mut text = String::new();
    file.read_to_string(&mut text).map_err(io("read", path))?;
    if text.trim().is_empty() {
        return Ok((Some(Fingerprint::of(&meta)), StoreFile::default()));
    }
    let store: StoreFile = serde_json::from_str(&text).map_err(|e| {
        unsafe_path(
            path,
            format!(
                "it is not a token store ({e}); manage it with `agent-hooks token add|list|revoke`"
            ),
        )
    })?;
    if let Some(bad) = store.tokens.iter().find(|t| hex32(&t.sha256).is_none()) {
        return Err(unsafe_path(
            path,
            format!(
                "the token of \"{}\" is not a SHA-256 (64 hex digits); revoke it and add it again",
                bad.name
            ),
        ));
    }
    Ok((Some(Fingerprint::of(&meta)), store))
}

/// Rewrites the store at `path` after `change`, under an exclusive lock so two `agent-hooks
/// token` commands at once do not lose each other's change.
fn update<T>(
    path: &Path,
    change: impl FnOnce(&mut StoreFile) -> Result<T, OwnerError>,
) -> Result<T, OwnerError> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    private_dir(dir)?;
    let lock_path = dir.join(format!(
        ".{}.lock",
        path.file_name()
            .map_or_else(|| "tokens".into(), |n| n.to_string_lossy())
    ));
    let lock = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .open(&lock_path)
        .map_err(io("create", &lock_path))?;
    let _held = nix::fcntl::Flock::lock(lock, nix::fcntl::FlockArg::LockExclusive)
        .map_err(|(_, e)| io("lock", &lock_path)(std::io::Error::from(e)))?;
    let (_, mut store) = read_store(path)?;
    let out = change(&mut store)?;
    let mut text = serde_json::to_string_pretty(&store)
        .map_err(|e| io("write", path)(std::io::Error::other(e)))?;
    text.push('\n');
    crate::owner::write_private(dir, path, text.as_bytes(), true)?;
    Ok(out)
}

/// Adds a token for `name` with `role` to the store at `path` (made private when missing) and
/// returns the token: the only time it is ever shown, since the store keeps its digest.
///
/// # Errors
///
/// [`OwnerError::Unsafe`] when `name` is taken or not a plain name, or the store is unsafe;
/// [`OwnerError::Io`] when it cannot be written.
pub fn add_token(path: &Path, name: &str, role: Role) -> Result<String, OwnerError> {
    let plain = !name.is_empty()
        && name.len() <= 128
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '@'));
    if !plain {
        return Err(unsafe_path(
            path,
            format!(
                "\"{name}\" is not a token name: use 1 to 128 letters, digits and - _ . @ (an agent, a person, a CI job)"
            ),
        ));
    }
    update(path, |store| {
        if store.tokens.iter().any(|t| t.name == name) {
            return Err(unsafe_path(
                path,
                format!(
                    "a token named \"{name}\" exists; revoke it first (agent-hooks token revoke {name}) to replace it"
                ),
            ));
        }
        let token = format!("{TOKEN_PREFIX}{}", random_hex(path)?);
        let digest = Sha256::digest(token.as_bytes());
        let created = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        store.tokens.push(TokenEntry {
            name: name.to_owned(),
            role,
            sha256: digest.iter().map(|b| format!("{b:02x}")).collect(),
            created,
        });
        Ok(token)
    })
}

/// The tokens of the store at `path` (a missing store holds none).
///
/// # Errors
///
/// As [`TokenStore::open`].
pub fn list_tokens(path: &Path) -> Result<Vec<TokenEntry>, OwnerError> {
    Ok(read_store(path)?.1.tokens)
}

/// Removes the token named `name`; whether there was one.
///
/// # Errors
///
/// As [`add_token`].
pub fn revoke_token(path: &Path, name: &str) -> Result<bool, OwnerError> {
    update(path, |store| {
        let before = store.tokens.len();
        store.tokens.retain(|t| t.name != name);
        Ok(store.tokens.len() != before)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn a_token_is_shown_once_kept_as_a_digest_and_revoked_at_once() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o700))
            .expect("chmod");
        let path = dir.path().join(TOKENS_FILE);
        let token = add_token(&path, "ci-bot", Role::Agent).expect("a token");
        assert!(
            token.starts_with(TOKEN_PREFIX) && token.len() == 68,
            "{token}"
        );
        let text = std::fs::read_to_string(&path).expect("the store");
        assert!(!text.contains(&token[TOKEN_PREFIX.len()..]), "{text}");
        assert_eq!(
            std::fs::metadata(&path).expect("stat").mode() & 0o777,
            0o600
        );
        let store = TokenStore::open(&path).expect("the store");
        assert_eq!(
            store.identify(token.as_bytes()),
            Some(("ci-bot".into(), Role::Agent))
        );
        assert_eq!(store.identify(&token.as_bytes()[1..]), None);
        let err = add_token(&path, "ci-bot", Role::Operator).expect_err("a taken name");
        assert!(err.to_string().contains("exists"), "{err}");
        assert!(add_token(&path, "two words", Role::Agent).is_err());
        assert!(revoke_token(&path, "ci-bot").expect("revoked"));
        assert!(!revoke_token(&path, "ci-bot").expect("nothing left"));
        assert_eq!(store.identify(token.as_bytes()), None);
    }

    #[test]
    fn each_route_needs_its_role() {
        assert_eq!(required_role(&Method::GET, "/v1/health"), None);
        for path in ["/v1/events/pre_tool_call", "/v1/hooks/claude-code"] {
            assert_eq!(
                required_role(&Method::POST, path),
                Some(Role::Agent),
                "{path}"
            );
        }
        for (method, path) in [
            (Method::GET, "/v1/events/pre_tool_call"),
            (Method::POST, "/v1/reload"),
            (Method::POST, "/internal/runtime/hooks/approve"),
            (Method::GET, "/v1/hooks"),
            (Method::GET, "/metrics"),
            (Method::GET, "/no/such/route"),
            (Method::POST, "/v1/events/a/b"),
        ] {
            assert_eq!(
                required_role(&method, path),
                Some(Role::Operator),
                "{method} {path}"
            );
        }
    }
}
