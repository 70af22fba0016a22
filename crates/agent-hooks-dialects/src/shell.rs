//! The shell-hook dialect (`docs/protocol.md`): the canonical payload as one JSON line in; the
//! decision protocol out, with every Claude Code answer shape translated, and exit 2 meaning
//! "block".

use serde_json::{Map, Value};

use super::PayloadView;
use super::claude::{ClaudeOutput, Permission};
use super::read::{self, Fields, parse_object};
use agent_hooks_core::answer::{Answer, Decision, Rewrite, Unusable};
use agent_hooks_core::diag::DiagKind;
use agent_hooks_core::event::Event;
use agent_hooks_transports::{Exit, Reply};

/// What a shell hook reads on stdin: the canonical payload as one line of JSON.
pub fn input(view: &PayloadView<'_>) -> Vec<u8> {
    let mut bytes = serde_json::to_vec(view.payload).unwrap_or_else(|_| b"{}".to_vec());
    bytes.push(b'\n');
    bytes
}

/// A shell hook's reply read as the decision protocol (`docs/protocol.md`): its exit status and its
/// stdout's JSON object.
pub fn interpret(event: Event, reply: &Reply) -> Result<Answer, Unusable> {
    let stdout = read::stdout_text(reply)?;
    match reply.exit {
        Exit::Code(0) => {}
        Exit::Code(2) => {
            // Claude Code's convention: exit 2 blocks, with stderr as the reason. A JSON reason
            // on stdout, when present, is the more deliberate text.
            let reason = parse_object(stdout)
                .ok()
                .flatten()
                .and_then(|o| o.get("reason").and_then(Value::as_str).map(str::to_owned))
                .or_else(|| {
                    let err = String::from_utf8_lossy(&reply.stderr).trim().to_owned();
                    (!err.is_empty()).then_some(err)
                });
            return Ok(Answer {
                decision: Some(Decision::Block),
                reason,
                ..Answer::default()
            });
        }
        other => {
            let stderr = String::from_utf8_lossy(&reply.stderr);
            let tail = stderr.trim();
            return Err(Unusable {
                kind: DiagKind::HookNonzeroExit,
                detail: if tail.is_empty() {
                    other.to_string()
                } else {
                    format!("{other}: {}", read::last_lines(tail, 3))
                },
            });
        }
    }
    match parse_object(stdout)? {
        None => Ok(Answer::default()),
        Some(object) => decode(event, &object),
    }
}

