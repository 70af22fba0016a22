//! A Claude Code hook's answer, parsed once into [`ClaudeOutput`], then read into canonical
//! effects with Claude Code's rules ([`interpret`]): exit 2 blocks with stderr, plain stdout is
//! context on `UserPromptSubmit`/`SessionStart`, JSON decides on exit 0. The shell dialect
//! accepts the same fields from its hooks and maps the same [`ClaudeOutput`] under its own
//! rules (SPEC §5).

use serde_json::{Map, Value};

use super::event::ClaudeEvent;
use crate::answer::{Answer, Decision, Rewrite, Unusable};
use crate::diag::DiagKind;
use crate::dialect::read::{self, Fields, answer_preview as preview, parse_object};
use crate::event::RewriteRule;
use crate::transport::{Exit, Reply};

/// `hookSpecificOutput.permissionDecision`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Permission {
    Allow,
    Deny,
    Ask,
    Defer,
}

/// The Claude Code fields of an answer object, typed. Unknown keys are ignored, as Claude Code
/// does; a known key of the wrong type makes the answer unusable.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct ClaudeOutput {
    /// `continue: false`: the hook asks the agent to stop altogether, with `stopReason`.
    pub(crate) stop: Option<Option<String>>,
    /// `systemMessage`: shown to the user.
    pub(crate) system_message: Option<String>,
    /// `hookSpecificOutput.permissionDecision`.
    pub(crate) permission: Option<Permission>,
    /// `hookSpecificOutput.permissionDecisionReason`.
    pub(crate) permission_reason: Option<String>,
    /// `hookSpecificOutput.additionalContext` (a string; a list of strings is accepted too).
    pub(crate) additional_context: Vec<String>,
    /// `hookSpecificOutput.updatedInput`.
    pub(crate) updated_input: Option<Map<String, Value>>,
}

impl ClaudeOutput {
    /// Reads the Claude Code fields of `object` (the top-level `decision`/`reason` are left to
    /// the dialect, whose vocabularies differ).
    pub(crate) fn parse(object: &Map<String, Value>) -> Result<ClaudeOutput, Unusable> {
        let mut fields = Fields::new(object);
        let mut out = ClaudeOutput::default();
        match object.get("continue") {
            None | Some(Value::Null) | Some(Value::Bool(true)) => {}
            Some(Value::Bool(false)) => out.stop = Some(fields.string("stopReason")?),
            Some(other) => {
                return Err(read::wrong_type("continue", "a boolean", other));
            }
        }
        out.system_message = fields.string("systemMessage")?;
        if let Some(specific) = fields.object_field("hookSpecificOutput")? {
            let mut inner = Fields::new(specific);
            out.permission = match inner.string("permissionDecision")?.as_deref() {
                None => None,
                Some("allow") => Some(Permission::Allow),
                Some("deny") => Some(Permission::Deny),
                Some("ask") => Some(Permission::Ask),
                Some("defer") => Some(Permission::Defer),
                Some(other) => {
                    return Err(Unusable {
                        kind: DiagKind::HookInvalidOutput,
                        detail: format!(
                            "hookSpecificOutput.permissionDecision \"{other}\" is not one of allow, deny, ask, defer"
                        ),
                    });
                }
            };
            out.permission_reason = inner.string("permissionDecisionReason")?;
            out.additional_context = inner.text_or_list("additionalContext")?.unwrap_or_default();
            out.updated_input = inner.object_field("updatedInput")?.cloned();
        }
        Ok(out)
    }
}

