//! `logs/events.jsonl`: one JSON object a line for every hook failure and notable decision
//! (`docs/troubleshooting.md`). Each record is written with a single `write` on an `O_APPEND`
//! descriptor, so lines from concurrent processes never interleave; the file is rotated past 10
//! MiB.

use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::PathBuf;

use serde::Serialize;

/// The record types of `logs/events.jsonl` (`docs/troubleshooting.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DiagKind {
    /// A hook's output (or a `hooks.json`) is not valid JSON.
    HookInvalidJson,
    /// Valid JSON of the wrong shape (not an object, several documents, no `hooks` list).
    HookInvalidFormat,
    /// A configuration entry lacks a required key.
    HookMissingFields,
    /// A hook ran past its timeout and was killed.
    HookTimeout,
    /// A hook could not be started or reached.
    HookExecError,
    /// What a hook wrote to stderr (nobody else sees it).
    HookStderr,
    /// A hook exited with a failure status.
    HookNonzeroExit,
    /// A hook blocked a tool call: a decision, not a failure, logged for audit.
    HookBlockedToolCall,
    /// A hook tried to block where its dialect or the event does not allow it.
    HookInvalidBlock,
    /// A hook's rewrite broke the event's rewrite rule (e.g. added a key) and was dropped.
    HookInvalidMutation,
    /// An answer that parsed but cannot be used (unknown decision, wrong field type).
    HookInvalidOutput,
    /// A configuration file could not be read or has an invalid entry.
    HookConfigError,
    /// An approved hook's files changed since approval; it was not run.
    HookDrift,
    /// A `prefork` hook ran as a plain process because no forker could take the call.
    HookPreforkFallback,
    /// A hook's decision that changed what happened: a block, an ask, a rewrite, a stop, or a
    /// hook the trust gate kept from running. Its `decision` field says which
    /// ([`LoggedDecision`]).
    HookDecision,
}

impl DiagKind {
    /// Whether the record reports a problem (a failure, a refused effect, a broken file) rather
    /// than a decision kept for audit; problems are what an outcome's `diagnostics` carry.
    pub fn is_problem(self) -> bool {
        match self {
            DiagKind::HookBlockedToolCall | DiagKind::HookDecision => false,
            DiagKind::HookInvalidJson
            | DiagKind::HookInvalidFormat
            | DiagKind::HookMissingFields
            | DiagKind::HookTimeout
            | DiagKind::HookExecError
            | DiagKind::HookStderr
            | DiagKind::HookNonzeroExit
            | DiagKind::HookInvalidBlock
            | DiagKind::HookInvalidMutation
            | DiagKind::HookInvalidOutput
            | DiagKind::HookConfigError
            | DiagKind::HookDrift
            | DiagKind::HookPreforkFallback => true,
        }
    }

    /// The `type` written to the log.
    pub fn as_str(self) -> &'static str {
        match self {
            DiagKind::HookInvalidJson => "hook_invalid_json",
            DiagKind::HookInvalidFormat => "hook_invalid_format",
            DiagKind::HookMissingFields => "hook_missing_fields",
            DiagKind::HookTimeout => "hook_timeout",
            DiagKind::HookExecError => "hook_exec_error",
            DiagKind::HookStderr => "hook_stderr",
            DiagKind::HookNonzeroExit => "hook_nonzero_exit",
            DiagKind::HookBlockedToolCall => "hook_blocked_tool_call",
            DiagKind::HookInvalidBlock => "hook_invalid_block",
            DiagKind::HookInvalidMutation => "hook_invalid_mutation",
            DiagKind::HookInvalidOutput => "hook_invalid_output",
            DiagKind::HookConfigError => "hook_config_error",
            DiagKind::HookDrift => "hook_drift",
            DiagKind::HookPreforkFallback => "hook_prefork_fallback",
            DiagKind::HookDecision => "hook_decision",
        }
    }
}

