//! # agent-hooks-server
//!
//! The sidecar (`docs/sidecar.md`): an HTTP server on this machine that keeps a workspace
//! loaded, reloads it when its files change, and answers dispatches, the self-approve API and
//! `/hooks` commands for hosts written in any language.
//!
//! Only its owner steers it. By default it listens on a Unix socket in a private directory and
//! lets in the owner's uid (or one of an allow list), as the kernel reports the peer; on
//! loopback TCP every route but `GET /v1/health` needs the bearer token of a private file
//! (`owner`, `listen`). It refuses to bind anything but a loopback address, refuses peers that
//! are not loopback and requests whose `Host` is not a loopback name (a web page cannot reach
//! it through DNS rebinding), caps bodies at 64 MiB and reads each within a deadline, and
//! answers every error as `{"ok": false, "error": ...}`. Every POST refuses a request carrying
//! an `Origin` header or a body that is not `application/json`: a web page can send neither
//! without a CORS preflight, and no preflight is ever granted.
//!
//! A team service ([`Transport::Team`], `docs/deploy.md`) is the same routes for many callers:
//! any address, but beyond loopback only over TLS; every caller shows a token of the token
//! store or a client certificate, and each route needs a role (`team`).

#![warn(missing_docs)]
#![cfg_attr(not(test), warn(unused_crate_dependencies))]

mod bundle;
mod console;
mod listen;
mod owner;
mod policy;
mod self_approve;
mod stats;
mod team;
mod tls;
mod traces;
mod watch;

use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{ConnectInfo, DefaultBodyLimit, Path, Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Map, Value, json};

pub use bundle::{
    BundleError, MANIFEST, ManifestFile, SIGNATURES, Verified, build as build_bundle, keygen,
    read_public_key, sign as sign_bundle, verify as verify_bundle,
    verify_unsigned as verify_bundle_unsigned,
};
pub use listen::{DEFAULT_BODY_TIMEOUT, DEFAULT_MAX_CLIENT_CONNECTIONS};
pub use owner::{
    ALLOW_FILE, AllowList, OwnerError, STATE_DIR_ENV, TOKEN_FILE, TokenFile, default_socket,
    private_dir, state_dir,
};
pub use policy::Policy;
pub(crate) use stats::Stats;
use stats::Via;
pub use team::{
    Role, TOKENS_FILE, TokenEntry, TokenStore, add_token, default_tokens, list_tokens, revoke_token,
};
pub use tls::{TlsError, TlsFiles};
pub use watch::{WatchError, Watcher, watch};

use agent_hooks_core::event::Event;
use agent_hooks_core::outcome::{Diagnostic, LapseKind, Outcome};
use agent_hooks_runtime::decisions::Surface;
use agent_hooks_runtime::{DispatchOptions, Engine, EngineError};

/// How long shutdown waits for in-flight dispatches before it stops anyway.
pub(crate) const SHUTDOWN_GRACE: Duration = Duration::from_secs(30);

/// The answer to a body over the limit.
pub(crate) const TOO_LARGE: &str = "the request body is larger than the sidecar accepts (sidecar.max_body in config/agent.yaml; default 67108864 bytes, 64 MiB); no hook ran";

