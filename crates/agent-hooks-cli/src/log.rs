//! `agent-hooks log`: the recent records of `logs/events.jsonl` (failures, drift, configuration
//! errors) and of the runtime's own `hook_decision` file (blocks, asks, rewrites, trust skips),
//! merged in time order, one readable line each, or the records themselves with `--json`;
//! `--follow` keeps printing what is appended to either.

use std::io::{BufRead, BufReader, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use agent_hooks_runtime::LoggedDecision;
use agent_hooks_runtime::Workspace;
use serde_json::Value;

/// Which records to show, and how.
#[derive(Debug)]
pub(crate) struct Query {
    pub(crate) last: usize,
    pub(crate) hook: Option<String>,
    pub(crate) event: Option<String>,
    pub(crate) kind: Option<String>,
    /// A `decision` of `hook_decision` records (`block`, `ask`, `rewrite`, `stop`,
    /// `skip_trust`).
    pub(crate) decision: Option<String>,
    pub(crate) json: bool,
    pub(crate) follow: bool,
}

/// The values `--decision` takes: the log's own names, and `skip` for `skip_trust`.
pub(crate) fn decision_names() -> Vec<&'static str> {
    let mut names: Vec<&str> = LoggedDecision::ALL.iter().map(|d| d.as_str()).collect();
    names.push("skip");
    names
}

/// A record's field under its canonical name, or the name a skill hook's record (written the
/// way its source runtime writes them) uses for it.
fn field<'a>(record: &'a Value, name: &str) -> Option<&'a str> {
    let alias = match name {
        "ts" => "timestamp",
        "hook" => "name",
        "event" => "hook_event_type",
        _ => name,
    };
    record[name].as_str().or_else(|| record[alias].as_str())
}

impl Query {
    fn keeps(&self, record: &Value) -> bool {
        let is = |name: &str, want: &Option<String>| {
            want.as_deref()
                .is_none_or(|w| field(record, name) == Some(w))
        };
        let decision = self.decision.as_deref().map(|d| match d {
            "skip" => LoggedDecision::SkipTrust.as_str(),
            other => other,
        });
        is("hook", &self.hook)
            && is("event", &self.event)
            && is("type", &self.kind)
            && decision.is_none_or(|d| LoggedDecision::of_record(record) == Some(d))
    }

    /// One record as printed: the JSON line itself, or a readable line: when, event, what
    /// happened (the decision, else the record type), hook, and the detail.
    fn render(&self, line: &str, record: &Value) -> String {
        if self.json {
            return line.to_owned();
        }
        let text = |name: &str| field(record, name).unwrap_or("-").to_owned();
        // 2026-12-01T04:20:00.123Z -> 2026-12-01 04:20:00
        let ts = text("ts");
        let when = ts.get(..19).unwrap_or(&ts).replace('T', " ");
        let what = LoggedDecision::of_record(record).map_or_else(|| text("type"), str::to_owned);
        let detail = ["detail", "reason", "error", "stderr"]
            .iter()
            .find_map(|k| record[*k].as_str())
            .unwrap_or("-")
            .replace('\n', " ");
        let session = record["session_id"]
            .as_str()
            .filter(|s| !s.is_empty())
            .map(|s| format!("  [session {s}]"))
            .unwrap_or_default();
        format!(
            "{when}  {:<18} {:<18} {:<20} {detail}{session}",
            text("event"),
            what,
            text("hook"),
        )
    }
}

