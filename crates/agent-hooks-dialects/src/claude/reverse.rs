//! The other direction: Claude Code's hook input read into a canonical dispatch
//! ([`from_claude`]), and a canonical [`Outcome`] written as Claude Code's answer
//! ([`to_claude`]). The `claude-hook` bridge and `agent-hooks guard --format claude` both go
//! through here.

use serde_json::{Map, Value, json};

use super::event::ClaudeEvent;
use crate::agent::AgentAnswer;
use crate::home::{InputError, RewritePermission, ToolAliases};
use agent_hooks_core::answer::Decision;
use agent_hooks_core::event::Event;
use agent_hooks_core::outcome::{HookStatus, Outcome};

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
/// [`InputError::NotAnInput`] when `input` has no `hook_event_name`, and
/// [`InputError::Unmapped`] when agent-hooks has no event for it.
pub fn from_claude(
    family: &dyn super::ClaudeFamily,
    input: &Value,
    aliases: &ToolAliases,
) -> Result<Translated, InputError> {
    let Value::Object(input) = input else {
        return Err(InputError::NotAnInput);
    };
    let name = input
        .get("hook_event_name")
        .and_then(Value::as_str)
        .ok_or(InputError::NotAnInput)?;
    let claude = family.parse(name).ok_or_else(|| InputError::Unmapped {
        agent: family.agent(),
        name: name.to_owned(),
    })?;
    let get = |k: &str| input.get(k).cloned();
    let mut p = Map::new();
    for key in [
        "session_id",
        "cwd",
        "transcript_path",
        "permission_mode",
        "tool_use_id",
        "turn_id",
        "model",
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

/// What a dispatch started from — the tool input, or the user's prompt — so the answer can
/// tell whether hooks rewrote it.
#[derive(Debug, Clone, PartialEq)]
pub struct Sent(Option<Value>);

impl Sent {
    /// What `payload` carries for `claude` before any hook runs: the prompt, the tool's
    /// result after it ran, else the tool input.
    pub fn of(claude: ClaudeEvent, payload: &Map<String, Value>) -> Sent {
        Sent::of_event(claude.canonical(), payload)
    }

    /// What `payload` carries at the canonical `event` before any hook runs.
    pub fn of_event(event: Event, payload: &Map<String, Value>) -> Sent {
        let field = match event {
            Event::OnUserMessage => "message",
            Event::PostToolCall => "tool_result",
            _ => "tool_input",
        };
        Sent(payload.get(field).cloned())
    }

    /// Whether `now` is still what was sent (no hook rewrote it).
    pub fn is(&self, now: Option<&Value>) -> bool {
        self.0.as_ref() == now
    }
}

/// Turns an outcome into Claude Code's answer for `claude`. `sent` is what the dispatch
/// started from ([`Sent::of`] its payload), to tell whether hooks rewrote it.
pub fn to_claude(
    claude: ClaudeEvent,
    outcome: &Outcome,
    sent: &Sent,
    rewrite: RewritePermission,
) -> AgentAnswer {
    let sent_input = sent.0.as_ref();
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
                // Claude Code applies updatedInput only with a decision: `ask` shows the user
                // the rewritten call; `allow` (opt-in) runs it unprompted.
                if outcome.decision == Decision::Continue {
                    // A rewrite by a hook that needs no approval is never allowed unprompted.
                    let rewrite = match outcome.unvetted_rewrite {
                        Some(_) => RewritePermission::Ask,
                        None => rewrite,
                    };
                    specific.insert("permissionDecision".into(), json!(rewrite.as_str()));
                    specific.insert(
                        "permissionDecisionReason".into(),
                        json!("a hook rewrote this tool call's input"),
                    );
                }
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
            let now = outcome.payload.get("tool_result");
            if claude == ClaudeEvent::PostToolUse && now.is_some() && now != sent_input {
                specific.insert(
                    "updatedToolOutput".into(),
                    now.cloned().unwrap_or(Value::Null),
                );
            }
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
    answer_with(out, specific, claude.name(), outcome)
}

/// Completes an answer in Claude Code's shape, which Gemini CLI shares: `hookSpecificOutput`
/// (named for `event`) when it has anything, `continue: false` for a stop, the warnings as
/// `systemMessage`, and the bridge's log on stderr.
pub fn answer_with(
    mut out: Map<String, Value>,
    mut specific: Map<String, Value>,
    event: &str,
    outcome: &Outcome,
) -> AgentAnswer {
    if !specific.is_empty() {
        specific.insert("hookEventName".into(), json!(event));
        out.insert("hookSpecificOutput".into(), Value::Object(specific));
    }
    if let Some(stop) = &outcome.stop {
        out.insert("continue".into(), json!(false));
        out.insert("stopReason".into(), json!(stop.reason));
    }
    if !outcome.warnings.is_empty() {
        out.insert("systemMessage".into(), json!(outcome.warnings.join("\n")));
    }
    AgentAnswer {
        stdout: if out.is_empty() {
            String::new()
        } else {
            Value::Object(out).to_string()
        },
        stderr: bridge_log(outcome).join("\n"),
        exit: 0,
    }
}

/// What a bridge writes to stderr (the agent's hook log): every lapse of the policy, told to
/// the user in the answer too, then every hook that failed, and every one skipped because the
/// agent runs it itself.
pub fn bridge_log(outcome: &Outcome) -> Vec<String> {
    let mut log: Vec<String> = outcome
        .lapses
        .iter()
        .map(|l| {
            if l.message.starts_with("agent-hooks") {
                l.message.clone()
            } else {
                format!("agent-hooks: {}", l.message)
            }
        })
        .collect();
    log.extend(hook_log(outcome));
    log
}

/// The hooks that failed, and every one skipped because the agent runs it itself.
fn hook_log(outcome: &Outcome) -> Vec<String> {
    outcome
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
        .collect()
}

/// The detail of a Claude Code hook skipped because Claude Code runs it itself.
pub const BRIDGED: &str = "run by Claude Code itself (bridged), skipped here";

#[cfg(test)]
mod tests {
    use super::*;
    use agent_hooks_core::outcome::Stop;

    fn outcome(event: Event, payload: Value) -> Outcome {
        let Value::Object(payload) = payload else {
            unreachable!("test payloads are objects")
        };
        Outcome::unchanged(event, payload)
    }

    #[test]
    fn a_stop_is_continue_false_with_its_reason() {
        let mut done = outcome(Event::OnSessionStart, json!({}));
        done.stop = Some(Stop::new("budget spent"));
        let answer = to_claude(
            ClaudeEvent::SessionStart,
            &done,
            &Sent(None),
            RewritePermission::Ask,
        );
        let json: Value = serde_json::from_str(&answer.stdout).unwrap_or_default();
        assert_eq!(
            json,
            json!({"continue": false, "stopReason": "budget spent"})
        );
    }

    #[test]
    fn a_replaced_result_is_updated_tool_output() {
        let sent = Sent::of(
            ClaudeEvent::PostToolUse,
            json!({"tool_result": {"stdout": "KEY=secret"}})
                .as_object()
                .unwrap_or(&Map::new()),
        );
        let after = outcome(
            Event::PostToolCall,
            json!({"tool_result": {"stdout": "KEY=[redacted]"}}),
        );
        let answer = to_claude(
            ClaudeEvent::PostToolUse,
            &after,
            &sent,
            RewritePermission::Ask,
        );
        let json: Value = serde_json::from_str(&answer.stdout).unwrap_or_default();
        assert_eq!(
            json["hookSpecificOutput"]["updatedToolOutput"],
            json!({"stdout": "KEY=[redacted]"})
        );
    }

    #[test]
    fn the_rewrite_permission_setting_reads_allow_only() {
        let allow = json!({"claude_hooks": {"rewrite_permission": "allow"}});
        assert_eq!(
            RewritePermission::from_settings(&allow),
            RewritePermission::Allow
        );
        assert_eq!(
            RewritePermission::from_settings(&json!({})),
            RewritePermission::Ask
        );
    }
}
