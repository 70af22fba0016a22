//! `agent-hooks convert --from <agent> --to <agent> [FILE]`: prints the target's hook
//! configuration on stdout and, on stderr, everything that had no equivalent. Either end may
//! be `agent-hooks`, this workspace's `config/shell_hooks.yaml`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use agent_hooks_runtime::Workspace;
use agent_hooks_runtime::convert::Format;

pub(crate) fn run(ws: &Workspace, from: &str, to: &str, file: Option<&Path>) -> ExitCode {
    let (from, to) = match (from.parse::<Format>(), to.parse::<Format>()) {
        (Ok(from), Ok(to)) => (from, to),
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("agent-hooks convert: {e}");
            return ExitCode::from(2);
        }
    };
    let path = file.map_or_else(|| ws.root().join(from.config_file()), PathBuf::from);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) => {
            eprintln!("agent-hooks convert: cannot read {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
    };
    match agent_hooks_runtime::convert::convert_between(from, to, &text) {
        Ok(conversion) => {
            match serde_json::to_string_pretty(&conversion.output) {
                Ok(text) => println!("{text}"),
                Err(e) => {
                    eprintln!("agent-hooks convert: {e}");
                    return ExitCode::FAILURE;
                }
            }
            for note in &conversion.notes {
                eprintln!("{note}");
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("agent-hooks convert: {}: {e}", path.display());
            ExitCode::FAILURE
        }
    }
}