/// Why the server could not start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// The address is not loopback: the sidecar is for this machine's owner, and its token
    /// travels in clear text, so it never listens beyond this machine.
    #[error(
        "refusing to listen on {0}: the sidecar binds loopback addresses only (127.0.0.1, ::1); a team service listens beyond this machine with TLS and the token store (serve --tls-cert FILE --tls-key FILE, docs/deploy.md)"
    )]
    NotLoopback(SocketAddr),
    /// A team service on an address beyond loopback without TLS: its tokens would cross the
    /// network in clear text.
    #[error(
        "refusing to listen on {0} without TLS: tokens would cross the network in clear text; give --tls-cert FILE --tls-key FILE (or listen on loopback behind a proxy that terminates TLS)"
    )]
    NoTls(SocketAddr),
    /// A team service no caller could authenticate to: no token in the store and no client CA.
    #[error(
        "refusing to serve: no caller could authenticate (the token store {} holds no token and no --tls-client-ca is given); add one first: agent-hooks token add NAME --role agent",
        .0.display()
    )]
    NoCredentials(PathBuf),
    /// The certificate, key or client CA could not be used.
    #[error(transparent)]
    Tls(#[from] TlsError),
    /// The address could not be bound (in use, or no permission).
    #[error("failed to listen on {addr}: {source}")]
    Bind {
        /// The address asked for.
        addr: SocketAddr,
        /// The underlying failure.
        source: std::io::Error,
    },
    /// The socket could not be bound.
    #[error("failed to listen on {}: {source}", path.display())]
    BindSocket {
        /// The socket's path.
        path: PathBuf,
        /// The underlying failure.
        source: std::io::Error,
    },
    /// The token, the allow list or the socket's place cannot be used safely.
    #[error(transparent)]
    Owner(#[from] OwnerError),
    /// The console (`serve --console`) could not start.
    #[error("{0}")]
    Console(String),
    /// The file watcher that drives hot reload could not start.
    #[error(transparent)]
    Watch(#[from] WatchError),
    /// The server failed after it started.
    #[error("the server stopped with an error: {0}")]
    Serve(std::io::Error),
}

/// Shared state of the routes.
#[derive(Debug)]
pub(crate) struct AppState {
    /// The engine every route dispatches through, swapped whole when a new policy bundle is
    /// in force (`serve --policy`).
    slot: policy::Slot,
    /// Per-hook call counts and latencies, for `GET /v1/stats` (and the console's metrics).
    pub stats: Arc<Stats>,
    started: std::time::Instant,
    /// Where a span of each dispatch goes, when `OTEL_EXPORTER_OTLP_ENDPOINT` is set.
    traces: Option<traces::Traces>,
    /// A team service: its callers are elsewhere, so a bridge's forwarded call is answered in
    /// full here (no bridge process with this workspace could run the rest).
    team: bool,
    /// Told of every dispatch any route settles, for the console's browsers (`serve
    /// --console`); the statistics are kept by each route.
    watch: Watching,
}

/// The watch of [`AppState`], shown by name only.
struct Watching(agent_hooks_runtime::decisions::Watch);

impl std::fmt::Debug for Watching {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Watching")
    }
}

impl AppState {
    /// The engine in force: a request keeps the one it began with, whatever is swapped in
    /// while it runs.
    fn engine(&self) -> Arc<Engine> {
        self.slot.read().unwrap_or_else(|p| p.into_inner()).clone()
    }
}

/// The router of the sidecar, without the listener (tests and embedders mount it themselves).
pub fn router(engine: Arc<Engine>) -> Router {
    routes(
        Arc::new(std::sync::RwLock::new(engine)),
        false,
        None,
        (Arc::default(), None),
    )
    .layer(middleware::from_fn(loopback_only))
}

/// The routes of a sidecar or (`team`) of a team service, whose callers may be anywhere: it
/// neither asks for a loopback peer nor a loopback `Host`.
fn routes(
    slot: policy::Slot,
    team: bool,
    traces: Option<traces::Traces>,
    (counters, console): (Arc<Stats>, Option<console::Feed>),
) -> Router<()> {
    // Read once: the limit is the sidecar's, set when it starts.
    let max_body = slot
        .read()
        .unwrap_or_else(|p| p.into_inner())
        .snapshot()
        .max_body();
    // The statistics and traces are kept by each route, which knows its route and agent; the
    // watch feeds the console's browsers every dispatch a request settles.
    let watch = Watching(Arc::new(move |agent, outcome| {
        if let Some(console) = &console {
            console.decision(agent, outcome);
        }
    }));
    let state = Arc::new(AppState {
        slot,
        stats: counters,
        started: std::time::Instant::now(),
        traces,
        team,
        watch,
    });
    let mut router = Router::new();
    // One route per agent, each answering in that agent's own format.
    let served = agent_hooks_dialects::agent::Agent::ALL
        .into_iter()
        .filter(|agent| agent.home().has_sidecar_route());
    for agent in served {
        router = router.route(
            agent.http_route(),
            post(move |state, query, body| agent_hook(agent, state, query, body)),
        );
    }
    router
        .route("/v1/events/{event}", post(dispatch))
        .route(
            "/v1/standards/agent-hooks/intercept",
            post(standards_intercept),
        )
        .route("/v1/standards/ahp", post(standards_ahp))
        .route("/internal/runtime/hooks/approve", post(approve))
        .route("/internal/runtime/hooks/revoke", post(revoke))
        .route("/v1/hooks", get(hooks))
        .route("/v1/hooks/command", post(command))
        .route("/v1/reload", post(reload))
        .route("/v1/health", get(health))
        .route("/v1/stats", get(stats))
        .route("/metrics", get(metrics))
        // After routing, so each request is counted under its route as declared.
        .route_layer(middleware::from_fn_with_state(state.clone(), observe))
        .fallback(not_found)
        .method_not_allowed_fallback(wrong_method)
        .layer(DefaultBodyLimit::max(max_body))
        .layer(middleware::from_fn(not_from_a_web_page))
        .with_state(state)
}

/// Where the sidecar listens, and how callers prove they are its owner.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Transport {
    /// A Unix domain socket: the peer's uid must be the owner's or on the allow list
    /// ([`ALLOW_FILE`] in the state directory). `None` is the workspace's
    /// [`default_socket`], in a private directory made for it.
    Unix(Option<PathBuf>),
    /// Loopback TCP: every route but `GET /v1/health` needs the bearer token of
    /// [`TOKEN_FILE`] in the state directory, made at first start.
    Tcp {
        /// The address (port 0 picks a free one).
        addr: SocketAddr,
        /// How callers prove who they are.
        auth: TcpAuth,
    },
    /// A team service on TCP: every route but `GET /v1/health` needs a token of the token
    /// store or a client certificate, with the role the route needs. Beyond loopback only
    /// with TLS.
    Team {
        /// The address (port 0 picks a free one).
        addr: SocketAddr,
        /// The token store ([`default_tokens`] unless `serve --tokens` says otherwise).
        tokens: PathBuf,
        /// The certificate and key, and the client CA for mutual TLS.
        tls: Option<TlsFiles>,
    },
}

/// How TCP callers are authenticated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum TcpAuth {
    /// The bearer token; `rotate` replaces it with a new one first.
    Token {
        /// Write a new token before serving.
        rotate: bool,
    },
    /// No token (`serve --insecure-no-token`): any user of this machine can drive the sidecar.
    /// Said at start and in every `GET /v1/health`.
    InsecureNoToken,
}

/// Where a started sidecar answers, told to `serve`'s `ready` callback.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Endpoint {
    /// The socket's path.
    Unix(PathBuf),
    /// The bound address, and the token's file unless the sidecar runs without one.
    Tcp {
        /// The bound address.
        addr: SocketAddr,
        /// The file holding the bearer token.
        token_file: Option<PathBuf>,
    },
    /// A team service's bound address.
    Team {
        /// The bound address.
        addr: SocketAddr,
        /// Whether it speaks TLS.
        tls: bool,
        /// The token store it reads.
        tokens: PathBuf,
    },
}

impl std::fmt::Display for Endpoint {
    /// `unix:/path/to.sock` or `http://127.0.0.1:PORT`: what the ready line prints and the
    /// clients accept.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Endpoint::Unix(path) => write!(f, "unix:{}", path.display()),
            Endpoint::Tcp { addr, .. } => write!(f, "http://{addr}"),
            Endpoint::Team { addr, tls, .. } => {
                write!(f, "{}://{addr}", if *tls { "https" } else { "http" })
            }
        }
    }
}

/// How `serve` runs, beyond its address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct ServeOptions {
    /// The host fires the lifecycle events (`pre_startup`, `post_startup`, `pre_shutdown`,
    /// `post_shutdown`) itself, so the sidecar does not; `sidecar.host_lifecycle: true` in
    /// `config/agent.yaml` turns it on as well.
    pub host_lifecycle: bool,
    /// Stop (as on SIGTERM) when the process that started the sidecar dies, so a host that
    /// crashes leaves no sidecar behind.
    pub exit_with_parent: bool,
    /// Stop (as on SIGTERM) when stdin reaches its end: a host that keeps a pipe to the
    /// sidecar's stdin open ends it by closing the pipe, or by dying.
    pub exit_on_stdin_eof: bool,
    /// How long a client may take to send a whole request body (then 408).
    pub body_timeout: Duration,
    /// How many connections one client (a uid on the socket, an address on TCP) may hold.
    pub max_client_connections: usize,
    /// Serve the web console on this address (`serve --console`, `docs/console.md`): loopback,
    /// or beyond it for a team service with TLS. Its one-time login link (a team service's: its
    /// login page, where operators sign in with their token) is printed on stdout after the
    /// ready line.
    pub console: Option<SocketAddr>,
}

