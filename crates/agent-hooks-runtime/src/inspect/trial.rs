//! `agent-hooks test`: one hook, one payload, explained. The hook runs through its real
//! transport and dialect, as a dispatch would run it, but as a trial (built-in guards keep no
//! state or records, command hooks get `AGENT_HOOKS_DRY_RUN=1`, nothing is logged); the report
//! says which dialect read the answer, how the process ended, what it printed, what the answer
//! means, what the event admits of it and what it ignores, and where the hook stands with the
//! trust gate. A hook the gate would refuse is not run unless the caller says so.

use std::sync::Arc;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::dispatch::Runtime;
use crate::engine::Engine;
use crate::hook::{Hook, OnError};
use crate::inspect::doctor::{self, RunCheck};
use crate::snapshot::Snapshot;
use crate::trust::{DriftChecker, Pinned, Verdict};
use agent_hooks_core::answer::{Answer, Decision};
use agent_hooks_core::event::{Event, complete_payload};

/// How long the stdout and stderr previews of a trial may be.
const PREVIEW: usize = 400;

/// Why a trial could not be set up: bad usage, reported with exit status 2.
#[derive(Debug, thiserror::Error)]
pub(crate) enum TrialError {
    /// No loaded hook has that name, command or URL.
    #[error(
        "no hook \"{hook}\" in this workspace (known: {known}); name it as `agent-hooks list` shows it, or by its command or URL"
    )]
    UnknownHook {
        /// What the caller gave.
        hook: String,
        /// The hooks there are, comma-separated.
        known: String,
    },
    /// The hook is declared for several events and neither `--event` nor the payload says which.
    #[error("\"{hook}\" is declared for {events}: say which with --event")]
    WhichEvent {
        /// The hook.
        hook: String,
        /// Its events, comma-separated.
        events: String,
    },
    /// The event named is not one the hook is declared for.
    #[error("\"{hook}\" is not declared for {event}; it is declared for {events}")]
    NotDeclaredFor {
        /// The hook.
        hook: String,
        /// The event asked for.
        event: Event,
        /// Its events, comma-separated.
        events: String,
    },
    /// The payload's `event` field names no canonical event.
    #[error("the payload's \"event\": {0}")]
    BadEvent(String),
}

/// Where the hook stands with the trust gate for this event.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct TrialTrust {
    /// `approved`, `no_approval_needed`, `not_approved` or `drift`.
    pub(crate) state: &'static str,
    /// The gate's reason, in words.
    pub(crate) detail: String,
    /// Whether the master switch is on (with it off, the agent runs no hook that needs approval).
    pub(crate) master_enabled: bool,
    /// Whether a dispatch would run the hook now.
    pub(crate) would_run: bool,
}

/// What a hook's answer said, decoded by its dialect, before the event's capabilities apply.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct ParsedAnswer {
    /// `block`, `ask`, `continue`, or absent (no decision).
    pub(crate) decision: Option<&'static str>,
    /// The reason of a block or an ask.
    pub(crate) reason: Option<String>,
    /// Each rewritten field with its new value.
    pub(crate) rewrites: Map<String, Value>,
    /// Context for the model.
    pub(crate) context: Vec<String>,
    /// Notes for the tool result.
    pub(crate) notes: Vec<String>,
    /// Messages for the user.
    pub(crate) warnings: Vec<String>,
    /// A model for the next call.
    pub(crate) model: Option<String>,
    /// A request to end the turn, with its reason.
    pub(crate) stop: Option<String>,
    /// A synthetic tool result.
    pub(crate) result: Option<Value>,
}

impl ParsedAnswer {
    fn of(answer: &Answer) -> ParsedAnswer {
        ParsedAnswer {
            decision: answer.decision.map(Decision::as_str),
            reason: answer.reason.clone(),
            rewrites: answer
                .rewrites
                .iter()
                .map(|r| (r.field.clone(), r.value.clone()))
                .collect(),
            context: answer.context.clone(),
            notes: answer.notes.clone(),
            warnings: answer.warnings.clone(),
            model: answer.model.clone(),
            stop: answer.stop.clone(),
            result: answer.result.clone(),
        }
    }
}