/// The `decision` of a `hook_decision` record: what one hook did to one dispatch. A plain
/// "continue" is not logged; everything that changed the action, or kept a hook from judging
/// it, is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum LoggedDecision {
    /// The hook blocked the action (or, on `on_stop`/`on_completion_claim`, forced a redo).
    Block,
    /// The hook asked the user to confirm.
    Ask,
    /// The hook rewrote payload fields (the record's `fields` names them).
    Rewrite,
    /// The hook asked the agent to end its turn (Claude Code's `continue: false`).
    Stop,
    /// The trust gate kept the hook from running: master switch off, not approved, or changed
    /// since approval (the record's `trust` says which).
    SkipTrust,
}

impl LoggedDecision {
    /// Every decision, in the order `agent-hooks log --decision` lists them.
    pub const ALL: &'static [LoggedDecision] = &[
        LoggedDecision::Block,
        LoggedDecision::Ask,
        LoggedDecision::Rewrite,
        LoggedDecision::Stop,
        LoggedDecision::SkipTrust,
    ];

    /// The `decision` written to the log.
    pub fn as_str(self) -> &'static str {
        match self {
            LoggedDecision::Block => "block",
            LoggedDecision::Ask => "ask",
            LoggedDecision::Rewrite => "rewrite",
            LoggedDecision::Stop => "stop",
            LoggedDecision::SkipTrust => "skip_trust",
        }
    }

    /// The decision a log record stands for, if any: a `hook_decision` record's `decision`,
    /// and a skill hook's `hook_blocked_tool_call` (logged as its source runtime logs it) as a
    /// block.
    pub fn of_record(record: &serde_json::Value) -> Option<&str> {
        match record.get("type").and_then(serde_json::Value::as_str) {
            Some("hook_decision") => record.get("decision").and_then(serde_json::Value::as_str),
            Some("hook_blocked_tool_call") => Some(LoggedDecision::Block.as_str()),
            _ => None,
        }
    }
}

/// How a record names its fields. Skill hooks' records use the names of their source runtime,
/// so a reader of its logs (or a tool built for them) understands them unchanged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RecordStyle {
    /// A record's fields (`docs/troubleshooting.md`): `ts`, `type`, `event`, `hook`, `source`,
    /// `detail`.
    #[default]
    Canonical,
    /// open-strix: `timestamp`, `type`, `session_id`, `name`, `hook_event_type`, then the
    /// fields of the type (`stderr`, `returncode`, `tool`, `reason`, `error`, ...), `source`.
    OpenStrix,
}

/// One line of `logs/events.jsonl`.
#[derive(Debug, Clone)]
pub struct DiagRecord {
    /// When it happened, RFC 3339 UTC.
    pub ts: String,
    /// The record type.
    pub kind: DiagKind,
    /// The event being dispatched, when there was one.
    pub event: Option<String>,
    /// The hook concerned, by name.
    pub hook: Option<String>,
    /// The file that declared the hook, or the broken configuration file.
    pub source: Option<String>,
    /// What happened, for a human; cut to 4 KiB.
    pub detail: String,
    /// The session of the dispatch, when the record's style names it.
    pub session_id: Option<String>,
    /// Facts of the record's type, written after the standard fields (`returncode`, `tool`, ...).
    pub fields: serde_json::Map<String, serde_json::Value>,
    /// How the fields are named.
    pub style: RecordStyle,
}

impl DiagRecord {
    /// A record of `kind` stamped with the current time.
    pub fn new(kind: DiagKind, detail: impl Into<String>) -> DiagRecord {
        DiagRecord {
            ts: now_rfc3339(),
            kind,
            event: None,
            hook: None,
            source: None,
            detail: detail.into(),
            session_id: None,
            fields: serde_json::Map::new(),
            style: RecordStyle::Canonical,
        }
    }

    /// A `hook_decision` record: `decision`, with `detail` saying what and why.
    pub fn decision(decision: LoggedDecision, detail: impl Into<String>) -> DiagRecord {
        DiagRecord::new(DiagKind::HookDecision, detail).field("decision", decision.as_str())
    }

    /// Names the event being dispatched.
    pub fn event(mut self, event: impl Into<String>) -> Self {
        self.event = Some(event.into());
        self
    }

    /// Names the hook and its declaring file.
    pub fn hook(mut self, hook: impl Into<String>, source: impl Into<String>) -> Self {
        self.hook = Some(hook.into());
        self.source = Some(source.into());
        self
    }

