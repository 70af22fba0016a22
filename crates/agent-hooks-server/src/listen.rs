//! Accepting connections so that only the owner gets in and no client can starve the sidecar.
//!
//! - **Who.** On the Unix socket the kernel's word for the peer's uid (`SO_PEERCRED`) decides
//!   at accept: the owner's uid or one of the allow list, else a 403 and the connection is
//!   closed. On TCP every request but `GET /v1/health` must carry `Authorization: Bearer
//!   <token>`, checked from the head, before any byte of the body is read. A team service
//!   (`serve --tls-cert` or `--tokens`) takes the token store's tokens instead, each with a
//!   role the route must allow (`team`), or a client certificate verified in the TLS handshake.
//! - **How long.** A request's head must arrive within [`HEADER_TIMEOUT`] (and a kept-alive
//!   connection that sends no next request within it is closed); its whole body within the
//!   body deadline (`serve --body-timeout`), else 408. The body is read here, whole, before
//!   the routes see the request, so the routes never wait on a client.
//! - **How many.** At most [`Limits::max_connections`] connections are open (a quarter of the
//!   descriptor limit, which is first raised to its hard ceiling, so three quarters stay for
//!   hook processes), and at most [`Limits::max_client_connections`] from one client (one uid
//!   on the socket, one address on TCP). At either cap a newcomer still gets in: the oldest
//!   connection that is waiting on its client — sending a body, or idle between requests —
//!   makes room. Only connections whose request is being answered are never cut; when every
//!   connection is such, a newcomer waits for one to finish (at the overall cap) or is
//!   answered 503 (at its client's cap).

use std::collections::BTreeMap;
use std::convert::Infallible;
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::net::{TcpListener, UnixListener};
use tokio::sync::{Notify, OwnedSemaphorePermit, Semaphore, mpsc, watch};

use crate::owner::{AllowList, TokenFile};
use crate::team::{Role, TokenStore, required_role};

/// How long a client may take to send a request's head, or to start its next request on a
/// kept-alive connection. A local client sends a head in microseconds.
pub(super) const HEADER_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a client may take to send a whole request body, unless `serve --body-timeout`
/// says otherwise. A local client sends the largest accepted body in milliseconds.
pub const DEFAULT_BODY_TIMEOUT: Duration = Duration::from_secs(10);

/// How many connections one client may hold open, unless `serve --max-client-connections`
/// says otherwise.
pub const DEFAULT_MAX_CLIENT_CONNECTIONS: usize = 256;

/// The most connections a sidecar keeps, whatever the descriptor limit.
const MAX_CONNECTIONS: usize = 1024;

/// How long a refused peer is given to take its 403 before the socket is closed anyway.
const REFUSAL_WRITE: Duration = Duration::from_secs(1);

/// The answer on a connection cut to make room, when a request arrives on it just then.
const CUT: &str = "this connection was closed to make room for a newer one (a connection cap was reached); send the request again on a new connection";

/// What the accept loop allows.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    /// Open connections at most.
    pub(crate) max_connections: usize,
    /// Open connections of one client at most.
    pub(crate) max_client_connections: usize,
    /// The time a whole request body may take.
    pub(crate) body_timeout: Duration,
    /// The largest body read (`sidecar.max_body`).
    pub(crate) max_body: usize,
}

impl Limits {
    /// Raises this process's soft limit of open files to its hard limit, and caps connections
    /// at a quarter of it (at most [`MAX_CONNECTIONS`], at least 4), keeping the rest for
    /// hooks: each spawned hook needs a few descriptors for its pipes.
    pub(crate) fn for_this_process(
        max_client_connections: usize,
        body_timeout: Duration,
        max_body: usize,
    ) -> Limits {
        use nix::sys::resource::{Resource, getrlimit, setrlimit};
        let soft = match getrlimit(Resource::RLIMIT_NOFILE) {
            Ok((soft, hard)) if soft < hard => match setrlimit(Resource::RLIMIT_NOFILE, hard, hard)
            {
                Ok(()) => hard,
                Err(_) => soft,
            },
            Ok((soft, _)) => soft,
            Err(_) => 1024,
        };
        let quarter = usize::try_from(soft / 4).unwrap_or(MAX_CONNECTIONS);
        Limits {
            max_connections: quarter.clamp(4, MAX_CONNECTIONS),
            max_client_connections: max_client_connections.max(1),
            body_timeout,
            max_body,
        }
    }
}

