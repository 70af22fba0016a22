//! `agent-hooks serve`: the sidecar, on a multi-threaded runtime so a slow hook never holds up
//! other requests. On the workspace's Unix socket by default, on loopback TCP with `--listen`;
//! a team service (any address, TLS, the token store's roles) with `--tls-cert` or `--tokens`.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use agent_hooks_runtime::{Engine, Workspace};
use agent_hooks_server::{Endpoint, ServeOptions, TcpAuth, TlsFiles, TokenFile, Transport};

/// The address `--listen` alone stands for.
pub(crate) const DEFAULT_LISTEN: &str = "127.0.0.1:8787";

/// Where to listen, as the flags say.
#[derive(Debug)]
pub(crate) struct Place {
    pub(crate) listen: Option<String>,
    pub(crate) socket: Option<PathBuf>,
    pub(crate) rotate_token: bool,
    pub(crate) insecure_no_token: bool,
    pub(crate) body_timeout: f64,
    /// The team service's flags.
    pub(crate) team: TeamArgs,
}

/// `serve`'s flags of a team service: TLS, the token store, shared sessions, a signed policy.
#[derive(Debug, clap::Args)]
pub(crate) struct TeamArgs {
    /// Serve as a team service over TLS with this certificate chain (PEM): any --listen
    /// address, callers need a token of the token store or a client certificate. See
    /// docs/deploy.md.
    #[arg(long, value_name = "FILE", requires_all = ["listen", "tls_key"], conflicts_with_all = ["insecure_no_token", "rotate_token"])]
    pub(crate) tls_cert: Option<PathBuf>,
    /// The private key of --tls-cert (PEM).
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    pub(crate) tls_key: Option<PathBuf>,
    /// Let clients authenticate with a certificate signed by these CAs (PEM), as the agent
    /// role.
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    pub(crate) tls_client_ca: Option<PathBuf>,
    /// Serve as a team service with this token store (default with --tls-cert: tokens.json
    /// in your state directory); without --tls-cert, on loopback only.
    #[arg(long, value_name = "FILE", requires = "listen", conflicts_with_all = ["insecure_no_token", "rotate_token"])]
    pub(crate) tokens: Option<PathBuf>,
    /// Keep per-session state (redo counts, the guards' sessions) in Redis or Valkey at
    /// this URL (redis://host:port/db), shared by every replica, instead of files in the
    /// workspace's state/.
    #[arg(long, value_name = "URL")]
    pub(crate) state: Option<String>,
    /// Serve this signed policy bundle (.tar.zst, or a directory holding an unpacked one)
    /// instead of --workspace; a new version that verifies is in force within about 2 s.
    #[arg(long, value_name = "BUNDLE|DIR", requires = "policy_keys")]
    pub(crate) policy: Option<PathBuf>,
    /// A public key (PEM) the policy's signature must be by; repeat for more.
    #[arg(long = "policy-key", value_name = "FILE", requires = "policy")]
    pub(crate) policy_keys: Vec<PathBuf>,
    /// Serve the web console on this address (alone: 127.0.0.1:8788) and print its address:
    /// with a one-time login link on a sidecar; on a team service, operators sign in with
    /// their token, over its TLS (beyond loopback only with TLS). See docs/console.md.
    #[arg(
        long,
        value_name = "IP:PORT",
        num_args = 0..=1,
        default_missing_value = DEFAULT_CONSOLE
    )]
    pub(crate) console: Option<String>,
}

/// The address `--console` alone stands for.
const DEFAULT_CONSOLE: &str = "127.0.0.1:8788";

