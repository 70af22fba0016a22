//! An LLM judge's answer (a prompt hook's): the model's text read as `{"ok": true}` or
//! `{"ok": false, "reason": "…", "impossible": true}`: exactly one object, alone or in one
//! Markdown fence, no key twice (`agent_hooks_transports::judge::verdict_object`). Each dialect then maps a verdict with its own
//! rules; the decision-protocol mapping ([`shell_answer`]) is here.

use serde_json::{Map, Value};

use agent_hooks_core::answer::{Answer, Decision, Unusable};
use agent_hooks_core::diag::DiagKind;
use agent_hooks_core::event::Event;
use agent_hooks_transports::Reply;

/// What the judge decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    /// `true`: the action may proceed, the condition holds.
    pub ok: bool,
    /// Why not (required with `ok: false`; a placeholder stands in when the model gave none).
    pub reason: String,
    /// The model judged the condition can never be met (Claude Code lets a `Stop` end then).
    pub impossible: bool,
}

impl Verdict {
    /// Reads the model's text. Text with no JSON object in it, or an object without a boolean
    /// `ok`, is an unusable answer, logged with the text like any hook's invalid output.
    pub fn read(reply: &Reply) -> Result<Verdict, Unusable> {
        let text = String::from_utf8_lossy(&reply.stdout);
        let object = json_object(&text).map_err(|why| Unusable {
            kind: DiagKind::HookInvalidJson,
            detail: format!(
                "the judge's answer is not a verdict ({why}): {}",
                super::read::preview(text.trim(), 300)
            ),
        })?;
        let invalid = |detail: String| Unusable {
            kind: DiagKind::HookInvalidOutput,
            detail,
        };
        let ok = match object.get("ok") {
            Some(Value::Bool(ok)) => *ok,
            Some(other) => {
                return Err(invalid(format!(
                    "the judge's \"ok\" must be true or false, found {other}"
                )));
            }
            None => return Err(invalid("the judge's answer has no \"ok\"".to_owned())),
        };
        let reason = match object.get("reason") {
            Some(Value::String(reason)) if !reason.trim().is_empty() => reason.trim().to_owned(),
            _ if ok => String::new(),
            _ => "the LLM judge answered ok: false without a reason".to_owned(),
        };
        let impossible = object.get("impossible").and_then(Value::as_bool) == Some(true);
        Ok(Verdict {
            ok,
            reason,
            impossible,
        })
    }
}

/// The JSON object in `text`, under the judge transport's strict rules: exactly one object,
/// alone or alone in one fence, no key twice.
fn json_object(text: &str) -> Result<Map<String, Value>, String> {
    agent_hooks_transports::judge::verdict_object(text).map_err(|e| e.0)
}

/// A verdict under the decision protocol (shell hooks): `ok: false` blocks where the event
/// lets hooks block, with the reason; elsewhere the reason is a warning for the user.
pub fn shell_answer(event: Event, verdict: &Verdict) -> Answer {
    if verdict.ok {
        return Answer::default();
    }
    if event.spec().may_block {
        Answer {
            decision: Some(Decision::Block),
            reason: Some(verdict.reason.clone()),
            ..Answer::default()
        }
    } else {
        Answer {
            warnings: vec![format!("LLM judge: {}", verdict.reason)],
            ..Answer::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<Verdict, Unusable> {
        Verdict::read(&Reply::answered(text.as_bytes().to_vec()))
    }

    #[test]
    fn a_fenced_object_is_read_and_an_embedded_one_is_not() {
        let fenced = read("```json\n{\"ok\": false, \"reason\": \"tests fail\"}\n```").unwrap();
        assert_eq!(fenced.reason, "tests fail");
        assert!(!fenced.ok);
        let embedded = read("Here is my verdict: {\"ok\": true} — done.").unwrap_err();
        assert_eq!(embedded.kind, DiagKind::HookInvalidJson);
        let twice = read("{\"ok\": false, \"reason\": \"no\", \"ok\": true}").unwrap_err();
        assert!(twice.detail.contains("appears twice"), "{}", twice.detail);
    }

    #[test]
    fn impossible_is_read_and_a_missing_reason_gets_a_placeholder() {
        let v = read(r#"{"ok": false, "impossible": true}"#).unwrap();
        assert!(v.impossible);
        assert_eq!(
            v.reason,
            "the LLM judge answered ok: false without a reason"
        );
    }

    #[test]
    fn text_without_a_verdict_is_unusable() {
        assert_eq!(
            read("I think so").unwrap_err().kind,
            DiagKind::HookInvalidJson
        );
        assert_eq!(
            read(r#"{"ok": "yes"}"#).unwrap_err().kind,
            DiagKind::HookInvalidOutput
        );
        assert_eq!(
            read(r#"{"reason": "x"}"#).unwrap_err().kind,
            DiagKind::HookInvalidOutput
        );
    }

    #[test]
    fn the_decision_protocol_blocks_where_the_event_may_block_and_warns_elsewhere() {
        let no = Verdict {
            ok: false,
            reason: "not yet".into(),
            impossible: false,
        };
        assert_eq!(
            shell_answer(Event::OnStop, &no).decision,
            Some(Decision::Block)
        );
        let observed = shell_answer(Event::PostToolCall, &no);
        assert_eq!(observed.decision, None);
        assert_eq!(observed.warnings, vec!["LLM judge: not yet".to_owned()]);
    }
}
