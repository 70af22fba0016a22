//! The Claude Code bridge: agent-hooks *inside* Claude Code. `agent-hooks claude-hook` gets a
//! Claude Code hook input, dispatches it as the canonical event through this workspace's hooks,
//! and answers in Claude Code's format; [`install`] wires every mapped event of
//! `.claude/settings.json` to it. The workspace's own Claude Code hooks are skipped while
//! bridged — Claude Code already runs them — so nothing runs twice.

use std::path::Path;

use serde_json::{Map, Value, json};

use crate::answer::Decision;
use crate::config::claude::is_bridge_command;
use crate::dialect::claude::{CLAUDE_EVENTS, ClaudeEvent, ToolAliases};
use crate::engine::Engine;
use crate::event::Event;
use crate::hook::SourceKind;
use crate::outcome::{HookStatus, Outcome};
use crate::store::{self, FileLock};
use crate::workspace::Workspace;

/// Why a bridge call could not be made.
#[derive(Debug, thiserror::Error)]
pub enum BridgeError {
    /// Stdin was not a Claude Code hook input.
    #[error("the hook input is not a JSON object with a \"hook_event_name\"")]
    NotAnInput,
    /// A Claude Code event agent-hooks has no event for; the bridge should not be wired to it.
    #[error("Claude Code event \"{0}\" has no counterpart in agent-hooks")]
    Unmapped(String),
    /// `.claude/settings.json` could not be read, locked or written.
    #[error("failed to update {path}: {source}")]
    Io {
        /// The settings file, as shown to the user.
        path: String,
        /// The underlying failure.
        source: std::io::Error,
    },
    /// `.claude/settings.json` exists but is not a JSON object; it is left untouched rather
    /// than overwritten.
    #[error("{path} is not valid JSON ({error}); fix it first (nothing was written)")]
    Corrupt {
        /// The settings file, as shown to the user.
        path: String,
        /// What the parser said.
        error: String,
    },
}

/// A Claude Code hook input translated to a canonical dispatch.
#[derive(Debug, Clone, PartialEq)]
pub struct Translated {
    /// The Claude Code event it came as, which decides the answer's shape.
    pub claude: ClaudeEvent,
    /// The canonical event to dispatch.
    pub event: Event,
    /// The canonical payload (tool names already mapped back through the aliases).
    pub payload: Map<String, Value>,
}

/// Maps a Claude Code hook input to the canonical event and payload. `aliases` maps the
/// host's tool names to Claude Code's (from `config/agent.yaml`).
///
/// # Errors
///
/// [`BridgeError::NotAnInput`] when `input` has no `hook_event_name`, and
/// [`BridgeError::Unmapped`] when agent-hooks has no event for it.
pub fn from_claude(input: &Value, aliases: &ToolAliases) -> Result<Translated, BridgeError> {
    let Value::Object(input) = input else {
        return Err(BridgeError::NotAnInput);
    };
    let name = input
        .get("hook_event_name")
        .and_then(Value::as_str)
        .ok_or(BridgeError::NotAnInput)?;
    let claude = ClaudeEvent::parse(name).ok_or_else(|| BridgeError::Unmapped(name.to_owned()))?;
    let get = |k: &str| input.get(k).cloned();
    let mut p = Map::new();
    for key in [
        "session_id",
        "cwd",
        "transcript_path",
        "permission_mode",
        "tool_use_id",
    ] {
        if let Some(v) = get(key) {
            p.insert(key.into(), v);
        }
    }
    let tool = || {
        let claude_name = input.get("tool_name").and_then(Value::as_str).unwrap_or("");
        Value::String(aliases.to_host(claude_name).to_owned())
    };
    match claude {
        ClaudeEvent::PreToolUse => {
            p.insert("tool_name".into(), tool());
            p.insert("tool_input".into(), get("tool_input").unwrap_or(json!({})));
        }
        ClaudeEvent::PostToolUse => {
            p.insert("tool_name".into(), tool());
            p.insert("tool_input".into(), get("tool_input").unwrap_or(json!({})));
            p.insert(
                "tool_result".into(),
                get("tool_response").unwrap_or(Value::Null),
            );
            p.insert("status".into(), json!("success"));
        }
        ClaudeEvent::PostToolUseFailure => {
            p.insert("tool_name".into(), tool());
            p.insert("tool_input".into(), get("tool_input").unwrap_or(json!({})));
            p.insert("tool_result".into(), Value::Null);
            p.insert("status".into(), json!("error"));
            p.insert("error".into(), get("error").unwrap_or(Value::Null));
        }
        ClaudeEvent::UserPromptSubmit => {
            p.insert("message".into(), get("prompt").unwrap_or(json!("")));
            p.insert("channel".into(), json!("claude-code"));
        }
        ClaudeEvent::Stop => {
            p.insert(
                "response".into(),
                get("last_assistant_message").unwrap_or(json!("")),
            );
            p.insert(
                "stop_hook_active".into(),
                get("stop_hook_active").unwrap_or(json!(false)),
            );
        }
        ClaudeEvent::SessionStart => {
            let source = get("source").unwrap_or(json!("startup"));
            p.insert("status".into(), source.clone());
            p.insert("source".into(), source);
        }
        ClaudeEvent::SessionEnd => {
            let reason = get("reason").unwrap_or(json!("other"));
            p.insert("status".into(), reason.clone());
            p.insert("reason".into(), reason);
        }
        ClaudeEvent::Notification => {
            p.insert("notification".into(), get("message").unwrap_or(json!("")));
            p.insert("type".into(), get("notification_type").unwrap_or(json!("")));
        }
    }
    Ok(Translated {
        claude,
        event: claude.canonical(),
        payload: p,
    })
}