impl Default for ServeOptions {
    fn default() -> ServeOptions {
        ServeOptions {
            host_lifecycle: false,
            exit_with_parent: false,
            exit_on_stdin_eof: false,
            body_timeout: DEFAULT_BODY_TIMEOUT,
            max_client_connections: DEFAULT_MAX_CLIENT_CONNECTIONS,
            console: None,
        }
    }
}

/// How often the sidecar looks whether its parent is still alive (`--exit-with-parent`).
const PARENT_POLL: Duration = Duration::from_millis(200);

/// Runs the sidecar on `transport` until SIGTERM or SIGINT: fires `pre_startup`/`post_startup`,
/// watches the workspace, serves, then fires `pre_shutdown`/`post_shutdown` after in-flight
/// dispatches finish (at most 30 s) — the four lifecycle events only when the host does not
/// own them ([`ServeOptions::host_lifecycle`]). `ready` is told where it answers. A socket it
/// made is removed when it stops.
pub async fn serve(
    engine: Arc<Engine>,
    transport: Transport,
    options: ServeOptions,
    ready: impl FnOnce(&Endpoint),
) -> Result<(), ServeError> {
    serve_inner(engine, None, transport, options, ready).await
}

/// [`serve`] with a signed policy as the workspace (`serve --policy`): `engine` is the one
/// [`Policy::open`] loaded; each new version of the policy that verifies is swapped in whole,
/// and the workspace's files are not watched (a version's files never change).
pub async fn serve_policy(
    policy: Policy,
    engine: Arc<Engine>,
    transport: Transport,
    options: ServeOptions,
    ready: impl FnOnce(&Endpoint),
) -> Result<(), ServeError> {
    serve_inner(engine, Some(Arc::new(policy)), transport, options, ready).await
}

async fn serve_inner(
    engine: Arc<Engine>,
    policy: Option<Arc<Policy>>,
    transport: Transport,
    options: ServeOptions,
    ready: impl FnOnce(&Endpoint),
) -> Result<(), ServeError> {
    if let Transport::Tcp { addr, .. } = &transport
        && !addr.ip().is_loopback()
    {
        return Err(ServeError::NotLoopback(*addr));
    }
    if let Transport::Team {
        addr, tls: None, ..
    } = &transport
        && !addr.ip().is_loopback()
    {
        return Err(ServeError::NoTls(*addr));
    }
    let acceptor = match &transport {
        Transport::Team {
            tls: Some(files), ..
        } => Some(tls::Acceptor::open(files)?),
        _ => None,
    };
    // A certificate renewed is taken without a restart; failing to follow the files is no
    // reason to refuse the service, only to say that a renewal needs one.
    let _following = acceptor
        .as_ref()
        .and_then(|acceptor| match acceptor.follow() {
            Ok(following) => Some(following),
            Err(e) => {
                tracing::warn!("{e}; a renewed certificate is taken only at a restart");
                None
            }
        });
    // Credentials first: a sidecar that cannot check its callers does not start at all.
    let (gate, place) = match &transport {
        Transport::Team {
            addr, tokens, tls, ..
        } => {
            let store = TokenStore::open(tokens)?;
            let certs = tls.as_ref().is_some_and(|t| t.client_ca.is_some());
            if store.is_empty() && !certs {
                return Err(ServeError::NoCredentials(tokens.clone()));
            }
            (listen::Gate::Team(store), Place::Tcp(*addr))
        }
        Transport::Unix(path) => {
            let allowed = AllowList::read(&state_dir()?)?;
            let (path, is_default) = match path {
                Some(path) => (path.clone(), false),
                None => (default_socket(engine.workspace().root())?, true),
            };
            owner::prepare_socket(&path, is_default)?;
            let gate = listen::Gate::Peers {
                owner: owner::my_uid(),
                allowed,
            };
            (gate, Place::Socket(path))
        }
        Transport::Tcp {
            addr,
            auth: TcpAuth::Token { rotate },
        } => (
            listen::Gate::Token(TokenFile::open(&state_dir()?, *rotate)?),
            Place::Tcp(*addr),
        ),
        Transport::Tcp {
            addr,
            auth: TcpAuth::InsecureNoToken,
        } => (listen::Gate::Open, Place::Tcp(*addr)),
    };
    // Taken first: a parent that dies later is seen as a change of the parent's id.
    let parent = nix::unistd::getppid();
    let fires_lifecycle = !(options.host_lifecycle || engine.snapshot().host_lifecycle());
    let lifecycle = |event: Event, status: &'static str| {
        let engine = engine.clone();
        async move {
            if fires_lifecycle {
                engine.lifecycle(event, status).await;
            }
        }
    };
    // Before anything opens descriptors: raise their limit, and size the connection cap by it.
    let limits = listen::Limits::for_this_process(
        options.max_client_connections,
        options.body_timeout,
        engine.snapshot().max_body(),
    );
    lifecycle(Event::PreStartup, "starting").await;
    let (listener, endpoint, _socket_file) = match place {
        Place::Tcp(addr) => {
            let listener = tokio::net::TcpListener::bind(addr)
                .await
                .map_err(|source| ServeError::Bind { addr, source })?;
            let local = listener
                .local_addr()
                .map_err(|source| ServeError::Bind { addr, source })?;
            let endpoint = match &gate {
                listen::Gate::Team(store) => Endpoint::Team {
                    addr: local,
                    tls: acceptor.is_some(),
                    tokens: store.path().to_path_buf(),
                },
                listen::Gate::Token(token) => Endpoint::Tcp {
                    addr: local,
                    token_file: Some(token.path().to_path_buf()),
                },
                _ => Endpoint::Tcp {
                    addr: local,
                    token_file: None,
                },
            };
            (listen::Listener::Tcp(listener), endpoint, None)
        }
        Place::Socket(path) => {
            let bind = |source| ServeError::BindSocket {
                path: path.clone(),
                source,
            };
            let listener = tokio::net::UnixListener::bind(&path).map_err(bind)?;
            let socket_file = SocketFile::new(&path);
            // Only the owner may connect unless the allow list names others; the peer check
            // stands behind it either way.
            let mode = match &gate {
                listen::Gate::Peers { allowed, .. } if !allowed.is_empty() => 0o666,
                _ => 0o600,
            };
            std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(mode))
                .map_err(bind)?;
            (
                listen::Listener::Unix(listener),
                Endpoint::Unix(path),
                Some(socket_file),
            )
        }
    };
    let _watcher = match policy {
        None => Some(watch(engine.clone()).map_err(ServeError::Watch)?),
        Some(_) => None,
    };
    lifecycle(Event::PostStartup, "started").await;
    // Caught from before the address is announced: a host that stops the sidecar as soon as
    // it has seen the address must get the graceful shutdown, not the signal's default death.
    let stop_signals = StopSignals::install();
    if matches!(gate, listen::Gate::Open) {
        tracing::warn!(
            "serving TCP without a token (--insecure-no-token): every user of this machine can approve hooks, fire events and turn the hooks off"
        );
    }
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let slot: policy::Slot = Arc::new(std::sync::RwLock::new(engine.clone()));
    let stats = Arc::new(Stats::default());
    let console = match options.console {
        None => None,
        Some(addr) => {
            // A team service's console: its operators sign in with their tokens, over its TLS.
            let team = match &transport {
                Transport::Team { tokens, .. } => Some(console::TeamConsole {
                    operators: console::Operators::new(
                        TokenStore::open(tokens)?,
                        acceptor.is_some(),
                    ),
                    tls: acceptor.clone(),
                    limits,
                }),
                _ => None,
            };
            Some(
                console::start(addr, slot.clone(), stats.clone(), stop_rx.clone(), team)
                    .await
                    .map_err(|e| ServeError::Console(e.to_string()))?,
            )
        }
    };
    ready(&endpoint);
    let feed = console.map(|started| {
        // Like Jupyter's: whoever opens it first is signed in, and it is spent. A host that
        // closed stdout after the ready line loses the link, not the sidecar.
        let _ = std::io::Write::write_all(
            &mut std::io::stdout(),
            format!("agent-hooks console: {}\n", started.link).as_bytes(),
        );
        started.feed
    });
    if let Some(policy) = policy {
        tokio::spawn(policy::follow(policy, slot.clone(), stop_rx.clone()));
    }
    let traces = traces::Traces::from_env();
    let app = if matches!(gate, listen::Gate::Team(_)) {
        routes(slot, true, traces, (stats, feed))
    } else {
        routes(slot, false, traces, (stats, feed)).layer(middleware::from_fn(loopback_only))
    };
    let server = tokio::spawn(listen::run(
        listener,
        Arc::new(gate),
        app,
        limits,
        stop_rx.clone(),
        acceptor,
    ));
    tokio::select! {
        () = stop_signals.received() => {}
        () = parent_gone(parent), if options.exit_with_parent => {
            tracing::info!("the parent process is gone; stopping");
        }
        () = stdin_closed(), if options.exit_on_stdin_eof => {
            tracing::info!("stdin reached its end; stopping");
        }
    }
    lifecycle(Event::PreShutdown, "stopping").await;
    let _ = stop_tx.send(true);
    let result = match tokio::time::timeout(SHUTDOWN_GRACE, server).await {
        Ok(Ok(())) => Ok(()),
        Ok(Err(join)) => Err(ServeError::Serve(std::io::Error::other(join))),
        Err(_) => {
            tracing::warn!(
                "in-flight dispatches did not finish within the shutdown grace; stopping"
            );
            Ok(())
        }
    };
    lifecycle(Event::PostShutdown, "stopped").await;
    drop(stop_rx);
    result
}

