//! `agent-hooks replay <transcript|dir>... --against <policy>`: a policy change tried on real
//! sessions. Prints the summary (or `--json`), writes `--html`, and exits 1 when a flip of a
//! `--fail-on` kind happened, 2 when the replay could not be made.

use std::path::PathBuf;
use std::process::ExitCode;

use agent_hooks_replay::{FLIP_KINDS, FlipKind, HookNetwork, PolicySpec, ReplayOptions};
use agent_hooks_runtime::Workspace;

// The arguments of `agent-hooks replay` (its help text is the variant's, in main.rs).
#[derive(Debug, clap::Args)]
pub(crate) struct Request {
    /// Transcript files, or directories to search for them.
    #[arg(required = true, value_name = "TRANSCRIPT|DIR")]
    transcripts: Vec<PathBuf>,
    /// The policy under test: a workspace directory, a policy bundle (`agent-hooks bundle
    /// build`) or a git revision of the workspace (default: the workspace as it is).
    #[arg(long, value_name = "DIR|BUNDLE|REVISION")]
    policy: Option<String>,
    /// The baseline: a workspace directory, a policy bundle or a git revision of the workspace
    /// (HEAD, main, a commit).
    #[arg(long, value_name = "DIR|BUNDLE|REVISION")]
    against: String,
    /// A public key (PEM) a bundle named by --policy/--against must be signed by; repeat for
    /// more. Without one, a bundle's files are still checked against its manifest.
    #[arg(long = "policy-key", value_name = "FILE")]
    policy_keys: Vec<PathBuf>,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
    /// Also write the report as one self-contained HTML page.
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
    /// Exit 1 when a flip of this kind happened (allow-to-block, block-to-allow, ..., any);
    /// comma-separated or repeated.
    #[arg(long, value_name = "KIND,...")]
    fail_on: Vec<String>,
    /// Run command and HTTP hooks too, each in the scratch copy of the workspace: command
    /// hooks with no network (a user and network namespace of their own), HTTP hooks behind
    /// the SSRF guard. Where this machine cannot confine command hooks, the replay is refused.
    #[arg(long)]
    run_hooks: bool,
    /// As --run-hooks, but command hooks run with this machine's network: where it cannot
    /// confine them, or a hook needs the network to decide.
    #[arg(long)]
    run_hooks_unconfined: bool,
    /// Run LLM judges too (they cost money). Their answers are kept in the judge cache, so a
    /// rerun on the same transcripts asks no model again.
    #[arg(long)]
    judges: bool,
    /// Where judges' answers are kept (default: $XDG_CACHE_HOME/agent-hooks/replay-judges, else
    /// ~/.cache/agent-hooks/replay-judges).
    #[arg(long, value_name = "DIR", requires = "judges")]
    judge_cache: Option<PathBuf>,
}

