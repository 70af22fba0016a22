//! A Claude Code hook's answer, parsed once into [`ClaudeOutput`], then read into canonical effects
//! with Claude Code's rules ([`interpret`]): exit 2 blocks with stderr, plain stdout is context on
//! `UserPromptSubmit`/`SessionStart`, JSON decides on exit 0. The shell dialect accepts the same
//! fields from its hooks and maps the same [`ClaudeOutput`] under its own rules
//! (`docs/protocol.md`).

use serde_json::{Map, Value};

use super::event::ClaudeEvent;
use crate::read::{self, Ended, Fields, parse_object};
use crate::verdict::Verdict;
use agent_hooks_core::answer::{Answer, Decision, Rewrite, Unusable};
use agent_hooks_core::diag::DiagKind;
use agent_hooks_core::event::RewriteRule;
use agent_hooks_transports::Reply;

/// `hookSpecificOutput.permissionDecision`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Permission {
    /// `allow`: run the tool without asking.
    Allow,
    /// `deny`: refuse the call.
    Deny,
    /// `ask`: confirm with the user first.
    Ask,
    /// `defer`: no opinion; leave the call to the other hooks and the agent.
    Defer,
}

/// The Claude Code fields of an answer object, typed. Unknown keys are ignored, as Claude Code
/// does; a known key of the wrong type makes the answer unusable.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ClaudeOutput {
    /// `continue: false`: the hook asks the agent to stop altogether, with `stopReason`.
    pub stop: Option<Option<String>>,
    /// `systemMessage`: shown to the user.
    pub system_message: Option<String>,
    /// `hookSpecificOutput.permissionDecision`.
    pub permission: Option<Permission>,
    /// `hookSpecificOutput.permissionDecisionReason`.
    pub permission_reason: Option<String>,
    /// `hookSpecificOutput.additionalContext` (a string; a list of strings is accepted too).
    pub additional_context: Vec<String>,
    /// `hookSpecificOutput.updatedInput`.
    pub updated_input: Option<Map<String, Value>>,
    /// `hookSpecificOutput.updatedToolOutput` (PostToolUse), or the older
    /// `updatedMCPToolOutput`.
    pub updated_tool_output: Option<Value>,
}

impl ClaudeOutput {
    /// Reads the Claude Code fields of `object` (the top-level `decision`/`reason` are left to
    /// the dialect, whose vocabularies differ).
    pub fn parse(object: &Map<String, Value>) -> Result<ClaudeOutput, Unusable> {
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
            out.updated_tool_output = ["updatedToolOutput", "updatedMCPToolOutput"]
                .into_iter()
                .find_map(|key| specific.get(key).filter(|v| !v.is_null()).cloned());
        }
        // Accepted and, as in Claude Code, without effect; still it must be a boolean.
        match object.get("suppressOutput") {
            None | Some(Value::Null | Value::Bool(_)) => {}
            Some(other) => {
                return Err(read::wrong_type("suppressOutput", "a boolean", other));
            }
        }
        Ok(out)
    }
}

/// Reads a Claude Code hook's exit code, stdout and stderr with Claude Code's rules: JSON is
/// read only on exit 0 (stdout starting with `{`; other stdout is plain text). Exit 2 is a
/// blocking error whose reason is stderr, and its stdout — JSON included — is ignored; any
/// other non-zero exit is a non-blocking error whose stdout is ignored too.
pub fn interpret(claude: ClaudeEvent, reply: &Reply) -> Result<Answer, Unusable> {
    let proceeds = "a non-blocking error in Claude Code's rules; stdout ignored";
    if let Ended::Two(stderr) = read::ended(reply, proceeds)? {
        return Ok(exit_two(claude, &stderr));
    }
    let stdout = String::from_utf8_lossy(&reply.stdout);
    let stdout = stdout.trim();
    // JSON only when it looks like an object; `{` that does not parse is plain text, as in
    // Claude Code, and the parse error is logged so the hook's author can see it.
    if stdout.starts_with('{') {
        match parse_object(stdout) {
            Ok(Some(object)) => return decode(claude, &object),
            Ok(None) => {}
            Err(unusable) => {
                let mut answer = plain_text(claude, stdout);
                answer.problems.push((
                    unusable.kind,
                    format!("{} (read as plain text)", unusable.detail),
                ));
                return Ok(answer);
            }
        }
    }
    Ok(plain_text(claude, stdout))
}

