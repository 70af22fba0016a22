//! The host's own records of follow-up work: the job and task files its scheduling and
//! spawning tools write. A promise or a "scheduled" claim made in one turn is often backed
//! by a tool call from an earlier one; these files are the ground truth that spans turns.

use serde_json::Value;

use crate::context::{GuardContext, unix_seconds};

/// Statuses of a record that is still going to run. A record without a status counts too.
const LIVE_STATUSES: [&str; 5] = ["active", "running", "pending", "scheduled", "queued"];

/// Whether any of `files` (JSON: a list of records, or an object whose lists hold them, such
/// as `{"jobs": [...]}`) holds a live record created or updated within `within` seconds.
/// A missing or unreadable file holds nothing.
pub(crate) fn recent_live_record(ctx: &GuardContext, files: &[String], within: f64) -> bool {
    let now = unix_seconds(ctx.now());
    files.iter().any(|file| {
        let Ok(text) = std::fs::read_to_string(ctx.resolve(file)) else {
            return false;
        };
        let Ok(data) = serde_json::from_str::<Value>(&text) else {
            return false;
        };
        records(&data).any(|record| {
            live(record) && stamp(record).is_some_and(|at| (now - at).abs() <= within)
        })
    })
}

/// The objects of a top-level list, or of the lists that are values of a top-level object.
fn records(data: &Value) -> Box<dyn Iterator<Item = &Value> + '_> {
    match data {
        Value::Array(items) => Box::new(items.iter().filter(|v| v.is_object())),
        Value::Object(map) => Box::new(
            map.values()
                .filter_map(Value::as_array)
                .flatten()
                .filter(|v| v.is_object()),
        ),
        _ => Box::new(std::iter::empty()),
    }
}

fn live(record: &Value) -> bool {
    match record.get("status").and_then(Value::as_str) {
        None | Some("") => true,
        Some(status) => LIVE_STATUSES
            .iter()
            .any(|s| s.eq_ignore_ascii_case(status.trim())),
    }
}

/// `updated_at`, else `created_at`, as Unix seconds (milliseconds are recognised by size).
fn stamp(record: &Value) -> Option<f64> {
    let at = ["updated_at", "created_at"].iter().find_map(|k| {
        let v = record.get(*k)?;
        v.as_f64().or_else(|| v.as_str()?.trim().parse().ok())
    })?;
    (at > 0.0).then(|| if at > 1e12 { at / 1000.0 } else { at })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, UNIX_EPOCH};

    fn ctx_at(dir: &std::path::Path, now: u64) -> GuardContext {
        GuardContext::in_memory(dir).with_clock(move || UNIX_EPOCH + Duration::from_secs(now))
    }

    #[test]
    fn a_fresh_active_job_counts_and_a_cancelled_or_old_one_does_not() {
        let dir = tempfile::tempdir().expect("tempdir");
        let write = |name: &str, text: &str| {
            std::fs::write(dir.path().join(name), text).expect("write");
        };
        write(
            "fresh.json",
            r#"{"jobs": [{"status": "active", "created_at": 1700000000}]}"#,
        );
        write(
            "cancelled.json",
            r#"{"jobs": [{"status": "cancelled", "created_at": 1700000000}]}"#,
        );
        write("old.json", r#"[{"created_at": 1700000000}]"#);
        write(
            "millis.json",
            r#"{"runs": [{"created_at": 1700000000000}]}"#,
        );
        let ctx = ctx_at(dir.path(), 1_700_000_100);
        let has = |f: &str, within: f64| recent_live_record(&ctx, &[f.to_owned()], within);
        assert!(has("fresh.json", 900.0));
        assert!(!has("cancelled.json", 900.0));
        assert!(!has("old.json", 50.0));
        assert!(has("millis.json", 900.0));
        assert!(!has("missing.json", 900.0));
    }
}