/// What the bridge prints and how it exits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaudeAnswer {
    /// One JSON object, or empty for "no opinion".
    pub stdout: String,
    /// Shown by Claude Code in verbose mode only.
    pub stderr: String,
    /// The process exit status; always 0, as decisions travel in `stdout`.
    pub exit: i32,
}

/// Turns an outcome into Claude Code's answer for `claude`. `sent_input` is the tool input the
/// dispatch started from, to tell whether hooks rewrote it.
pub fn to_claude(
    claude: ClaudeEvent,
    outcome: &Outcome,
    sent_input: Option<&Value>,
) -> ClaudeAnswer {
    let mut out = Map::new();
    let mut specific = Map::new();
    let mut context: Vec<String> = outcome.context.clone();
    let reason = outcome.reason.clone().unwrap_or_default();
    match claude {
        ClaudeEvent::PreToolUse => {
            match outcome.decision {
                Decision::Block => {
                    specific.insert("permissionDecision".into(), json!("deny"));
                    specific.insert("permissionDecisionReason".into(), json!(reason));
                }
                Decision::Ask => {
                    specific.insert("permissionDecision".into(), json!("ask"));
                    specific.insert("permissionDecisionReason".into(), json!(reason));
                }
                Decision::Continue => {}
            }
            if let Some(result) = outcome.result.as_ref().filter(|_| outcome.is_blocked()) {
                // A skill hook's synthetic result is what the agent should read instead.
                let text = result
                    .as_str()
                    .map_or_else(|| result.to_string(), str::to_owned);
                specific.insert("permissionDecisionReason".into(), json!(text));
            }
            let now = outcome.payload.get("tool_input");
            if outcome.decision != Decision::Block && now.is_some() && now != sent_input {
                specific.insert("updatedInput".into(), now.cloned().unwrap_or(json!({})));
            }
        }
        ClaudeEvent::UserPromptSubmit => {
            if outcome.is_blocked() {
                out.insert("decision".into(), json!("block"));
                out.insert("reason".into(), json!(reason));
            }
            if let Some(rewritten) = outcome.payload.get("message").and_then(Value::as_str)
                && sent_input.and_then(Value::as_str) != Some(rewritten)
            {
                // Claude Code cannot replace a prompt; hand the model the rewritten text.
                context.push(format!(
                    "A hook rewrote the user's message; treat it as: {rewritten}"
                ));
            }
        }
        ClaudeEvent::Stop => {
            if outcome.is_blocked() {
                out.insert("decision".into(), json!("block"));
                out.insert("reason".into(), json!(reason));
            }
        }
        ClaudeEvent::PostToolUse | ClaudeEvent::PostToolUseFailure => {
            context.extend(outcome.notes.iter().cloned());
        }
        ClaudeEvent::SessionStart | ClaudeEvent::SessionEnd | ClaudeEvent::Notification => {}
    }
    let context_allowed = matches!(
        claude,
        ClaudeEvent::PreToolUse
            | ClaudeEvent::UserPromptSubmit
            | ClaudeEvent::SessionStart
            | ClaudeEvent::PostToolUse
            | ClaudeEvent::PostToolUseFailure
    );
    if context_allowed && !context.is_empty() {
        specific.insert("additionalContext".into(), json!(context.join("\n\n")));
    }
    if !specific.is_empty() {
        specific.insert("hookEventName".into(), json!(claude.name()));
        out.insert("hookSpecificOutput".into(), Value::Object(specific));
    }
    if !outcome.warnings.is_empty() {
        out.insert("systemMessage".into(), json!(outcome.warnings.join("\n")));
    }
    let failures: Vec<String> = outcome
        .hooks
        .iter()
        .filter(|h| {
            h.status.is_failure()
                || h.status == HookStatus::Skipped && h.detail.as_deref() == Some(BRIDGED)
        })
        .map(|h| {
            format!(
                "{}: {} {}",
                h.hook,
                h.status.as_str(),
                h.detail.as_deref().unwrap_or("")
            )
        })
        .collect();
    ClaudeAnswer {
        stdout: if out.is_empty() {
            String::new()
        } else {
            Value::Object(out).to_string()
        },
        stderr: failures.join("\n"),
        exit: 0,
    }
}

