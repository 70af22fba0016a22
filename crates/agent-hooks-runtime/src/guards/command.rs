//! `agent-hooks guard <name>`: one ready-made guard as a plain command hook that any agent can
//! call. One payload in on stdin — canonical (`event`) or Claude Code's (`hook_event_name`) —
//! one answer out: the guard's decision-protocol object, or with `--format claude` what Claude
//! Code reads. Every problem fails open: exit 1 with a line on stderr, which both the shell
//! dialect and Claude Code treat as a non-blocking error.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use agent_hooks_guards::{Guard, GuardContext};
use serde_json::{Map, Value};

use crate::config::Config;
use crate::dispatch::{DispatchOptions, Runtime};
use crate::hook::{Hook, OnError, SourceKind, filesystem_safe};
use crate::snapshot::Snapshot;
use crate::trust::{Approvals, DriftChecker};
use agent_hooks_core::diag::EventLog;
use agent_hooks_core::event::Event;
use agent_hooks_core::workspace::Workspace;
use agent_hooks_dialects::Dialect;
use agent_hooks_dialects::claude::{ClaudeEvent, Sent, ToolAliases, from_claude, to_claude};
use agent_hooks_transports::TransportSpec;
use agent_hooks_transports::builtin::{self, BuiltinSpec};

/// How the answer is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Format {
    /// The decision protocol (`docs/protocol.md`) (what a shell hook prints).
    #[default]
    Protocol,
    /// Claude Code's hook output (`hookSpecificOutput`, `decision`, ...).
    Claude,
}

/// One `guard` invocation.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Request {
    /// The guard to run (a name of `agent_hooks_guards::GUARDS`).
    pub name: String,
    /// A rules file to use instead of the built-in defaults.
    pub rules: Option<PathBuf>,
    /// The answer's dialect: the decision protocol or Claude Code's output.
    pub format: Format,
    /// Where relative paths in the rules resolve and where state defaults to.
    pub workspace: Workspace,
    /// Where per-session state is kept: `$STATE_DIR` when set, else `state/<name>/`.
    pub state_dir: Option<PathBuf>,
    /// A trial run (`$AGENT_HOOKS_DRY_RUN` is `1`: doctor or `agent-hooks test` runs it):
    /// answer, but write no state and no records.
    pub dry_run: bool,
    /// Run as a hook by agent-hooks itself (`$HOOK_NAME` and `$HOOK_EVENT` set): the dispatch
    /// that runs it logs its decision, so this run does not log it again.
    pub nested: bool,
}

impl Request {
    /// A run of the guard `name` in `workspace` with its built-in rules, answering in the
    /// decision protocol, keeping state in its default place, for real (not a trial) and not as
    /// a hook of agent-hooks itself; set the fields to change any of that.
    pub fn new(name: impl Into<String>, workspace: Workspace) -> Request {
        Request {
            name: name.into(),
            rules: None,
            format: Format::Protocol,
            workspace,
            state_dir: None,
            dry_run: false,
            nested: false,
        }
    }
}

/// What to print and how to exit.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Answer {
    /// One JSON object and a newline, or empty for "no opinion".
    pub stdout: String,
    /// Diagnostics for a person; both dialects ignore it on exit 0.
    pub stderr: String,
    /// 0 when the guard answered, 1 for input it could not read (a non-blocking error).
    pub exit: i32,
}

impl Answer {
    fn failed(name: &str, why: impl std::fmt::Display) -> Answer {
        Answer {
            stdout: String::new(),
            stderr: format!("agent-hooks guard {name}: {why}\n"),
            exit: 1,
        }
    }
}

/// An input read into the event it is for.
struct Input {
    event: Event,
    payload: Map<String, Value>,
    /// Set when the input came from Claude Code (or the answer must go to it).
    claude: Option<ClaudeEvent>,
}

