//! The `/hooks` commands as text (`docs/README.md`): one function from a command line to what the
//! user sees, shared by the CLI, the sidecar and any host that wires `/hooks` into its chat.

mod doctor;
mod install;
mod list;

pub use crate::inspect::style::Style;

use crate::engine::Engine;
use agent_hooks_core::event::Event;

/// What a command printed and how it ended.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct CommandOutput {
    /// What the command printed, newline-terminated; plain unless a colour [`Style`] was asked for.
    pub text: String,
    /// 0 on success; 1 when the command found something broken or failed; 2 for bad usage.
    pub status: i32,
}

impl CommandOutput {
    fn ok(text: String) -> CommandOutput {
        CommandOutput { text, status: 0 }
    }

    fn failed(text: String) -> CommandOutput {
        CommandOutput { text, status: 1 }
    }

    fn usage(text: String) -> CommandOutput {
        CommandOutput { text, status: 2 }
    }
}

/// Runs one `/hooks ...` line (the leading `/hooks` is optional) against `engine`.
///
/// The line is split by shell-word rules, so a command with spaces can be quoted. An empty
/// line is `list`. Commands that change state (`on`, `off`, `approve`, `revoke`) reload the
/// engine before they return. The result is plain text for a chat window; a bad line is a
/// usage message with status 2, never a panic or an error type.
///
/// ```
/// use agent_hooks_runtime::commands::run_line;
/// use agent_hooks_runtime::{Engine, Workspace};
///
/// let dir = tempfile::tempdir()?;
/// let engine = Engine::open(Workspace::new(dir.path()));
/// let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
///
/// let out = rt.block_on(run_line(&engine, "/hooks on"));
/// assert_eq!(out.status, 0);
/// assert!(engine.snapshot().master_enabled());
///
/// let out = rt.block_on(run_line(&engine, "/hooks frobnicate"));
/// assert_eq!(out.status, 2);
/// assert!(out.text.contains("unknown command \"frobnicate\""));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub async fn run_line(engine: &Engine, line: &str) -> CommandOutput {
    let words = match shell_words::split(line.trim()) {
        Ok(words) => words,
        Err(e) => return CommandOutput::usage(format!("cannot read the command line: {e}\n")),
    };
    let mut args: &[String] = &words;
    if args.first().is_some_and(|w| w == "/hooks" || w == "hooks") {
        args = &args[1..];
    }
    run(engine, args).await
}

/// Runs a command given as words (`["approve", "pre_tool_call", "/x/guard.py"]`), as plain
/// text: what a host shows in its chat and what the CLI prints into a pipe.
pub(crate) async fn run(engine: &Engine, args: &[String]) -> CommandOutput {
    run_styled(engine, args, Style::PLAIN).await
}

/// A `/hooks` command from its words, with a presentation style: the CLI passes colour when stdout
/// is a terminal.
pub async fn run_styled(engine: &Engine, args: &[String], style: Style) -> CommandOutput {
    let (command, rest) = match args.split_first() {
        None => ("list", &[][..]),
        Some((c, rest)) => (c.as_str(), rest),
    };
    match command {
        "list" | "--json" if command == "list" || rest.is_empty() => {
            let rest = if command == "--json" { args } else { rest };
            match json_flag(command, rest) {
                Ok(json) => list::run(engine, json, style),
                Err(usage) => usage,
            }
        }
        "doctor" => match json_flag(command, rest) {
            Ok(json) => doctor::run(engine, json, style, &mut |_| {}).await,
            Err(usage) => usage,
        },
        "on" | "off" => switch(engine, command == "on", rest),
        "approve" => approve(engine, rest),
        "revoke" => revoke(engine, rest),
        "install" => install::run(engine, rest).await,
        "help" | "--help" | "-h" => CommandOutput::ok(help()),
        other => CommandOutput::usage(format!("unknown command \"{other}\"\n\n{}", help())),
    }
}

pub use crate::inspect::doctor::Progress as DoctorProgress;

/// `agent-hooks test`: runs the hook named `hook` (as `list` shows it, or its command, URL or
/// `builtin:<name>`) once on `payload` for `event` (default: the payload's `event`, else the
/// hook's only event) as a trial, and explains its answer; `json` prints the report as JSON.
/// A hook the trust gate would refuse runs only with `run_unapproved`.
///
/// The status is the verdict: 0 continue, 1 block, 3 ask, 4 the hook failed (the action would
/// go on), 5 not run (not trusted); 2 for bad usage, with the error as the text.
pub async fn test_hook(
    engine: &Engine,
    hook: &str,
    event: Option<crate::Event>,
    payload: serde_json::Map<String, serde_json::Value>,
    run_unapproved: bool,
    json: bool,
) -> CommandOutput {
    match crate::inspect::trial::run(engine, hook, event, payload, run_unapproved).await {
        Ok(report) => CommandOutput {
            text: if json {
                to_json(&report)
            } else {
                report.render()
            },
            status: i32::from(report.verdict.exit_code()),
        },
        Err(e) => CommandOutput::usage(format!("{e}\n")),
    }
}