/// The detail of a Claude Code hook skipped because Claude Code runs it itself.
pub const BRIDGED: &str = "run by Claude Code itself (bridged), skipped here";

/// Runs one bridge call: translate, dispatch without the workspace's own Claude Code hooks,
/// answer. Keeps the Stop redo count per session under `state/claude-bridge/`.
///
/// This is the whole of `agent-hooks claude-hook`: the caller prints
/// [`ClaudeAnswer::stdout`] and exits with [`ClaudeAnswer::exit`].
///
/// ```
/// use agent_hooks::{Engine, Workspace, bridge};
/// use serde_json::json;
///
/// let dir = tempfile::tempdir()?;
/// let engine = Engine::open(Workspace::new(dir.path()));
/// let input = json!({
///     "hook_event_name": "PreToolUse",
///     "session_id": "s1",
///     "tool_name": "Bash",
///     "tool_input": {"command": "ls"},
/// });
/// let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
/// let answer = rt.block_on(bridge::handle(&engine, &input))?;
/// // No hook objected, so the bridge has no opinion and Claude Code carries on.
/// assert_eq!(answer.stdout, "");
/// assert_eq!(answer.exit, 0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub async fn handle(engine: &Engine, input: &Value) -> Result<ClaudeAnswer, BridgeError> {
    let aliases = ToolAliases::from_settings(&engine.snapshot().config.agent.document);
    let mut t = from_claude(input, &aliases)?;
    let counter = RedoCounter::new(engine.workspace(), &t.payload);
    let redo_count = counter.current(&t.payload);
    if t.claude == ClaudeEvent::Stop {
        t.payload.insert("redo_count".into(), json!(redo_count));
    }
    let sent = match t.claude {
        ClaudeEvent::UserPromptSubmit => t.payload.get("message").cloned(),
        _ => t.payload.get("tool_input").cloned(),
    };
    let outcome = engine
        .dispatch_skipping(t.event, t.payload, SourceKind::ClaudeCode, BRIDGED)
        .await;
    if t.claude == ClaudeEvent::Stop {
        counter.record(redo_count, outcome.is_blocked());
    }
    Ok(to_claude(t.claude, &outcome, sent.as_ref()))
}

/// Claude Code says only `stop_hook_active`; the redo cap needs a count, kept per session.
struct RedoCounter {
    path: Option<std::path::PathBuf>,
}

impl RedoCounter {
    fn new(ws: &Workspace, payload: &Map<String, Value>) -> RedoCounter {
        let session = payload
            .get("session_id")
            .and_then(Value::as_str)
            .unwrap_or("");
        let path = (!session.is_empty()).then(|| {
            ws.state_dir()
                .join("claude-bridge")
                .join(format!("{}.redo", crate::hook::filesystem_safe(session)))
        });
        RedoCounter { path }
    }

