//! `doctor`: try every trusted hook once per event on a realistic synthetic payload, through
//! the real transport and dialect, and say what it answered, what that would do, and how long
//! it took. Hooks that are not trusted or cannot start are not run; [`crate::inspect::health`] says why.

use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::dispatch::Runtime;
use crate::engine::Engine;
use crate::inspect::health::{self, HookHealth, Report};
use crate::trust::{Approvals, DriftChecker, Verdict};
use agent_hooks_core::answer::{Admitted, Answer, Effect, Unusable};
use agent_hooks_core::event::{Event, complete_payload};
use agent_hooks_dialects::{Dialect, DispatchCache, PayloadView};
use agent_hooks_transports::{Exit, Failure, Reply, TransportSpec};

/// A hook slower than this is flagged: every event it is on waits for it.
pub(crate) const SLOW: Duration = Duration::from_secs(1);

/// The `session_id` of doctor's payloads, so a hook (or its log) can tell a check from a turn.
pub(crate) const DOCTOR_SESSION: &str = "agent-hooks-doctor";

/// One realistic payload for `event`: every field of its row of the capability table filled
/// with a plausible value (a harmless `ls -la` for tool calls), plus the common fields.
pub(crate) fn synthetic_payload(event: Event, cwd: &str) -> Map<String, Value> {
    let mut payload = Map::new();
    // Fields without a sample get the table's default from `complete_payload`, and optional
    // ones without a sample stay absent, as a host leaves them.
    for field in event.spec().fields {
        if let Some(value) = sample(event, field.name) {
            payload.insert(field.name.to_owned(), value);
        }
    }
    payload.insert("session_id".into(), Value::String(DOCTOR_SESSION.into()));
    complete_payload(event, &mut payload, cwd);
    payload
}

/// The sample value of a payload field; `None` leaves it to the table's default.
fn sample(event: Event, field: &str) -> Option<Value> {
    const QUESTION: &str = "Please summarise README.md";
    const REPLY: &str = "README.md describes agent-hooks, a hook runtime for AI agents.";
    Some(match field {
        "message" | "last_user_message" => json!(QUESTION),
        "channel" => json!("cli"),
        "tool_name" => json!("bash"),
        "tool_input" => json!({"command": "ls -la"}),
        "tool_result" => json!("total 8\n-rw-r--r-- 1 user user 1200 README.md"),
        "status" => json!(match event {
            Event::PostToolCall => "success",
            Event::OnSessionStart | Event::PostStartup => "started",
            Event::OnSessionEnd => "ended",
            Event::PreStartup => "starting",
            Event::PreShutdown => "stopping",
            _ => "stopped",
        }),
        "system" => json!("You are a careful coding agent."),
        "model" => json!("example-model"),
        "prompt" => json!(format!("User: {QUESTION}")),
        "response" => json!(REPLY),
        "tokens" => json!({"input": 1200, "output": 85}),
        "cost" => json!(0.0042),
        "tool_names" => json!(["read_file"]),
        "stop_hook_active" => json!(false),
        "redo_count" => json!(0),
        "notification" => json!("Task finished: README.md summarised"),
        "type" => json!("message"),
        "goal" => json!("Summarise README.md"),
        "summary" => json!("Read README.md and wrote a three-line summary."),
        _ => return None,
    })
}

/// What a hook's stdout was, as doctor reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum AnswerKind {
    /// It did not run to completion: there is no answer.
    None,
    /// Empty stdout: continue, no change.
    Nothing,
    /// One JSON object in the hook's own dialect.
    Json,
    /// One JSON object in Claude Code's output shape.
    ClaudeCodeJson,
    /// Exit status 2: Claude Code's "block", stderr as the reason.
    Exit2Block,
    /// Stdout is not JSON.
    InvalidJson,
    /// More than one JSON document on stdout.
    TwoJsonDocuments,
    /// Text before or after a JSON object: a shell profile or a debug print wrote to stdout.
    PollutedStdout,
    /// JSON, but not an object.
    NotAnObject,
    /// More output than the 1 MiB a hook may answer with.
    TooLarge,
    /// Stdout is not UTF-8.
    NotUtf8,
}