/// Who may talk to the sidecar.
#[derive(Debug)]
pub(crate) enum Gate {
    /// The socket: the owner's uid, or one of the allow list.
    Peers {
        /// The uid the sidecar runs as.
        owner: u32,
        /// Other uids let in.
        allowed: AllowList,
    },
    /// TCP: the bearer token.
    Token(TokenFile),
    /// TCP with no token at all (`serve --insecure-no-token`): any local user.
    Open,
    /// A team service: a token of the store, or a verified client certificate (the agent
    /// role), and the role the route needs.
    Team(TokenStore),
}

impl Gate {
    /// How callers are authenticated, as `GET /v1/health` says it.
    fn mode(&self) -> &'static str {
        match self {
            Gate::Peers { .. } => "peer-uid",
            Gate::Token(_) => "token",
            Gate::Open => "none",
            Gate::Team(_) => "team",
        }
    }
}

/// What the routes learn about the caller of a request (`GET /v1/health` shows it).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Caller {
    /// The caller proved it is the owner (or allowed).
    pub(crate) authenticated: bool,
    /// `peer-uid`, `token`, `none` or `team`.
    pub(crate) auth: &'static str,
    /// On a team service, the caller's role.
    pub(crate) role: Option<Role>,
}

/// A listening socket of either kind.
#[derive(Debug)]
pub(crate) enum Listener {
    /// Loopback TCP.
    Tcp(TcpListener),
    /// A Unix domain socket.
    Unix(UnixListener),
}

/// The client a connection counts against for [`Limits::max_client_connections`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Client {
    Uid(u32),
    Ip(IpAddr),
}

impl std::fmt::Display for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Client::Uid(uid) => write!(f, "uid {uid}"),
            Client::Ip(ip) => write!(f, "{ip}"),
        }
    }
}

/// Where a connection stands: what may cut it.
const IDLE: u8 = 0;
const BODY: u8 = 1;
const ANSWERING: u8 = 2;
const EVICTED: u8 = 3;

/// One open connection, as the accept loop sees it.
struct Open {
    client: Client,
    /// [`IDLE`], [`BODY`], [`ANSWERING`] or [`EVICTED`].
    state: Arc<AtomicU8>,
    /// Told when the connection must make room for a newcomer.
    evict: Arc<Notify>,
}

impl Open {
    /// Cuts the connection if it is waiting on its client in `from`; whether it was cut.
    fn evict_if(&self, from: u8) -> bool {
        let cut = self
            .state
            .compare_exchange(from, EVICTED, Ordering::AcqRel, Ordering::Acquire)
            .is_ok();
        if cut {
            self.evict.notify_one();
        }
        cut
    }
}

type Registry = Arc<Mutex<BTreeMap<u64, Open>>>;

/// Cuts the oldest connection (of `client`, when given) that waits on its client: first one
/// sending a body, then an idle one. Whether one was cut.
fn evict_oldest_waiting(open: &Registry, client: Option<Client>) -> bool {
    let mut open = open.lock().unwrap_or_else(|p| p.into_inner());
    for from in [BODY, IDLE] {
        let victim = open
            .iter()
            .filter(|(_, c)| client.is_none_or(|k| c.client == k))
            .find(|(_, c)| c.evict_if(from))
            .map(|(id, _)| *id);
        if let Some(id) = victim {
            open.remove(&id);
            return true;
        }
    }
    false
}