    /// Names the file concerned, without a hook.
    pub fn source(mut self, source: impl Into<String>) -> Self {
        self.source = Some(source.into());
        self
    }

    /// Adds a fact of the record's type.
    pub fn field(mut self, key: &str, value: impl Into<serde_json::Value>) -> Self {
        self.fields.insert(key.to_owned(), value.into());
        self
    }

    /// Writes the record with open-strix's field names: `event_name` is the event as that
    /// runtime names it (`pre_prompt`), and the timestamp is in Python's `isoformat`.
    pub fn open_strix(mut self, session_id: Option<String>, event_name: Option<&str>) -> Self {
        self.style = RecordStyle::OpenStrix;
        self.ts = now_isoformat();
        self.session_id = session_id;
        if let Some(name) = event_name {
            self.event = Some(name.to_owned());
        }
        self
    }
}

impl Serialize for DiagRecord {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(None)?;
        match self.style {
            RecordStyle::Canonical => {
                map.serialize_entry("ts", &self.ts)?;
                map.serialize_entry("type", &self.kind)?;
                map.serialize_entry("event", &self.event)?;
                map.serialize_entry("hook", &self.hook)?;
                map.serialize_entry("source", &self.source)?;
                map.serialize_entry("detail", &self.detail)?;
                for (key, value) in &self.fields {
                    map.serialize_entry(key, value)?;
                }
            }
            RecordStyle::OpenStrix => {
                map.serialize_entry("timestamp", &self.ts)?;
                map.serialize_entry("type", &self.kind)?;
                if let Some(session) = &self.session_id {
                    map.serialize_entry("session_id", session)?;
                }
                if let Some(hook) = &self.hook {
                    map.serialize_entry("name", hook)?;
                }
                if let Some(event) = &self.event {
                    map.serialize_entry("hook_event_type", event)?;
                }
                for (key, value) in &self.fields {
                    map.serialize_entry(key, value)?;
                }
                // The human text goes where open-strix puts it for this type.
                let key = match self.kind {
                    DiagKind::HookStderr => "stderr",
                    DiagKind::HookBlockedToolCall => "reason",
                    _ => "error",
                };
                if !self.fields.contains_key(key) {
                    let text: &str = if key == "stderr" {
                        // open-strix keeps the first 2000 characters of a hook's stderr.
                        self.detail
                            .char_indices()
                            .nth(2000)
                            .map_or(&self.detail, |(at, _)| &self.detail[..at])
                    } else {
                        &self.detail
                    };
                    map.serialize_entry(key, text)?;
                }
                let file_key = if self.hook.is_some() {
                    "source"
                } else {
                    "path"
                };
                if let Some(source) = &self.source {
                    map.serialize_entry(file_key, source)?;
                }
            }
        }
        map.end()
    }
}

/// The current time as Python's `datetime.now(timezone.utc).isoformat()` writes it
/// (`2026-12-01T03:04:05.123456+00:00`): what skill hooks' source runtime stamps events and
/// records with, and what `datetime.fromisoformat` reads in every Python version (3.10 takes
/// neither a `Z` suffix nor other than 3 or 6 fraction digits).
pub fn now_isoformat() -> String {
    let format = time::macros::format_description!(
        "[year]-[month]-[day]T[hour]:[minute]:[second].[subsecond digits:6]+00:00"
    );
    time::OffsetDateTime::now_utc()
        .format(&format)
        .unwrap_or_else(|_| String::from("1970-01-01T00:00:00.000000+00:00"))
}

/// The current time as RFC 3339 UTC.
pub fn now_rfc3339() -> String {
    time::OffsetDateTime::now_utc()
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_else(|_| String::from("1970-01-01T00:00:00Z"))
}

/// The longest detail kept in one record; hook output can be megabytes.
const MAX_DETAIL: usize = 4096;
/// Rotation threshold (`docs/troubleshooting.md`).
pub const ROTATE_AT: u64 = 10 * 1024 * 1024;

