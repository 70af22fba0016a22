//! tool_audit_log: one JSON line per tool call, appended with a single write to a file
//! opened with O_APPEND, so concurrent writers (several processes) never interleave lines.

use serde::Deserialize;
use serde_json::{Map, Value};
use std::io::Write as _;

use crate::answer;
use crate::context::{GuardContext, rfc3339};
use crate::rules::{self, RulesError, pick};
use crate::secrets::Scanner;

pub(crate) const DEFAULT_RULES: &str = include_str!("../../rules/tool_audit_log.yaml");

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Raw {
    path: Option<String>,
    fields: Option<Vec<String>>,
    include_result: Option<bool>,
    max_string_chars: Option<usize>,
    mask_credentials: Option<bool>,
}

#[derive(Debug)]
pub(crate) struct ToolAuditLog {
    path: String,
    fields: Vec<String>,
    include_result: bool,
    max_string_chars: usize,
    mask_credentials: bool,
}

impl ToolAuditLog {
    pub(crate) fn new(user_yaml: Option<&str>) -> Result<Self, RulesError> {
        let (user, def) = rules::load::<Raw>(DEFAULT_RULES, user_yaml)?;
        let path: String = pick(user.path, def.path);
        if path.trim().is_empty() {
            return Err(RulesError::Invalid {
                field: "path".into(),
                message: "the audit log path is empty".into(),
            });
        }
        Ok(Self {
            path,
            fields: pick(user.fields, def.fields),
            include_result: pick(user.include_result, def.include_result),
            max_string_chars: pick(user.max_string_chars, def.max_string_chars),
            mask_credentials: pick(user.mask_credentials, def.mask_credentials),
        })
    }

    pub(crate) fn evaluate(&self, event: &str, payload: &Value, ctx: &mut GuardContext) -> Value {
        if event == "post_tool_call" && !ctx.dry_run {
            // Observe-only: a failed append must not change the tool call (fail-open).
            let _ = self.append(payload, ctx);
        }
        answer::noop()
    }

    fn append(&self, payload: &Value, ctx: &GuardContext) -> std::io::Result<()> {
        let mut record = Map::new();
        record.insert("ts".into(), Value::String(rfc3339(ctx.now())));
        for field in &self.fields {
            if let Some(value) = payload.get(field) {
                record.insert(field.clone(), self.truncate(value));
            }
        }
        if self.include_result
            && let Some(result) = payload.get("tool_result")
        {
            record.insert("tool_result".into(), self.truncate(result));
        }
        let mut line = Value::Object(record).to_string().into_bytes();
        line.push(b'\n');
        let path = ctx.resolve(&self.path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)?;
        // One write call per line: with O_APPEND the kernel places it at the end in one
        // piece, which is what keeps lines whole under concurrent writers.
        let written = file.write(&line)?;
        if written < line.len() {
            file.write_all(&line[written..])?;
        }
        Ok(())
    }

    /// A value as recorded: credentials masked and wallet secrets withheld (with
    /// `mask_credentials`), long strings cut.
    fn truncate(&self, value: &Value) -> Value {
        match value {
            Value::String(s) => {
                let redacted = match self.scanner() {
                    Some(scanner) => scanner.redact(s, true),
                    None => None,
                };
                let s = redacted.as_deref().unwrap_or(s);
                if s.chars().count() > self.max_string_chars {
                    let cut: String = s.chars().take(self.max_string_chars).collect();
                    Value::String(format!("{cut}…[truncated]"))
                } else {
                    Value::String(s.to_owned())
                }
            }
            Value::Array(items) => Value::Array(items.iter().map(|v| self.truncate(v)).collect()),
            Value::Object(map) => Value::Object(
                map.iter()
                    .map(|(k, v)| (k.clone(), self.truncate(v)))
                    .collect(),
            ),
            other => other.clone(),
        }
    }

    /// security_guard's default credential tables: an audit log must not become a second
    /// copy of the secrets that went through the tools.
    fn scanner(&self) -> Option<&'static Scanner> {
        if !self.mask_credentials {
            return None;
        }
        crate::guards::security_guard::default_scanner()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dry_run_answers_the_same_and_appends_nothing() -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let guard = ToolAuditLog::new(Some("path: audit.jsonl\n"))?;
        let payload = serde_json::json!({"tool_name": "bash", "tool_input": {"command": "ls"}});
        let log = dir.path().join("audit.jsonl");

        let trial = guard.evaluate(
            "post_tool_call",
            &payload,
            &mut GuardContext::dry_run(dir.path()),
        );
        assert!(!log.exists(), "a dry run wrote {}", log.display());

        let real = guard.evaluate(
            "post_tool_call",
            &payload,
            &mut GuardContext::in_memory(dir.path()),
        );
        assert_eq!(trial, real);
        assert_eq!(std::fs::read_to_string(&log)?.lines().count(), 1);
        Ok(())
    }
}
