//! Pending asks routed to a console: each waits in the state store for one answer, so that a
//! restarted sidecar (or another replica) still lists it and the waiting process still gets it.
//! Files in a directory of the runtime's own by default; Redis keys with `serve --state`.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{REDIS_TIMEOUT, SHARED, Shared};

/// How long an answered ask is kept after its deadline, so that a late second answer is told
/// who answered first rather than that the ask is unknown.
pub const KEEP_ANSWERED: Duration = Duration::from_secs(3600);

/// How long past its deadline an unanswered ask is still listed: its waiter answers it with
/// the timeout at the deadline, so one still unanswered after this lost its waiter (a killed
/// agent) and has no one left to answer.
const ORPHANED_AFTER: f64 = 10.0;

/// Puts a pending ask: its record, and its id in the index by deadline; drops from the index
/// the asks whose keeping time ended (their keys expire by themselves).
const PUT: &str = r"
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[4])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[5])
redis.call('PUBLISH', KEYS[3], ARGV[4])
return 1
";

/// Answers once: `{1, ""}` when this answer is the one, `{0, first answer}` when another came
/// first, `{-1, ""}` when no such ask is kept. The waiter is woken through the signal list.
const ANSWER: &str = r"
if redis.call('EXISTS', KEYS[1]) == 0 then
  return {-1, ''}
end
if redis.call('SET', KEYS[2], ARGV[1], 'NX', 'EX', ARGV[2]) then
  redis.call('RPUSH', KEYS[3], ARGV[1])
  redis.call('EXPIRE', KEYS[3], ARGV[2])
  redis.call('PUBLISH', KEYS[4], ARGV[3])
  return {1, ''}
end
return {0, redis.call('GET', KEYS[2]) or ''}
";

/// One tool call waiting for an operator.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PendingAsk {
    /// 32 hex digits, unguessable: the console answers by it.
    pub id: String,
    /// When it was asked, in seconds since the epoch.
    pub time: f64,
    /// When its timeout ends, in seconds since the epoch.
    pub deadline: f64,
    /// The agent that made the call, when the payload names it.
    pub agent: Option<String>,
    /// The agent's session.
    pub session: Option<String>,
    /// The event, by its canonical name.
    pub event: String,
    /// The tool called.
    pub tool: Option<String>,
    /// The tool's input, as the hooks saw it last.
    pub tool_input: Option<Value>,
    /// The hooks that asked.
    pub hooks: Vec<String>,
    /// Why they asked.
    pub reason: Option<String>,
}

/// What answers an ask.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AskDecision {
    /// The call goes on.
    Allow,
    /// The call is denied.
    Deny,
    /// The agent's own prompt asks (only a timeout answers this).
    Ask,
}

/// The one answer an ask gets: an operator's, or its timeout's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AskAnswer {
    /// What was decided.
    pub decision: AskDecision,
    /// The operator's note (empty when none was written), or what the timeout says.
    pub note: String,
    /// `operator`, or `on_timeout`.
    pub by: String,
    /// When, in seconds since the epoch.
    pub time: f64,
}

/// How an attempt to answer came out.
#[derive(Debug, Clone, PartialEq)]
pub enum Answered {
    /// This answer is the ask's answer.
    Now,
    /// Another answer came first; it stands.
    Already(AskAnswer),
    /// No such ask is kept (never made, or expired).
    Unknown,
}

/// Where the pending asks of one workspace are kept.
#[derive(Debug, Clone)]
pub struct AskStore {
    place: Place,
}

#[derive(Debug, Clone)]
enum Place {
    Dir(PathBuf),
    Redis(&'static Shared, String),
}

/// Seconds since the epoch.
pub fn epoch_secs(time: SystemTime) -> f64 {
    time.duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

/// A fresh ask id: 32 hex digits from the operating system's random source.
///
/// # Errors
///
/// When the random source fails.
pub fn new_id() -> Result<String, String> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|e| format!("the random source failed: {e}"))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// An id as [`new_id`] makes them; anything else (a path, say) names no ask.
fn valid_id(id: &str) -> bool {
    id.len() == 32 && id.bytes().all(|b| b.is_ascii_hexdigit())
}

impl AskStore {
    /// The asks kept in `dir` (files), or under `name` in the shared store when `serve --state`
    /// chose one: the same name on every replica.
    pub fn open(name: &str, dir: &Path) -> AskStore {
        let place = match SHARED.get() {
            None => Place::Dir(dir.to_path_buf()),
            Some(shared) => Place::Redis(shared, format!("agent-hooks:{name}")),
        };
        AskStore { place }
    }

