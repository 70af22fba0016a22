//! What a guard may use besides the payload: the workspace, per-session state that spans
//! events, a clock, and an optional credit-balance lookup. Hosts build one `GuardContext`
//! per guard instance; tests inject the clock and an in-memory or temporary-directory store.

use std::collections::HashMap;
use std::fmt;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::Value;

/// Per-session state that outlives one event (pending edits, block counters, ...).
///
/// Keys are (guard name, session id); each value carries its own time to live and is
/// gone once it has expired. Implementations must not panic; a failed write is reported
/// and the guard then behaves as if nothing had been recorded (fail-open).
pub trait StateStore: fmt::Debug + Send {
    /// The value saved for this guard and session, unless absent or expired.
    fn load(&mut self, guard: &str, session: &str, now: SystemTime) -> Option<Value>;
    /// Replaces the value for this guard and session; it expires `ttl` after `now`.
    fn save(
        &mut self,
        guard: &str,
        session: &str,
        value: &Value,
        ttl: Duration,
        now: SystemTime,
    ) -> std::io::Result<()>;
    /// Ends the read-modify-write begun by [`load`](StateStore::load) without a save; the
    /// guard's evaluation is over. A store that holds no lock has nothing to do.
    fn release(&mut self) {}
    /// Why a load or save since the last call could not reach the store (a shared store that
    /// is down), taken once: the caller tells the user the state may be missing (a lapse),
    /// rather than let the guard's fail-open reading pass silently. Local stores never fail so.
    fn take_failure(&mut self) -> Option<String> {
        None
    }
}

/// State kept in this process, for guards run in-process (`type: builtin`).
#[derive(Debug, Default)]
pub struct MemoryState {
    entries: HashMap<(String, String), (Value, SystemTime)>,
}

impl MemoryState {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }
}

impl StateStore for MemoryState {
    fn load(&mut self, guard: &str, session: &str, now: SystemTime) -> Option<Value> {
        let key = (guard.to_owned(), session.to_owned());
        match self.entries.get(&key) {
            Some((value, expires)) if *expires > now => Some(value.clone()),
            Some(_) => {
                self.entries.remove(&key);
                None
            }
            None => None,
        }
    }

    fn save(
        &mut self,
        guard: &str,
        session: &str,
        value: &Value,
        ttl: Duration,
        now: SystemTime,
    ) -> std::io::Result<()> {
        // Expired entries of other sessions are dropped here so a long-running host
        // does not accumulate one entry per session forever.
        self.entries.retain(|_, (_, expires)| *expires > now);
        self.entries.insert(
            (guard.to_owned(), session.to_owned()),
            (value.clone(), now + ttl),
        );
        Ok(())
    }
}

/// State kept as JSON files in a directory (the hook's `STATE_DIR`), one file per guard and
/// session, replaced atomically (temporary file, then rename), so it survives the process:
/// a host that runs one process per event (`fire`, the Claude Code bridge) keeps a guard's
/// sessions like a long-running one does.
///
/// A load takes an exclusive lock on `<file>.lock` and holds it until the save (or
/// [`release`](StateStore::release)), so two processes evaluating the same session one after
/// the other never lose an update.
#[derive(Debug)]
pub struct DirState {
    dir: PathBuf,
    held: Option<std::fs::File>,
}

impl DirState {
    /// A store under `dir`, created on the first save.
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Self {
            dir: dir.into(),
            held: None,
        }
    }

    /// Waits for the session's lock; without one (a read-only directory, say) the state is
    /// still read, as advisory state always was.
    fn lock(&mut self, path: &Path) {
        self.release_lock();
        let mut lock_path = path.as_os_str().to_owned();
        lock_path.push(".lock");
        let opened = std::fs::create_dir_all(&self.dir).and_then(|()| {
            std::fs::OpenOptions::new()
                .create(true)
                .truncate(false)
                .write(true)
                .open(PathBuf::from(lock_path))
        });
        if let Ok(file) = opened
            && file.lock().is_ok()
        {
            self.held = Some(file);
        }
    }

    fn release_lock(&mut self) {
        if let Some(file) = self.held.take() {
            let _ = file.unlock();
        }
    }

    fn path(&self, guard: &str, session: &str) -> PathBuf {
        self.dir
            .join(format!("{}--{}.json", safe_name(guard), safe_name(session)))
    }
}

