//! The Sessions page's data: the decision log, read with the reader `agent-hooks audit` uses,
//! grouped by session; and for one session its decisions in order and, when its agent's
//! transcript can be found, the audit of that transcript (which of its tool calls no hook saw).

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use agent_hooks_runtime::Engine;
use agent_hooks_runtime::audit;
use agent_hooks_runtime::decisions::{self, DecisionRecord};

/// The decision log of `engine` and its records, or why there is none to read.
fn records(engine: &Engine) -> Result<(PathBuf, Vec<DecisionRecord>, usize), String> {
    let log = engine.decision_log_path().ok_or(
        "the decision log is off (logs.decisions: false in config/agent.yaml): no session is recorded",
    )?;
    let (records, unreadable) = decisions::read_log(&log)
        .map_err(|e| format!("cannot read the decision log {}: {e}", log.display()))?;
    Ok((log, records, unreadable))
}

/// Every session of the decision log, the most recently active first. Calls that named no
/// session are gathered under the empty id.
pub(super) fn list(engine: &Engine) -> Result<Value, String> {
    let (log, records, unreadable) = records(engine)?;
    let mut sessions: HashMap<&str, Summary<'_>> = HashMap::new();
    for record in &records {
        let id = record.session_id.as_deref().unwrap_or("");
        let summary = sessions.entry(id).or_insert_with(|| Summary {
            first: &record.ts,
            ..Summary::default()
        });
        summary.last = &record.ts;
        summary.agents.insert(&record.agent);
        summary.decisions += 1;
        summary.blocks += usize::from(record.decision == "block");
        summary.lapses += usize::from(!record.lapses.is_empty());
    }
    let mut listed: Vec<(&str, Summary<'_>)> = sessions.into_iter().collect();
    // RFC 3339 UTC timestamps sort as text.
    listed.sort_by(|a, b| b.1.last.cmp(a.1.last).then(a.0.cmp(b.0)));
    Ok(json!({
        "log": log.display().to_string(),
        "unreadable_lines": unreadable,
        "sessions": listed.iter().map(|(id, s)| json!({
            "session": id,
            "agents": s.agents,
            "first": s.first,
            "last": s.last,
            "decisions": s.decisions,
            "blocks": s.blocks,
            "lapses": s.lapses,
        })).collect::<Vec<_>>(),
    }))
}

#[derive(Default)]
struct Summary<'a> {
    first: &'a str,
    last: &'a str,
    agents: BTreeSet<&'a str>,
    decisions: usize,
    blocks: usize,
    lapses: usize,
}

/// One session's decisions in the order they were made, and its coverage.
pub(super) fn one(engine: &Engine, id: &str) -> Result<Value, String> {
    let (log, records, _) = records(engine)?;
    let mine: Vec<&DecisionRecord> = records
        .iter()
        .filter(|r| r.session_id.as_deref().unwrap_or("") == id)
        .collect();
    let lapsed = mine.iter().filter(|r| !r.lapses.is_empty()).count();
    let unread = mine.iter().filter(|r| r.decision == "none").count();
    let mut coverage = json!({
        "recorded": mine.len(),
        "with_lapses": lapsed,
        "unread_calls": unread,
        "searched": transcript_places().iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
    });
    if let Some(transcript) = transcript_of(id) {
        coverage["transcript"] = json!(transcript.display().to_string());
        match audit::audit(std::slice::from_ref(&transcript), &log) {
            Ok(report) => coverage["audit"] = report.to_json(),
            Err(e) => coverage["audit_error"] = json!(e.to_string()),
        }
    }
    Ok(json!({
        "session": id,
        "decisions": mine,
        "coverage": coverage,
    }))
}

/// Where the agents keep their transcripts: Claude Code's projects (`$CLAUDE_CONFIG_DIR`,
/// else `~/.claude`) and Codex's sessions (`$CODEX_HOME`, else `~/.codex`), as they document.
fn transcript_places() -> Vec<PathBuf> {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let dir = |env: &str, default: &str| {
        std::env::var_os(env)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .or_else(|| home.as_ref().map(|h| h.join(default)))
    };
    [
        dir("CLAUDE_CONFIG_DIR", ".claude").map(|d| d.join("projects")),
        dir("CODEX_HOME", ".codex").map(|d| d.join("sessions")),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// The transcript of session `id`: `<claude>/projects/<project>/<id>.jsonl`, or a Codex
/// rollout `<codex>/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl`.
fn transcript_of(id: &str) -> Option<PathBuf> {
    // The id comes from an agent's input: it names a file only as a plain file name.
    let plain = !id.is_empty()
        && !id.starts_with('.')
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if !plain {
        return None;
    }
    let places = transcript_places();
    let mut found = places
        .first()
        .into_iter()
        .flat_map(|projects| files_below(projects, 1))
        .find(|f| f.file_name().is_some_and(|n| *n == *format!("{id}.jsonl")));
    if found.is_none() {
        let suffix = format!("-{id}.jsonl");
        found = places
            .get(1)
            .into_iter()
            .flat_map(|sessions| files_below(sessions, 3))
            .find(|f| {
                f.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with("rollout-") && n.ends_with(&suffix))
            });
    }
    found
}

/// The files exactly `depth` directories below `dir` (unreadable directories are passed over).
fn files_below(dir: &Path, depth: usize) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if depth == 0 && kind.is_file() {
            out.push(path);
        } else if depth > 0 && kind.is_dir() {
            out.extend(files_below(&path, depth - 1));
        }
    }
    out
}