    /// Keeps `ask` as pending.
    ///
    /// # Errors
    ///
    /// When the store cannot be written.
    pub fn put(&self, ask: &PendingAsk) -> Result<(), String> {
        if !valid_id(&ask.id) {
            return Err(format!("\"{}\" is not an ask id", ask.id));
        }
        let text = serde_json::to_string(ask).map_err(|e| e.to_string())?;
        let keep = keep_secs(ask);
        match &self.place {
            Place::Dir(dir) => {
                create_private(dir).map_err(|e| unwritable(dir, &e))?;
                // Asks are rare: each new one sweeps out those past their keeping time.
                let _ = dir_pending(dir, epoch_secs(SystemTime::now()));
                agent_hooks_core::store::write_atomic(
                    &dir.join(format!("{}.json", ask.id)),
                    text.as_bytes(),
                )
                .map_err(|e| unwritable(dir, &e))
            }
            Place::Redis(shared, prefix) => {
                let script = redis::Script::new(PUT);
                let expired = epoch_secs(SystemTime::now()) - KEEP_ANSWERED.as_secs_f64();
                shared
                    .with(|con| {
                        script
                            .key(format!("{prefix}:{}", ask.id))
                            .key(format!("{prefix}:index"))
                            .key(format!("{prefix}:changes"))
                            .arg(&text)
                            .arg(keep)
                            .arg(ask.deadline)
                            .arg(&ask.id)
                            .arg(expired)
                            .invoke::<i64>(con)
                    })
                    .map(drop)
            }
        }
    }

    /// The asks still waiting for an answer, oldest first. Asks whose keeping time ended are
    /// removed on the way.
    ///
    /// # Errors
    ///
    /// When the store cannot be read.
    pub fn pending(&self) -> Result<Vec<PendingAsk>, String> {
        let now = epoch_secs(SystemTime::now());
        let mut asks = match &self.place {
            Place::Dir(dir) => dir_pending(dir, now)?,
            Place::Redis(shared, prefix) => shared.with(|con| {
                let ids: Vec<String> = redis::cmd("ZRANGE")
                    .arg(format!("{prefix}:index"))
                    .arg(0)
                    .arg(-1)
                    .query(con)?;
                let mut asks = Vec::new();
                for id in ids {
                    let (record, answer): (Option<String>, Option<String>) = redis::pipe()
                        .get(format!("{prefix}:{id}"))
                        .get(format!("{prefix}:{id}:answer"))
                        .query(con)?;
                    if answer.is_some() {
                        continue;
                    }
                    if let Some(ask) =
                        record.and_then(|r| serde_json::from_str::<PendingAsk>(&r).ok())
                        && ask.deadline + ORPHANED_AFTER >= now
                    {
                        asks.push(ask);
                    }
                }
                Ok(asks)
            })?,
        };
        asks.sort_by(|a: &PendingAsk, b| a.time.total_cmp(&b.time));
        Ok(asks)
    }

    /// Gives ask `id` its answer, exactly once: a second answer is refused with the first.
    ///
    /// # Errors
    ///
    /// When the store cannot be read or written.
    pub fn answer(&self, id: &str, answer: &AskAnswer) -> Result<Answered, String> {
        if !valid_id(id) {
            return Ok(Answered::Unknown);
        }
        let text = serde_json::to_string(answer).map_err(|e| e.to_string())?;
        match &self.place {
            Place::Dir(dir) => dir_answer(dir, id, &text),
            Place::Redis(shared, prefix) => {
                let script = redis::Script::new(ANSWER);
                let keep = KEEP_ANSWERED.as_secs();
                let (won, first): (i64, String) = shared.with(|con| {
                    script
                        .key(format!("{prefix}:{id}"))
                        .key(format!("{prefix}:{id}:answer"))
                        .key(format!("{prefix}:{id}:signal"))
                        .key(format!("{prefix}:changes"))
                        .arg(&text)
                        .arg(keep)
                        .arg(id)
                        .invoke(con)
                })?;
                match won {
                    1 => Ok(Answered::Now),
                    0 => {
                        Ok(serde_json::from_str(&first)
                            .map_or(Answered::Unknown, Answered::Already))
                    }
                    _ => Ok(Answered::Unknown),
                }
            }
        }
    }