/// The verdict of a trial, which `agent-hooks test` exits with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum TrialVerdict {
    /// The action would go on (possibly rewritten): exit 0.
    Continue,
    /// The hook blocks it (or failed and fails closed): exit 1.
    Block,
    /// The hook asks the user: exit 3.
    Ask,
    /// The hook failed and fails open; the action would go on: exit 4.
    Failed,
    /// Not run: the trust gate would refuse it and the caller did not override: exit 5.
    Refused,
}

impl TrialVerdict {
    /// The exit status of `agent-hooks test` (2 is bad usage).
    pub(crate) fn exit_code(self) -> u8 {
        match self {
            TrialVerdict::Continue => 0,
            TrialVerdict::Block => 1,
            TrialVerdict::Ask => 3,
            TrialVerdict::Failed => 4,
            TrialVerdict::Refused => 5,
        }
    }
}

/// Everything `agent-hooks test` says about one run.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct TrialReport {
    /// The hook's name.
    pub(crate) hook: String,
    /// The file that declared it.
    pub(crate) source: String,
    /// What runs (command line, `POST <url>`, built-in guard).
    pub(crate) runs: String,
    /// The dialect that reads its input and answer.
    pub(crate) dialect: &'static str,
    /// The event it was run for.
    pub(crate) event: Event,
    /// Its trust state.
    pub(crate) trust: TrialTrust,
    /// Whether it ran although the gate would refuse it (`--run-unapproved`).
    pub(crate) ran_untrusted: bool,
    /// The run; absent when it was refused.
    pub(crate) run: Option<RunCheck>,
    /// What it printed, named for its dialect ("decision JSON", "Claude Code JSON", ...).
    pub(crate) answer_kind: Option<String>,
    /// The answer as its dialect decoded it; absent when it ran without a usable answer.
    pub(crate) answer: Option<ParsedAnswer>,
    /// What the event admits of the answer, in words.
    pub(crate) admitted: Vec<String>,
    /// What the event ignores of it.
    pub(crate) ignored: Vec<String>,
    /// What a dispatch would make of it.
    pub(crate) verdict: TrialVerdict,
}

/// Finds `selector` (a name as `list` shows it, a command line, a URL or `builtin:<name>`),
/// runs it once on `payload` for `event` (else the payload's `event`, else the hook's only
/// event) and explains the answer. A hook the trust gate would refuse is run only with
/// `run_untrusted`.
///
/// # Errors
///
/// [`TrialError`] when the hook or the event cannot be determined.
pub(crate) async fn run(
    engine: &Engine,
    selector: &str,
    event: Option<Event>,
    mut payload: Map<String, Value>,
    run_untrusted: bool,
) -> Result<TrialReport, TrialError> {
    let snapshot = engine.snapshot();
    let named = hooks_named(&snapshot, selector)?;
    let (event, hook) = choose_event(&named, event, &payload)?;
    let drift = DriftChecker::default();
    let (trust, program) = trust_of(&snapshot, &drift, hook, event);
    let trusted = matches!(trust.state, "approved" | "no_approval_needed");
    let mut report = TrialReport {
        hook: hook.name.to_string(),
        source: hook.file_display.to_string(),
        runs: hook.transport.describe(),
        dialect: hook.dialect.label(),
        event,
        trust,
        ran_untrusted: false,
        run: None,
        answer_kind: None,
        answer: None,
        admitted: Vec::new(),
        ignored: Vec::new(),
        verdict: TrialVerdict::Refused,
    };
    if !trusted && !run_untrusted {
        return Ok(report);
    }
    report.ran_untrusted = !trusted;

    complete_payload(
        event,
        &mut payload,
        &engine.workspace().root().to_string_lossy(),
    );
    let detach = crate::dispatch::background::Detach::Task;
    let rt = Runtime {
        detach: &detach,
        prefork: engine.forkers(),
        ws: engine.workspace(),
        log: engine.event_log(),
        drift: &drift,
        seen: Default::default(),
        dry_run: true,
        log_decisions: false,
        replay: None,
    };
    let (check, answer) =
        doctor::run_on(&rt, hook, event, &payload, program.as_ref(), PREVIEW).await;
    report.verdict = match &answer {
        Some(answer) => {
            let (admitted, ignored) = doctor::describe_effect(event, answer);
            report.admitted = admitted;
            report.ignored = ignored;
            let spec = event.spec();
            match answer.decision {
                Some(Decision::Block) if spec.may_block => TrialVerdict::Block,
                Some(Decision::Ask) if spec.may_ask => TrialVerdict::Ask,
                _ => TrialVerdict::Continue,
            }
        }
        None if hook.on_error == OnError::Block => TrialVerdict::Block,
        None => TrialVerdict::Failed,
    };
    report.answer = answer.as_ref().map(ParsedAnswer::of);
    report.answer_kind = Some(check.answer.describe(&hook.dialect));
    report.run = Some(check);
    Ok(report)
}

