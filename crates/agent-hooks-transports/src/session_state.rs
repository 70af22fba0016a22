//! Where per-session state lives: the guards' state (edits before a stop, commitments, budgets,
//! audit counters) and a bridge's redo count, all behind the guards' [`StateStore`]. By default
//! as files in the workspace's `state/` ([`DirState`]); with `serve --state redis://…` in Redis
//! (or Valkey), so that replicas of one service share every session ([`RedisState`]).

pub mod asks;

use std::path::Path;
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, SystemTime};

use agent_hooks_guards::{DirState, StateStore};
use serde_json::Value;

/// How long a Redis command may take before the store counts as unreachable.
const REDIS_TIMEOUT: Duration = Duration::from_secs(2);

/// How long a session's lock is held at most: a replica that dies holding it frees the session
/// after this long.
const LOCK_TTL: Duration = Duration::from_secs(10);

/// How long a load waits for another replica to finish with the session before it reads
/// without the lock (as the file store does when it cannot lock).
const LOCK_WAIT: Duration = Duration::from_secs(5);

/// The idle connections kept for later operations.
const MAX_IDLE: usize = 32;

/// Takes the session's lock and reads its value: `{1, value or ""}`, or `{0, ""}` when another
/// holds the lock.
const LOAD: &str = r"
if redis.call('SET', KEYS[2], ARGV[1], 'NX', 'PX', ARGV[2]) then
  return {1, redis.call('GET', KEYS[1]) or ''}
end
return {0, ''}
";

/// Replaces the value (an empty one deletes it) with its time to live, then gives the lock
/// back if it is still this caller's: one step, so no other replica reads half of it.
const SAVE: &str = r"
if ARGV[2] == '' then
  redis.call('DEL', KEYS[1])
else
  redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3])
end
if redis.call('GET', KEYS[2]) == ARGV[1] then
  redis.call('DEL', KEYS[2])
end
return 1
";

/// Gives the lock back if it is still this caller's.
const RELEASE: &str = r"
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
";

/// The shared store this process uses, when one was configured.
static SHARED: OnceLock<Shared> = OnceLock::new();

struct Shared {
    client: redis::Client,
    url: String,
    idle: Mutex<Vec<redis::Connection>>,
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shared")
            .field("url", &self.url)
            .finish_non_exhaustive()
    }
}

/// Keeps every session of this process in Redis at `url` (`redis://[user:pass@]host:port/db`,
/// `rediss://` for TLS) from now on. Called once, before any workspace is loaded.
///
/// # Errors
///
/// When `url` is not a Redis URL, or a shared store was already chosen.
pub fn share_sessions(url: &str) -> Result<(), String> {
    let client = redis::Client::open(url).map_err(|e| {
        format!(
            "--state {}: not a Redis URL ({e}); expected redis://host:port",
            redacted(url)
        )
    })?;
    SHARED
        .set(Shared {
            client,
            url: redacted(url),
            idle: Mutex::new(Vec::new()),
        })
        .map_err(|_| "the session store was already chosen".to_owned())
}

/// Whether the configured shared store answers now (`PING`), for a check at start.
///
/// # Errors
///
/// Why it does not; `Ok` when no shared store is configured.
pub fn check_shared() -> Result<(), String> {
    let Some(shared) = SHARED.get() else {
        return Ok(());
    };
    shared.with(|con| redis::cmd("PING").query::<String>(con).map(drop))
}

/// Where sessions are kept, for messages: `redis://host:port` (without a password) or `files`.
pub fn describe() -> String {
    SHARED
        .get()
        .map_or_else(|| "files".to_owned(), |s| s.url.clone())
}

/// The store of a hook (or a bridge) whose file store is `state_dir`, inside `workspace`. In
/// Redis its keys are named by the directory's place in the workspace, so replicas that serve
/// the same workspace from different paths share them.
pub fn store_for(workspace: &Path, state_dir: &Path) -> Box<dyn StateStore> {
    let place = state_dir.strip_prefix(workspace).unwrap_or(state_dir);
    store_named(&place.display().to_string(), state_dir)
}

/// The store named `name` in Redis (the same name on every replica), kept in `state_dir`
/// when state is local: for state the runtime keeps outside the workspace, whose path differs
/// from one replica to the next.
pub fn store_named(name: &str, state_dir: &Path) -> Box<dyn StateStore> {
    match SHARED.get() {
        None => Box::new(DirState::new(state_dir)),
        Some(shared) => Box::new(RedisState {
            shared,
            prefix: format!("agent-hooks:{name}"),
            held: None,
            failure: None,
        }),
    }
}

/// A password in a URL never reaches a message.
fn redacted(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut parsed) if parsed.password().is_some() => {
            let _ = parsed.set_password(Some("***"));
            parsed.to_string()
        }
        _ => url.to_owned(),
    }
}