impl AnswerKind {
    /// How `doctor` names this answer for a hook speaking `dialect`.
    pub(crate) fn describe(self, dialect: &Dialect) -> String {
        match self {
            AnswerKind::None => "no answer".into(),
            AnswerKind::Nothing => "nothing (continue, no change)".into(),
            AnswerKind::Json if *dialect == Dialect::Shell => "decision JSON".into(),
            AnswerKind::Json => format!("JSON ({})", dialect.label()),
            AnswerKind::ClaudeCodeJson => "Claude Code JSON".into(),
            AnswerKind::Exit2Block => "exit status 2 (a block, stderr as the reason)".into(),
            AnswerKind::InvalidJson => "invalid JSON".into(),
            AnswerKind::TwoJsonDocuments => "two JSON documents".into(),
            AnswerKind::PollutedStdout => {
                "JSON mixed with other text (a shell profile or a debug print?)".into()
            }
            AnswerKind::NotAnObject => "JSON that is not an object".into(),
            AnswerKind::TooLarge => "more than 1 MiB of output".into(),
            AnswerKind::NotUtf8 => "bytes that are not UTF-8".into(),
        }
    }
}

/// One run of one hook on one event.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct RunCheck {
    /// The event it was run for.
    pub event: Event,
    /// Whether its matcher matches the synthetic payload (doctor runs it either way).
    pub matched: bool,
    /// `ok`, `failed` or `timeout`.
    pub result: &'static str,
    /// The exit status, when it exited.
    pub exit_code: Option<i32>,
    /// The signal that ended it, when one did.
    pub signal: Option<i32>,
    /// What kind of answer it gave.
    pub answer: AnswerKind,
    /// The first bytes of stdout, when there were any.
    pub stdout: Option<String>,
    /// The last lines of stderr, when there were any.
    pub stderr: Option<String>,
    /// What the answer would do at this event ("none" when nothing).
    pub effect: String,
    /// Wall time of the run, in milliseconds.
    pub ms: f64,
    /// Whether it took longer than [`SLOW`]: every event it is on waits that long.
    pub slow: bool,
    /// Why this run counts as broken.
    pub problem: Option<String>,
    /// Things worth fixing that do not break the hook.
    pub warnings: Vec<String>,
    /// Things worth knowing (a matcher that would not have matched the sample payload).
    pub notes: Vec<String>,
}

impl RunCheck {
    /// Whether this run counts as broken (it sets `problem`).
    pub(crate) fn is_broken(&self) -> bool {
        self.problem.is_some()
    }
}

/// Doctor's verdict on one hook: its health (as `list`) plus its runs.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct HookCheck {
    /// Its health, as `list` reports it.
    #[serde(flatten)]
    pub health: HookHealth,
    /// Whether doctor ran it for at least one event.
    pub ran: bool,
    /// Why it was not run (for some or all of its events).
    pub not_run: Option<String>,
    /// One run per event it was run for.
    pub runs: Vec<RunCheck>,
}

impl HookCheck {
    /// Health errors plus broken runs.
    pub(crate) fn problems(&self) -> usize {
        self.health.errors() + self.runs.iter().filter(|r| r.is_broken()).count()
    }

    /// Health warnings plus run warnings.
    pub(crate) fn warnings(&self) -> usize {
        self.health.warnings() + self.runs.iter().map(|r| r.warnings.len()).sum::<usize>()
    }
}

/// Everything doctor found.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct DoctorReport {
    /// The workspace root.
    pub workspace: std::path::PathBuf,
    /// Whether the master switch is on.
    pub master_enabled: bool,
    /// Whether HTTP hooks may reach this machine (see [`health::HTTP_ALLOW_LOCAL_ENV`]).
    pub http_allow_local: bool,
    /// The events the host says it sends; `None`: every event.
    pub host_events: Option<Vec<Event>>,
    /// What a lapse of the policy comes to (`on_failure`).
    pub on_failure: agent_hooks_core::outcome::OnFailure,
    /// The agents whose installed bridge says `--fail-closed`.
    pub bridges_fail_closed: Vec<&'static str>,
    /// True when nothing is broken (doctor exits 0).
    pub ok: bool,
    /// How many things are broken: configuration errors, health errors, broken runs.
    pub problems: usize,
    /// How many things deserve a look without being broken.
    pub warnings: usize,
    /// Every configuration file, as `list` reports them.
    pub files: Vec<health::FileReport>,
    /// Every declared hook, in run order.
    pub hooks: Vec<HookCheck>,
}