    /// Waits up to `timeout` for ask `id`'s answer: woken by the store (inotify on the file
    /// store's directory, a blocking pop in Redis), not by polling. `None` when none came.
    ///
    /// # Errors
    ///
    /// When the store cannot be watched or read.
    pub fn wait(&self, id: &str, timeout: Duration) -> Result<Option<AskAnswer>, String> {
        match &self.place {
            Place::Dir(dir) => dir_wait(dir, id, timeout),
            Place::Redis(shared, prefix) => {
                let con = shared
                    .client
                    .get_connection_with_timeout(REDIS_TIMEOUT)
                    .map_err(|e| shared.unreachable(&e))?;
                // The pop itself blocks for the whole timeout: the connection waits a little
                // longer than it, so that the store's own "nothing came" is what ends it.
                con.set_read_timeout(Some(timeout + REDIS_TIMEOUT))
                    .map_err(|e| shared.unreachable(&e))?;
                let mut con = con;
                let popped: Option<(String, String)> = redis::cmd("BLPOP")
                    .arg(format!("{prefix}:{id}:signal"))
                    .arg(timeout.as_secs_f64().max(0.001))
                    .query(&mut con)
                    .map_err(|e| shared.unreachable(&e))?;
                Ok(popped.and_then(|(_, text)| serde_json::from_str(&text).ok()))
            }
        }
    }
}

impl AskStore {
    /// Calls `changed` whenever an ask is put or answered, by any process or replica, until
    /// the returned [`AskWatch`] is dropped: inotify on the file store's directory, a
    /// subscription in Redis (each put and answer publishes).
    ///
    /// # Errors
    ///
    /// When the store cannot be watched.
    pub fn watch(&self, changed: impl Fn() + Send + 'static) -> Result<AskWatch, String> {
        match &self.place {
            Place::Dir(dir) => {
                use notify::Watcher as _;
                create_private(dir).map_err(|e| unwritable(dir, &e))?;
                let mut watcher =
                    notify::recommended_watcher(move |_: notify::Result<notify::Event>| changed())
                        .map_err(|e| format!("cannot watch {}: {e}", dir.display()))?;
                watcher
                    .watch(dir, notify::RecursiveMode::NonRecursive)
                    .map_err(|e| format!("cannot watch {}: {e}", dir.display()))?;
                Ok(AskWatch {
                    _watcher: Some(watcher),
                    stop: None,
                })
            }
            Place::Redis(shared, prefix) => {
                let mut con = shared
                    .client
                    .get_connection_with_timeout(REDIS_TIMEOUT)
                    .map_err(|e| shared.unreachable(&e))?;
                let channel = format!("{prefix}:changes");
                let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
                let stopped = stop.clone();
                let (subscribed_tx, subscribed) = std::sync::mpsc::channel();
                // One pub/sub handle for the watch's life: dropping one unsubscribes.
                std::thread::Builder::new()
                    .name("ask-watch".into())
                    .spawn(move || {
                        let mut pubsub = con.as_pubsub();
                        let started = pubsub
                            .subscribe(&channel)
                            .and_then(|()| pubsub.set_read_timeout(Some(REDIS_TIMEOUT)));
                        let ok = started.is_ok();
                        let _ = subscribed_tx.send(started);
                        // The read times out now and then only to notice that the watch ended.
                        while ok && !stopped.load(std::sync::atomic::Ordering::Relaxed) {
                            match pubsub.get_message() {
                                Ok(_) => changed(),
                                Err(e) if e.is_timeout() => {}
                                Err(e) => {
                                    tracing::warn!("the watch on pending asks ended: {e}");
                                    break;
                                }
                            }
                        }
                    })
                    .map_err(|e| format!("cannot start the watch on pending asks: {e}"))?;
                match subscribed.recv() {
                    Ok(Ok(())) => {}
                    Ok(Err(e)) => return Err(shared.unreachable(&e)),
                    Err(_) => return Err("the watch on pending asks ended".to_owned()),
                }
                Ok(AskWatch {
                    _watcher: None,
                    stop: Some(stop),
                })
            }
        }
    }
}

/// A watch on pending asks; dropping it ends it.
#[derive(Debug)]
pub struct AskWatch {
    _watcher: Option<notify::RecommendedWatcher>,
    stop: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
}

impl Drop for AskWatch {
    fn drop(&mut self) {
        if let Some(stop) = &self.stop {
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
        }
    }
}

/// How long a record is kept: its timeout, and then long enough to refuse a second answer.
fn keep_secs(ask: &PendingAsk) -> u64 {
    let left = (ask.deadline - ask.time).max(0.0);
    // Whole seconds, rounded up: a store keeps nothing for a fraction.
    #[expect(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        reason = "a timeout of a few minutes, never negative"
    )]
    let left = left.ceil() as u64;
    left + KEEP_ANSWERED.as_secs()
}