/// Where a sidecar binds.
enum Place {
    Socket(PathBuf),
    Tcp(SocketAddr),
}

/// The socket file this sidecar bound, removed when the sidecar stops — unless another one has
/// taken the path since (a different inode).
struct SocketFile {
    path: PathBuf,
    ino: Option<u64>,
}

impl SocketFile {
    fn new(path: &std::path::Path) -> SocketFile {
        use std::os::unix::fs::MetadataExt;
        SocketFile {
            path: path.to_path_buf(),
            ino: std::fs::symlink_metadata(path).ok().map(|m| m.ino()),
        }
    }
}

impl Drop for SocketFile {
    fn drop(&mut self) {
        use std::os::unix::fs::MetadataExt;
        let now = std::fs::symlink_metadata(&self.path).ok().map(|m| m.ino());
        if now.is_some() && now == self.ino {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// Returns once this process's parent is no longer `parent` (it died, and the process was
/// handed to init or a subreaper). Polled, not `PR_SET_PDEATHSIG`: that signal follows the
/// parent *thread*, and fires when the thread that spawned the sidecar ends while its process
/// lives on.
async fn parent_gone(parent: nix::unistd::Pid) {
    let mut tick = tokio::time::interval(PARENT_POLL);
    loop {
        tick.tick().await;
        if nix::unistd::getppid() != parent {
            return;
        }
    }
}

/// Returns once stdin is at its end (or unreadable), reading and dropping whatever comes.
async fn stdin_closed() {
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    // A plain thread: a blocking read of stdin cannot be cancelled, and it must not hold a
    // worker of the runtime's blocking pool at shutdown.
    let spawned = std::thread::Builder::new()
        .name("stdin-eof".into())
        .spawn(move || {
            let mut sink = [0u8; 4096];
            let mut stdin = std::io::stdin().lock();
            while matches!(std::io::Read::read(&mut stdin, &mut sink), Ok(n) if n > 0) {}
            let _ = tx.send(());
        });
    if spawned.is_ok() {
        let _ = rx.await;
    } else {
        std::future::pending::<()>().await;
    }
}

/// SIGTERM and SIGINT, caught from the moment of [`StopSignals::install`].
struct StopSignals {
    term: Option<tokio::signal::unix::Signal>,
    int: Option<tokio::signal::unix::Signal>,
}

impl StopSignals {
    fn install() -> StopSignals {
        use tokio::signal::unix::{SignalKind, signal};
        StopSignals {
            term: signal(SignalKind::terminate()).ok(),
            int: signal(SignalKind::interrupt()).ok(),
        }
    }

    /// Returns at the first of the two signals (never, for one that could not be caught).
    async fn received(mut self) {
        async fn next(signal: &mut Option<tokio::signal::unix::Signal>) {
            match signal {
                Some(signal) => {
                    signal.recv().await;
                }
                None => std::future::pending::<()>().await,
            }
        }
        tokio::select! {
            () = next(&mut self.term) => {}
            () = next(&mut self.int) => {}
        }
    }
}

/// An error answer: `{"ok": false, "error": ...}` with its status code.
#[derive(Debug)]
struct ApiError {
    status: StatusCode,
    message: String,
}

impl ApiError {
    fn new(status: StatusCode, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            message: message.into(),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (
            self.status,
            axum::Json(json!({"ok": false, "error": self.message})),
        )
            .into_response()
    }
}

impl From<BytesRejection> for ApiError {
    fn from(rejection: BytesRejection) -> ApiError {
        let status = rejection.status();
        let message = if status == StatusCode::PAYLOAD_TOO_LARGE {
            TOO_LARGE.to_owned()
        } else {
            rejection.body_text()
        };
        ApiError::new(status, message)
    }
}

impl From<tokio::task::JoinError> for ApiError {
    fn from(e: tokio::task::JoinError) -> ApiError {
        ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, e.to_string())
    }
}

type ApiResult = Result<Response, ApiError>;

fn error(status: StatusCode, message: impl Into<String>) -> Response {
    ApiError::new(status, message).into_response()
}

/// Whether a `Host` header names this machine: `localhost`, a 127/8 address or `[::1]`, with
/// an optional port.
fn loopback_host(host: &str) -> bool {
    let name = if let Some(rest) = host.strip_prefix('[') {
        rest.split(']').next().unwrap_or("")
    } else {
        host.rsplit_once(':').map_or(host, |(h, port)| {
            if port.chars().all(|c| c.is_ascii_digit()) {
                h
            } else {
                host
            }
        })
    };
    name.eq_ignore_ascii_case("localhost")
        || name.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

async fn loopback_only(request: Request, next: Next) -> Response {
    let peer = request
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map(|c| c.0);
    if let Some(peer) = peer
        && !peer.ip().is_loopback()
    {
        return error(
            StatusCode::FORBIDDEN,
            format!(
                "requests from {} are refused: loopback peers only",
                peer.ip()
            ),
        );
    }
    let host = request
        .headers()
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("");
    if !loopback_host(host) {
        return error(
            StatusCode::FORBIDDEN,
            format!("Host \"{host}\" is refused: the sidecar answers only to loopback names"),
        );
    }
    next.run(request).await
}

/// Counts each routed request and its time for `GET /metrics`, by its route as declared (so
/// `/v1/events/{event}` is one route however many events there are) and the agent it is for.
/// Every dispatch the request settles, whichever route it came through, reaches the console
/// through the watch it runs under.
async fn observe(
    State(state): State<Arc<AppState>>,
    matched: Option<axum::extract::MatchedPath>,
    request: Request,
    next: Next,
) -> Response {
    let started = std::time::Instant::now();
    let response =
        agent_hooks_runtime::decisions::watched(state.watch.0.clone(), next.run(request)).await;
    let route = matched.as_ref().map_or("-", |m| m.as_str());
    // The agent's name, as the dispatch metrics label it (`claude`, not the route's
    // `claude-code`), so that one agent's series join on it.
    let agent = stats::agent_label(
        agent_hooks_dialects::agent::Agent::ALL
            .into_iter()
            .find(|a| a.http_route() == route),
    );
    state.stats.request(
        route,
        agent,
        response.status().as_u16(),
        started.elapsed().as_secs_f64(),
    );
    response
}

/// Refuses, on every POST, what only a web page sends: an `Origin` header (browsers add it to
/// every cross-origin POST), or a body that is not `application/json` (a page can send a
/// "simple" `text/plain` POST to loopback without asking; a JSON one needs a preflight, which
/// this server never grants).
async fn not_from_a_web_page(request: Request, next: Next) -> Response {
    if request.method() != axum::http::Method::POST {
        return next.run(request).await;
    }
    if let Some(origin) = request.headers().get(header::ORIGIN) {
        return error(
            StatusCode::FORBIDDEN,
            format!(
                "requests with an Origin header ({}) are refused: a web page may not drive the sidecar",
                origin.to_str().unwrap_or("?")
            ),
        );
    }
    let has_body = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .is_none_or(|len| len.trim() != "0");
    let json = request
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|mime| mime.trim().eq_ignore_ascii_case("application/json"));
    let typed = request.headers().contains_key(header::CONTENT_TYPE);
    if !json && (has_body || typed) {
        return error(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "the body must be sent as Content-Type: application/json",
        );
    }
    next.run(request).await
}

/// The request body as one JSON object (an empty body is an empty object).
fn parse_object(body: Result<Bytes, BytesRejection>) -> Result<Map<String, Value>, ApiError> {
    let body = body?;
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(Map::new());
    }
    // Python's `json.dumps` writes `NaN`, `Infinity` and integers of any size: a Python
    // host's payload is read by its own rules, and those numbers reach the hooks exactly.
    let read = agent_hooks_dialects::json::read_python_exact(&body).map(|(value, _)| value);
    match read {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            "the body must be one JSON object",
        )),
        Err(agent_hooks_dialects::json::Unreadable::NotJson(e)) => Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            format!("the body is not valid JSON: {e}"),
        )),
        Err(e) => Err(ApiError::new(StatusCode::BAD_REQUEST, e.to_string())),
    }
}