/// Where doctor is, for a progress line: the hook about to be checked.
#[derive(Debug, Clone, Copy)]
pub struct Progress<'a> {
    /// Which hook this is, from 1.
    pub index: usize,
    /// How many hooks there are.
    pub total: usize,
    /// The hook's name.
    pub hook: &'a str,
}

/// Runs doctor on everything `engine` has loaded. Hooks run one at a time, so the times are
/// each hook's own.
///
/// Doctor tries hooks; it does not act on their answers. Built-in guards run on a throwaway
/// context (no state, no audit line), command hooks get `AGENT_HOOKS_DRY_RUN=1`, and no
/// decision is logged.
pub(crate) async fn run(engine: &Engine) -> DoctorReport {
    run_with_progress(engine, &mut |_| {}).await
}

/// [`run`], calling `progress` before each hook is checked (the CLI shows it on a terminal).
pub(crate) async fn run_with_progress(
    engine: &Engine,
    progress: &mut (dyn FnMut(Progress<'_>) + Send),
) -> DoctorReport {
    let report = health::assess_engine(engine);
    let snapshot = engine.snapshot();
    let drift = DriftChecker::default();
    // Doctor tries each hook in the foreground, async ones included.
    let detach = crate::dispatch::background::Detach::Task;
    let rt = Runtime {
        ws: engine.workspace(),
        log: engine.event_log(),
        drift: &drift,
        seen: Default::default(),
        detach: &detach,
        prefork: engine.forkers(),
        // Doctor looks at answers; it must not add to what guards record (audit log, state).
        dry_run: true,
        log_decisions: false,
        replay: None,
    };
    let Report {
        workspace,
        master_enabled,
        http_allow_local,
        host_events,
        approvals: _,
        files,
        hooks,
        on_failure,
        bridges_fail_closed,
    } = report;
    let mut checks = Vec::new();
    let total = hooks.len();
    for (i, health) in hooks.into_iter().enumerate() {
        progress(Progress {
            index: i + 1,
            total,
            hook: &health.hook.name,
        });
        checks.push(check_hook(&rt, &snapshot.approvals, health).await);
    }
    let config_errors: usize = files.iter().map(|f| f.errors.len()).sum();
    let problems = config_errors + checks.iter().map(HookCheck::problems).sum::<usize>();
    let warnings = files.iter().map(|f| f.warnings.len()).sum::<usize>()
        + checks.iter().map(HookCheck::warnings).sum::<usize>();
    DoctorReport {
        workspace,
        master_enabled,
        http_allow_local,
        host_events,
        on_failure,
        bridges_fail_closed,
        ok: problems == 0,
        problems,
        warnings,
        files,
        hooks: checks,
    }
}

/// Why doctor does not call a judge hook: every call is a paid request to a model server.
pub(crate) const JUDGE_NOT_CALLED: &str = "not called: an LLM judge (type prompt or agent) \
costs a model request at every call, so doctor does not call it; `agent-hooks test` does";

async fn check_hook(rt: &Runtime<'_>, approvals: &Approvals, health: HookHealth) -> HookCheck {
    let events = health.events_to_run();
    let judge = matches!(health.hook.transport, TransportSpec::Judge(_));
    let not_run = if judge && health.runnable() {
        Some(JUDGE_NOT_CALLED.to_owned())
    } else if !health.runnable() {
        Some(format!(
            "not run: {}",
            health
                .why
                .clone()
                .unwrap_or_else(|| "it cannot start".into())
        ))
    } else if events.is_empty() {
        Some(format!(
            "not run: {}",
            health.why.clone().unwrap_or_else(|| "not approved".into())
        ))
    } else if events.len() < health.events.len() {
        let skipped: Vec<&str> = health
            .events
            .iter()
            .filter(|e| !events.contains(e))
            .map(|e| e.name())
            .collect();
        Some(format!(
            "not run for {}: {}",
            skipped.join(", "),
            health.why.clone().unwrap_or_else(|| "not approved".into())
        ))
    } else {
        None
    };
    let mut runs = Vec::new();
    if health.runnable() && !judge {
        for event in events {
            runs.push(run_once(rt, approvals, &health, event).await);
        }
    }
    HookCheck {
        ran: !runs.is_empty(),
        not_run,
        runs,
        health,
    }
}

async fn run_once(
    rt: &Runtime<'_>,
    approvals: &Approvals,
    health: &HookHealth,
    event: Event,
) -> RunCheck {
    let hook = &health.hook;
    let payload = synthetic_payload(event, &rt.ws.root().to_string_lossy());
    // The same gate as a dispatch: the pinned program is what runs.
    let program = match rt.drift.check(approvals, event, hook) {
        Verdict::Approved(program) => program,
        _ => None,
    };
    run_on(rt, hook, event, &payload, program.as_ref(), PREVIEW)
        .await
        .0
}

/// How much of a hook's stdout and stderr doctor shows.
const PREVIEW: usize = 60;

/// Runs `hook` once on `payload` (complete, as a dispatch hands it over) and judges the run;
/// the answer, when the dialect could read one, comes back beside the check. Doctor and
/// `agent-hooks test` share it; `preview` is how many characters of output to show.
pub(crate) async fn run_on(
    rt: &Runtime<'_>,
    hook: &crate::hook::Hook,
    event: Event,
    payload: &Map<String, Value>,
    program: Option<&crate::trust::Pinned>,
    preview: usize,
) -> (RunCheck, Option<Answer>) {
    let cache = DispatchCache::default();
    let view = PayloadView::new(event, payload, rt.ws, &cache);
    let matched = hook.dialect.matches(hook.matcher.as_ref(), &view);
    let started = Instant::now();
    let ran = rt.execute(hook, &view, program).await;
    let result = ran.result;
    let elapsed = started.elapsed();
    let mut check = RunCheck {
        event,
        matched,
        result: "ok",
        exit_code: None,
        signal: None,
        answer: AnswerKind::None,
        stdout: None,
        stderr: None,
        effect: "none".into(),
        ms: (elapsed.as_secs_f64() * 10_000.0).round() / 10.0,
        slow: elapsed > SLOW,
        problem: None,
        warnings: Vec::new(),
        notes: Vec::new(),
    };
    check.warnings.extend(ran.fallback);
    if !matched && let Some(m) = &hook.matcher {
        check.notes.push(format!(
            "its matcher \"{}\" does not match this sample payload; run anyway to test it",
            m.pattern
        ));
    }
    if check.slow {
        check.warnings.push(format!(
            "slow: took {:.1} s (over {} s); every {event} waits for it",
            elapsed.as_secs_f64(),
            SLOW.as_secs()
        ));
    }
    let reply = match result {
        Ok(reply) => reply,
        Err(failure) => {
            check.failed(&failure);
            return (check, None);
        }
    };
    check.read_reply(&reply, preview);
    let answer = check.judge(hook.interpret(&view, &reply));
    (check, answer)
}

impl RunCheck {
    /// The hook did not run to an answer: it timed out, or could not start.
    fn failed(&mut self, failure: &Failure) {
        self.result = if matches!(failure, Failure::Timeout(_)) {
            "timeout"
        } else {
            "failed"
        };
        self.problem = Some(match failure {
            Failure::Timeout(t) => format!(
                "timed out after {} s and was killed (raise timeout, or make it faster)",
                t.as_secs_f64()
            ),
            other => other.to_string(),
        });
    }

    /// How the run ended, previews of what it printed (`preview` characters), and what kind of
    /// answer that is.
    fn read_reply(&mut self, reply: &Reply, preview: usize) {
        let show = |text: &str| agent_hooks_dialects::read::preview(text, preview);
        match reply.exit {
            Exit::Code(code) => self.exit_code = Some(code),
            Exit::Signal(sig) => self.signal = Some(sig),
        }
        let stderr = String::from_utf8_lossy(&reply.stderr);
        let stderr = stderr.trim();
        if !stderr.is_empty() {
            self.stderr = Some(show(&agent_hooks_dialects::read::last_lines(stderr, 3)));
        }
        if !reply.stdout.is_empty() {
            self.stdout = Some(show(&String::from_utf8_lossy(&reply.stdout)));
        }
        if let Some(why) = &reply.left_behind {
            self.warnings.push(why.clone());
        }
        self.answer = classify(reply);
    }

    /// What the answer does on this run's event, or why the dialect could not use it; the
    /// answer comes back when it was usable.
    fn judge(&mut self, interpreted: Result<Answer, Unusable>) -> Option<Answer> {
        let event = self.event;
        match interpreted {
            Ok(answer) => {
                let (effects, ignored) = describe_effect(event, &answer);
                self.effect = if effects.is_empty() {
                    "none".into()
                } else {
                    effects.join("; ")
                };
                if !ignored.is_empty() {
                    self.warnings.push(format!(
                        "{} not allowed on {event}; it would be ignored",
                        ignored.join(", ")
                    ));
                }
                self.warnings
                    .extend(answer.problems.iter().map(|(_, detail)| detail.clone()));
                Some(answer)
            }
            Err(unusable) => {
                self.result = "failed";
                let hint = match self.answer {
                    AnswerKind::PollutedStdout => {
                        " (something printed text besides the answer: a shell profile, or a print meant for stderr)"
                    }
                    AnswerKind::TwoJsonDocuments => " (print exactly one JSON object)",
                    _ => "",
                };
                self.problem = Some(format!("{}{hint}", unusable.detail));
                None
            }
        }
    }
}

/// Names what the hook printed, independent of whether its dialect can use it.
fn classify(reply: &Reply) -> AnswerKind {
    if reply.stdout_overflow {
        return AnswerKind::TooLarge;
    }
    let Ok(text) = std::str::from_utf8(&reply.stdout) else {
        return AnswerKind::NotUtf8;
    };
    let text = text.trim();
    if reply.exit == Exit::Code(2) {
        return AnswerKind::Exit2Block;
    }
    if text.is_empty() {
        return AnswerKind::Nothing;
    }
    let mut stream = serde_json::Deserializer::from_str(text).into_iter::<Value>();
    match (stream.next(), stream.next()) {
        (Some(Ok(Value::Object(object))), None) => object_kind(&object),
        (Some(Ok(_)), None) => AnswerKind::NotAnObject,
        (Some(Ok(_)), Some(Ok(_))) => AnswerKind::TwoJsonDocuments,
        (Some(Ok(_)), Some(Err(_))) => AnswerKind::PollutedStdout,
        _ => {
            // Text first, then a JSON object on a later line: the classic profile banner.
            let tail_is_object = text.lines().enumerate().skip(1).any(|(i, line)| {
                line.trim_start().starts_with('{')
                    && serde_json::from_str::<Map<String, Value>>(
                        &text.lines().skip(i).collect::<Vec<_>>().join("\n"),
                    )
                    .is_ok()
            });
            if tail_is_object {
                AnswerKind::PollutedStdout
            } else {
                AnswerKind::InvalidJson
            }
        }
    }
}

fn object_kind(object: &Map<String, Value>) -> AnswerKind {
    const CLAUDE_KEYS: [&str; 4] = [
        "hookSpecificOutput",
        "continue",
        "stopReason",
        "suppressOutput",
    ];
    if CLAUDE_KEYS.iter().any(|k| object.contains_key(*k)) {
        AnswerKind::ClaudeCodeJson
    } else {
        AnswerKind::Json
    }
}

/// What an answer would do at `event`, in words: the effects its row of the capability table
/// admits, and those it ignores (the same [`Answer::admit`] the dispatcher merges by).
pub(crate) fn describe_effect(event: Event, answer: &Answer) -> (Vec<String>, Vec<String>) {
    let spec = event.spec();
    let Admitted { effects, ignored } = answer.admit(spec);
    let reason = |r: Option<&str>| r.unwrap_or("no reason given").to_owned();
    let effects = effects
        .into_iter()
        .map(|effect| match effect {
            Effect::Block { reason: r } if spec.redo => {
                format!("block: the agent redoes the turn ({})", reason(r))
            }
            Effect::Block { reason: r } => format!("block: {}", reason(r)),
            Effect::Ask { reason: r } => format!("ask the user to confirm: {}", reason(r)),
            Effect::Result(_) => "hand the agent a result instead of running the tool".into(),
            Effect::Rewrite { field, .. } => format!("rewrite {field}"),
            Effect::Context(context) => format!(
                "inject context the model sees: \"{}\"",
                preview(&context.join(" "))
            ),
            Effect::Notes(_) => "append a note to the tool result".into(),
            Effect::Model(model) => format!("switch the next call to model {model}"),
            Effect::Warnings(warnings) => {
                format!("show the user: \"{}\"", preview(&warnings.join(" ")))
            }
        })
        .collect();
    (effects, ignored)
}

fn preview(text: &str) -> String {
    agent_hooks_dialects::read::preview(text, 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply(stdout: &str, code: i32) -> Reply {
        Reply {
            stdout: stdout.as_bytes().to_vec(),
            stdout_overflow: false,
            stderr: Vec::new(),
            exit: Exit::Code(code),
            left_behind: None,
        }
    }

    #[test]
    fn every_field_of_every_event_has_a_realistic_sample() {
        for spec in agent_hooks_core::event::EVENTS {
            for field in spec.fields {
                if field.name == "error" {
                    continue; // absent on a successful call, as the host sends it
                }
                assert!(
                    sample(spec.event, field.name).is_some(),
                    "{}.{} has no sample",
                    spec.name,
                    field.name
                );
            }
        }
    }

    #[test]
    fn synthetic_payload_is_complete_and_harmless() {
        let p = synthetic_payload(Event::PreToolCall, "/ws");
        assert_eq!(p["event"], "pre_tool_call");
        assert_eq!(p["tool_input"]["command"], "ls -la");
        assert_eq!(p["session_id"], DOCTOR_SESSION);
        assert_eq!(p["cwd"], "/ws");
        let stop = synthetic_payload(Event::OnStop, "/ws");
        assert_eq!(stop["stop_hook_active"], false);
    }

    #[test]
    fn answers_are_classified() {
        assert_eq!(classify(&reply("", 0)), AnswerKind::Nothing);
        assert_eq!(
            classify(&reply(r#"{"decision":"block"}"#, 0)),
            AnswerKind::Json
        );
        assert_eq!(
            classify(&reply(r#"{"hookSpecificOutput":{}}"#, 0)),
            AnswerKind::ClaudeCodeJson
        );
        assert_eq!(classify(&reply("{}\n{}", 0)), AnswerKind::TwoJsonDocuments);
        assert_eq!(
            classify(&reply("Welcome to bash!\n{\"context\": \"x\"}", 0)),
            AnswerKind::PollutedStdout
        );
        assert_eq!(
            classify(&reply("{\"a\":1}\ndone", 0)),
            AnswerKind::PollutedStdout
        );
        assert_eq!(classify(&reply("oops", 0)), AnswerKind::InvalidJson);
        assert_eq!(classify(&reply("[1]", 0)), AnswerKind::NotAnObject);
        assert_eq!(classify(&reply("", 2)), AnswerKind::Exit2Block);
    }

    #[test]
    fn effects_follow_the_capability_table() {
        let block = Answer::block("no");
        let (effects, ignored) = describe_effect(Event::PreToolCall, &block);
        assert_eq!(effects, vec!["block: no".to_owned()]);
        assert!(ignored.is_empty());
        let (effects, ignored) = describe_effect(Event::PostToolCall, &block);
        assert!(effects.is_empty());
        assert_eq!(ignored, vec!["decision \"block\"".to_owned()]);
    }
}