/// An HTTP hook's 2xx body under Claude Code's rules: empty (no opinion) or one JSON object;
/// anything else — plain text included, which a command's stdout could be — is a non-blocking
/// error, and the text never becomes context.
pub fn require_json_body(reply: &Reply) -> Result<(), Unusable> {
    let body = String::from_utf8_lossy(&reply.stdout);
    parse_object(body.trim())
        .map(drop)
        .map_err(|unusable| Unusable {
            detail: format!(
                "an HTTP hook's answer must be empty or one JSON object (Claude Code's rule): {}",
                unusable.detail.replace("stdout", "the body")
            ),
            ..unusable
        })
}

/// Exit 0 with stdout that is not a JSON object: context on the events where Claude Code adds
/// plain stdout to the model's context; elsewhere it only reaches Claude Code's debug log.
fn plain_text(claude: ClaudeEvent, stdout: &str) -> Answer {
    match claude {
        ClaudeEvent::UserPromptSubmit | ClaudeEvent::SessionStart if !stdout.is_empty() => Answer {
            context: vec![stdout.to_owned()],
            ..Answer::default()
        },
        _ => Answer::default(),
    }
}

/// Exit 2: on the events that can block, a block with stderr as its reason (stdout is
/// ignored). Elsewhere stderr goes where Claude Code sends it: to the model after a tool ran,
/// to the user on the session events, nowhere on `Notification`.
fn exit_two(claude: ClaudeEvent, stderr: &str) -> Answer {
    let mut answer = Answer::default();
    let stderr = (!stderr.is_empty()).then(|| stderr.to_owned());
    if claude.blocks() {
        answer.decision = Some(Decision::Block);
        answer.reason =
            Some(stderr.unwrap_or_else(|| "blocked by a Claude Code hook (exit 2)".into()));
    } else if let Some(text) = stderr {
        match claude {
            ClaudeEvent::PostToolUse | ClaudeEvent::PostToolUseFailure => answer.notes.push(text),
            ClaudeEvent::Notification => {}
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
    let deferred = output.permission == Some(Permission::Defer);
    match output.permission {
        Some(Permission::Deny) => {
            answer.decision = Some(Decision::Block);
            answer.reason = output
                .permission_reason
                .clone()
                .or_else(|| Some("denied by a Claude Code hook".into()));
        }
        Some(Permission::Ask) => {
            if answer.decision != Some(Decision::Block) {
                answer.decision = Some(Decision::Ask);
                answer.reason = output.permission_reason.clone();
            }
        }
        Some(Permission::Defer) => {
            // Claude Code pauses a headless session at the call so its caller can resume it
            // later; this host has no such pause, so the user decides now. Claude Code ignores
            // the reason, the updated input and the context of a deferral.
            if answer.decision != Some(Decision::Block) {
                answer.decision = Some(Decision::Ask);
                answer.reason = Some("a Claude Code hook deferred this tool call".into());
            }
        }
        Some(Permission::Allow) | None => {}
    }
    if let Some(updated) = output.updated_input.filter(|_| !deferred) {
        answer.rewrites.push(Rewrite {
            field: "tool_input".into(),
            value: Value::Object(updated),
            // Claude Code replaces the whole tool input with updatedInput.
            rule: Some(RewriteRule::Replace),
        });
    }
    if let Some(output) = output.updated_tool_output {
        // PostToolUse: what the model sees instead of the tool's own output.
        answer.rewrites.push(Rewrite {
            field: "tool_result".into(),
            value: output,
            rule: Some(RewriteRule::Replace),
        });
    }
    let context = if deferred {
        Vec::new()
    } else {
        output.additional_context
    };
    match claude {
        ClaudeEvent::PostToolUse | ClaudeEvent::PostToolUseFailure => answer.notes.extend(context),
        ClaudeEvent::Stop if !context.is_empty() => {
            // Stop feedback: the conversation goes on so the model can act on it, through the
            // same loop protection as a block.
            if answer.decision != Some(Decision::Block) {
                answer.decision = Some(Decision::Block);
                answer.reason = Some(context.join("\n\n"));
            }
        }
        _ => answer.context.extend(context),
    }
    if let Some(why) = output.stop {
        // `continue: false` ends the agent's turn and takes precedence over every
        // event-specific decision; the reason is for the user.
        let why =
            why.unwrap_or_else(|| "a Claude Code hook stopped the agent (continue: false)".into());
        match claude {
            // On Stop the turn ends anyway: nothing to redo.
            ClaudeEvent::Stop => {
                answer.decision = None;
                answer.reason = None;
            }
            // The action it was asked about does not happen either.
            _ if claude.blocks() => {
                answer.decision = Some(Decision::Block);
                answer.reason = Some(why.clone());
            }
            _ => {}
        }
        answer.stop = Some(why);
    }
    answer.warnings.extend(output.system_message);
    Ok(answer)
}

/// A prompt hook's verdict with Claude Code's rules for `ok: false` on each event:
/// `Stop` keeps the turn going with the reason as the next instruction, unless the judge found
/// the condition impossible; `PreToolUse` denies the call and, without `continueOnBlock`, ends
/// the turn; `PostToolUse` ends the turn, or with `continueOnBlock` feeds the reason back;
/// `PostToolUseFailure` feeds it back; `UserPromptSubmit` blocks the prompt.
pub fn judged(claude: ClaudeEvent, verdict: &Verdict, continue_on_block: bool) -> Answer {
    if verdict.ok {
        return Answer::default();
    }
    let reason = verdict.reason.clone();
    let block = |stop: bool| Answer {
        decision: Some(Decision::Block),
        reason: Some(reason.clone()),
        stop: stop.then(|| reason.clone()),
        ..Answer::default()
    };
    match claude {
        ClaudeEvent::Stop if verdict.impossible => Answer {
            warnings: vec![format!(
                "the LLM judge found its condition impossible, so the turn ends: {reason}"
            )],
            ..Answer::default()
        },
        ClaudeEvent::Stop | ClaudeEvent::UserPromptSubmit => block(false),
        ClaudeEvent::PreToolUse => block(!continue_on_block),
        ClaudeEvent::PostToolUse if !continue_on_block => Answer {
            stop: Some(reason),
            ..Answer::default()
        },
        ClaudeEvent::PostToolUse | ClaudeEvent::PostToolUseFailure => Answer {
            notes: vec![reason],
            ..Answer::default()
        },
        // Claude Code runs no prompt hooks on these (the loader refuses them); a verdict that
        // gets here anyway is only shown.
        ClaudeEvent::SessionStart | ClaudeEvent::SessionEnd | ClaudeEvent::Notification => Answer {
            warnings: vec![format!("LLM judge: {reason}")],
            ..Answer::default()
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply(stdout: &str, code: i32, stderr: &str) -> Reply {
        Reply::exited(stdout, code, stderr)
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
        assert_eq!(a.stop.as_deref(), Some("budget spent"));
    }

    #[test]
    fn continue_false_stops_the_turn_and_blocks_the_tool_call() {
        let answer = r#"{"continue":false,"stopReason":"maintenance window"}"#;
        let pre = interpret(ClaudeEvent::PreToolUse, &reply(answer, 0, "")).unwrap();
        assert_eq!(pre.decision, Some(Decision::Block));
        assert_eq!(pre.reason.as_deref(), Some("maintenance window"));
        assert_eq!(pre.stop.as_deref(), Some("maintenance window"));
        let post = interpret(ClaudeEvent::PostToolUse, &reply(answer, 0, "")).unwrap();
        assert_eq!(post.decision, None);
        assert_eq!(post.stop.as_deref(), Some("maintenance window"));
        assert!(post.warnings.is_empty());
    }

    #[test]
    fn exit_two_ignores_stdout_even_a_json_reason() {
        let deny = r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"from json"},"systemMessage":"unseen"}"#;
        let a = interpret(ClaudeEvent::PreToolUse, &reply(deny, 2, "from stderr")).unwrap();
        assert_eq!(a.decision, Some(Decision::Block));
        assert_eq!(a.reason.as_deref(), Some("from stderr"));
        assert!(
            a.warnings.is_empty(),
            "the JSON's other fields are ignored too"
        );
        let c = interpret(ClaudeEvent::Stop, &reply(r#"{"decision":5}"#, 2, "not yet")).unwrap();
        assert_eq!(c.decision, Some(Decision::Block));
        assert_eq!(c.reason.as_deref(), Some("not yet"));
        assert!(c.problems.is_empty());
    }

    #[test]
    fn other_exit_codes_are_non_blocking_errors_whose_json_is_ignored() {
        let plain = interpret(ClaudeEvent::PreToolUse, &reply("oops", 1, "boom")).unwrap_err();
        assert_eq!(plain.kind, DiagKind::HookNonzeroExit);
        let deny = r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"json decides"}}"#;
        let a = interpret(ClaudeEvent::PreToolUse, &reply(deny, 1, "")).unwrap_err();
        assert_eq!(a.kind, DiagKind::HookNonzeroExit);
    }

    #[test]
    fn brace_that_is_not_json_is_plain_text() {
        let a = interpret(ClaudeEvent::SessionStart, &reply("{not json", 0, "")).unwrap();
        assert_eq!(a.context, vec!["{not json".to_owned()]);
        assert_eq!(a.problems.len(), 1);
    }

    #[test]
    fn defer_asks_and_drops_what_claude_code_ignores_on_a_deferral() {
        let a = interpret(
            ClaudeEvent::PreToolUse,
            &reply(
                r#"{"hookSpecificOutput":{"permissionDecision":"defer","permissionDecisionReason":"x","updatedInput":{"a":1},"additionalContext":"c"}}"#,
                0,
                "",
            ),
        )
        .unwrap();
        assert_eq!(a.decision, Some(Decision::Ask));
        assert!(a.rewrites.is_empty() && a.context.is_empty());
    }

    #[test]
    fn pre_tool_use_context_and_post_tool_use_output() {
        let pre = interpret(
            ClaudeEvent::PreToolUse,
            &reply(
                r#"{"hookSpecificOutput":{"additionalContext":"prod box"}}"#,
                0,
                "",
            ),
        )
        .unwrap();
        assert_eq!(pre.context, vec!["prod box".to_owned()]);
        let post = interpret(
            ClaudeEvent::PostToolUse,
            &reply(
                r#"{"hookSpecificOutput":{"updatedToolOutput":{"stdout":"[redacted]"}},"suppressOutput":true}"#,
                0,
                "",
            ),
        )
        .unwrap();
        assert_eq!(post.rewrites[0].field, "tool_result");
        assert_eq!(post.rewrites[0].value["stdout"], "[redacted]");
        let typed = interpret(
            ClaudeEvent::PostToolUse,
            &reply(r#"{"suppressOutput":"yes"}"#, 0, ""),
        );
        assert_eq!(typed.unwrap_err().kind, DiagKind::HookInvalidOutput);
    }

    #[test]
    fn stop_context_is_feedback_that_keeps_the_turn_going() {
        let a = interpret(
            ClaudeEvent::Stop,
            &reply(r#"{"hookSpecificOutput":{"hookEventName":"Stop","additionalContext":"run the tests"}}"#, 0, ""),
        )
        .unwrap();
        assert_eq!(a.decision, Some(Decision::Block));
        assert_eq!(a.reason.as_deref(), Some("run the tests"));
    }

    fn no(reason: &str) -> Verdict {
        Verdict {
            ok: false,
            reason: reason.into(),
            impossible: false,
        }
    }

    #[test]
    fn a_judges_no_after_a_tool_ends_the_turn_unless_continue_on_block() {
        let ended = judged(ClaudeEvent::PostToolUse, &no("output leaks a key"), false);
        assert_eq!(ended.stop.as_deref(), Some("output leaks a key"));
        assert_eq!(ended.decision, None);
        let fed_back = judged(ClaudeEvent::PostToolUse, &no("output leaks a key"), true);
        assert_eq!(fed_back.stop, None);
        assert_eq!(fed_back.notes, vec!["output leaks a key".to_owned()]);
        let failure = judged(ClaudeEvent::PostToolUseFailure, &no("retry with -v"), false);
        assert_eq!(failure.notes, vec!["retry with -v".to_owned()]);
        assert_eq!(failure.stop, None);
    }

    #[test]
    fn a_judges_no_on_a_prompt_blocks_it() {
        let blocked = judged(ClaudeEvent::UserPromptSubmit, &no("off-topic"), false);
        assert_eq!(blocked.decision, Some(Decision::Block));
        assert_eq!(blocked.reason.as_deref(), Some("off-topic"));
        assert_eq!(blocked.stop, None);
    }
}