/// The hooks `selector` names: by name as `list` shows it, or by their approval key (command
/// line, URL, `builtin:<name>`).
fn hooks_named<'a>(
    snapshot: &'a Snapshot,
    selector: &str,
) -> Result<Vec<&'a Arc<Hook>>, TrialError> {
    let named: Vec<&Arc<Hook>> = snapshot
        .config
        .hooks
        .iter()
        .filter(|h| &*h.name == selector || h.approval_key.as_deref() == Some(selector))
        .collect();
    if named.is_empty() {
        let mut known: Vec<&str> = snapshot.config.hooks.iter().map(|h| &*h.name).collect();
        known.dedup();
        return Err(TrialError::UnknownHook {
            hook: selector.to_owned(),
            known: if known.is_empty() {
                "none".into()
            } else {
                known.join(", ")
            },
        });
    }
    Ok(named)
}

/// The event to run for (`event`, else the payload's `event`, else the hooks' only event) and
/// the one of `named` declared for it. `named` is not empty.
fn choose_event<'a>(
    named: &[&'a Arc<Hook>],
    event: Option<Event>,
    payload: &Map<String, Value>,
) -> Result<(Event, &'a Arc<Hook>), TrialError> {
    let first_name = || {
        named
            .first()
            .map(|h| h.name.to_string())
            .unwrap_or_default()
    };
    let mut declared: Vec<Event> = named
        .iter()
        .flat_map(|h| h.events.iter().copied())
        .collect();
    declared.sort();
    declared.dedup();
    let names = || {
        declared
            .iter()
            .map(|e| e.name())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let event = match event {
        Some(event) => event,
        None => match payload.get("event").and_then(Value::as_str) {
            Some(name) => agent_hooks_dialects::parse_event(name)
                .map_err(|e| TrialError::BadEvent(e.to_string()))?,
            None if declared.len() == 1 => declared[0],
            None => {
                return Err(TrialError::WhichEvent {
                    hook: first_name(),
                    events: names(),
                });
            }
        },
    };
    let Some(hook) = named.iter().find(|h| h.handles(event)) else {
        return Err(TrialError::NotDeclaredFor {
            hook: first_name(),
            event,
            events: names(),
        });
    };
    Ok((event, hook))
}

/// Where `hook` stands with the trust gate for `event`, and the program its approval pins.
fn trust_of(
    snapshot: &Snapshot,
    drift: &DriftChecker,
    hook: &Hook,
    event: Event,
) -> (TrialTrust, Option<Pinned>) {
    let master_enabled = snapshot.master_enabled();
    match &hook.approval_key {
        None => (
            TrialTrust {
                state: "no_approval_needed",
                detail: "a skill hook: it needs no approval".into(),
                master_enabled,
                would_run: true,
            },
            None,
        ),
        Some(key) => match drift.check(&snapshot.approvals, event, hook) {
            Verdict::Approved(program) => (
                TrialTrust {
                    state: "approved",
                    detail: format!("approved for {event}"),
                    master_enabled,
                    would_run: master_enabled,
                },
                program,
            ),
            Verdict::NotApproved => (
                TrialTrust {
                    state: "not_approved",
                    detail: format!(
                        "not approved for {event}; after reading it: {}",
                        crate::trust::approve_command(key)
                    ),
                    master_enabled,
                    would_run: false,
                },
                None,
            ),
            Verdict::Drifted(why) => (
                TrialTrust {
                    state: "drift",
                    detail: format!(
                        "changed since approval ({why}); review the change, then approve it again"
                    ),
                    master_enabled,
                    would_run: false,
                },
                None,
            ),
        },
    }
}

/// One `label value` line of a rendered report, labels in a column.
fn line(out: &mut String, label: &str, value: &str) {
    out.push_str(&format!("{label:<10} {value}\n"));
}

impl TrialReport {
    /// The report as a person reads it.
    pub(crate) fn render(&self) -> String {
        let mut out = String::new();
        line(
            &mut out,
            "hook",
            &format!("{} ({})", self.hook, self.source),
        );
        line(&mut out, "runs", &self.runs);
        line(&mut out, "event", self.event.name());
        line(&mut out, "dialect", self.dialect);
        let mut trust = self.trust.detail.clone();
        if !self.trust.master_enabled && self.trust.state != "no_approval_needed" {
            trust.push_str(
                "; the master switch is off, so the agent runs it nowhere (agent-hooks on)",
            );
        }
        line(&mut out, "trust", &trust);
        if self.verdict == TrialVerdict::Refused {
            line(
                &mut out,
                "not run",
                "the trust gate would refuse it; read it, approve it, or pass --run-unapproved to try it anyway",
            );
            line(&mut out, "verdict", "refused (exit 5)");
            return out;
        }
        if self.ran_untrusted {
            line(
                &mut out,
                "note",
                "run although the trust gate would refuse it (--run-unapproved)",
            );
        }
        if let Some(run) = &self.run {
            self.render_run(&mut out, run);
        }
        self.render_effect(&mut out);
        let verdict = match self.verdict {
            TrialVerdict::Continue => "continue (exit 0)",
            TrialVerdict::Block => "block (exit 1)",
            TrialVerdict::Ask => "ask (exit 3)",
            TrialVerdict::Failed => "the hook failed; the action would go on (exit 4)",
            TrialVerdict::Refused => "refused (exit 5)",
        };
        line(&mut out, "verdict", verdict);
        out
    }

    /// How the run ended and what it printed.
    fn render_run(&self, out: &mut String, run: &RunCheck) {
        let ended = match (run.exit_code, run.signal, run.result) {
            (Some(code), _, _) => format!("exit {code} after {} ms", run.ms),
            (_, Some(signal), _) => format!("killed by signal {signal} after {} ms", run.ms),
            (_, _, result) => format!("{result} after {} ms", run.ms),
        };
        line(out, "ended", &ended);
        if !run.matched {
            line(
                out,
                "matcher",
                "does not match this payload: a dispatch would not run it here",
            );
        }
        line(out, "stdout", run.stdout.as_deref().unwrap_or("(empty)"));
        line(out, "stderr", run.stderr.as_deref().unwrap_or("(empty)"));
        line(out, "answer", self.answer_kind.as_deref().unwrap_or("none"));
        if let Some(problem) = &run.problem {
            line(out, "problem", problem);
        }
        for warning in &run.warnings {
            line(out, "warning", warning);
        }
    }

    /// The answer as decoded, and what the event admits and ignores of it.
    fn render_effect(&self, out: &mut String) {
        if let Some(answer) = &self.answer {
            let parsed = serde_json::to_value(answer)
                .ok()
                .and_then(|v| v.as_object().cloned())
                .unwrap_or_default();
            let shown: Map<String, Value> = parsed
                .into_iter()
                .filter(|(_, v)| {
                    !(v.is_null()
                        || v.as_array().is_some_and(Vec::is_empty)
                        || v.as_object().is_some_and(Map::is_empty))
                })
                .collect();
            line(
                out,
                "parsed",
                &if shown.is_empty() {
                    "no effect (continue, no change)".to_owned()
                } else {
                    Value::Object(shown).to_string()
                },
            );
        }
        line(
            out,
            "admitted",
            &if self.admitted.is_empty() {
                "nothing".to_owned()
            } else {
                self.admitted.join("; ")
            },
        );
        if !self.ignored.is_empty() {
            line(
                out,
                "ignored",
                &format!(
                    "{} (not allowed on {})",
                    self.ignored.join("; "),
                    self.event
                ),
            );
        }
    }
}
