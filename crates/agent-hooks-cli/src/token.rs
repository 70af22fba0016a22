//! `agent-hooks token`: the team service's token store (`docs/deploy.md`). A token is shown once,
//! when it is made; the store keeps its SHA-256, its holder's name and its role.

use std::path::PathBuf;
use std::process::ExitCode;

use agent_hooks_server::Role;
use clap::Subcommand;

/// What `agent-hooks token` does.
#[derive(Debug, Subcommand)]
pub(crate) enum Action {
    /// Make a token for an agent, a person or a job, and print it (the only time it is shown).
    Add {
        /// Who holds it (letters, digits and - _ . @), unique in the store.
        name: String,
        /// agent: may dispatch; operator: may also approve, revoke, reload and read the hook
        /// list, stats and metrics.
        #[arg(long, value_name = "ROLE", default_value = "agent")]
        role: Role,
        /// The token store (default: tokens.json in your agent-hooks state directory).
        #[arg(long, value_name = "FILE")]
        tokens: Option<PathBuf>,
    },
    /// List the tokens: name, role, when made (never the tokens).
    List {
        /// The token store (default: tokens.json in your agent-hooks state directory).
        #[arg(long, value_name = "FILE")]
        tokens: Option<PathBuf>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Remove a token: every service reading the store refuses it from its next request.
    Revoke {
        /// The token's name.
        name: String,
        /// The token store (default: tokens.json in your agent-hooks state directory).
        #[arg(long, value_name = "FILE")]
        tokens: Option<PathBuf>,
    },
}

fn store(flag: Option<PathBuf>) -> Result<PathBuf, String> {
    match flag {
        Some(path) => Ok(path),
        None => agent_hooks_server::default_tokens().map_err(|e| e.to_string()),
    }
}

pub(crate) fn run(action: Action) -> ExitCode {
    let done = match action {
        Action::Add { name, role, tokens } => store(tokens).and_then(|path| {
            let token =
                agent_hooks_server::add_token(&path, &name, role).map_err(|e| e.to_string())?;
            eprintln!(
                "agent-hooks token: added \"{name}\" ({}) to {}; the token is shown this once:",
                role.as_str(),
                path.display()
            );
            println!("{token}");
            Ok(())
        }),
        Action::List { tokens, json } => store(tokens).and_then(|path| {
            let entries =
                agent_hooks_server::list_tokens(&path).map_err(|e| e.to_string())?;
            if json {
                let rows: Vec<serde_json::Value> = entries
                    .iter()
                    .map(|t| {
                        serde_json::json!({"name": t.name, "role": t.role.as_str(), "created": t.created})
                    })
                    .collect();
                println!("{}", serde_json::Value::Array(rows));
            } else if entries.is_empty() {
                println!("no tokens in {}", path.display());
            } else {
                for t in &entries {
                    println!("{}\t{}\tcreated {}", t.name, t.role.as_str(), t.created);
                }
            }
            Ok(())
        }),
        Action::Revoke { name, tokens } => store(tokens).and_then(|path| {
            if agent_hooks_server::revoke_token(&path, &name).map_err(|e| e.to_string())? {
                println!("agent-hooks token: revoked \"{name}\"");
                Ok(())
            } else {
                Err(format!("no token named \"{name}\" in {}", path.display()))
            }
        }),
    };
    match done {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("agent-hooks token: {e}");
            ExitCode::FAILURE
        }
    }
}