pub(crate) fn run(ws: &Workspace, request: Request) -> ExitCode {
    let fail_on = match fail_kinds(&request.fail_on) {
        Ok(kinds) => kinds,
        Err(message) => {
            eprintln!("agent-hooks replay: {message}");
            return ExitCode::from(2);
        }
    };
    let keys = match crate::bundle::keys(&request.policy_keys) {
        Ok(keys) => keys,
        Err(message) => {
            eprintln!("agent-hooks replay: --policy-key {message}");
            return ExitCode::from(2);
        }
    };
    // Unpacked bundles live here until the replay is over.
    let scratch = match tempfile::Builder::new()
        .prefix("agent-hooks-replay-bundle-")
        .tempdir()
    {
        Ok(dir) => dir,
        Err(e) => {
            eprintln!("agent-hooks replay: cannot make a scratch directory: {e}");
            return ExitCode::from(2);
        }
    };
    let policy = match &request.policy {
        Some(text) => spec(text, "policy", &keys, scratch.path()),
        None => Ok(PolicySpec::Dir(ws.root().to_path_buf())),
    };
    let against = spec(&request.against, "against", &keys, scratch.path());
    let (policy, against) = match (policy, against) {
        (Ok(policy), Ok(against)) => (policy, against),
        (Err(message), _) | (_, Err(message)) => {
            eprintln!("agent-hooks replay: {message}");
            return ExitCode::from(2);
        }
    };
    if keys.is_empty()
        && [&policy, &against]
            .iter()
            .any(|s| matches!(s, PolicySpec::Unpacked { .. }))
    {
        eprintln!(
            "agent-hooks replay: no --policy-key: the bundle's files were checked against its manifest, its signature was not"
        );
    }
    let options = ReplayOptions::new(
        request.transcripts,
        ws.root().to_path_buf(),
        policy,
        against,
    )
    .running(
        request.run_hooks || request.run_hooks_unconfined,
        request.judges,
    )
    .hook_network(if request.run_hooks_unconfined {
        HookNetwork::Unconfined
    } else {
        HookNetwork::Confined
    });
    let options = match request.judge_cache.or_else(default_judge_cache) {
        Some(dir) if request.judges => options.judge_cache(dir),
        _ => options,
    };
    // Sessions replay in parallel: one worker a core.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build();
    let report = match runtime {
        Ok(rt) => rt.block_on(agent_hooks_replay::replay(&options)),
        Err(e) => {
            eprintln!("agent-hooks replay: cannot start the async runtime: {e}");
            return ExitCode::from(2);
        }
    };
    let report = match report {
        Ok(report) => report,
        Err(e) => {
            eprintln!("agent-hooks replay: {e}");
            return ExitCode::from(2);
        }
    };
    if let Some(path) = &request.html
        && let Err(e) = std::fs::write(path, agent_hooks_replay::render_html(&report))
    {
        eprintln!("agent-hooks replay: cannot write {}: {e}", path.display());
        return ExitCode::from(2);
    }
    if request.json {
        println!("{}", report.to_json());
    } else {
        print!("{}", report.render());
    }
    let failed: Vec<String> = fail_on
        .iter()
        .map(|k| (k.as_str(), report.count(*k)))
        .filter(|(_, n)| *n > 0)
        .map(|(k, n)| format!("{n} {k}"))
        .collect();
    if failed.is_empty() {
        ExitCode::SUCCESS
    } else {
        eprintln!(
            "agent-hooks replay: --fail-on: {} flip{}",
            failed.join(", "),
            if failed.len() == 1 && failed[0].starts_with("1 ") {
                ""
            } else {
                "s"
            }
        );
        ExitCode::from(1)
    }
}

/// The policy `text` names: a regular file is a bundle, verified (its signature by one of
/// `keys` when there are keys, its files against the manifest always) and unpacked under
/// `scratch`; otherwise a directory or a git revision. A tampered bundle is refused with the
/// file named.
fn spec(
    text: &str,
    flag: &str,
    keys: &[ed25519_dalek::VerifyingKey],
    scratch: &std::path::Path,
) -> Result<PolicySpec, String> {
    let path = PathBuf::from(text);
    if !path.is_file() {
        return Ok(PolicySpec::parse(text));
    }
    let verified = if keys.is_empty() {
        agent_hooks_server::verify_bundle_unsigned(&path)
    } else {
        agent_hooks_server::verify_bundle(&path, keys)
    }
    .map_err(|e| format!("--{flag} {text}: the bundle is refused: {e}"))?;
    let dir = scratch.join(flag);
    verified
        .unpack(&dir)
        .map_err(|e| format!("--{flag} {text}: cannot unpack the bundle: {e}"))?;
    Ok(PolicySpec::Unpacked { dir, bundle: path })
}

/// The kinds `--fail-on` names (each value may list several, comma-separated; `any` is all).
fn fail_kinds(values: &[String]) -> Result<Vec<FlipKind>, String> {
    let mut kinds = Vec::new();
    for name in values.iter().flat_map(|v| v.split(',')).map(str::trim) {
        if name == "any" {
            kinds.extend(FLIP_KINDS);
            continue;
        }
        match FlipKind::parse(name) {
            Some(kind) => kinds.push(kind),
            None => {
                return Err(format!(
                    "--fail-on: no flip kind \"{name}\" (kinds: any, {})",
                    FLIP_KINDS
                        .iter()
                        .map(|k| k.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
        }
    }
    Ok(kinds)
}

/// `$XDG_CACHE_HOME/agent-hooks/replay-judges`, else `~/.cache/agent-hooks/replay-judges`.
fn default_judge_cache() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|h| !h.is_empty())
                .map(|h| PathBuf::from(h).join(".cache"))
        })?;
    Some(base.join("agent-hooks/replay-judges"))
}