fn unwritable(dir: &Path, e: &std::io::Error) -> String {
    format!(
        "the pending asks in {} cannot be written: {e}",
        dir.display()
    )
}

fn create_private(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
}

/// Every record of `dir` without an answer; records (and answers) past their keeping time are
/// removed.
fn dir_pending(dir: &Path, now: f64) -> Result<Vec<PendingAsk>, String> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => {
            return Err(format!(
                "the pending asks in {} cannot be read: {e}",
                dir.display()
            ));
        }
    };
    let mut asks = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        let Some(id) = path
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_suffix(".json"))
            .filter(|id| valid_id(id))
        else {
            continue;
        };
        let Ok(Some(text)) = agent_hooks_core::store::read_optional(&path) else {
            continue;
        };
        let Ok(ask) = serde_json::from_str::<PendingAsk>(&text) else {
            continue;
        };
        let answer = dir.join(format!("{id}.answer"));
        if ask.deadline + KEEP_ANSWERED.as_secs_f64() < now {
            let _ = std::fs::remove_file(&answer);
            let _ = std::fs::remove_file(&path);
            continue;
        }
        if !answer.exists() && ask.deadline + ORPHANED_AFTER >= now {
            asks.push(ask);
        }
    }
    Ok(asks)
}

/// The answer file is written only under the directory's lock and only when absent, so two
/// answers (two browsers, an operator and the timeout) cannot both win.
fn dir_answer(dir: &Path, id: &str, text: &str) -> Result<Answered, String> {
    let record = dir.join(format!("{id}.json"));
    let answer = dir.join(format!("{id}.answer"));
    if !record.exists() {
        return Ok(Answered::Unknown);
    }
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(dir.join(".lock"))
        .map_err(|e| unwritable(dir, &e))?;
    lock.lock().map_err(|e| unwritable(dir, &e))?;
    let done = match agent_hooks_core::store::read_optional(&answer) {
        Ok(Some(first)) => {
            Ok(serde_json::from_str(&first).map_or(Answered::Unknown, Answered::Already))
        }
        Ok(None) => agent_hooks_core::store::write_atomic(&answer, text.as_bytes())
            .map(|()| Answered::Now)
            .map_err(|e| unwritable(dir, &e)),
        Err(e) => Err(unwritable(dir, &e)),
    };
    let _ = lock.unlock();
    done
}

