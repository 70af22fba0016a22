//! `agent-hooks ahp-serve`: the workspace as an Agent Hooks Protocol backend on stdio — one
//! JSON-RPC message a line in, its answer a line out — until stdin ends, whether the harness
//! keeps the process for a session or starts one per event.

use std::io::{BufRead, Read, Write};
use std::process::ExitCode;
use std::sync::Arc;

use agent_hooks_runtime::decisions::Surface;
use agent_hooks_runtime::{Engine, Workspace};
use agent_hooks_standards::ahp::Backend;

/// The longest message read: past it the stream cannot be resynchronised, so the backend
/// answers the error and stops.
const MAX_LINE: u64 = 16 * 1024 * 1024;

/// Serves until stdin ends. Messages are answered one at a time, in order: the line is read on
/// this thread, and each answer computed on `rt`, which lives as long as the engine does.
pub(crate) fn serve(ws: Workspace, rt: &tokio::runtime::Runtime) -> ExitCode {
    let engine = {
        let _entered = rt.enter();
        Arc::new(Engine::open(ws).with_workspace_forkers())
    };
    let backend = Backend::new(engine, Surface::Bridge);
    let mut stdin = std::io::stdin().lock();
    let mut stdout = std::io::stdout().lock();
    let mut line = Vec::new();
    loop {
        line.clear();
        let read = (&mut stdin).take(MAX_LINE + 1).read_until(b'\n', &mut line);
        let too_long = line.len() as u64 > MAX_LINE;
        match read {
            Ok(0) => return ExitCode::SUCCESS,
            Ok(_) => {}
            Err(e) => {
                eprintln!("agent-hooks ahp-serve: cannot read stdin: {e}");
                return ExitCode::FAILURE;
            }
        }
        let answer = if too_long {
            Some(serde_json::json!({"jsonrpc": "2.0", "id": null, "error": {
                "code": -32600,
                "message": format!("Invalid Request: a message is longer than {MAX_LINE} bytes"),
            }}))
        } else if line.iter().all(u8::is_ascii_whitespace) {
            None
        } else {
            rt.block_on(backend.handle(&line))
        };
        if let Some(answer) = answer {
            let written = writeln!(stdout, "{answer}").and_then(|()| stdout.flush());
            if let Err(e) = written {
                eprintln!("agent-hooks ahp-serve: cannot write stdout: {e}");
                return ExitCode::FAILURE;
            }
        }
        if too_long {
            eprintln!("agent-hooks ahp-serve: a message is longer than {MAX_LINE} bytes; stopping");
            return ExitCode::FAILURE;
        }
    }
}