/// Decodes a decision-protocol object (with the Claude Code shapes `docs/protocol.md` lists).
fn decode(event: Event, object: &Map<String, Value>) -> Result<Answer, Unusable> {
    let mut answer = Answer::default();
    let mut fields = Fields::new(object);

    if let Some(decision) = fields.string("decision")? {
        answer.decision = match decision.as_str() {
            "block" | "deny" => Some(Decision::Block),
            "ask" => Some(Decision::Ask),
            "allow" | "continue" | "approve" | "" => None,
            other => {
                return Err(Unusable {
                    kind: DiagKind::HookInvalidOutput,
                    detail: format!(
                        "decision \"{other}\" is not one of block, ask, allow, continue"
                    ),
                });
            }
        };
    }
    answer.reason = fields.string("reason")?;
    let claude = ClaudeOutput::parse(object)?;
    if let Some(stop) = claude.stop {
        answer.decision = Some(Decision::Block);
        if let Some(stop) = stop {
            answer.reason = Some(stop);
        }
    }
    if let Some(input) = fields.object_field("tool_input")? {
        answer.rewrites.push(Rewrite {
            field: "tool_input".into(),
            value: Value::Object(input.clone()),
            rule: None,
        });
    }
    for field in ["message", "notification", "response"] {
        if let Some(text) = fields.string(field)? {
            answer.rewrites.push(Rewrite {
                field: field.into(),
                value: Value::String(text),
                rule: None,
            });
        }
    }
    if let Some(note) = fields.string("note")? {
        answer.notes.push(note);
    }
    if let Some(context) = fields.text_or_list("context")? {
        answer.context.extend(context);
    }
    answer.model = fields.string("model")?;
    let warnings = claude.system_message.into_iter();
    for text in warnings.chain(fields.string("add_warning")?) {
        if event == Event::TransformToolResult {
            // The seed's result-transform templates put their note here.
            answer.notes.push(text.clone());
        }
        answer.warnings.push(text);
    }

    // Claude Code's hookSpecificOutput, under this dialect's rules: any permission decision
    // counts, and updatedInput rewrites existing keys like `tool_input` does.
    match claude.permission {
        Some(Permission::Deny) => answer.decision = Some(Decision::Block),
        Some(Permission::Ask | Permission::Defer) => {
            answer.decision = Some(answer.decision.unwrap_or_default().max(Decision::Ask))
        }
        Some(Permission::Allow) | None => {}
    }
    if let Some(reason) = claude.permission_reason {
        answer.reason = Some(reason);
    }
    answer.context.extend(claude.additional_context);
    if let Some(input) = claude.updated_input {
        answer.rewrites.push(Rewrite {
            field: "tool_input".into(),
            value: Value::Object(input),
            rule: None,
        });
    }
    if let Some(output) = claude.updated_tool_output {
        answer.rewrites.push(Rewrite {
            field: "tool_result".into(),
            value: output,
            rule: None,
        });
    }
    Ok(answer)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply(stdout: &str, code: i32, stderr: &str) -> Reply {
        Reply::exited(stdout, code, stderr)
    }

    fn answer(stdout: &str) -> Answer {
        interpret(Event::PreToolCall, &reply(stdout, 0, "")).expect("usable answer")
    }

    #[test]
    fn empty_stdout_is_noop() {
        assert!(answer("  \n").is_noop());
    }

    #[test]
    fn claude_deny_becomes_block() {
        let a = answer(
            r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}}"#,
        );
        assert_eq!(a.decision, Some(Decision::Block));
        assert_eq!(a.reason.as_deref(), Some("no"));
    }

    #[test]
    fn continue_false_blocks_with_stop_reason() {
        let a = answer(r#"{"continue": false, "stopReason": "halt"}"#);
        assert_eq!(a.decision, Some(Decision::Block));
        assert_eq!(a.reason.as_deref(), Some("halt"));
    }

    #[test]
    fn exit_two_blocks_with_stderr() {
        let a = interpret(Event::PreToolCall, &reply("", 2, "dangerous\n")).expect("block");
        assert_eq!(a.decision, Some(Decision::Block));
        assert_eq!(a.reason.as_deref(), Some("dangerous"));
    }

    #[test]
    fn two_documents_and_arrays_are_unusable() {
        let two = interpret(Event::OnStop, &reply("{}\n{}", 0, "")).unwrap_err();
        assert_eq!(two.kind, DiagKind::HookInvalidJson);
        let arr = interpret(Event::OnStop, &reply("[1]", 0, "")).unwrap_err();
        assert_eq!(arr.kind, DiagKind::HookInvalidFormat);
        let typed = interpret(Event::OnStop, &reply(r#"{"reason": 5}"#, 0, "")).unwrap_err();
        assert_eq!(typed.kind, DiagKind::HookInvalidOutput);
    }

    #[test]
    fn legacy_approve_is_no_decision() {
        assert_eq!(answer(r#"{"decision":"approve"}"#).decision, None);
    }

    #[test]
    fn warnings_become_notes_on_transform() {
        let a = interpret(
            Event::TransformToolResult,
            &reply(r#"{"add_warning":"careful"}"#, 0, ""),
        )
        .expect("ok");
        assert_eq!(a.notes, vec!["careful".to_owned()]);
        assert_eq!(a.warnings, vec!["careful".to_owned()]);
    }
}