/// Reads a Claude Code hook's exit code, stdout and stderr with Claude Code's rules.
pub(crate) fn interpret(claude: ClaudeEvent, reply: &Reply) -> Result<Answer, Unusable> {
    read::refuse_overflow(reply)?;
    let stdout = String::from_utf8_lossy(&reply.stdout);
    let stdout = stdout.trim();
    let stderr = String::from_utf8_lossy(&reply.stderr);
    let stderr = stderr.trim();
    // Claude Code treats stdout as JSON only when it looks like an object.
    let json = if stdout.starts_with('{') {
        Some(parse_object(stdout))
    } else {
        None
    };
    match reply.exit {
        Exit::Code(0) => match json {
            Some(Ok(Some(object))) => decode(claude, &object),
            Some(Ok(None)) => Ok(Answer::default()),
            Some(Err(unusable)) => Err(unusable),
            None if stdout.is_empty() => Ok(Answer::default()),
            None => Ok(match claude {
                ClaudeEvent::UserPromptSubmit | ClaudeEvent::SessionStart => Answer {
                    context: vec![stdout.to_owned()],
                    ..Answer::default()
                },
                // Elsewhere Claude Code shows plain stdout only in its transcript view.
                _ => Answer::default(),
            }),
        },
        Exit::Code(2) => {
            let json_reason = match &json {
                Some(Ok(Some(object))) => reason_of(object),
                _ => None,
            };
            let reason = json_reason.or_else(|| (!stderr.is_empty()).then(|| stderr.to_owned()));
            Ok(exit_two(claude, reason))
        }
        other => match json {
            Some(Ok(Some(object))) => decode(claude, &object),
            _ => Err(Unusable {
                kind: DiagKind::HookNonzeroExit,
                detail: if stderr.is_empty() {
                    format!("{other} (a non-blocking error in Claude Code's rules)")
                } else {
                    format!("{other}: {}", preview(stderr))
                },
            }),
        },
    }
}

fn reason_of(object: &Map<String, Value>) -> Option<String> {
    let specific = object.get("hookSpecificOutput");
    specific
        .and_then(|s| s.get("permissionDecisionReason"))
        .or_else(|| object.get("reason"))
        .or_else(|| object.get("stopReason"))
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
}

/// Exit 2: a block on the blocking events; feedback to the model after a tool ran; a message
/// to the user elsewhere.
fn exit_two(claude: ClaudeEvent, reason: Option<String>) -> Answer {
    let mut answer = Answer::default();
    if claude.blocks() {
        answer.decision = Some(Decision::Block);
        answer.reason =
            Some(reason.unwrap_or_else(|| "blocked by a Claude Code hook (exit 2)".into()));
    } else if let Some(text) = reason {
        match claude {
            ClaudeEvent::PostToolUse | ClaudeEvent::PostToolUseFailure => answer.notes.push(text),
            _ => answer.warnings.push(text),
        }
    }
    answer
}

/// Decodes a Claude Code JSON answer with Claude Code's rules.
fn decode(claude: ClaudeEvent, object: &Map<String, Value>) -> Result<Answer, Unusable> {
    let mut answer = Answer::default();
    let mut fields = Fields::new(object);
    let reason = fields.string("reason")?;
    let decision = fields.string("decision")?;
    let output = ClaudeOutput::parse(object)?;
    match decision.as_deref() {
        Some("block") => {
            let text = reason
                .clone()
                .unwrap_or_else(|| "blocked by a Claude Code hook".into());
            match claude {
                ClaudeEvent::PostToolUse | ClaudeEvent::PostToolUseFailure => {
                    // The tool already ran: Claude Code hands the reason to the model.
                    answer.notes.push(text);
                }
                _ if claude.blocks() => {
                    answer.decision = Some(Decision::Block);
                    answer.reason = Some(text);
                }
                _ => answer.warnings.push(text),
            }
        }
        Some("approve" | "allow" | "") | None => {}
        Some(other) => {
            return Err(Unusable {
                kind: DiagKind::HookInvalidOutput,
                detail: format!("decision \"{other}\" is not \"block\" or \"approve\""),
            });
        }
    }
    match output.permission {
        Some(Permission::Deny) => {
            answer.decision = Some(Decision::Block);
            answer.reason = output
                .permission_reason
                .clone()
                .or_else(|| Some("denied by a Claude Code hook".into()));
        }
        Some(Permission::Ask | Permission::Defer) => {
            if answer.decision != Some(Decision::Block) {
                answer.decision = Some(Decision::Ask);
                answer.reason = output.permission_reason.clone();
            }
        }
        Some(Permission::Allow) | None => {}
    }
    if let Some(updated) = output.updated_input {
        answer.rewrites.push(Rewrite {
            field: "tool_input".into(),
            value: Value::Object(updated),
            // Claude Code replaces the whole tool input with updatedInput.
            rule: Some(RewriteRule::Replace),
        });
    }
    match claude {
        ClaudeEvent::PostToolUse | ClaudeEvent::PostToolUseFailure => {
            answer.notes.extend(output.additional_context)
        }
        _ => answer.context.extend(output.additional_context),
    }
    if let Some(why) = output.stop {
        if claude == ClaudeEvent::Stop {
            // On Stop, "do not continue" means "let it stop", and Claude Code gives it
            // precedence over `decision: block`: nothing to redo.
            answer.decision = None;
            answer.reason = None;
            answer.warnings.extend(why);
        } else if claude.blocks() {
            answer.decision = Some(Decision::Block);
            answer.reason = why
                .or(answer.reason.take())
                .or_else(|| Some("a Claude Code hook asked to stop (continue: false)".into()));
        } else {
            // Claude Code would end the whole session here; this host cannot be stopped from
            // a hook of an event that only observes, so the user is told instead.
            answer.warnings.push(why.unwrap_or_else(|| {
                "a Claude Code hook asked to stop the session (continue: false)".into()
            }));
        }
    }
    answer.warnings.extend(output.system_message);
    Ok(answer)
}
#[cfg(test)]
mod tests {
    use super::*;