    fn current(&self, payload: &Map<String, Value>) -> u64 {
        let active = payload
            .get("stop_hook_active")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        if !active {
            return 0;
        }
        let stored = self
            .path
            .as_ref()
            .and_then(|p| store::read_optional(p).ok().flatten())
            .and_then(|t| t.trim().parse::<u64>().ok());
        stored.unwrap_or(1).max(1)
    }

    /// Stores the count the next Stop of this turn starts from. It counts on from what this
    /// call was given, never from the file: a Stop with `stop_hook_active` false starts a new
    /// turn, whatever an interrupted earlier turn left behind.
    fn record(&self, redo_count: u64, blocked: bool) {
        let Some(path) = &self.path else { return };
        if blocked {
            let next = redo_count + 1;
            let _ = store::write_atomic(path, next.to_string().as_bytes());
        } else {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// What [`install`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstallReport {
    /// The settings file written, as shown to the user.
    pub path: String,
    /// Claude Code events newly wired to the bridge.
    pub added: Vec<&'static str>,
    /// Claude Code events that already had a bridge entry.
    pub already: Vec<&'static str>,
}

/// Writes bridge entries for every mapped event into `.claude/settings.json`, merging with what
/// is there (other settings and hooks are kept; running it twice changes nothing). `exe` is
/// the `agent-hooks` binary the entries run.
///
/// # Errors
///
/// [`BridgeError::Corrupt`] when the settings file is not a JSON object, and
/// [`BridgeError::Io`] when it cannot be read or written.
pub fn install(ws: &Workspace, exe: &Path) -> Result<InstallReport, BridgeError> {
    let path = ws.root().join(".claude/settings.json");
    let display = ws.display(&path).into_owned();
    let io = |source| BridgeError::Io {
        path: display.clone(),
        source,
    };
    let _lock = FileLock::acquire(&path).map_err(io)?;
    let mut doc = match store::read_optional(&path).map_err(io)? {
        None => Map::new(),
        Some(text) if text.trim().is_empty() => Map::new(),
        Some(text) => match serde_json::from_str::<Value>(&text) {
            Ok(Value::Object(map)) => map,
            Ok(_) => {
                return Err(BridgeError::Corrupt {
                    path: display,
                    error: "the top level is not an object".into(),
                });
            }
            Err(e) => {
                return Err(BridgeError::Corrupt {
                    path: display,
                    error: e.to_string(),
                });
            }
        },
    };
    let command = format!("{} claude-hook", shell_words::quote(&exe.to_string_lossy()));
    let hooks = doc
        .entry("hooks")
        .or_insert_with(|| Value::Object(Map::new()));
    if !hooks.is_object() {
        return Err(BridgeError::Corrupt {
            path: display,
            error: "\"hooks\" is not an object".into(),
        });
    }
    let mut report = InstallReport {
        path: display.clone(),
        added: Vec::new(),
        already: Vec::new(),
    };
    if let Value::Object(hooks) = hooks {
        for (name, claude, _) in CLAUDE_EVENTS {
            let groups = hooks
                .entry(name)
                .or_insert_with(|| Value::Array(Vec::new()));
            let Value::Array(groups) = groups else {
                continue;
            };
            let present = groups.iter().any(|g| {
                g.get("hooks").and_then(Value::as_array).is_some_and(|hs| {
                    hs.iter().any(|h| {
                        h.get("command")
                            .and_then(Value::as_str)
                            .is_some_and(is_bridge_command)
                    })
                })
            });
            if present {
                report.already.push(name);
                continue;
            }
            let mut group = Map::new();
            if matches!(
                claude,
                ClaudeEvent::PreToolUse
                    | ClaudeEvent::PostToolUse
                    | ClaudeEvent::PostToolUseFailure
            ) {
                group.insert("matcher".into(), json!("*"));
            }
            group.insert(
                "hooks".into(),
                json!([{"type": "command", "command": command, "timeout": 120}]),
            );
            groups.push(Value::Object(group));
            report.added.push(name);
        }
    }
    if !report.added.is_empty() {
        let mut text = serde_json::to_string_pretty(&Value::Object(doc))
            .map_err(|e| io(std::io::Error::other(e)))?;
        text.push('\n');
        store::write_atomic(&path, text.as_bytes()).map_err(io)?;
    }
    Ok(report)
}
