//! Reading a hook's stdout, for every dialect: the size cap, UTF-8, "exactly one JSON object",
//! typed field extraction with one wording for a wrong type, and the short previews messages
//! quote. A dialect decides what the fields *mean*; this module decides whether there is an
//! answer to read at all.

use serde_json::{Map, Value};

use agent_hooks_core::answer::Unusable;
use agent_hooks_core::diag::DiagKind;
use agent_hooks_core::wording::kind_of;
use agent_hooks_transports::{Exit, Reply};

/// A hook whose stdout ran past the cap has no usable answer, whatever it says.
pub fn refuse_overflow(reply: &Reply) -> Result<(), Unusable> {
    if reply.stdout_overflow {
        return Err(Unusable {
            kind: DiagKind::HookInvalidOutput,
            detail: format!(
                "stdout is larger than {} bytes; the answer was discarded",
                reply.stdout.len()
            ),
        });
    }
    Ok(())
}

/// How a hook ended, read as Claude Code reads it (and Codex, Gemini CLI and Cursor after it).
#[derive(Debug)]
pub enum Ended {
    /// Exit 0: its stdout is the answer.
    Zero,
    /// Exit 2: a block, its stderr (trimmed; empty when it wrote none) the reason.
    Two(String),
}

/// Exit 0 and exit 2 as Claude Code reads them; any other end is a non-blocking error whose
/// stdout is ignored, `proceeds` saying what the agent does then when the hook wrote no stderr.
pub fn ended(reply: &Reply, proceeds: &str) -> Result<Ended, Unusable> {
    refuse_overflow(reply)?;
    let stderr = String::from_utf8_lossy(&reply.stderr);
    let stderr = stderr.trim();
    match reply.exit {
        Exit::Code(0) => Ok(Ended::Zero),
        Exit::Code(2) => Ok(Ended::Two(stderr.to_owned())),
        other => Err(Unusable {
            kind: DiagKind::HookNonzeroExit,
            detail: if stderr.is_empty() {
                format!("{other} ({proceeds})")
            } else {
                format!("{other}: {}", answer_preview(stderr))
            },
        }),
    }
}

/// A hook's stdout as text: within the cap and valid UTF-8, trimmed.
pub fn stdout_text(reply: &Reply) -> Result<&str, Unusable> {
    refuse_overflow(reply)?;
    std::str::from_utf8(&reply.stdout)
        .map(str::trim)
        .map_err(|e| Unusable {
            kind: DiagKind::HookInvalidJson,
            detail: format!("stdout is not valid UTF-8 (at byte {})", e.valid_up_to()),
        })
}

pub use agent_hooks_core::wording::preview;

/// The last `n` lines of `text` joined on one line (the end of a stderr is where the error is).
pub fn last_lines(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..].join(" | ")
}

/// Parses stdout as exactly one JSON object; `None` for empty output.
pub fn parse_object(stdout: &str) -> Result<Option<Map<String, Value>>, Unusable> {
    if stdout.is_empty() {
        return Ok(None);
    }
    let mut stream = serde_json::Deserializer::from_str(stdout).into_iter::<Value>();
    let first = match stream.next() {
        Some(Ok(v)) => v,
        Some(Err(e)) => {
            return Err(Unusable {
                kind: DiagKind::HookInvalidJson,
                detail: format!("stdout is not JSON ({e}): {}", answer_preview(stdout)),
            });
        }
        None => return Ok(None),
    };
    if stream.next().is_some() {
        return Err(Unusable {
            kind: DiagKind::HookInvalidJson,
            detail: format!(
                "stdout holds more than one JSON document (a shell profile or a debug print?): {}",
                answer_preview(stdout)
            ),
        });
    }
    match first {
        Value::Object(map) => Ok(Some(map)),
        other => Err(Unusable {
            kind: DiagKind::HookInvalidFormat,
            detail: format!(
                "expected one JSON object, found {}: {}",
                kind_of(&other),
                answer_preview(stdout)
            ),
        }),
    }
}

/// Typed access to the fields of an answer object; a wrong type makes the answer unusable.
#[derive(Debug)]
pub struct Fields<'a> {
    /// The answer object.
    pub object: &'a Map<String, Value>,
}

impl<'a> Fields<'a> {
    /// Typed access to `object`.
    pub fn new(object: &'a Map<String, Value>) -> Self {
        Fields { object }
    }

    /// The string at `key`; absent or null is `None`.
    pub fn string(&mut self, key: &str) -> Result<Option<String>, Unusable> {
        match self.object.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(other) => Err(wrong_type(key, "a string", other)),
        }
    }

    /// The string or list of strings at `key`, as a list; absent, null or empty is `None`.
    pub fn text_or_list(&mut self, key: &str) -> Result<Option<Vec<String>>, Unusable> {
        match self.object.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) if s.is_empty() => Ok(None),
            Some(Value::String(s)) => Ok(Some(vec![s.clone()])),
            Some(Value::Array(items)) if items.iter().all(Value::is_string) => Ok(Some(
                items
                    .iter()
                    .filter_map(|v| v.as_str().map(str::to_owned))
                    .collect(),
            )),
            Some(other) => Err(wrong_type(key, "a string", other)),
        }
    }

    /// The object at `key`; absent or null is `None`.
    pub fn object_field(&mut self, key: &str) -> Result<Option<&'a Map<String, Value>>, Unusable> {
        match self.object.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Object(map)) => Ok(Some(map)),
            Some(other) => Err(wrong_type(key, "an object", other)),
        }
    }
}

/// The unusable answer whose `key` holds `found` where `expected` belongs.
pub fn wrong_type(key: &str, expected: &str, found: &Value) -> Unusable {
    Unusable {
        kind: DiagKind::HookInvalidOutput,
        detail: format!("\"{key}\" must be {expected}, found {}", kind_of(found)),
    }
}

/// The first bytes of an answer, for messages about it.
pub fn answer_preview(text: &str) -> String {
    preview(text, 120)
}