    fn reply(stdout: &str, code: i32, stderr: &str) -> Reply {
        Reply {
            stdout: stdout.as_bytes().to_vec(),
            stdout_overflow: false,
            stderr: stderr.as_bytes().to_vec(),
            exit: Exit::Code(code),
            left_behind: None,
        }
    }

    #[test]
    fn exit_two_blocks_even_if_json_allows() {
        let a = interpret(
            ClaudeEvent::PreToolUse,
            &reply(r#"{"decision":"approve"}"#, 2, "nope"),
        )
        .unwrap();
        assert_eq!(a.decision, Some(Decision::Block));
        assert_eq!(a.reason.as_deref(), Some("nope"));
    }

    #[test]
    fn plain_stdout_is_context_only_where_claude_code_says() {
        let a = interpret(ClaudeEvent::SessionStart, &reply("hello", 0, "")).unwrap();
        assert_eq!(a.context, vec!["hello".to_owned()]);
        let b = interpret(ClaudeEvent::PreToolUse, &reply("hello", 0, "")).unwrap();
        assert!(b.is_noop());
    }

    #[test]
    fn post_tool_use_block_is_a_note_for_the_model() {
        let a = interpret(
            ClaudeEvent::PostToolUse,
            &reply(r#"{"decision":"block","reason":"lint failed"}"#, 0, ""),
        )
        .unwrap();
        assert_eq!(a.decision, None);
        assert_eq!(a.notes, vec!["lint failed".to_owned()]);
    }

    #[test]
    fn continue_false_on_stop_lets_it_stop_even_over_a_block() {
        let a = interpret(
            ClaudeEvent::Stop,
            &reply(
                r#"{"decision":"block","reason":"again","continue":false,"stopReason":"budget spent"}"#,
                0,
                "",
            ),
        )
        .unwrap();
        assert_eq!(a.decision, None);
        assert_eq!(a.warnings, vec!["budget spent".to_owned()]);
    }

    #[test]
    fn continue_false_blocks_a_tool_call_and_warns_elsewhere() {
        let answer = r#"{"continue":false,"stopReason":"maintenance window"}"#;
        let pre = interpret(ClaudeEvent::PreToolUse, &reply(answer, 0, "")).unwrap();
        assert_eq!(pre.decision, Some(Decision::Block));
        assert_eq!(pre.reason.as_deref(), Some("maintenance window"));
        let post = interpret(ClaudeEvent::PostToolUse, &reply(answer, 0, "")).unwrap();
        assert_eq!(post.decision, None);
        assert_eq!(post.warnings, vec!["maintenance window".to_owned()]);
    }
}