/// A file-name-safe form of a guard or session name (`_` for an empty one).
fn safe_name(name: &str) -> String {
    if name.is_empty() {
        return "_".to_owned();
    }
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

impl StateStore for DirState {
    fn load(&mut self, guard: &str, session: &str, now: SystemTime) -> Option<Value> {
        let path = self.path(guard, session);
        self.lock(&path);
        let text = read_state_file(&path)?;
        let stored: Value = serde_json::from_str(&text).ok()?;
        let expires = stored.get("expires_unix").and_then(Value::as_f64)?;
        if expires <= unix_seconds(now) {
            // Expired: remove it so the directory does not grow with dead sessions.
            let _ = std::fs::remove_file(&path);
            return None;
        }
        stored.get("value").cloned()
    }

    fn save(
        &mut self,
        guard: &str,
        session: &str,
        value: &Value,
        ttl: Duration,
        now: SystemTime,
    ) -> std::io::Result<()> {
        std::fs::create_dir_all(&self.dir)?;
        let path = self.path(guard, session);
        let body = serde_json::json!({
            "expires_unix": unix_seconds(now + ttl),
            "value": value,
        });
        let written = write_atomically(&path, body.to_string().as_bytes());
        self.release_lock();
        written
    }

    fn release(&mut self) {
        self.release_lock();
    }
}

/// The largest state file read; a guard's state is a few kilobytes.
const MAX_STATE_BYTES: u64 = 4 * 1024 * 1024;

/// A state file's text, when it is a regular file of at most [`MAX_STATE_BYTES`]. Opened
/// without blocking, so a FIFO or a device planted in its place can neither hang the guard nor
/// feed it without end; such a file reads as no state.
fn read_state_file(path: &Path) -> Option<String> {
    use std::io::Read as _;
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(nix::libc::O_NONBLOCK)
        .open(path)
        .ok()?;
    let meta = file.metadata().ok()?;
    if !meta.is_file() || meta.len() > MAX_STATE_BYTES {
        return None;
    }
    let mut text = String::new();
    file.take(MAX_STATE_BYTES + 1)
        .read_to_string(&mut text)
        .ok()?;
    (text.len() as u64 <= MAX_STATE_BYTES).then_some(text)
}

/// Writes a temporary file beside `path`, syncs it and renames it over `path`, so a
/// reader sees the old or the new content, never a torn one.
fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    let tmp = path.with_extension(format!("tmp.{}.{nanos}", std::process::id()));
    let result = (|| {
        let mut file = std::fs::File::create(&tmp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

pub(crate) fn unix_seconds(time: SystemTime) -> f64 {
    time.duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0)
}

/// Looks up a credit balance at a URL; returns the text to show, or `None` on any failure.
pub type BalanceLookup = Box<dyn Fn(&str) -> Option<String> + Send + Sync>;

/// A clock, injectable so TTL behaviour can be tested.
pub type Clock = Box<dyn Fn() -> SystemTime + Send + Sync>;

/// Everything a guard may use besides the payload.
pub struct GuardContext {
    /// The workspace: relative paths in rules (evidence files, the audit log) resolve here.
    pub workspace: PathBuf,
    /// Per-session state across events.
    pub state: Box<dyn StateStore>,
    /// The time now; `SystemTime::now` unless a test injects another.
    pub clock: Clock,
    /// The credit-balance lookup for `runtime_footer`, supplied by the core (an HTTP GET
    /// of the URL with a 2 s timeout). This crate does no networking; without a lookup
    /// the balance is simply left out of the footer.
    pub balance: Option<BalanceLookup>,
    /// A trial run (`doctor`, `agent-hooks test`): the guard answers as it would, but writes
    /// none of its own records (the audit log). Its state is in memory with
    /// [`GuardContext::dry_run`], so nothing it remembers outlives the trial either.
    pub dry_run: bool,
}

impl fmt::Debug for GuardContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GuardContext")
            .field("workspace", &self.workspace)
            .field("state", &self.state)
            .field("balance", &self.balance.is_some())
            .field("dry_run", &self.dry_run)
            .finish_non_exhaustive()
    }
}

impl GuardContext {
    /// In-process use: state in memory, the system clock, no balance lookup.
    pub fn in_memory(workspace: impl Into<PathBuf>) -> Self {
        Self {
            workspace: workspace.into(),
            state: Box::new(MemoryState::new()),
            clock: Box::new(SystemTime::now),
            balance: None,
            dry_run: false,
        }
    }

    /// A trial run on `workspace`: the guard reads what it reads (rules, evidence files) but
    /// writes nothing — state in memory, starting empty, and no records.
    pub fn dry_run(workspace: impl Into<PathBuf>) -> Self {
        Self {
            dry_run: true,
            ..Self::in_memory(workspace)
        }
    }

    /// Command use: state as files under `state_dir` (the hook's `STATE_DIR`).
    pub fn in_dir(workspace: impl Into<PathBuf>, state_dir: impl Into<PathBuf>) -> Self {
        Self {
            state: Box::new(DirState::new(state_dir)),
            ..Self::in_memory(workspace)
        }
    }

    /// Replaces the clock (tests).
    #[must_use]
    pub fn with_clock(mut self, clock: impl Fn() -> SystemTime + Send + Sync + 'static) -> Self {
        self.clock = Box::new(clock);
        self
    }

    /// Supplies the credit-balance lookup used by `runtime_footer`.
    #[must_use]
    pub fn with_balance(
        mut self,
        lookup: impl Fn(&str) -> Option<String> + Send + Sync + 'static,
    ) -> Self {
        self.balance = Some(Box::new(lookup));
        self
    }

    pub(crate) fn now(&self) -> SystemTime {
        (self.clock)()
    }

    /// A path from the rules, resolved against the workspace when relative.
    pub(crate) fn resolve(&self, path: &str) -> PathBuf {
        let path = Path::new(path);
        if path.is_absolute() {
            path.to_path_buf()
        } else {
            self.workspace.join(path)
        }
    }

    /// This guard's state for the payload's session (`Null` when there is none).
    pub(crate) fn load(&mut self, guard: &str, session: &str) -> Value {
        let now = self.now();
        self.state.load(guard, session, now).unwrap_or(Value::Null)
    }

    /// Saves this guard's state for the session; a failed write is dropped (fail-open).
    pub(crate) fn save(&mut self, guard: &str, session: &str, value: &Value, ttl_seconds: u64) {
        let now = self.now();
        let _ = self
            .state
            .save(guard, session, value, Duration::from_secs(ttl_seconds), now);
    }
}

/// RFC 3339 UTC timestamp with milliseconds, without pulling in a date crate.
pub(crate) fn rfc3339(time: SystemTime) -> String {
    let since = time.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = since.as_secs();
    let millis = since.subsec_millis();
    let days = i64::try_from(secs / 86_400).unwrap_or(0);
    let rem = secs % 86_400;
    let (year, month, day) = civil_from_days(days);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{millis:03}Z",
        rem / 3600,
        (rem % 3600) / 60,
        rem % 60
    )
}