impl Shared {
    /// Runs `op` on an idle connection, or a new one; a connection that failed is dropped.
    fn with<T>(
        &self,
        op: impl FnOnce(&mut redis::Connection) -> redis::RedisResult<T>,
    ) -> Result<T, String> {
        let idle = self.idle.lock().unwrap_or_else(|p| p.into_inner()).pop();
        let mut con = match idle {
            Some(con) => con,
            None => {
                let con = self
                    .client
                    .get_connection_with_timeout(REDIS_TIMEOUT)
                    .map_err(|e| self.unreachable(&e))?;
                con.set_read_timeout(Some(REDIS_TIMEOUT))
                    .and_then(|()| con.set_write_timeout(Some(REDIS_TIMEOUT)))
                    .map_err(|e| self.unreachable(&e))?;
                con
            }
        };
        let done = op(&mut con).map_err(|e| self.unreachable(&e))?;
        let mut idle = self.idle.lock().unwrap_or_else(|p| p.into_inner());
        if idle.len() < MAX_IDLE {
            idle.push(con);
        }
        Ok(done)
    }

    fn unreachable(&self, e: &redis::RedisError) -> String {
        format!("the session store {} did not answer: {e}", self.url)
    }
}

/// Sessions in Redis: one key per guard and session holding its JSON value with its time to
/// live, and a lock key beside it taken by [`StateStore::load`] and given back by the save (or
/// [`StateStore::release`]), each step one Lua script, so a read-modify-write of a session is
/// atomic across every replica. A store that cannot be reached reads as no state and says so
/// through [`StateStore::take_failure`], which the caller turns into a lapse.
#[derive(Debug)]
pub struct RedisState {
    shared: &'static Shared,
    prefix: String,
    /// The lock held, and the token that proves it is this store's.
    held: Option<(String, String)>,
    failure: Option<String>,
}

impl RedisState {
    fn keys(&self, guard: &str, session: &str) -> (String, String) {
        let value = format!("{}:{guard}:{session}", self.prefix);
        let lock = format!("{value}:lock");
        (value, lock)
    }

    fn fail(&mut self, why: String) {
        tracing::warn!("{why}");
        self.failure.get_or_insert(why);
    }
}

fn token() -> String {
    let mut bytes = [0u8; 16];
    // A token only tells this holder's lock from another's; the clock suffices if the random
    // source fails.
    if getrandom::fill(&mut bytes).is_err() {
        let nanos = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        bytes = nanos.to_le_bytes();
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

impl StateStore for RedisState {
    fn load(&mut self, guard: &str, session: &str, _now: SystemTime) -> Option<Value> {
        self.release();
        let (key, lock) = self.keys(guard, session);
        let token = token();
        let script = redis::Script::new(LOAD);
        let ttl_ms = u64::try_from(LOCK_TTL.as_millis()).unwrap_or(u64::MAX);
        let deadline = std::time::Instant::now() + LOCK_WAIT;
        let mut pause = Duration::from_millis(1);
        let text = loop {
            let answer: Result<(i64, String), String> = self.shared.with(|con| {
                script
                    .key(&key)
                    .key(&lock)
                    .arg(&token)
                    .arg(ttl_ms)
                    .invoke(con)
            });
            match answer {
                Err(why) => {
                    self.fail(why);
                    return None;
                }
                Ok((1, text)) => {
                    self.held = Some((lock.clone(), token.clone()));
                    break text;
                }
                Ok(_) if std::time::Instant::now() >= deadline => {
                    // Held past the wait: read without it, as the file store does unlocked.
                    match self
                        .shared
                        .with(|con| redis::cmd("GET").arg(&key).query::<Option<String>>(con))
                    {
                        Ok(text) => break text.unwrap_or_default(),
                        Err(why) => {
                            self.fail(why);
                            return None;
                        }
                    }
                }
                Ok(_) => {
                    std::thread::sleep(pause);
                    pause = (pause * 2).min(Duration::from_millis(20));
                }
            }
        };
        if text.is_empty() {
            return None;
        }
        serde_json::from_str(&text).ok()
    }

    fn save(
        &mut self,
        guard: &str,
        session: &str,
        value: &Value,
        ttl: Duration,
        _now: SystemTime,
    ) -> std::io::Result<()> {
        let (key, lock) = self.keys(guard, session);
        let token = self.held.take().map(|(_, t)| t).unwrap_or_default();
        let text = if value.is_null() {
            String::new()
        } else {
            value.to_string()
        };
        let script = redis::Script::new(SAVE);
        let saved = self.shared.with(|con| {
            script
                .key(&key)
                .key(&lock)
                .arg(&token)
                .arg(&text)
                .arg(ttl.as_secs().max(1))
                .invoke::<i64>(con)
        });
        match saved {
            Ok(_) => Ok(()),
            Err(why) => {
                self.fail(why.clone());
                Err(std::io::Error::other(why))
            }
        }
    }

    fn release(&mut self) {
        if let Some((lock, token)) = self.held.take() {
            let script = redis::Script::new(RELEASE);
            if let Err(why) = self
                .shared
                .with(|con| script.key(&lock).arg(&token).invoke::<i64>(con))
            {
                self.fail(why);
            }
        }
    }

    fn take_failure(&mut self) -> Option<String> {
        self.failure.take()
    }
}
