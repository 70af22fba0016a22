//! `agent-hooks serve`: the loopback sidecar, on a multi-threaded runtime so a slow hook never
//! holds up other requests.

use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;

use agent_hooks::{Engine, Workspace};
use agent_hooks_server::ServeOptions;

/// The sidecar's default address.
pub(crate) const DEFAULT_LISTEN: &str = "127.0.0.1:8787";

pub(crate) fn run(ws: Workspace, listen: &str, options: ServeOptions) -> ExitCode {
    let addr: SocketAddr = match listen.parse() {
        Ok(a) => a,
        Err(e) => {
            eprintln!(
                "agent-hooks serve: --listen {listen}: expected IP:PORT, e.g. {DEFAULT_LISTEN} ({e})"
            );
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("agent-hooks serve: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    runtime.block_on(async move {
        let engine = Arc::new(Engine::open(ws));
        let root = engine.workspace().root().display().to_string();
        let result = agent_hooks_server::serve(engine, addr, options, |bound| {
            // One line on stdout when ready, so scripts can wait for it and read the port.
            println!("agent-hooks serving {root} on http://{bound}");
        })
        .await;
        match result {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("agent-hooks serve: {e}");
                ExitCode::FAILURE
            }
        }
    })
}