/// Days since 1970-01-01 to (year, month, day), Howard Hinnant's algorithm.
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3339_formats_a_known_instant() {
        let t = UNIX_EPOCH + Duration::from_millis(1_700_000_000_123);
        assert_eq!(rfc3339(t), "2023-11-14T22:13:20.123Z");
    }

    #[test]
    fn memory_state_expires_after_its_ttl() {
        let mut store = MemoryState::new();
        let now = UNIX_EPOCH + Duration::from_secs(1000);
        let value = serde_json::json!({"n": 1});
        assert!(
            store
                .save("g", "s", &value, Duration::from_secs(10), now)
                .is_ok()
        );
        assert_eq!(
            store.load("g", "s", now + Duration::from_secs(5)),
            Some(value)
        );
        assert_eq!(store.load("g", "s", now + Duration::from_secs(11)), None);
    }

    #[test]
    fn dir_state_round_trips_and_expires() -> std::io::Result<()> {
        let dir = tempfile::tempdir()?;
        let mut store = DirState::new(dir.path().join("state"));
        let now = UNIX_EPOCH + Duration::from_secs(1000);
        let value = serde_json::json!({"pending": ["a.py"]});
        store.save("g", "s/1", &value, Duration::from_secs(10), now)?;
        assert_eq!(store.load("g", "s/1", now), Some(value));
        assert_eq!(store.load("g", "other", now), None);
        assert_eq!(store.load("g", "s/1", now + Duration::from_secs(20)), None);
        Ok(())
    }

    #[test]
    fn dir_state_reads_a_fifo_or_a_device_in_place_of_a_state_file_as_no_state()
    -> std::io::Result<()> {
        let dir = tempfile::tempdir()?;
        let state = dir.path().join("state");
        let mut store = DirState::new(&state);
        let now = UNIX_EPOCH + Duration::from_secs(1000);
        store.save(
            "g",
            "s",
            &serde_json::json!(1),
            Duration::from_secs(10),
            now,
        )?;
        let file = store.path("g", "s");
        std::fs::remove_file(&file)?;
        // A FIFO nobody writes: a blocking open would wait for a writer forever.
        nix::unistd::mkfifo(&file, nix::sys::stat::Mode::from_bits_truncate(0o600))
            .map_err(std::io::Error::from)?;
        assert_eq!(store.load("g", "s", now), None);
        std::fs::remove_file(&file)?;
        // An endless device: read to the end, it never ends.
        std::os::unix::fs::symlink("/dev/zero", &file)?;
        assert_eq!(store.load("g", "s", now), None);
        Ok(())
    }
}