pub(crate) fn run(ws: Workspace, place: Place, mut options: ServeOptions) -> ExitCode {
    if !(place.body_timeout.is_finite() && place.body_timeout > 0.0 && place.body_timeout <= 3600.0)
    {
        eprintln!(
            "agent-hooks serve: --body-timeout {}: expected a number of seconds above 0, at most 3600",
            place.body_timeout
        );
        return ExitCode::from(2);
    }
    options.body_timeout = Duration::from_secs_f64(place.body_timeout);
    if let Some(console) = &place.team.console {
        match console.parse::<SocketAddr>() {
            Ok(addr) => options.console = Some(addr),
            Err(e) => {
                eprintln!(
                    "agent-hooks serve: --console {console}: expected IP:PORT, e.g. {DEFAULT_CONSOLE} ({e})"
                );
                return ExitCode::from(2);
            }
        }
    }
    let transport = match &place.listen {
        None if place.rotate_token => return rotate_only(),
        None => Transport::Unix(place.socket.clone()),
        Some(listen) => {
            let addr: SocketAddr = match listen.parse() {
                Ok(a) => a,
                Err(e) => {
                    eprintln!(
                        "agent-hooks serve: --listen {listen}: expected IP:PORT, e.g. {DEFAULT_LISTEN} ({e})"
                    );
                    return ExitCode::from(2);
                }
            };
            if place.team.tls_cert.is_some() || place.team.tokens.is_some() {
                match team(addr, &place) {
                    Ok(transport) => transport,
                    Err(e) => {
                        eprintln!("agent-hooks serve: {e}");
                        return ExitCode::from(2);
                    }
                }
            } else {
                let auth = if place.insecure_no_token {
                    TcpAuth::InsecureNoToken
                } else {
                    TcpAuth::Token {
                        rotate: place.rotate_token,
                    }
                };
                Transport::Tcp { addr, auth }
            }
        }
    };
    if let Some(url) = &place.team.state {
        // Before the workspace is loaded: its guards take their store as they are built.
        if let Err(e) = agent_hooks_transports::session_state::share_sessions(url) {
            eprintln!("agent-hooks serve: {e}");
            return ExitCode::from(2);
        }
        // Not fatal: the store may come up after the service; until then each event that
        // needs a session's state is a lapse the user is told of.
        if let Err(e) = agent_hooks_transports::session_state::check_shared() {
            eprintln!(
                "agent-hooks serve: warning: {e}; events that need a session's state are lapses until it answers"
            );
        }
    }
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
    let client_ca = place.team.tls_client_ca.is_some();
    // The policy is verified and loaded before anything listens: a service never answers
    // with a policy it could not check.
    let policy = match &place.team.policy {
        None => None,
        Some(source) => match open_policy(source, &place.team.policy_keys) {
            Ok(opened) => Some(opened),
            Err(e) => {
                eprintln!("agent-hooks serve: --policy: {e}");
                return ExitCode::FAILURE;
            }
        },
    };
    runtime.block_on(async move {
        let (policy, engine) = match policy {
            Some((policy, engine)) => (Some(policy), engine),
            None => (None, Arc::new(Engine::open(ws))),
        };
        let root = match &policy {
            Some(policy) => policy.source().display().to_string(),
            None => engine.workspace().root().display().to_string(),
        };
        let ready = |endpoint: &Endpoint| {
            match endpoint {
                Endpoint::Tcp {
                    token_file: Some(file),
                    ..
                } => notice(false, format!(
                    "every route but GET /v1/health needs Authorization: Bearer <the token in {}>",
                    file.display()
                )),
                Endpoint::Team { tls, tokens, .. } => notice(false, format!(
                    "a team service{}; every route but GET /v1/health needs a token of {} (agent-hooks token add NAME --role agent|operator){}",
                    if *tls { " over TLS" } else { ", without TLS (loopback only)" },
                    tokens.display(),
                    if client_ca { " or a client certificate of the --tls-client-ca" } else { "" }
                )),
                Endpoint::Tcp {
                    token_file: None, ..
                } => notice(true, format!(
                    "WARNING: no token (--insecure-no-token). Every user of this machine can approve hooks, fire events and turn the hooks off through {endpoint}."
                )),
                _ => {}
            }
            // One line on stdout when ready, so scripts can wait for it and read where it is.
            println!("agent-hooks serving {root} on {endpoint}");
        };
        let result = match policy {
            Some(policy) => {
                agent_hooks_server::serve_policy(policy, engine, transport, options, ready).await
            }
            None => agent_hooks_server::serve(engine, transport, options, ready).await,
        };
        match result {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("agent-hooks serve: {e}");
                ExitCode::FAILURE
            }
        }
    })
}

/// A start-up notice for the operator: a line of text on stderr, or with JSON logs an event of
/// the log (a warning if `warning`, else info), so that stderr holds nothing but JSON.
fn notice(warning: bool, message: String) {
    if !crate::logging::json() {
        eprintln!("agent-hooks serve: {message}");
    } else if warning {
        tracing::warn!("{message}");
    } else {
        tracing::info!("{message}");
    }
}

/// `serve --rotate-token` without `--listen`: a new token, and nothing served.
fn rotate_only() -> ExitCode {
    let rotated = agent_hooks_server::state_dir().and_then(|dir| TokenFile::open(&dir, true));
    match rotated {
        Ok(token) => {
            println!(
                "agent-hooks: a new token is in {}; running sidecars take it at their next request",
                token.path().display()
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("agent-hooks serve --rotate-token: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The team service's transport, as the flags say: the token store (`--tokens`, else the state
/// directory's), TLS when a certificate is given.
fn team(addr: SocketAddr, place: &Place) -> Result<Transport, String> {
    let tokens = match &place.team.tokens {
        Some(path) => path.clone(),
        None => agent_hooks_server::default_tokens().map_err(|e| e.to_string())?,
    };
    let tls = match (&place.team.tls_cert, &place.team.tls_key) {
        (Some(cert), Some(key)) => {
            let files = TlsFiles::new(cert.clone(), key.clone());
            Some(match &place.team.tls_client_ca {
                Some(ca) => files.with_client_ca(ca.clone()),
                None => files,
            })
        }
        (None, None) if place.team.tls_client_ca.is_some() => {
            return Err("--tls-client-ca needs --tls-cert and --tls-key: client certificates are checked in the TLS handshake".into());
        }
        (None, None) => None,
        _ => return Err("--tls-cert and --tls-key go together".into()),
    };
    Ok(Transport::Team { addr, tokens, tls })
}

/// The policy at `source`, verified against `keys` and loaded; unpacked under the state
/// directory, one place per source.
fn open_policy(
    source: &std::path::Path,
    keys: &[PathBuf],
) -> Result<(agent_hooks_server::Policy, Arc<Engine>), String> {
    let keys = crate::bundle::keys(keys)?;
    let source = std::path::absolute(source).map_err(|e| format!("{}: {e}", source.display()))?;
    let id: String = {
        use std::hash::{Hash, Hasher};
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        source.hash(&mut hasher);
        format!("{:016x}", hasher.finish())
    };
    let base = agent_hooks_server::state_dir()
        .map_err(|e| e.to_string())?
        .join("policy")
        .join(id);
    agent_hooks_server::private_dir(base.parent().unwrap_or(&base)).map_err(|e| e.to_string())?;
    agent_hooks_server::Policy::open(&source, keys, &base).map_err(|e| e.to_string())
}