/// `install [--no-enable] <name|number|all>...`: wires ready-made hooks into the workspace and
/// says what it did, as `/hooks install` does.
pub async fn install(engine: &Engine, words: &[String]) -> CommandOutput {
    install::run(engine, words).await
}

/// `doctor` (with `--json`, the report as JSON), calling `progress` before each hook is
/// checked: the CLI shows where it is on a terminal.
pub async fn run_doctor(
    engine: &Engine,
    json: bool,
    style: Style,
    progress: &mut (dyn FnMut(DoctorProgress<'_>) + Send),
) -> CommandOutput {
    doctor::run(engine, json, style, progress).await
}

/// `list` and `doctor` take one optional flag, `--json`.
fn json_flag(command: &str, rest: &[String]) -> Result<bool, CommandOutput> {
    match rest {
        [] => Ok(false),
        [flag] if flag == "--json" => Ok(true),
        _ => Err(CommandOutput::usage(format!(
            "usage: /hooks {command} [--json]\n"
        ))),
    }
}

/// The `--json` text of a report: pretty-printed, one trailing newline.
fn to_json(value: &impl serde::Serialize) -> String {
    match serde_json::to_string_pretty(value) {
        Ok(mut text) => {
            text.push('\n');
            text
        }
        Err(e) => format!("{{\"error\": \"cannot serialise the report: {e}\"}}\n"),
    }
}

fn switch(engine: &Engine, on: bool, rest: &[String]) -> CommandOutput {
    if !rest.is_empty() {
        return CommandOutput::usage(format!(
            "usage: /hooks {}   (takes no arguments)\n",
            if on { "on" } else { "off" }
        ));
    }
    match engine.set_master(on) {
        Ok(()) if on => CommandOutput::ok(
            "Shell hooks are ON: approved hooks now run (config/agent.yaml: shell_hooks.enabled: true).\n"
                .into(),
        ),
        Ok(()) => CommandOutput::ok(
            "Shell hooks are OFF: no shell or Claude Code hook runs until /hooks on (skill hooks are unaffected).\n"
                .into(),
        ),
        Err(e) => CommandOutput::failed(format!("error: {e}\n")),
    }
}

fn approve(engine: &Engine, rest: &[String]) -> CommandOutput {
    let Some(first) = rest.first() else {
        return CommandOutput::usage(
            "usage: /hooks approve [<event>] <command | ./path | hook name>\n  e.g. /hooks approve pre_tool_call hooks/guard.py\n"
                .into(),
        );
    };
    // An event first (canonical, or any agent's name for it): the rest is the command, quoted
    // or not.
    if rest.len() > 1
        && let Ok(event) = agent_hooks_dialects::event_named(first)
    {
        return approve_spelled(engine, Some(event), &rest[1..].join(" "));
    }
    let whole = rest.join(" ");
    if rest.len() > 1 && engine.approval_key(&whole).is_err() {
        // Not a command as a whole: a first word close to an event, or followed by a declared
        // command, was meant as the event, and is misspelt.
        let near = event_near(first);
        if near.is_some() || engine.approval_key(&rest[1..].join(" ")).is_ok() {
            let events: Vec<&str> = Event::all().map(Event::name).collect();
            return CommandOutput::failed(format!(
                "error: \"{first}\" is not an event{}; the events are {}\n",
                agent_hooks_core::wording::did_you_mean(near),
                events.join(", ")
            ));
        }
    }
    approve_spelled(engine, None, &whole)
}

/// The event a misspelt `word` most likely means: an agent's name for it in another case or
/// without its separators (`pre_tool_use` for `PreToolUse`), else the nearest canonical name.
fn event_near(word: &str) -> Option<&'static str> {
    let squeezed: String = word.chars().filter(|c| !matches!(c, '_' | '-')).collect();
    [squeezed.as_str(), word]
        .into_iter()
        .find_map(|w| agent_hooks_dialects::parse_event(w).err()?.suggestion)
}

/// Approves the declared command `spelling` names (its command, a path spelt another way, or
/// its hook's name), for `event` or every event it is declared on.
fn approve_spelled(engine: &Engine, event: Option<Event>, spelling: &str) -> CommandOutput {
    let command = match engine.approval_key(spelling) {
        Ok(key) => key,
        Err(e) => {
            // An entry that names it but did not load says why, rather than "not declared".
            let e = match engine.approve(event, spelling) {
                Err(loading @ crate::EngineError::NotLoaded { .. }) => loading,
                _ => e,
            };
            return CommandOutput::failed(format!("error: {e}\n"));
        }
    };
    match engine.approve(event, &command) {
        Ok(events) => {
            let names: Vec<&str> = events.iter().map(|e| e.name()).collect();
            let master = engine.snapshot().config.master_enabled;
            let named = if command == spelling {
                String::new()
            } else {
                format!(" (named \"{spelling}\")")
            };
            let mut text = format!("Approved {command}{named} for {}.\n", names.join(", "));
            if !master {
                text.push_str(
                    "Note: the master switch is off, so it will not run until /hooks on.\n",
                );
            }
            if let Some(script) = not_executable(engine, &command) {
                text.push_str(&format!(
                    "Warning: {script} is not executable, so the hook fails until it is (chmod +x {script}).\n"
                ));
            }
            CommandOutput::ok(text)
        }
        Err(e) => CommandOutput::failed(format!("error: {e}\n")),
    }
}

/// The program of `command` when it is a path (it has a `/`) to a file nobody may execute: the
/// hook is run directly, so such an approval would only record a hook that cannot start.
fn not_executable(engine: &Engine, command: &str) -> Option<String> {
    use std::os::unix::fs::PermissionsExt;
    let words = shell_words::split(command).ok()?;
    let program = words.first().filter(|w| w.contains('/'))?;
    let path = engine.workspace().resolve_path(program);
    let meta = std::fs::metadata(&path).ok()?;
    (meta.is_file() && meta.permissions().mode() & 0o111 == 0).then(|| program.clone())
}

fn revoke(engine: &Engine, rest: &[String]) -> CommandOutput {
    if rest.is_empty() {
        return CommandOutput::usage("usage: /hooks revoke <command>\n".into());
    }
    let mut command = rest.join(" ");
    let mut revoked = engine.revoke(&command);
    // An approval is kept by its command as declared; another spelling of a declared hook
    // (a path spelt differently, its name) revokes that one.
    if matches!(revoked, Ok(0))
        && let Ok(key) = engine.approval_key(&command)
        && key != command
    {
        revoked = engine.revoke(&key);
        command = key;
    }
    match revoked {
        Ok(0) => CommandOutput::ok(format!("{command} had no approvals; nothing changed.\n")),
        Ok(n) => CommandOutput::ok(format!(
            "Revoked {command}: {n} approval{} removed; it no longer runs.\n",
            if n == 1 { "" } else { "s" }
        )),
        Err(e) => CommandOutput::failed(format!("error: {e}\n")),
    }
}

/// The usage text of every command, one example each.
pub fn help() -> String {
    let mut text = String::from(
        "agent-hooks: run your own hooks at an agent's lifecycle points.\n\
         \n\
         /hooks list [--json]            master switch, config files, every hook and its\n\
         \x20                               health (also: /hooks with no argument)\n\
         \x20   e.g. /hooks list\n\
         /hooks doctor [--json]          run each approved hook once on a sample payload;\n\
         \x20                               exits 1 when anything is broken\n\
         \x20   e.g. /hooks doctor --json\n\
         /hooks on | off                 the master switch of shell and Claude Code hooks\n\
         \x20   e.g. /hooks on\n\
         /hooks approve [<event>] <cmd>  approve a declared command (every event, or one)\n\
         \x20   e.g. /hooks approve hooks/guard.py, or by the hook's name: /hooks approve guard\n\
         /hooks revoke <cmd>             remove every approval of a command\n\
         \x20   e.g. /hooks revoke /ws/hooks/guard.py\n\
         /hooks install <name|number|all>...  add ready-made hooks (listed below)\n\
         \x20   e.g. /hooks install security_guard 7\n\
         /hooks help                     this text\n\
         \x20   e.g. /hooks help\n\
         \n\
         From a shell, the same commands are `agent-hooks <command>`, plus:\n\
         agent-hooks fire <event>        dispatch one event (payload in, outcome out)\n\
         \x20   e.g. echo '{\"tool_name\":\"bash\"}' | agent-hooks fire pre_tool_call\n\
         \n\
         Ready-made hooks (agent-hooks install <name|number>):\n",
    );
    // The ready-made hooks, numbered as `install <number>` takes them (crate::guards).
    text.push_str(&crate::guards::numbered_list());
    text.push_str("\nEvents:\n");
    for spec in agent_hooks_core::event::EVENTS {
        text.push_str(&format!("  {:<22} {}\n", spec.name, spec.fires));
    }
    text.push_str("\nGuide: docs/README.md (writing hooks, protocol, troubleshooting).\n");
    text
}
