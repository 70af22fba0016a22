//! The `/hooks` commands as text (SPEC §10): one function from a command line to what the user
//! sees, shared by the CLI, the sidecar and any host that wires `/hooks` into its chat.

use crate::engine::Engine;
use crate::event::Event;

/// What a command printed and how it ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandOutput {
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

/// Runs a command given as words (`["approve", "pre_tool_call", "/x/guard.py"]`).
pub async fn run(engine: &Engine, args: &[String]) -> CommandOutput {
    let (command, rest) = match args.split_first() {
        None => ("list", &[][..]),
        Some((c, rest)) => (c.as_str(), rest),
    };
    match command {
        "on" | "off" => switch(engine, command == "on", rest),
        "approve" => approve(engine, rest),
        "revoke" => revoke(engine, rest),
        "help" | "--help" | "-h" => CommandOutput::ok(help()),
        other => CommandOutput::usage(format!("unknown command \"{other}\"\n\n{}", help())),
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
    let (event, command) = match rest {
        [command] => (None, command.as_str()),
        [first, command] if first.parse::<Event>().is_ok() => {
            (first.parse::<Event>().ok(), command.as_str())
        }
        [first, rest @ ..] if !rest.is_empty() => match first.parse::<Event>() {
            // An unquoted command with arguments: the remaining words are the command.
            Ok(event) => {
                let joined = rest.join(" ");
                return approve_joined(engine, Some(event), &joined);
            }
            Err(_) => {
                let joined = rest_join(rest, first);
                return approve_joined(engine, None, &joined);
            }
        },
        _ => {
            return CommandOutput::usage(
                "usage: /hooks approve [<event>] <command>\n  e.g. /hooks approve pre_tool_call /abs/path/hooks/guard.py\n"
                    .into(),
            );
        }
    };
    approve_joined(engine, event, command)
}

fn rest_join(rest: &[String], first: &str) -> String {
    let mut words = vec![first.to_owned()];
    words.extend(rest.iter().cloned());
    words.join(" ")
}

fn approve_joined(engine: &Engine, event: Option<Event>, command: &str) -> CommandOutput {
    match engine.approve(event, command) {
        Ok(events) => {
            let names: Vec<&str> = events.iter().map(|e| e.name()).collect();
            let master = engine.snapshot().config.master_enabled;
            let mut text = format!("Approved {command} for {}.\n", names.join(", "));
            if !master {
                text.push_str(
                    "Note: the master switch is off, so it will not run until /hooks on.\n",
                );
            }
            CommandOutput::ok(text)
        }
        Err(e) => CommandOutput::failed(format!("error: {e}\n")),
    }
}

fn revoke(engine: &Engine, rest: &[String]) -> CommandOutput {
    if rest.is_empty() {
        return CommandOutput::usage("usage: /hooks revoke <command>\n".into());
    }
    let command = rest.join(" ");
    match engine.revoke(&command) {
        Ok(0) => CommandOutput::ok(format!("{command} had no approvals; nothing changed.\n")),
        Ok(n) => CommandOutput::ok(format!(
            "Revoked {command}: {n} approval{} removed; it no longer runs.\n",
            if n == 1 { "" } else { "s" }
        )),
        Err(e) => CommandOutput::failed(format!("error: {e}\n")),
    }
}

/// The usage text of every command.
pub fn help() -> String {
    let mut text = String::from(
        "agent-hooks: run your own hooks at an agent's lifecycle points.\n\
         \n\
         /hooks list                     master switch, config files, every hook and its health\n\
         \x20   e.g. /hooks list\n\
         /hooks on | off                 flip the master switch for shell and Claude Code hooks\n\
         \x20   e.g. /hooks on\n\
         /hooks doctor                   run each approved hook on a synthetic payload and check it\n\
         \x20   e.g. /hooks doctor\n\
         /hooks approve [<event>] <cmd>  approve a declared command (all its events, or one)\n\
         \x20   e.g. /hooks approve /ws/hooks/guard.py\n\
         /hooks revoke <cmd>             remove every approval of a command\n\
         \x20   e.g. /hooks revoke /ws/hooks/guard.py\n\
         /hooks help                     this text\n\
         \n\
         Events:\n",
    );
    for spec in &crate::event::EVENTS {
        text.push_str(&format!("  {:<22} {}\n", spec.name, spec.fires));
    }
    text
}