/// Runs the guard once on `input` (the bytes of stdin). Synchronous; with `Format::Claude` it
/// starts a small runtime of its own, so call it outside any async context.
///
/// Made for a process that answers one event and exits: the compiled rules are not freed
/// here but by the process's exit, which costs nothing, where their destructors cost a
/// fifth of what the guard does for a short command.
pub fn run(request: &Request, input: &[u8]) -> Answer {
    let name = request.name.as_str();
    if agent_hooks_guards::guard_info(name).is_none() {
        return Answer {
            exit: 2,
            ..Answer::failed(
                name,
                format!(
                    "no ready-made hook by that name (known: {})",
                    super::names().join(", ")
                ),
            )
        };
    }
    let input = match read_input(input, request.format) {
        Ok(mut input) => {
            hand_aliases(&request.workspace, &mut input.payload);
            input
        }
        // Inside Claude Code an exit 1 is shown only in its verbose view: the guard that could
        // not judge the call says so in the user's channel instead (`docs/agents.md`).
        Err(why) if request.format == Format::Claude => {
            let message = format!(
                "agent-hooks guard {name} could not read Claude Code's hook input, so it did not judge this call: {why}"
            );
            return Answer {
                stdout: format!("{}\n", serde_json::json!({ "systemMessage": message })),
                stderr: format!("{message}\n"),
                exit: 0,
            };
        }
        Err(why) => return Answer::failed(name, why),
    };
    let (guard, problem) = match builtin::compile(name, request.rules.as_deref()) {
        Ok(compiled) => compiled,
        Err(e) => return Answer::failed(name, e),
    };
    let guard = std::mem::ManuallyDrop::new(guard);
    let mut stderr = problem
        .map(|p| format!("agent-hooks guard {name}: {p}\n"))
        .unwrap_or_default();
    let state_dir = request
        .state_dir
        .clone()
        .unwrap_or_else(|| request.workspace.state_dir().join(filesystem_safe(name)));
    let ctx = if request.dry_run {
        GuardContext::dry_run(request.workspace.root())
    } else {
        GuardContext::in_dir(request.workspace.root(), state_dir)
    }
    .with_balance(builtin::balance_lookup);

    let mut answer = match (request.format, input.claude) {
        (Format::Protocol, _) => protocol(&guard, ctx, &input),
        (Format::Claude, Some(claude)) => {
            let guard = std::mem::ManuallyDrop::into_inner(guard);
            claude_answer(request, guard, ctx, input.event, input.payload, claude)
        }
        (Format::Claude, None) => {
            stderr.push_str(&format!(
                "agent-hooks guard {name}: {} has no Claude Code counterpart; no answer\n",
                input.event
            ));
            Answer {
                stdout: String::new(),
                stderr: String::new(),
                exit: 0,
            }
        }
    };
    stderr.push_str(&answer.stderr);
    answer.stderr = stderr;
    answer
}

/// Hands the guard the workspace's tool aliases as the runtime hands them to a built-in hook
/// (`claude_hooks.tool_aliases` in `config/agent.yaml`), so `shell_exec` aliased to `Bash` is
/// guarded as `Bash` by the command too. Only a payload that names a tool reads the file.
fn hand_aliases(ws: &Workspace, payload: &mut Map<String, Value>) {
    if !payload.contains_key("tool_name") && !payload.contains_key("tool_names") {
        return;
    }
    let pairs = crate::config::agent::AgentSettings::load(ws)
        .tool_aliases
        .aliased_in(payload);
    if !pairs.is_empty() {
        let aliases = pairs
            .into_iter()
            .map(|(host, canonical)| (host, Value::String(canonical)))
            .collect();
        payload.insert(
            agent_hooks_guards::TOOL_ALIASES_KEY.to_owned(),
            Value::Object(aliases),
        );
    }
}

/// The guard's own answer, as a command hook prints it.
fn protocol(guard: &Guard, mut ctx: GuardContext, input: &Input) -> Answer {
    let payload = Value::Object(input.payload.clone());
    let answer = guard.evaluate(input.event.name(), &payload, &mut ctx);
    let reply = builtin::answer_reply(&answer);
    let mut stdout = String::from_utf8(reply.stdout).unwrap_or_default();
    if !stdout.is_empty() {
        stdout.push('\n');
    }
    Answer {
        stdout,
        stderr: String::new(),
        exit: 0,
    }
}

