//! `agent-hooks fire <event>`: one dispatch from the shell. Exit 0 whatever the decision; 2 for
//! an unknown event or a payload that is not a JSON object. The outcome is one line of JSON,
//! indented with `--pretty` or when stdout is a terminal.

use std::io::Read;
use std::process::ExitCode;

use agent_hooks_runtime::decisions::Surface;
use agent_hooks_runtime::{DispatchOptions, Engine, Event, OnFailure, Workspace};
use serde_json::Value;

/// `agent-hooks background-hook <ticket>`: the supervisor of one background hook `fire`
/// started. Its failures are in `logs/events.jsonl`; nobody reads its output.
pub(crate) async fn background(ws: Workspace, ticket: &std::path::Path) -> ExitCode {
    match Engine::open(ws).run_background_ticket(ticket).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("agent-hooks background-hook: {e}");
            ExitCode::FAILURE
        }
    }
}

/// `agent-hooks fire <event>`: `mode` is `--fail-closed`; `missing` says why no workspace was
/// found (the current directory is used, and the outcome tells it as a lapse).
pub(crate) async fn run(
    ws: Workspace,
    event: &str,
    pretty: bool,
    mode: OnFailure,
    missing: Option<String>,
) -> ExitCode {
    // A skill hook's names too, as the sidecar takes them (`pre_prompt` is `pre_llm_call`); an
    // agent's own names (`PreToolUse`) get the canonical one suggested, since the payload
    // `fire` reads is the canonical one.
    let parsed = agent_hooks_runtime::parse_event(event)
        .or_else(|unknown| agent_hooks_runtime::skill_event(event).ok_or(unknown));
    let event: Event = match parsed {
        Ok(e) => e,
        Err(e) => {
            eprintln!("agent-hooks fire: {e}");
            return ExitCode::from(2);
        }
    };
    let mut input = Vec::new();
    if let Err(e) = std::io::stdin().read_to_end(&mut input) {
        eprintln!("agent-hooks fire: cannot read the payload from stdin: {e}");
        return ExitCode::from(2);
    }
    // Read as leniently as the hosts write (`docs/json.md`): lone surrogates and nesting past
    // serde_json's own limit do not keep a hook from seeing it, and a Python host's big
    // integers, `NaN` and infinities are kept exactly, as the sidecar's event route keeps them.
    let payload = match agent_hooks_runtime::bridge::json::read_python_exact(&input) {
        Ok((Value::Object(map), _)) => map,
        Ok((other, _)) => {
            eprintln!(
                "agent-hooks fire: the payload must be one JSON object, got {}",
                agent_hooks_runtime::json_kind(&other)
            );
            return ExitCode::from(2);
        }
        Err(_) if input.iter().all(u8::is_ascii_whitespace) => {
            eprintln!("agent-hooks fire: no payload on stdin (expected one JSON object)");
            return ExitCode::from(2);
        }
        Err(e) => {
            eprintln!("agent-hooks fire: the payload is not valid JSON: {e}");
            return ExitCode::from(2);
        }
    };
    // This process ends with the dispatch: `prefork` hooks are run by the workspace's forkers,
    // which outlive it.
    let mut engine = Engine::open(ws).with_workspace_forkers();
    // Background hooks get a supervisor of their own.
    if let Ok(exe) = std::env::current_exe() {
        engine = engine.with_background_process(exe);
    }
    // A file that does not load, or a hook that did not judge the event, is said where the
    // caller looks, and denies under `on_failure: block`; the log records what was answered.
    let outcome = engine
        .dispatch_recorded(
            Surface::Fire,
            None,
            event,
            payload,
            &DispatchOptions::default(),
            |engine, outcome| {
                if let Some(why) = missing {
                    outcome.add_lapse(agent_hooks_runtime::lapse::no_workspace(&why));
                }
                agent_hooks_runtime::lapse::settle(engine, outcome, mode, None);
            },
        )
        .await;
    let text = if pretty {
        serde_json::to_vec_pretty(&outcome)
    } else {
        serde_json::to_vec(&outcome)
    };
    match text {
        Ok(text) => {
            // A hook's `NaN` or big integer is printed as the number it wrote.
            let mut text = agent_hooks_runtime::bridge::json::restore_numbers(text);
            text.push(b'\n');
            let _ = std::io::Write::write_all(&mut std::io::stdout().lock(), &text);
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("agent-hooks fire: cannot print the outcome: {e}");
            ExitCode::FAILURE
        }
    }
}