pub(crate) fn run(ws: &Workspace, query: &Query) -> ExitCode {
    let engine = agent_hooks_runtime::Engine::open(ws.clone());
    let Some(main) = engine.event_log_path().map(Path::to_path_buf) else {
        eprintln!(
            "agent-hooks log: the event log is turned off (logs.events: false in config/agent.yaml)"
        );
        return ExitCode::FAILURE;
    };
    // The diagnostics first: records with the same time keep that order.
    let mut files = vec![(main.clone(), 0u64)];
    if let Some(decisions) = engine.hook_decision_log_path()
        && decisions != main
    {
        files.push((decisions.to_path_buf(), 0));
    }
    let mut kept: Vec<(String, String)> = Vec::new();
    let mut found = false;
    for (path, offset) in &mut files {
        match std::fs::File::open(&*path) {
            Ok(file) => {
                found = true;
                let mut reader = BufReader::new(file);
                *offset = read_records(&mut reader, query, &mut |key, text| kept.push((key, text)));
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => {
                eprintln!("agent-hooks log: cannot read {}: {e}", path.display());
                return ExitCode::FAILURE;
            }
        }
    }
    kept.sort_by(|a, b| a.0.cmp(&b.0));
    let mut out = std::io::stdout().lock();
    let skip = kept.len().saturating_sub(query.last);
    for (_, text) in &kept[skip..] {
        let _ = writeln!(out, "{text}");
    }
    if !query.json && !found {
        let _ = writeln!(
            out,
            "(no records yet: {} does not exist; no hook has blocked, asked, rewritten, been skipped or failed here)",
            ws.display(&main)
        );
    } else if kept.is_empty() && !query.json {
        let _ = writeln!(out, "(no matching records in {})", ws.display(&main));
    }
    let _ = out.flush();
    drop(out);
    if query.follow {
        follow(files, query);
    }
    ExitCode::SUCCESS
}

/// A record's time as a key that sorts the two logs' stamps together: RFC 3339
/// (`2026-12-01T04:20:00.52Z`) and Python's `isoformat` (`2026-12-01T04:20:00.520000+00:00`),
/// both UTC, compare by their seconds and then their fraction padded to nanoseconds.
fn time_key(record: &Value) -> String {
    let ts = field(record, "ts").unwrap_or("");
    // A stamp that is not ASCII there is no stamp of either writer: it sorts by its text.
    let (seconds, rest) = match (ts.get(..19), ts.get(19..)) {
        (Some(seconds), Some(rest)) => (seconds, rest),
        _ => (ts, ""),
    };
    let fraction: String = rest
        .strip_prefix('.')
        .unwrap_or("")
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    format!("{seconds}.{fraction:0<9}")
}

/// Reads whole lines from `reader`, hands each kept record to `emit`, and returns how many
/// bytes were consumed (a torn last line is left for the next read).
fn read_records(
    reader: &mut impl BufRead,
    query: &Query,
    emit: &mut dyn FnMut(String, String),
) -> u64 {
    let mut consumed = 0u64;
    let mut line = String::new();
    loop {
        line.clear();
        match reader.read_line(&mut line) {
            Ok(0) | Err(_) => break,
            Ok(n) if !line.ends_with('\n') => {
                let _ = n;
                break;
            }
            Ok(n) => {
                consumed += n as u64;
                let text = line.trim_end();
                match serde_json::from_str::<Value>(text) {
                    Ok(record) if query.keeps(&record) => {
                        emit(time_key(&record), query.render(text, &record));
                    }
                    Ok(_) => {}
                    Err(e) if !query.json => {
                        emit(String::new(), format!("(an unreadable log line: {e})"));
                    }
                    Err(_) => {}
                }
            }
        }
    }
    consumed
}

/// Prints records as they are appended to any of `files` (each with the offset read so far),
/// until interrupted; a file that shrinks (rotated or truncated) is read again from its start.
fn follow(mut files: Vec<(PathBuf, u64)>, query: &Query) {
    loop {
        std::thread::sleep(Duration::from_millis(300));
        for (path, offset) in &mut files {
            let Ok(mut file) = std::fs::File::open(&*path) else {
                continue;
            };
            let len = file.metadata().map(|m| m.len()).unwrap_or(0);
            if len < *offset {
                *offset = 0;
            }
            if len == *offset || file.seek(SeekFrom::Start(*offset)).is_err() {
                continue;
            }
            let mut reader = BufReader::new(file);
            let mut out = std::io::stdout().lock();
            *offset += read_records(&mut reader, query, &mut |_, text| {
                let _ = writeln!(out, "{text}");
            });
            let _ = out.flush();
        }
    }
}
