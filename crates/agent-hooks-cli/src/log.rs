//! `agent-hooks log`: the recent records of `logs/events.jsonl` (hooks' decisions, failures,
//! drift, configuration errors), one readable line each, or the records themselves with
//! `--json`; `--follow` keeps printing what is appended.

use std::io::{BufRead, BufReader, Seek, SeekFrom, Write};
use std::path::Path;
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
    let Some(path) = engine.event_log_path().map(std::path::Path::to_path_buf) else {
        eprintln!(
            "agent-hooks log: the event log is turned off (logs.events: false in config/agent.yaml)"
        );
        return ExitCode::FAILURE;
    };
    let mut out = std::io::stdout().lock();
    let mut offset = 0;
    match std::fs::File::open(&path) {
        Ok(file) => {
            let mut kept = Vec::new();
            let mut reader = BufReader::new(file);
            offset = read_records(&mut reader, query, &mut |text| kept.push(text));
            let skip = kept.len().saturating_sub(query.last);
            for text in &kept[skip..] {
                let _ = writeln!(out, "{text}");
            }
            if kept.is_empty() && !query.json {
                let _ = writeln!(out, "(no matching records in {})", ws.display(&path));
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if !query.json {
                let _ = writeln!(
                    out,
                    "(no records yet: {} does not exist; no hook has blocked, asked, rewritten, been skipped or failed here)",
                    ws.display(&path)
                );
            }
        }
        Err(e) => {
            eprintln!("agent-hooks log: cannot read {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
    }
    let _ = out.flush();
    drop(out);
    if query.follow {
        follow(&path, offset, query);
    }
    ExitCode::SUCCESS
}

/// Reads whole lines from `reader`, hands each kept record to `emit`, and returns how many
/// bytes were consumed (a torn last line is left for the next read).
fn read_records(reader: &mut impl BufRead, query: &Query, emit: &mut dyn FnMut(String)) -> u64 {
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
                    Ok(record) if query.keeps(&record) => emit(query.render(text, &record)),
                    Ok(_) => {}
                    Err(e) if !query.json => emit(format!("(an unreadable log line: {e})")),
                    Err(_) => {}
                }
            }
        }
    }
    consumed
}

/// Prints records as they are appended, until interrupted; a file that shrinks (rotated or
/// truncated) is read again from its start.
fn follow(path: &Path, mut offset: u64, query: &Query) {
    loop {
        std::thread::sleep(Duration::from_millis(300));
        let Ok(mut file) = std::fs::File::open(path) else {
            continue;
        };
        let len = file.metadata().map(|m| m.len()).unwrap_or(0);
        if len < offset {
            offset = 0;
        }
        if len == offset || file.seek(SeekFrom::Start(offset)).is_err() {
            continue;
        }
        let mut reader = BufReader::new(file);
        let mut out = std::io::stdout().lock();
        offset += read_records(&mut reader, query, &mut |text| {
            let _ = writeln!(out, "{text}");
        });
        let _ = out.flush();
    }
}
