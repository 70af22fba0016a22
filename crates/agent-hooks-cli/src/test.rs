//! `agent-hooks test <hook>`: one hook on the payload from stdin, explained; the behaviour is
//! `agent_hooks_runtime::commands::test_hook`.

use std::io::{IsTerminal, Read};
use std::process::ExitCode;

use agent_hooks_runtime::{Engine, Workspace};
use serde_json::{Map, Value};

pub(crate) async fn run(
    ws: Workspace,
    hook: &str,
    event: Option<&str>,
    run_unapproved: bool,
    json: bool,
) -> ExitCode {
    let usage = |message: String| {
        eprintln!("agent-hooks test: {message}");
        ExitCode::from(2)
    };
    let event = match event.map(agent_hooks_runtime::parse_event).transpose() {
        Ok(event) => event,
        Err(e) => return usage(e.to_string()),
    };
    if std::io::stdin().is_terminal() {
        return usage(
            "the payload goes on stdin, e.g. echo '{\"tool_name\": \"bash\", \"tool_input\": {\"command\": \"ls\"}}' | agent-hooks test <hook>".into(),
        );
    }
    let mut input = Vec::new();
    if let Err(e) = std::io::stdin().read_to_end(&mut input) {
        return usage(format!("cannot read the payload from stdin: {e}"));
    }
    let payload = if input.iter().all(u8::is_ascii_whitespace) {
        Map::new()
    } else {
        match serde_json::from_slice::<Value>(&input) {
            Ok(Value::Object(map)) => map,
            Ok(other) => {
                return usage(format!(
                    "the payload must be a JSON object, not {}",
                    agent_hooks_runtime::json_kind(&other)
                ));
            }
            Err(e) => return usage(format!("the payload is not JSON: {e}")),
        }
    };
    let engine = Engine::open(ws);
    let out = agent_hooks_runtime::commands::test_hook(
        &engine,
        hook,
        event,
        payload,
        run_unapproved,
        json,
    )
    .await;
    if out.status == 2 {
        eprint!("agent-hooks test: {}", out.text);
    } else {
        crate::print_output(&out.text, json);
    }
    ExitCode::from(u8::try_from(out.status).unwrap_or(1))
}