async fn dispatch(
    State(state): State<Arc<AppState>>,
    Path(event): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult {
    let start = std::time::SystemTime::now();
    // A host may name the event in any dialect: `pre_prompt`, `PreToolUse`, `pre_llm_call`.
    let event = agent_hooks_dialects::event_named(&event)
        .map_err(|e| ApiError::new(StatusCode::NOT_FOUND, e.to_string()))?;
    let mut payload = parse_object(body)?;
    misnamed_fields(event, &payload)?;
    // The host's own copy of the conversation, for hooks with `include_conversation` only.
    let options = match payload.remove("conversation") {
        None | Some(Value::Null) => DispatchOptions::default(),
        Some(Value::Array(messages)) => DispatchOptions::default().conversation(messages),
        // `{"messages": [...], "channel_id": ...}`: the host's history and the channel it is in.
        Some(Value::Object(mut held)) => match held.remove("messages") {
            Some(Value::Array(messages)) => {
                let options = DispatchOptions::default().conversation(messages);
                match held.remove("channel_id") {
                    Some(channel) => options.conversation_channel(channel),
                    None => options,
                }
            }
            other => return Err(conversation_error(other.as_ref().unwrap_or(&Value::Null))),
        },
        Some(other) => return Err(conversation_error(&other)),
    };
    // The host's environment at call time, for the command hooks of this dispatch.
    let options = match payload.remove("env") {
        None | Some(Value::Null) => options,
        Some(Value::Object(vars)) => {
            let mut pairs = Vec::with_capacity(vars.len());
            for (name, value) in vars {
                match value {
                    Value::String(value)
                        if !name.is_empty()
                            && !name.contains(['=', '\0'])
                            && !value.contains('\0') =>
                    {
                        pairs.push((name, value));
                    }
                    other => {
                        return Err(ApiError::new(
                            StatusCode::BAD_REQUEST,
                            format!(
                                "env: expected variable names with string values, found {name:?} = {}",
                                agent_hooks_core::wording::kind_of(&other)
                            ),
                        ));
                    }
                }
            }
            options.env(pairs)
        }
        Some(other) => {
            return Err(ApiError::new(
                StatusCode::BAD_REQUEST,
                format!(
                    "env: expected an object of variables, found {}",
                    agent_hooks_core::wording::kind_of(&other)
                ),
            ));
        }
    };
    let outcome = state
        .engine()
        .dispatch_recorded(
            Surface::Sidecar,
            None,
            event,
            payload,
            &options,
            // The host's own route tells lapses as the agents' routes do (it fails open: a
            // host that wants a deny reads `lapses`).
            |engine, outcome| {
                agent_hooks_runtime::lapse::settle(
                    engine,
                    outcome,
                    agent_hooks_runtime::OnFailure::Continue,
                    None,
                );
            },
        )
        .await;
    let via = Via {
        route: "/v1/events/{event}",
        agent: None,
    };
    observed(&state, via, start, &outcome);
    // The numbers a Python host or hook wrote exactly go back as they were written.
    let body = serde_json::to_vec(&outcome)
        .map_err(|e| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?;
    Ok((
        [(header::CONTENT_TYPE, "application/json")],
        agent_hooks_dialects::json::restore_numbers(body),
    )
        .into_response())
}

/// One AGENT-HOOKS-0.1 interception: the body is the agent context, the answer the
/// interceptor response (`docs/standards.md`); a context that cannot be judged is a deny.
async fn standards_intercept(
    State(state): State<Arc<AppState>>,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult {
    let body = body?;
    let start = std::time::SystemTime::now();
    let (answer, dispatched) =
        agent_hooks_standards::interceptor::respond_json_judged(state.engine(), &body).await;
    let via = Via {
        route: "/v1/standards/agent-hooks/intercept",
        agent: None,
    };
    for outcome in &dispatched {
        observed(&state, via, start, outcome);
    }
    Ok(axum::Json(answer).into_response())
}

/// One Agent Hooks Protocol message (JSON-RPC 2.0): its answer, or 202 and no body for a
/// notification (`docs/standards.md`).
async fn standards_ahp(
    State(state): State<Arc<AppState>>,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult {
    let body = body?;
    let start = std::time::SystemTime::now();
    let backend = agent_hooks_standards::ahp::Backend::new(state.engine(), Surface::Sidecar);
    let (answer, dispatched) = backend.handle_judged(&body).await;
    let via = Via {
        route: "/v1/standards/ahp",
        agent: None,
    };
    for outcome in &dispatched {
        observed(&state, via, start, outcome);
    }
    Ok(match answer {
        Some(answer) => axum::Json(answer).into_response(),
        None => StatusCode::ACCEPTED.into_response(),
    })
}

/// Refuses a tool event whose tool is named the way skill hooks name it (`tool`, `args`,
/// `result`) rather than by the payload's own fields: the hooks would see an empty tool name
/// and empty arguments, and a policy keyed on the tool would silently pass everything.
fn misnamed_fields(event: Event, payload: &Map<String, Value>) -> Result<(), ApiError> {
    const TOOL_EVENTS: [Event; 3] = [
        Event::PreToolCall,
        Event::PostToolCall,
        Event::TransformToolResult,
    ];
    const NAMES: [(&str, &str); 3] = [
        ("tool", "tool_name"),
        ("args", "tool_input"),
        ("result", "tool_result"),
    ];
    if !TOOL_EVENTS.contains(&event) {
        return Ok(());
    }
    let wrong: Vec<String> = NAMES
        .iter()
        .filter(|(skill, own)| payload.contains_key(*skill) && !payload.contains_key(*own))
        .map(|(skill, own)| format!("\"{own}\" (not \"{skill}\")"))
        .collect();
    if wrong.is_empty() {
        return Ok(());
    }
    Err(ApiError::new(
        StatusCode::BAD_REQUEST,
        format!(
            "{} names the tool call's fields {}; skill hooks still get them as tool, args and result",
            event.name(),
            wrong.join(", ")
        ),
    ))
}

fn conversation_error(found: &Value) -> ApiError {
    ApiError::new(
        StatusCode::BAD_REQUEST,
        format!(
            "conversation: expected a list of messages (or {{\"messages\": [...], \"channel_id\": ...}}), found {}",
            agent_hooks_core::wording::kind_of(found)
        ),
    )
}

fn command_field(map: &Map<String, Value>) -> Result<String, ApiError> {
    match map.get("command") {
        Some(Value::String(c)) if !c.trim().is_empty() => Ok(c.clone()),
        _ => Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            "expected {\"command\": \"<the command exactly as declared>\"}",
        )),
    }
}

/// An act that changes what runs: approving or revoking a hook, turning the master switch
/// on or off, installing guards. Through the sidecar each one is allowed only while the
/// snapshot in force allows self-approval, whichever route asks: the approve and revoke routes,
/// or the same words sent as a `/hooks` line to `POST /v1/hooks/command`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Steering {
    Approve,
    Revoke,
    On,
    Off,
    Install,
}

impl Steering {
    /// The act a `/hooks` line asks for, read as `commands::run_line` reads it: one leading
    /// `/hooks` (or `hooks`) dropped, then the first word is the command. A line that does not
    /// split is treated as the worst case, an approval: it is refused while self-approval is
    /// off (and would only be a usage error otherwise).
    fn of_line(line: &str) -> Option<Steering> {
        let Ok(words) = shell_words::split(line.trim()) else {
            return Some(Steering::Approve);
        };
        let mut words = words.iter().map(String::as_str);
        let mut first = words.next();
        if matches!(first, Some("/hooks" | "hooks")) {
            first = words.next();
        }
        match first? {
            "approve" => Some(Steering::Approve),
            "revoke" => Some(Steering::Revoke),
            "on" => Some(Steering::On),
            "off" => Some(Steering::Off),
            "install" => Some(Steering::Install),
            _ => None,
        }
    }

    fn verb(self) -> &'static str {
        match self {
            Steering::Approve => "approve",
            Steering::Revoke => "revoke",
            Steering::On => "on",
            Steering::Off => "off",
            Steering::Install => "install",
        }
    }

    /// Whether the sidecar may do it now: the one decision every route asks.
    fn allowed(self, state: &AppState) -> Result<(), ApiError> {
        match self_approve::refusal(&state.engine().snapshot(), "the sidecar", self.verb()) {
            None => Ok(()),
            Some(why) => Err(ApiError::new(StatusCode::FORBIDDEN, why)),
        }
    }
}