/// The file in [`Workspace::runtime_dir`](crate::workspace::Workspace::runtime_dir) that
/// `hook_decision` records go to when `logs.events` is the default: no seed runtime writes that
/// record type, so it stays out of the host's `logs/events.jsonl`.
pub const HOOK_DECISIONS_FILE: &str = "hook-decisions.jsonl";

/// Appends records to a workspace's `logs/events.jsonl` (or the file `logs.events` in
/// `config/agent.yaml` names), or drops them when that setting turns the log off. The
/// diagnostics go there; `hook_decision` records go to the runtime's own
/// [`HOOK_DECISIONS_FILE`] unless `logs.events` names a file, which then takes both.
#[derive(Debug, Clone)]
pub struct EventLog {
    path: Option<PathBuf>,
    decisions: Option<PathBuf>,
    /// The workspace whose runtime directory holds `decisions`, created private on the first
    /// write.
    runtime: Option<crate::workspace::Workspace>,
}

/// Where the event log goes (`logs.events` in `config/agent.yaml`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum LogDestination {
    /// `logs/events.jsonl` in the workspace.
    #[default]
    Default,
    /// Nowhere (`logs.events: false`).
    Off,
    /// This file, relative to the workspace unless absolute.
    File(std::path::PathBuf),
}

impl EventLog {
    /// A log appending every record to `path`; the file and its directory are created on the
    /// first write.
    pub fn new(path: PathBuf) -> EventLog {
        EventLog {
            decisions: Some(path.clone()),
            path: Some(path),
            runtime: None,
        }
    }

    /// A log that writes nothing (`logs.events: false`): a host that reads each outcome's
    /// `diagnostics` may not want a second copy in its workspace.
    pub fn off() -> EventLog {
        EventLog {
            path: None,
            decisions: None,
            runtime: None,
        }
    }

    /// The log `config/agent.yaml` asks for in `ws`: `logs/events.jsonl` for the diagnostics
    /// and the runtime's own [`HOOK_DECISIONS_FILE`] for `hook_decision` records, unless
    /// `logs.events` names one file for both or turns the log off.
    pub fn configured(ws: &crate::workspace::Workspace, destination: &LogDestination) -> EventLog {
        match destination {
            LogDestination::Default => EventLog {
                path: Some(ws.events_log()),
                decisions: Some(ws.runtime_dir().join(HOOK_DECISIONS_FILE)),
                runtime: Some(ws.clone()),
            },
            LogDestination::Off => EventLog::off(),
            LogDestination::File(path) => EventLog::new(ws.root().join(path)),
        }
    }

    /// The diagnostics' file; `None` when the log is off.
    pub fn path(&self) -> Option<&std::path::Path> {
        self.path.as_deref()
    }

    /// The file `hook_decision` records go to; `None` when the log is off. The same as
    /// [`EventLog::path`] when `logs.events` names a file.
    pub fn decisions_path(&self) -> Option<&std::path::Path> {
        self.decisions.as_deref()
    }

    /// Writes one record. Logging must never take a dispatch down, so a failure to write is
    /// reported through `tracing` and otherwise swallowed.
    pub fn write(&self, mut record: DiagRecord) {
        if record.detail.len() > MAX_DETAIL {
            let mut cut = MAX_DETAIL;
            while !record.detail.is_char_boundary(cut) {
                cut -= 1;
            }
            record.detail.truncate(cut);
            record.detail.push_str("… (truncated)");
        }
        let (target, runtime) = if record.kind == DiagKind::HookDecision {
            (&self.decisions, self.runtime.as_ref())
        } else {
            (&self.path, None)
        };
        let Some(path) = target else {
            return;
        };
        if let Err(err) = append(path, &record, runtime) {
            tracing::warn!(path = %path.display(), %err, "cannot write the event log");
        }
    }
}

fn append(
    path: &std::path::Path,
    record: &DiagRecord,
    runtime: Option<&crate::workspace::Workspace>,
) -> std::io::Result<()> {
    let mut line = serde_json::to_vec(record)?;
    line.push(b'\n');
    append_line_with(path, &line, |dir| match runtime {
        Some(ws) => ws.create_log_dir(dir),
        None => fs::create_dir_all(dir),
    })
}

