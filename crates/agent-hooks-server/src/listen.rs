//! Accepting connections so that no client can starve the sidecar. Idle and half-sent
//! requests used to be kept forever: enough of them used up the file descriptors hooks need
//! to spawn (so `on_error: continue` guards failed open) and then `/v1/health` itself.
//!
//! - A request's head must arrive within [`HEADER_TIMEOUT`], and a kept-alive connection that
//!   sends no next request within it is closed (hyper times both with one timer).
//! - At most [`Limits::max_connections`] are open. That is a quarter of the descriptor limit,
//!   which is first raised to its hard ceiling, so three quarters stay for hook processes.
//! - At the cap a newcomer still gets in: the oldest connection with no request in flight
//!   makes room (a waiting client is more likely real than one that sent half a request long
//!   ago). Only when every connection is busy does the newcomer wait for one to finish.

use std::collections::BTreeMap;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::ConnectInfo;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::TcpListener;
use tokio::sync::{Notify, OwnedSemaphorePermit, Semaphore, mpsc, watch};

/// How long a client may take to send a request's head, or to start its next request on a
/// kept-alive connection. A loopback client sends a head in microseconds.
pub(super) const HEADER_TIMEOUT: Duration = Duration::from_secs(10);

/// The most connections a sidecar keeps, whatever the descriptor limit.
const MAX_CONNECTIONS: usize = 1024;

/// What the accept loop allows.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    /// Open connections at most.
    pub(crate) max_connections: usize,
}

impl Limits {
    /// Raises this process's soft limit of open files to its hard limit, and caps connections
    /// at a quarter of it (at most [`MAX_CONNECTIONS`], at least 4), keeping the rest for
    /// hooks: each spawned hook needs a few descriptors for its pipes.
    pub(crate) fn for_this_process() -> Limits {
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
        }
    }
}

/// One open connection, as the accept loop sees it.
struct Open {
    /// Requests being answered on it now.
    busy: Arc<AtomicUsize>,
    /// Told when the connection must make room for a newcomer.
    evict: Arc<Notify>,
}

type Registry = Arc<Mutex<BTreeMap<u64, Open>>>;

/// Serves `app` on `listener` until `stop` turns true, then lets open connections finish their
/// requests and returns once every connection is closed.
pub(crate) async fn run(
    listener: TcpListener,
    app: Router,
    limits: Limits,
    stop: watch::Receiver<bool>,
) {
    let open: Registry = Arc::default();
    // Each connection task holds a sender; all gone means all connections closed.
    let (done_tx, mut done_rx) = mpsc::channel::<()>(1);
    let mut stopping = stop.clone();
    let slots = Arc::new(Semaphore::new(limits.max_connections));
    let mut next_id = 0u64;
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            _ = stopping.wait_for(|s| *s) => break,
        };
        let (stream, peer) = match accepted {
            Ok(conn) => conn,
            Err(e) => {
                // Out of descriptors or a connection reset before it was accepted: the
                // listener is fine, so wait a little rather than spin on the error.
                tracing::warn!("accepting a connection failed: {e}");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let permit = match slots.clone().try_acquire_owned() {
            Ok(permit) => permit,
            Err(_) => {
                // Full: make the oldest idle connection close, and take its slot once it has.
                let oldest_idle = {
                    let mut open = open.lock().unwrap_or_else(|p| p.into_inner());
                    let id = open
                        .iter()
                        .find(|(_, c)| c.busy.load(Ordering::Acquire) == 0)
                        .map(|(id, _)| *id);
                    id.and_then(|id| open.remove(&id))
                };
                match oldest_idle {
                    Some(oldest) => oldest.evict.notify_one(),
                    None => tracing::warn!(
                        "{} connections, every one busy: {peer} waits for one to finish",
                        limits.max_connections
                    ),
                }
                match slots.clone().acquire_owned().await {
                    Ok(permit) => permit,
                    Err(_closed) => break,
                }
            }
        };
        let busy = Arc::new(AtomicUsize::new(0));
        let evict = Arc::new(Notify::new());
        next_id += 1;
        open.lock().unwrap_or_else(|p| p.into_inner()).insert(
            next_id,
            Open {
                busy: busy.clone(),
                evict: evict.clone(),
            },
        );
        tokio::spawn(serve_connection(
            stream,
            peer,
            app.clone(),
            Connection {
                id: next_id,
                busy,
                evict,
                open: open.clone(),
                stop: stop.clone(),
                _slot: permit,
                _done: done_tx.clone(),
            },
        ));
    }
    drop(listener);
    drop(done_tx);
    let _ = done_rx.recv().await;
}

/// What a connection task needs besides its socket.
struct Connection {
    id: u64,
    busy: Arc<AtomicUsize>,
    evict: Arc<Notify>,
    open: Registry,
    stop: watch::Receiver<bool>,
    /// Held until the socket is closed: the cap counts descriptors, not tasks.
    _slot: OwnedSemaphorePermit,
    _done: mpsc::Sender<()>,
}

/// Counts a request in flight for as long as it lives.
struct InFlight(Arc<AtomicUsize>);

impl InFlight {
    fn start(busy: &Arc<AtomicUsize>) -> InFlight {
        busy.fetch_add(1, Ordering::AcqRel);
        InFlight(busy.clone())
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

async fn serve_connection(
    stream: tokio::net::TcpStream,
    peer: SocketAddr,
    app: Router,
    mut conn: Connection,
) {
    let busy = conn.busy.clone();
    let service = hyper::service::service_fn(move |request: hyper::Request<Incoming>| {
        let in_flight = InFlight::start(&busy);
        let app = app.clone();
        async move {
            let _in_flight = in_flight;
            let mut request = request.map(Body::new);
            // What `loopback_only` checks, as `into_make_service_with_connect_info` would set.
            request.extensions_mut().insert(ConnectInfo(peer));
            let response = tower::ServiceExt::oneshot(app, request).await;
            Ok::<_, Infallible>(match response {
                Ok(response) => response,
                Err(never) => match never {},
            })
        }
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
                    tracing::debug!("connection from {peer} ended: {e}");
                }
                break;
            }
            // Evicted only while idle: dropping the connection closes it.
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