/// Watches `dir` for the answer file of `id`; the watch starts before the first look, so an
/// answer written in between is not missed.
fn dir_wait(dir: &Path, id: &str, timeout: Duration) -> Result<Option<AskAnswer>, String> {
    use notify::Watcher as _;
    let answer = dir.join(format!("{id}.answer"));
    let (tx, rx) = std::sync::mpsc::channel();
    let mut watcher = notify::recommended_watcher(move |_: notify::Result<notify::Event>| {
        let _ = tx.send(());
    })
    .map_err(|e| format!("cannot watch {} for answers: {e}", dir.display()))?;
    watcher
        .watch(dir, notify::RecursiveMode::NonRecursive)
        .map_err(|e| format!("cannot watch {} for answers: {e}", dir.display()))?;
    let deadline = Instant::now() + timeout;
    loop {
        match agent_hooks_core::store::read_optional(&answer) {
            Ok(Some(text)) => {
                return serde_json::from_str(&text).map(Some).map_err(|e| {
                    format!("the answer in {} cannot be read: {e}", answer.display())
                });
            }
            Ok(None) => {}
            Err(e) => {
                return Err(format!(
                    "the answer in {} cannot be read: {e}",
                    answer.display()
                ));
            }
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Ok(None);
        }
        match rx.recv_timeout(left) {
            Ok(()) | Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                return Err(format!("the watch on {} ended", dir.display()));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ask(id: &str, timeout: f64) -> PendingAsk {
        let now = epoch_secs(SystemTime::now());
        PendingAsk {
            id: id.to_owned(),
            time: now,
            deadline: now + timeout,
            agent: Some("claude-code".into()),
            session: Some("s-1".into()),
            event: "pre_tool_call".into(),
            tool: Some("Bash".into()),
            tool_input: Some(serde_json::json!({"command": "git push"})),
            hooks: vec!["pusher".into()],
            reason: Some("pushes need a person".into()),
        }
    }

    fn operator(decision: AskDecision, note: &str) -> AskAnswer {
        AskAnswer {
            decision,
            note: note.into(),
            by: "operator".into(),
            // A time that reads back exactly (JSON numbers are read to the nearest double).
            time: 1_800_000_000.5,
        }
    }

    fn in_dir(dir: &Path) -> AskStore {
        AskStore {
            place: Place::Dir(dir.to_path_buf()),
        }
    }

    #[test]
    fn an_ask_is_answered_exactly_once_and_then_no_longer_pending() {
        let dir = tempfile::tempdir().expect("a directory");
        let store = in_dir(&dir.path().join("asks"));
        let id = new_id().expect("an id");
        store.put(&ask(&id, 60.0)).expect("put");
        assert_eq!(store.pending().expect("list").len(), 1);
        let deny = operator(AskDecision::Deny, "not on Fridays");
        assert_eq!(store.answer(&id, &deny), Ok(Answered::Now));
        assert_eq!(
            store.answer(&id, &operator(AskDecision::Allow, "")),
            Ok(Answered::Already(deny.clone()))
        );
        assert!(store.pending().expect("list").is_empty());
        assert_eq!(store.wait(&id, Duration::ZERO), Ok(Some(deny)));
    }

    #[test]
    fn unknown_and_malformed_ids_name_no_ask() {
        let dir = tempfile::tempdir().expect("a directory");
        let store = in_dir(dir.path());
        let answer = operator(AskDecision::Allow, "");
        assert_eq!(
            store.answer("../../etc/passwd", &answer),
            Ok(Answered::Unknown)
        );
        assert_eq!(
            store.answer(&"0".repeat(32), &answer),
            Ok(Answered::Unknown)
        );
    }

    #[test]
    fn a_waiter_is_woken_by_an_answer_from_another_thread() {
        let dir = tempfile::tempdir().expect("a directory");
        let store = in_dir(&dir.path().join("asks"));
        let id = new_id().expect("an id");
        store.put(&ask(&id, 60.0)).expect("put");
        let answering = {
            let store = store.clone();
            let id = id.clone();
            std::thread::spawn(move || store.answer(&id, &operator(AskDecision::Allow, "fine")))
        };
        let started = Instant::now();
        let answer = store.wait(&id, Duration::from_secs(30)).expect("wait");
        assert_eq!(answer.map(|a| a.note), Some("fine".into()));
        assert!(started.elapsed() < Duration::from_secs(30));
        assert_eq!(answering.join().ok(), Some(Ok(Answered::Now)));
    }

    #[test]
    fn an_ask_whose_waiter_is_gone_is_no_longer_listed_but_still_refuses_a_late_answer() {
        let dir = tempfile::tempdir().expect("a directory");
        let store = in_dir(dir.path());
        let id = new_id().expect("an id");
        let mut orphan = ask(&id, 60.0);
        orphan.time -= 90.0;
        orphan.deadline -= 90.0;
        store.put(&orphan).expect("put");
        assert!(store.pending().expect("list").is_empty());
        let timeout = operator(AskDecision::Deny, "no operator answered");
        assert_eq!(store.answer(&id, &timeout), Ok(Answered::Now));
        assert_eq!(
            store.answer(&id, &operator(AskDecision::Allow, "")),
            Ok(Answered::Already(timeout))
        );
    }

    #[test]
    fn records_past_their_keeping_time_are_removed() {
        let dir = tempfile::tempdir().expect("a directory");
        let store = in_dir(dir.path());
        let id = new_id().expect("an id");
        let mut old = ask(&id, 1.0);
        old.time -= 2.0 * KEEP_ANSWERED.as_secs_f64();
        old.deadline -= 2.0 * KEEP_ANSWERED.as_secs_f64();
        store.put(&old).expect("put");
        assert!(store.pending().expect("list").is_empty());
        assert!(!dir.path().join(format!("{id}.json")).exists());
    }
}