/// Serves `app` on `listener` until `stop` turns true, then lets open connections finish their
/// requests and returns once every connection is closed. With `tls`, each TCP connection's
/// handshake is made in its own task, within [`HEADER_TIMEOUT`].
pub(crate) async fn run(
    listener: Listener,
    gate: Arc<Gate>,
    app: Router,
    limits: Limits,
    stop: watch::Receiver<bool>,
    tls: Option<Arc<crate::tls::Acceptor>>,
) {
    let open: Registry = Arc::default();
    // Each connection task holds a sender; all gone means all connections closed.
    let (done_tx, mut done_rx) = mpsc::channel::<()>(1);
    let mut stopping = stop.clone();
    let slots = Arc::new(Semaphore::new(limits.max_connections));
    let mut next_id = 0u64;
    loop {
        let accepted = tokio::select! {
            accepted = accept(&listener) => accepted,
            _ = stopping.wait_for(|s| *s) => break,
        };
        let (stream, client, peer) = match accepted {
            Ok(conn) => conn,
            Err(e) => {
                // Out of descriptors or a connection reset before it was accepted: the
                // listener is fine, so wait a little rather than spin on the error.
                tracing::warn!("accepting a connection failed: {e}");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        if let (Gate::Peers { owner, allowed }, Client::Uid(uid)) = (&*gate, client)
            && uid != *owner
            && !allowed.allows(uid)
        {
            tracing::warn!("refused a connection from uid {uid}: not the owner, not allowed");
            tokio::spawn(refuse(
                stream,
                StatusCode::FORBIDDEN,
                format!(
                    "uid {uid} may not use this sidecar: it answers its owner (uid {owner}) and the uids of its allow list only"
                ),
            ));
            continue;
        }
        let of_client = open
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .values()
            .filter(|c| c.client == client)
            .count();
        if of_client >= limits.max_client_connections && !evict_oldest_waiting(&open, Some(client))
        {
            tracing::warn!(
                "{client} has {of_client} connections open, every one being answered: refusing another"
            );
            tokio::spawn(refuse(
                stream,
                StatusCode::SERVICE_UNAVAILABLE,
                format!(
                    "{client} already has {of_client} connections open, every one being answered (serve --max-client-connections); retry when one is done"
                ),
            ));
            continue;
        }
        let permit = match slots.clone().try_acquire_owned() {
            Ok(permit) => permit,
            Err(_) => {
                if !evict_oldest_waiting(&open, None) {
                    tracing::warn!(
                        "{} connections, every one being answered: {client} waits for one to finish",
                        limits.max_connections
                    );
                }
                match slots.clone().acquire_owned().await {
                    Ok(permit) => permit,
                    Err(_closed) => break,
                }
            }
        };
        let state = Arc::new(AtomicU8::new(IDLE));
        let evict = Arc::new(Notify::new());
        next_id += 1;
        open.lock().unwrap_or_else(|p| p.into_inner()).insert(
            next_id,
            Open {
                client,
                state: state.clone(),
                evict: evict.clone(),
            },
        );
        let conn = Connection {
            id: next_id,
            peer,
            state,
            evict,
            open: open.clone(),
            stop: stop.clone(),
            gate: gate.clone(),
            limits,
            client_cert: None,
            _slot: permit,
            _done: done_tx.clone(),
        };
        match (stream, &tls) {
            (Stream::Tcp(s), Some(tls)) => {
                tokio::spawn(serve_tls(s, tls.current(), app.clone(), conn))
            }
            (Stream::Tcp(s), None) => tokio::spawn(serve_connection(s, app.clone(), conn)),
            (Stream::Unix(s), _) => tokio::spawn(serve_connection(s, app.clone(), conn)),
        };
    }
    drop(listener);
    drop(done_tx);
    let _ = done_rx.recv().await;
}

/// An accepted connection of either kind.
enum Stream {
    Tcp(tokio::net::TcpStream),
    Unix(tokio::net::UnixStream),
}

/// The next connection, with the client it counts against and (TCP) the peer's address.
async fn accept(listener: &Listener) -> std::io::Result<(Stream, Client, Option<SocketAddr>)> {
    match listener {
        Listener::Tcp(l) => {
            let (stream, peer) = l.accept().await?;
            Ok((Stream::Tcp(stream), Client::Ip(peer.ip()), Some(peer)))
        }
        Listener::Unix(l) => {
            let (stream, _) = l.accept().await?;
            // The kernel's record of who connected, taken at connect(): it cannot be forged.
            let uid = stream.peer_cred()?.uid();
            Ok((Stream::Unix(stream), Client::Uid(uid), None))
        }
    }
}

/// Answers `status` with `message` on a connection that will not be served, then closes it.
async fn refuse(stream: Stream, status: StatusCode, message: String) {
    let body = serde_json::json!({"ok": false, "error": message}).to_string();
    let text = format!(
        "HTTP/1.1 {} {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        status.as_u16(),
        status.canonical_reason().unwrap_or(""),
        body.len()
    );
    let write = async {
        match stream {
            Stream::Tcp(mut s) => {
                let _ = s.write_all(text.as_bytes()).await;
                let _ = s.shutdown().await;
            }
            Stream::Unix(mut s) => {
                let _ = s.write_all(text.as_bytes()).await;
                let _ = s.shutdown().await;
            }
        }
    };
    let _ = tokio::time::timeout(REFUSAL_WRITE, write).await;
}

/// What a connection task needs besides its socket.
struct Connection {
    id: u64,
    peer: Option<SocketAddr>,
    state: Arc<AtomicU8>,
    evict: Arc<Notify>,
    open: Registry,
    stop: watch::Receiver<bool>,
    gate: Arc<Gate>,
    limits: Limits,
    /// The name of the client certificate verified in the TLS handshake, if one was shown.
    client_cert: Option<Arc<str>>,
    /// Held until the socket is closed: the cap counts descriptors, not tasks.
    _slot: OwnedSemaphorePermit,
    _done: mpsc::Sender<()>,
}

/// Puts a connection back to idle when its request is done, unless it was cut meanwhile.
struct BackToIdle(Arc<AtomicU8>);

impl Drop for BackToIdle {
    fn drop(&mut self) {
        let _ = self
            .0
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |s| {
                (s != EVICTED).then_some(IDLE)
            });
    }
}

/// An error answer that also ends the connection.
fn closing(status: StatusCode, message: impl Into<String>) -> Response {
    let mut response = (
        status,
        axum::Json(serde_json::json!({"ok": false, "error": message.into()})),
    )
        .into_response();
    response
        .headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}

/// The token of the request's `Authorization: Bearer <token>`, if it has one.
fn bearer(request: &hyper::Request<Incoming>) -> Option<&[u8]> {
    let value = request.headers().get(header::AUTHORIZATION)?.as_bytes();
    let scheme = b"bearer ";
    if value.len() < scheme.len() || !value[..scheme.len()].eq_ignore_ascii_case(scheme) {
        return None;
    }
    Some(value[scheme.len()..].trim_ascii()).filter(|t| !t.is_empty())
}

/// Who the caller of a team service is: the holder of its bearer token, else the client
/// certificate of the connection (the agent role). A token that is shown but unknown counts as
/// none, certificate or not: a revoked token must fail loudly, not fall back.
fn team_caller(
    tokens: &TokenStore,
    request: &hyper::Request<Incoming>,
    client_cert: Option<&Arc<str>>,
) -> Option<(String, Role)> {
    match bearer(request) {
        Some(token) => tokens.identify(token),
        None if request.headers().contains_key(header::AUTHORIZATION) => None,
        None => client_cert.map(|name| (name.to_string(), Role::Agent)),
    }
}

/// The 401 of a TCP request without the right token, saying what was wrong.
fn unauthorized(gate: &Gate, request: &hyper::Request<Incoming>) -> Response {
    let team = matches!(gate, Gate::Team(_));
    let why = match request.headers().get(header::AUTHORIZATION) {
        None if team => {
            "this route needs a token of the service's token store (Authorization: Bearer <token>; `agent-hooks token add` makes one) or a client certificate it trusts"
        }
        None => {
            "this route needs the sidecar's token: send Authorization: Bearer <the token in the sidecar's token file (docs/sidecar.md)>"
        }
        Some(v) if v.as_bytes().trim_ascii().eq_ignore_ascii_case(b"bearer") => {
            "the Authorization header is \"Bearer\" with no token after it (Claude Code sends that when AGENT_HOOKS_TOKEN is not in its environment)"
        }
        Some(_) if team => {
            "the token is not one of the service's (it may have been revoked: ask an operator for a new one)"
        }
        Some(_) => {
            "the token is not this sidecar's (it may have been rotated: read the token file again)"
        }
    };
    let mut response = closing(StatusCode::UNAUTHORIZED, why);
    response.headers_mut().insert(
        header::WWW_AUTHENTICATE,
        HeaderValue::from_static("Bearer realm=\"agent-hooks\""),
    );
    response
}

/// One request: the caller checked, the body read within its deadline, then the routes.
async fn answer(
    request: hyper::Request<Incoming>,
    app: Router,
    gate: Arc<Gate>,
    limits: Limits,
    peer: Option<SocketAddr>,
    state: Arc<AtomicU8>,
    client_cert: Option<Arc<str>>,
) -> Response {
    if state
        .compare_exchange(IDLE, BODY, Ordering::AcqRel, Ordering::Acquire)
        .is_err()
    {
        return closing(StatusCode::SERVICE_UNAVAILABLE, CUT);
    }
    let _idle = BackToIdle(state.clone());
    let needs = required_role(request.method(), request.uri().path());
    let (authenticated, role) = match &*gate {
        Gate::Peers { .. } | Gate::Open => (true, None),
        Gate::Token(token) => (bearer(&request).is_some_and(|t| token.accepts(t)), None),
        Gate::Team(tokens) => match team_caller(tokens, &request, client_cert.as_ref()) {
            Some((name, role)) => {
                if let Some(needs) = needs.filter(|needs| role < *needs) {
                    tracing::info!(
                        "refused {} {} to \"{name}\": it has the {} role, the route needs {}",
                        request.method(),
                        request.uri().path(),
                        role.as_str(),
                        needs.as_str()
                    );
                    return closing(
                        StatusCode::FORBIDDEN,
                        format!(
                            "\"{name}\" has the {} role; {} {} needs the {} role",
                            role.as_str(),
                            request.method(),
                            request.uri().path(),
                            needs.as_str()
                        ),
                    );
                }
                (true, Some(role))
            }
            None => (false, None),
        },
    };
    if !authenticated && needs.is_some() {
        if matches!(&*gate, Gate::Team(_)) {
            // Who tried and what, for the operator; the token itself never reaches a log.
            tracing::info!(
                "refused {} {} from {}: {}",
                request.method(),
                request.uri().path(),
                peer.map_or_else(|| "?".to_owned(), |p| p.ip().to_string()),
                if request.headers().contains_key(header::AUTHORIZATION) {
                    "a token that is not the store's"
                } else {
                    "no token and no client certificate"
                }
            );
        }
        return unauthorized(&gate, &request);
    }
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    let too_large = || closing(StatusCode::PAYLOAD_TOO_LARGE, crate::TOO_LARGE);
    if declared.is_some_and(|n| n > limits.max_body as u64) {
        return too_large();
    }
    let (parts, body) = request.into_parts();
    let read = axum::body::to_bytes(Body::new(body), limits.max_body);
    let bytes = match tokio::time::timeout(limits.body_timeout, read).await {
        Ok(Ok(bytes)) => bytes,
        Ok(Err(e)) => {
            let inner = e.into_inner();
            if inner
                .downcast_ref::<http_body_util::LengthLimitError>()
                .is_some()
            {
                return too_large();
            }
            return closing(
                StatusCode::BAD_REQUEST,
                format!("the request body could not be read: {inner}"),
            );
        }
        Err(_) => {
            return closing(
                StatusCode::REQUEST_TIMEOUT,
                format!(
                    "the request body did not arrive within {} s (serve --body-timeout); no hook ran",
                    limits.body_timeout.as_secs_f64()
                ),
            );
        }
    };
    if state
        .compare_exchange(BODY, ANSWERING, Ordering::AcqRel, Ordering::Acquire)
        .is_err()
    {
        return closing(StatusCode::SERVICE_UNAVAILABLE, CUT);
    }
    let mut request = hyper::Request::from_parts(parts, Body::from(bytes));
    if let Some(peer) = peer {
        // What `loopback_only` checks, as `into_make_service_with_connect_info` would set.
        request.extensions_mut().insert(ConnectInfo(peer));
    }
    request.extensions_mut().insert(Caller {
        authenticated,
        auth: gate.mode(),
        role,
    });
    match tower::ServiceExt::oneshot(app, request).await {
        Ok(response) => response,
        Err(never) => match never {},
    }
}

/// The TLS handshake of a TCP connection, within [`HEADER_TIMEOUT`] and cut like an idle
/// connection when room is needed, then its requests.
async fn serve_tls(
    stream: tokio::net::TcpStream,
    tls: tokio_rustls::TlsAcceptor,
    app: Router,
    mut conn: Connection,
) {
    let handshake = tokio::time::timeout(HEADER_TIMEOUT, tls.accept(stream));
    let stream = tokio::select! {
        done = handshake => match done {
            Ok(Ok(stream)) => Some(stream),
            Ok(Err(e)) => {
                tracing::debug!("a TLS handshake failed: {e}");
                None
            }
            Err(_) => {
                tracing::debug!("a TLS handshake did not finish within {} s", HEADER_TIMEOUT.as_secs());
                None
            }
        },
        _ = conn.evict.notified() => None,
    };
    match stream {
        Some(stream) => {
            conn.client_cert = stream
                .get_ref()
                .1
                .peer_certificates()
                .and_then(|chain| chain.first())
                .map(|leaf| Arc::from(crate::tls::client_name(leaf)));
            serve_connection(stream, app, conn).await;
        }
        None => {
            conn.open
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .remove(&conn.id);
        }
    }
}

async fn serve_connection<S>(stream: S, app: Router, mut conn: Connection)
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let state = conn.state.clone();
    let (gate, limits, peer) = (conn.gate.clone(), conn.limits, conn.peer);
    let client_cert = conn.client_cert.clone();
    let service = hyper::service::service_fn(move |request: hyper::Request<Incoming>| {
        let answered = answer(
            request,
            app.clone(),
            gate.clone(),
            limits,
            peer,
            state.clone(),
            client_cert.clone(),
        );
        async move { Ok::<_, Infallible>(answered.await) }
    });
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(HEADER_TIMEOUT);
    // Boxed rather than pinned on the stack, so it can be dropped (closing the socket) below.
    let mut served = Box::pin(builder.serve_connection(TokioIo::new(stream), service));
    let mut stopping = false;
    loop {
        tokio::select! {
            result = served.as_mut() => {
                if let Err(e) = result {
                    tracing::debug!("a connection ended: {e}");
                }
                break;
            }
            // Cut only while it waits on its client: dropping the connection closes it.
            _ = conn.evict.notified() => break,
            _ = conn.stop.wait_for(|s| *s), if !stopping => {
                stopping = true;
                served.as_mut().graceful_shutdown();
            }
        }
    }
    // Close the socket before the slot is given back.
    drop(served);
    conn.open
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .remove(&conn.id);
}