fn engine_error(e: EngineError) -> ApiError {
    match e {
        // Not 404: the seeds tell agents that a 404 here means "this runtime has no
        // self-approve API, ask the user to approve by hand".
        EngineError::NotDeclared { command } => ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            format!(
                "\"{command}\" is not declared in config/shell_hooks.yaml (or another hook source); declare it first, then approve"
            ),
        ),
        other => ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, other.to_string()),
    }
}

async fn approve(
    State(state): State<Arc<AppState>>,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult {
    Steering::Approve.allowed(&state)?;
    let map = parse_object(body)?;
    let command = command_field(&map)?;
    let enable_master = map
        .get("enable_master")
        .and_then(Value::as_bool)
        .unwrap_or(true);
    let engine = state.engine();
    let events = tokio::task::spawn_blocking(move || {
        let events = engine.approve(None, &command)?;
        if enable_master {
            engine.set_master(true)?;
        }
        Ok::<_, EngineError>(events)
    })
    .await?
    .map_err(engine_error)?;
    let snapshot = state.engine().snapshot();
    // Hooks that will run now: declared, needing approval, approved for one of their events.
    let mounted = snapshot.approved_hook_count();
    Ok(axum::Json(json!({
        "ok": true,
        "events": events.iter().map(|e| e.name()).collect::<Vec<_>>(),
        "mounted": mounted,
        "master_enabled": snapshot.master_enabled(),
    }))
    .into_response())
}

async fn revoke(
    State(state): State<Arc<AppState>>,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult {
    Steering::Revoke.allowed(&state)?;
    let command = command_field(&parse_object(body)?)?;
    let engine = state.engine();
    let removed = tokio::task::spawn_blocking(move || engine.revoke(&command))
        .await?
        .map_err(engine_error)?;
    Ok(axum::Json(json!({"ok": true, "removed": removed})).into_response())
}

async fn command(
    State(state): State<Arc<AppState>>,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult {
    let map = parse_object(body)?;
    let Some(line) = map.get("line").and_then(Value::as_str) else {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            "expected {\"line\": \"/hooks list\"}",
        ));
    };
    // A line that approves, revokes or flips the switch is the self-approve API by another
    // door, so it asks the same question.
    if let Some(act) = Steering::of_line(line) {
        act.allowed(&state)?;
    }
    let out = agent_hooks_runtime::commands::run_line(&state.engine(), line).await;
    Ok(
        axum::Json(json!({"ok": out.status == 0, "status": out.status, "text": out.text}))
            .into_response(),
    )
}

/// An agent's hook input POSTed to its route (Claude Code's `type: "http"` hooks from
/// `claude-install --http`; any agent through a command that forwards its stdin): the answer
/// is the bridge's, in that agent's format — 200 with the JSON answer, or an empty body for "no
/// opinion". Input that cannot be read is answered in the agent's format too, with a message
/// its user sees (and a deny under `on_failure: block`), never a bare error status the agent
/// would let pass (`docs/agents.md`).
async fn agent_hook(
    agent: agent_hooks_dialects::agent::Agent,
    State(state): State<Arc<AppState>>,
    axum::extract::RawQuery(query): axum::extract::RawQuery,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult {
    let body = body?;
    let start = std::time::SystemTime::now();
    let forced = agent_hooks_runtime::bridge::route_mode(query.as_deref());
    if agent_hooks_runtime::bridge::forwarded_by_bridge(query.as_deref()) {
        return forwarded(agent, &state, &body, forced, start).await;
    }
    let answered = agent_hooks_runtime::bridge::answer_judged(
        agent,
        Ok(&state.engine()),
        &body,
        forced,
        Surface::Sidecar,
    )
    .await;
    bridge_observed(&state, agent, start, &answered.judged);
    let answer = answered.answer;
    // HTTP hooks have no exit status: a deny that a command bridge says with exit 2 is said
    // with the answer's JSON, and the message goes in the agent's user-facing field.
    let body = if answer.stdout.is_empty() && answer.exit == 2 {
        agent_hooks_runtime::bridge::http_deny(agent, &answer.stderr)
    } else {
        answer.stdout
    };
    let mut response = body.into_response();
    response.headers_mut().insert(
        axum::http::header::CONTENT_TYPE,
        axum::http::HeaderValue::from_static("application/json"),
    );
    Ok(response)
}

/// Counts and traces one dispatch that came in through `via` (`GET /metrics`, `GET /v1/stats`
/// and a span with a child per hook that ran): the same on every route.
fn observed(state: &AppState, via: Via, start: std::time::SystemTime, outcome: &Outcome) {
    state.stats.record(via, outcome);
    if let Some(traces) = &state.traces {
        traces.dispatch(traces::Dispatch::of(via, 200, start, outcome));
    }
}

/// [`observed`] for an agent's call on its route: a call answered without a dispatch (its
/// input unread, its event without a counterpart here) is counted under the event `other`.
fn bridge_observed(
    state: &AppState,
    agent: agent_hooks_dialects::agent::Agent,
    start: std::time::SystemTime,
    judged: &agent_hooks_runtime::bridge::Judged,
) {
    use agent_hooks_core::answer::Decision;
    use agent_hooks_runtime::bridge::Judged;
    let via = Via {
        route: agent.http_route(),
        agent: Some(agent),
    };
    let (decision, lapse) = match judged {
        Judged::Dispatched(outcome) => return observed(state, via, start, outcome),
        Judged::Unread { denied: true } => (Decision::Block, Some(LapseKind::UnreadableInput)),
        Judged::Unread { denied: false } => (Decision::Continue, Some(LapseKind::UnreadableInput)),
        Judged::Unmapped => (Decision::Continue, None),
    };
    state.stats.record_undispatched(via, decision, lapse);
    if let Some(traces) = &state.traces {
        traces.dispatch(traces::Dispatch::undispatched(
            via,
            200,
            start,
            decision.as_str(),
        ));
    }
}

/// A bridge process's call (`?caller=bridge`): the whole answer it prints — stdout, stderr,
/// exit status — as JSON, or 409 when the call would run a hook that is not built in, which
/// the bridge process then runs itself with its own environment (`docs/agents.md`).
async fn forwarded(
    agent: agent_hooks_dialects::agent::Agent,
    state: &AppState,
    body: &[u8],
    forced: agent_hooks_runtime::OnFailure,
    start: std::time::SystemTime,
) -> ApiResult {
    let answered = if state.team {
        Some(
            agent_hooks_runtime::bridge::answer_judged(
                agent,
                Ok(&state.engine()),
                body,
                forced,
                Surface::Sidecar,
            )
            .await,
        )
    } else {
        agent_hooks_runtime::bridge::answer_forwarded(agent, &state.engine(), body, forced).await
    };
    match answered {
        Some(answered) => {
            bridge_observed(state, agent, start, &answered.judged);
            let answer = answered.answer;
            tracing::debug!("answered a {} call forwarded by its bridge", agent.label());
            Ok(axum::Json(json!({
                "stdout": answer.stdout,
                "stderr": answer.stderr,
                "exit": answer.exit,
            }))
            .into_response())
        }
        None => Err(ApiError::new(
            StatusCode::CONFLICT,
            "this call runs hooks that are not built in; the bridge process runs it itself",
        )),
    }
}

async fn reload(State(state): State<Arc<AppState>>) -> ApiResult {
    let engine = state.engine();
    tokio::task::spawn_blocking(move || engine.reload()).await?;
    let snapshot = state.engine().snapshot();
    let errors: Vec<String> = snapshot.errors().map(ToString::to_string).collect();
    let diagnostics = config_diagnostics(&snapshot);
    Ok(axum::Json(json!({
        "ok": true,
        "hooks": snapshot.hook_total(),
        "errors": errors,
        "diagnostics": diagnostics,
    }))
    .into_response())
}

/// The configuration errors in force, as diagnostics.
fn config_diagnostics(snapshot: &agent_hooks_runtime::Snapshot) -> Vec<Diagnostic> {
    snapshot.errors().map(Diagnostic::of_config).collect()
}

/// Every declared hook as a host reads it ([`agent_hooks_runtime::hook_listing`]).
async fn hooks(State(state): State<Arc<AppState>>) -> ApiResult {
    let engine = state.engine();
    let listing =
        tokio::task::spawn_blocking(move || agent_hooks_runtime::hook_listing(&engine)).await?;
    let snapshot = state.engine().snapshot();
    let diagnostics = config_diagnostics(&snapshot);
    Ok(axum::Json(json!({
        "ok": true,
        "master_enabled": listing.master_enabled,
        "hooks": listing.hooks,
        "diagnostics": diagnostics,
    }))
    .into_response())
}

/// Readiness, for anyone who can reach the sidecar. A TCP caller without the token learns
/// only that it is up and how to authenticate; the workspace and its hooks are the owner's.
async fn health(
    State(state): State<Arc<AppState>>,
    caller: Option<axum::Extension<listen::Caller>>,
) -> Response {
    // Mounted without the listener (an embedder's own server), there is no caller to check.
    let (authenticated, auth, role) = caller.map_or((true, None, None), |c| {
        (c.authenticated, Some(c.auth), c.role)
    });
    let mut answer = json!({"ok": true});
    if let Some(auth) = auth {
        answer["auth"] = json!(auth);
    }
    if let Some(role) = role {
        answer["role"] = json!(role.as_str());
    }
    if auth == Some("none") {
        answer["warning"] = json!(
            "this sidecar runs without a token (--insecure-no-token): any user of this machine can approve hooks, fire events and turn the hooks off"
        );
    }
    if authenticated {
        let snapshot = state.engine().snapshot();
        answer["workspace"] = json!(state.engine().workspace().root().to_string_lossy());
        answer["hooks"] = json!(snapshot.hook_total());
        answer["master_enabled"] = json!(snapshot.master_enabled());
        answer["config_errors"] = json!(snapshot.errors().count());
        answer["uptime_s"] = json!(state.started.elapsed().as_secs());
    }
    axum::Json(answer).into_response()
}

async fn stats(State(state): State<Arc<AppState>>) -> Response {
    axum::Json(json!({
        "ok": true,
        "dispatches": state.stats.dispatches(),
        "hooks": state.stats.report(),
    }))
    .into_response()
}

/// The dispatches as Prometheus metrics (text exposition format): decisions by event, hook
/// runs by status, hook run times.
async fn metrics(State(state): State<Arc<AppState>>) -> Response {
    (
        [(
            header::CONTENT_TYPE,
            "application/openmetrics-text; version=1.0.0; charset=utf-8",
        )],
        state.stats.prometheus(),
    )
        .into_response()
}

async fn wrong_method(request: Request) -> Response {
    error(
        StatusCode::METHOD_NOT_ALLOWED,
        format!(
            "{} is not allowed on {}",
            request.method(),
            request.uri().path()
        ),
    )
}

async fn not_found(request: Request) -> Response {
    error(
        StatusCode::NOT_FOUND,
        format!("no route for {} {}", request.method(), request.uri().path()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use tower::ServiceExt;

    /// A request as the listener hands it over, from `peer`.
    fn request_from(peer: &str, host: &str) -> Request {
        let mut request = Request::builder()
            .uri("/v1/health")
            .header(header::HOST, host)
            .body(axum::body::Body::empty())
            .expect("a request");
        let addr: SocketAddr = peer.parse().expect("an address");
        request.extensions_mut().insert(ConnectInfo(addr));
        request
    }

    #[tokio::test]
    async fn a_non_loopback_peer_is_refused_even_with_a_loopback_host() {
        let dir = tempfile::tempdir().expect("tempdir");
        let app = router(Arc::new(Engine::open(agent_hooks_runtime::Workspace::new(
            dir.path(),
        ))));
        let refused = app
            .clone()
            .oneshot(request_from("192.0.2.7:40000", "127.0.0.1:8787"))
            .await
            .expect("an answer");
        assert_eq!(refused.status(), StatusCode::FORBIDDEN);
        let allowed = app
            .oneshot(request_from("127.0.0.1:40000", "127.0.0.1:8787"))
            .await
            .expect("an answer");
        assert_eq!(allowed.status(), StatusCode::OK);
    }

    #[test]
    fn loopback_hosts() {
        for ok in [
            "localhost",
            "localhost:8080",
            "127.0.0.1:1",
            "127.5.5.5",
            "[::1]:80",
            "[::1]",
            "LOCALHOST",
        ] {
            assert!(loopback_host(ok), "{ok}");
        }
        for bad in [
            "",
            "example.com",
            "evil.localhost.example.com",
            "10.0.0.1:80",
            "[::2]",
            "attacker.com:127",
        ] {
            assert!(!loopback_host(bad), "{bad}");
        }
    }
}