/// Claude Code's answer: the guard dispatched as the only hook of a one-hook workspace, so the
/// capability table and merge rules apply exactly as in-process, then the bridge's translation.
fn claude_answer(
    request: &Request,
    guard: Guard,
    ctx: GuardContext,
    event: Event,
    payload: Map<String, Value>,
    claude: ClaudeEvent,
) -> Answer {
    let ws = &request.workspace;
    let name = request.name.as_str();
    let spec = BuiltinSpec::with_context(guard, request.rules.clone(), ctx);
    let hook = Hook {
        name: name.into(),
        source: SourceKind::ShellHooks,
        file: PathBuf::new(),
        file_display: format!("agent-hooks guard {name}").into(),
        line: 0,
        events: vec![event],
        matcher: None,
        transport: TransportSpec::Builtin(spec),
        dialect: Dialect::Shell,
        timeout: Duration::from_secs(20),
        on_error: OnError::Continue,
        env: Vec::new(),
        approval_key: None,
        state_dir: PathBuf::new(),
    };
    let config = Config {
        master_enabled: true,
        agent: Default::default(),
        files: Vec::new(),
        hooks: vec![Arc::new(hook)],
    };
    let snapshot = Snapshot::new(config, Approvals::default());
    // Read once: it decides both where decisions are logged and how a rewrite is answered.
    let settings = crate::config::agent::AgentSettings::load(ws);
    let log = EventLog::configured(ws, &settings.events_log);
    let drift = DriftChecker::default();
    let sent = Sent::of(claude, &payload);
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => return Answer::failed(name, format!("cannot start the async runtime: {e}")),
    };
    let outcome = runtime.block_on(async {
        let detach = crate::dispatch::background::Detach::Task;
        let forkers = agent_hooks_transports::prefork::Pool::default();
        let rt = Runtime {
            prefork: &forkers,
            ws,
            log: &log,
            drift: &drift,
            seen: Default::default(),
            detach: &detach,
            dry_run: request.dry_run,
            log_decisions: !request.nested && !request.dry_run,
            replay: None,
        };
        rt.dispatch(&snapshot, event, payload, &DispatchOptions::default())
            .await
    });
    let rewrite = settings.rewrite_permission;
    let answer = to_claude(claude, &outcome, &sent, rewrite);
    let mut stdout = answer.stdout;
    if !stdout.is_empty() {
        stdout.push('\n');
    }
    Answer {
        stdout,
        stderr: answer.stderr,
        exit: answer.exit,
    }
}

/// Reads stdin: a Claude Code input (`hook_event_name`) through the bridge's translation, else
/// a canonical payload naming its `event`.
fn read_input(bytes: &[u8], format: Format) -> Result<Input, String> {
    // Read as the agents write it: a lone surrogate is U+FFFD, deep nesting is read.
    let (value, _) = agent_hooks_dialects::json::read(bytes).map_err(|e| format!("stdin: {e}"))?;
    let Value::Object(map) = &value else {
        return Err("the payload on stdin must be one JSON object".into());
    };
    if map.contains_key("hook_event_name") {
        let t = from_claude(
            &agent_hooks_dialects::claude::ClaudeCode,
            &value,
            &ToolAliases::default(),
        )
        .map_err(|e| e.to_string())?;
        return Ok(Input {
            event: t.event,
            payload: t.payload,
            claude: Some(t.claude),
        });
    }
    let name = map
        .get("event")
        .and_then(Value::as_str)
        .ok_or("the payload names no \"event\" (nor Claude Code's \"hook_event_name\")")?;
    let event: Event = agent_hooks_dialects::parse_event(name).map_err(|e| e.to_string())?;
    let Value::Object(payload) = value else {
        return Err("the payload on stdin must be one JSON object".into());
    };
    let claude = match format {
        Format::Claude => ClaudeEvent::of(event, &payload),
        Format::Protocol => None,
    };
    Ok(Input {
        event,
        payload,
        claude,
    })
}

/// `--print-rules`: the default rules file of `name`.
pub fn print_rules(name: &str) -> Option<&'static str> {
    agent_hooks_guards::default_rules(name)
}