/// Appends one whole `line` (ending in a newline) to the JSONL file at `path` as this log does:
/// its directory created, the file rotated to `<path>.1` past [`ROTATE_AT`], and the line
/// written with one `write` on an `O_APPEND` descriptor, so lines from concurrent processes
/// never interleave. The runtime's decision log appends the same way.
///
/// The descriptor is kept open for the next append in this process (a `serve` appends at
/// every check), and the path is `stat`ed at every append: when the file there is no longer
/// the one held open (renamed away by a log rotation, removed, replaced) or is past
/// [`ROTATE_AT`], the file at the path is opened afresh, so no line goes to a file moved
/// away before it was written. An append thus costs a `stat` and a `write`.
pub fn append_line(path: &std::path::Path, line: &[u8]) -> std::io::Result<()> {
    append_line_with(path, line, |dir| fs::create_dir_all(dir))
}

/// [`append_line`], with `make_dir` creating the file's directory when the file has to be
/// created and its directory is missing.
pub fn append_line_with(
    path: &std::path::Path,
    line: &[u8],
    make_dir: impl FnOnce(&std::path::Path) -> std::io::Result<()>,
) -> std::io::Result<()> {
    use std::os::unix::fs::MetadataExt;
    let held = match fs::metadata(path) {
        Ok(meta) if meta.len() >= ROTATE_AT => {
            rotate(path)?;
            None
        }
        Ok(meta) => kept_open(path, meta.dev(), meta.ino()),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => None,
        Err(err) => return Err(err),
    };
    let file = match held {
        Some(file) => file,
        None => open_kept(path, make_dir)?,
    };
    // One write of the whole line: O_APPEND makes it land after every other complete line.
    (&*file).write_all(line)
}

/// At most this many log files are held open by one process; past it every one is closed.
const KEEP_OPEN: usize = 32;

/// A log file held open for appending, with the identity of the file it was opened on.
struct Held {
    path: PathBuf,
    dev: u64,
    ino: u64,
    file: std::sync::Arc<fs::File>,
}

/// The log files this process holds open, by path.
static HELD: std::sync::Mutex<Vec<Held>> = std::sync::Mutex::new(Vec::new());

fn held() -> std::sync::MutexGuard<'static, Vec<Held>> {
    HELD.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The descriptor held for `path` when it is open on the file `dev`/`ino` now at the path.
fn kept_open(path: &std::path::Path, dev: u64, ino: u64) -> Option<std::sync::Arc<fs::File>> {
    held()
        .iter()
        .find(|h| h.path == path && h.dev == dev && h.ino == ino)
        .map(|h| std::sync::Arc::clone(&h.file))
}

/// Opens (creating it, and its directory with `make_dir` when missing) the file at `path`
/// for appending, and holds the descriptor for the appends that follow.
fn open_kept(
    path: &std::path::Path,
    make_dir: impl FnOnce(&std::path::Path) -> std::io::Result<()>,
) -> std::io::Result<std::sync::Arc<fs::File>> {
    use std::os::unix::fs::MetadataExt;
    let open = || OpenOptions::new().create(true).append(true).open(path);
    let file = match open() {
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
            if let Some(dir) = path.parent() {
                make_dir(dir)?;
            }
            open()?
        }
        opened => opened?,
    };
    let meta = file.metadata()?;
    let file = std::sync::Arc::new(file);
    let mut held = held();
    held.retain(|h| h.path != path);
    if held.len() >= KEEP_OPEN {
        held.clear();
    }
    held.push(Held {
        path: path.to_path_buf(),
        dev: meta.dev(),
        ino: meta.ino(),
        file: std::sync::Arc::clone(&file),
    });
    Ok(file)
}

fn rotate(path: &std::path::Path) -> std::io::Result<()> {
    let mut rotated = path.as_os_str().to_owned();
    rotated.push(".1");
    // Two processes may race here; the loser's rename fails with NotFound, which is fine.
    match fs::rename(path, PathBuf::from(rotated)) {
        Err(err) if err.kind() != std::io::ErrorKind::NotFound => Err(err),
        _ => Ok(()),
    }
}
