//! The web console (`serve --console`): pages served from the binary on a loopback port of
//! their own, behind a one-time login link and a session cookie. Decisions reach it through a
//! broadcast channel that costs nothing (and serialises nothing) while no browser listens.

use std::collections::HashSet;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Value, json};
use subtle::ConstantTimeEq;
use tokio::sync::broadcast;

use agent_hooks_core::outcome::Outcome;
use agent_hooks_dialects::agent::Agent;

mod metrics;
mod operator;
mod sessions;

pub(crate) use operator::{Operators, TeamConsole};

use crate::policy::Slot;
use crate::stats::Stats;

mod asks;

const PAGE: &str = include_str!("page.html");
const SCRIPT: &str = include_str!("console.js");
const SESSIONS_SCRIPT: &str = include_str!("sessions.js");
const METRICS_SCRIPT: &str = include_str!("metrics.js");
const STYLE: &str = include_str!("console.css");
const COOKIE: &str = "agent_hooks_console";
const CSRF_HEADER: &str = "x-csrf-token";

/// Decisions on their way to the console's browsers.
#[derive(Debug, Clone)]
pub(crate) struct Feed(broadcast::Sender<Arc<str>>);

impl Feed {
    fn new() -> Feed {
        // A browser that falls this far behind skips ahead; dispatch never waits for it.
        Feed(broadcast::channel(256).0)
    }

    /// Tells the connected browsers of one dispatch, through whichever route it came (`agent`
    /// names an agent's); with none connected it returns before building anything.
    pub(crate) fn decision(&self, agent: Option<Agent>, outcome: &Outcome) {
        if self.0.receiver_count() == 0 {
            return;
        }
        let time = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0.0, |d| d.as_secs_f64());
        let field = |name: &str| outcome.payload.get(name).and_then(Value::as_str);
        let line = json!({
            "time": time,
            // As the decision log names the caller: a dispatch of no agent's route is the host's.
            "agent": agent.map(Agent::name).or_else(|| field("agent")).unwrap_or("host"),
            "session": field("session_id"),
            "event": outcome.event.name(),
            "tool": field("tool_name"),
            "decision": outcome.decision.as_str(),
            "reason": outcome.reason,
            "hooks": outcome.hooks.iter().map(|h| json!({
                "hook": h.hook, "status": h.status.as_str(), "ms": h.ms,
            })).collect::<Vec<_>>(),
            "lapses": outcome.lapses,
        });
        let _ = self.0.send(Arc::from(line.to_string()));
    }
}

/// The console's login secret and its sessions, each with its CSRF token.
#[derive(Debug)]
struct Console {
    slot: Slot,
    feed: Feed,
    /// The sidecar's statistics, drawn on the metrics page.
    stats: Arc<Stats>,
    /// How a browser signs in.
    door: Door,
    sessions: Mutex<Vec<(String, String)>>,
    addr: SocketAddr,
}

/// How a browser signs in to the console.
#[derive(Debug)]
enum Door {
    /// A sidecar on this machine: the one-time link printed at start, taken by the first
    /// browser that opens it; then no one else can sign in.
    Link(Mutex<Option<String>>),
    /// A team service: an operator token of its store, on the login page.
    Operators(Operators),
}

/// A console bound and ready: its login link, and the feed the sidecar writes decisions to.
#[derive(Debug)]
pub(crate) struct Started {
    /// Printed at start: the one-time login link, or a team console's login page.
    pub(crate) link: String,
    /// Where dispatch tells the console of each decision.
    pub(crate) feed: Feed,
}

/// Why the console could not start.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ConsoleError {
    #[error(
        "refusing to serve the console on {0}: it binds loopback addresses only (127.0.0.1, ::1), unless the team service it belongs to has TLS (--tls-cert)"
    )]
    NotLoopback(SocketAddr),
    #[error("failed to listen for the console on {addr}: {source}")]
    Bind {
        addr: SocketAddr,
        source: std::io::Error,
    },
    #[error("the operating system's random source failed: {0}")]
    Random(String),
}

fn secret() -> Result<String, ConsoleError> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| ConsoleError::Random(e.to_string()))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Binds the console on `addr` and serves it until `stop` turns true: a sidecar's behind a
/// one-time login link, a team service's (`team`) behind its operators' tokens and its TLS.
pub(crate) async fn start(
    addr: SocketAddr,
    slot: Slot,
    stats: Arc<Stats>,
    mut stop: tokio::sync::watch::Receiver<bool>,
    team: Option<TeamConsole>,
) -> Result<Started, ConsoleError> {
    let tls = team.as_ref().is_some_and(|t| t.tls.is_some());
    if !addr.ip().is_loopback() && !tls {
        return Err(ConsoleError::NotLoopback(addr));
    }
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|source| ConsoleError::Bind { addr, source })?;
    let addr = listener
        .local_addr()
        .map_err(|source| ConsoleError::Bind { addr, source })?;
    let feed = Feed::new();
    let (door, link, served) = match team {
        None => {
            let login = secret()?;
            let link = format!("http://{addr}/login?token={login}");
            (Door::Link(Mutex::new(Some(login))), link, None)
        }
        Some(team) => {
            let scheme = if tls { "https" } else { "http" };
            let link = format!("{scheme}://{addr}/login");
            (
                Door::Operators(team.operators),
                link,
                Some((team.tls, team.limits)),
            )
        }
    };
    let console = Arc::new(Console {
        slot,
        feed: feed.clone(),
        stats,
        door,
        sessions: Mutex::new(Vec::new()),
        addr,
    });
    let app = router(console);
    if let Some((tls, limits)) = served {
        // The service's own accept loop: its TLS handshake, its connection limits.
        tokio::spawn(crate::listen::run(
            crate::listen::Listener::Tcp(listener),
            Arc::new(crate::listen::Gate::Open),
            app,
            limits,
            stop,
            tls,
        ));
        return Ok(Started { link, feed });
    }
    tokio::spawn(async move {
        let stopped = async move {
            while !*stop.borrow() {
                if stop.changed().await.is_err() {
                    break;
                }
            }
        };
        if let Err(e) = axum::serve(listener, app)
            .with_graceful_shutdown(stopped)
            .await
        {
            tracing::warn!("the console stopped: {e}");
        }
    });
    Ok(Started { link, feed })
}

fn router(console: Arc<Console>) -> Router {
    let signed_in = Router::new()
        .route(
            "/",
            get(|| async { page(PAGE, "text/html; charset=utf-8") }),
        )
        .route(
            "/console.js",
            get(|| async { page(SCRIPT, "text/javascript; charset=utf-8") }),
        )
        .route(
            "/sessions.js",
            get(|| async { page(SESSIONS_SCRIPT, "text/javascript; charset=utf-8") }),
        )
        .route(
            "/metrics.js",
            get(|| async { page(METRICS_SCRIPT, "text/javascript; charset=utf-8") }),
        )
        .route(
            "/console.css",
            get(|| async { page(STYLE, "text/css; charset=utf-8") }),
        )
        .route("/api/session", get(session))
        .route("/api/live", get(live))
        .route("/api/hooks", get(hooks))
        .route("/api/hooks/changes", get(changes))
        .route("/api/hooks/approve", post(approve))
        .route("/api/hooks/revoke", post(revoke))
        .merge(asks::routes())
        .route("/api/sessions", get(session_list))
        .route("/api/sessions/one", get(session_one))
        .route("/api/metrics", get(metrics_now))
        .route_layer(middleware::from_fn_with_state(console.clone(), guard));
    signed_in
        .route("/login", get(login).post(sign_in))
        .route(
            "/login.js",
            get(|| async { page(operator::LOGIN_SCRIPT, "text/javascript; charset=utf-8") }),
        )
        .layer(middleware::from_fn_with_state(console.clone(), same_host))
        .with_state(console)
}

fn page(body: &'static str, kind: &'static str) -> Response {
    (
        [
            (header::CONTENT_TYPE, kind),
            (header::CACHE_CONTROL, "no-store"),
            // Nothing but the console's own files: no inline script, no other origin.
            (
                header::CONTENT_SECURITY_POLICY,
                "default-src 'self'; frame-ancestors 'none'",
            ),
        ],
        body,
    )
        .into_response()
}

fn refuse(status: StatusCode, message: impl Into<String>) -> Response {
    (
        status,
        axum::Json(json!({"ok": false, "error": message.into()})),
    )
        .into_response()
}

/// Only the console's own address as `Host`: a page elsewhere cannot reach it through DNS
/// rebinding. A team console answers to the service's names, behind its TLS certificate.
async fn same_host(State(console): State<Arc<Console>>, request: Request, next: Next) -> Response {
    if matches!(console.door, Door::Operators(_)) {
        return next.run(request).await;
    }
    let host = request
        .headers()
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("");
    if !host_is(host, console.addr) {
        return refuse(
            StatusCode::FORBIDDEN,
            format!(
                "Host \"{host}\" is refused: the console answers only to {}",
                console.addr
            ),
        );
    }
    next.run(request).await
}

fn host_is(host: &str, addr: SocketAddr) -> bool {
    host == addr.to_string() || host == format!("localhost:{}", addr.port())
}

/// The session of a request's cookie, if it is one the console made: its CSRF token.
fn session_of(console: &Console, headers: &HeaderMap) -> Option<String> {
    signed_in(console, headers).map(|(_, csrf)| csrf)
}

/// The session of a request's cookie, if it is one the console made: its id and CSRF token.
fn signed_in(console: &Console, headers: &HeaderMap) -> Option<(String, String)> {
    let cookies = headers.get_all(header::COOKIE);
    let presented = cookies
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|c| c.trim().strip_prefix(COOKIE)?.strip_prefix('='))
        .collect::<HashSet<_>>();
    let sessions = console.sessions.lock().unwrap_or_else(|p| p.into_inner());
    sessions
        .iter()
        .find(|(id, _)| {
            presented
                .iter()
                .any(|p| bool::from(p.as_bytes().ct_eq(id.as_bytes())))
        })
        .cloned()
}

/// Every page needs a session; every POST also its CSRF token and an `Origin` that is the
/// console's own.
async fn guard(State(console): State<Arc<Console>>, request: Request, next: Next) -> Response {
    let Some((id, csrf)) = signed_in(&console, request.headers()) else {
        return refuse(
            StatusCode::UNAUTHORIZED,
            "not signed in: open the login link `agent-hooks serve --console` printed",
        );
    };
    if let Door::Operators(operators) = &console.door
        && let Err(why) = operators.still_holds(&id)
    {
        return refuse(StatusCode::UNAUTHORIZED, why);
    }
    if request.method() == axum::http::Method::POST {
        let origin = request
            .headers()
            .get(header::ORIGIN)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        let own = match &console.door {
            Door::Link(_) => origin
                .strip_prefix("http://")
                .is_some_and(|host| host_is(host, console.addr)),
            Door::Operators(operators) => {
                operator::own_origin(operators, request.headers(), origin)
            }
        };
        if !own {
            return refuse(
                StatusCode::FORBIDDEN,
                format!(
                    "Origin \"{origin}\" is refused: the console takes POSTs from its own pages only"
                ),
            );
        }
        let token = request
            .headers()
            .get(CSRF_HEADER)
            .map(HeaderValue::as_bytes)
            .unwrap_or(b"");
        if !bool::from(token.ct_eq(csrf.as_bytes())) {
            return refuse(
                StatusCode::FORBIDDEN,
                "the request has no valid X-CSRF-Token: reload the console's page",
            );
        }
    }
    next.run(request).await
}

#[derive(serde::Deserialize)]
struct LoginQuery {
    token: Option<String>,
}

/// The one-time link: the first browser to open it gets a session; the link is spent.
async fn login(
    State(console): State<Arc<Console>>,
    axum::extract::Query(query): axum::extract::Query<LoginQuery>,
) -> Response {
    let login = match &console.door {
        Door::Link(login) => login,
        Door::Operators(_) => return page(operator::LOGIN_PAGE, "text/html; charset=utf-8"),
    };
    let presented = query.token.unwrap_or_default();
    let accepted = {
        let mut login = login.lock().unwrap_or_else(|p| p.into_inner());
        let ok = login
            .as_ref()
            .is_some_and(|t| bool::from(t.as_bytes().ct_eq(presented.as_bytes())));
        if ok {
            *login = None;
        }
        ok
    };
    if !accepted {
        return refuse(
            StatusCode::UNAUTHORIZED,
            "this login link is not valid or was used already; restart `agent-hooks serve --console` for a new one",
        );
    }
    let id = match new_session(&console) {
        Ok(id) => id,
        Err(e) => return refuse(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
    };
    (
        StatusCode::SEE_OTHER,
        [
            (
                header::SET_COOKIE,
                format!("{COOKIE}={id}; HttpOnly; SameSite=Strict; Path=/"),
            ),
            (header::LOCATION, "/".to_owned()),
        ],
    )
        .into_response()
}

#[derive(serde::Deserialize)]
struct OperatorLogin {
    token: String,
}

/// `POST /login` of a team console with `{"token": "ahk_…"}`, from its own login page: an
/// operator's token gets a session; an agent's is refused with 403, anything else with 401.
async fn sign_in(State(console): State<Arc<Console>>, request: Request) -> Response {
    let Door::Operators(operators) = &console.door else {
        return refuse(
            StatusCode::NOT_FOUND,
            "this console signs in with the link `agent-hooks serve --console` printed",
        );
    };
    let origin = request
        .headers()
        .get(header::ORIGIN)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    if !operator::own_origin(operators, request.headers(), origin) {
        return refuse(
            StatusCode::FORBIDDEN,
            format!("Origin \"{origin}\" is refused: sign in from the console's own login page"),
        );
    }
    let body = match axum::body::to_bytes(request.into_body(), 4096).await {
        Ok(body) => body,
        Err(e) => return refuse(StatusCode::BAD_REQUEST, format!("unreadable body: {e}")),
    };
    let Ok(login) = serde_json::from_slice::<OperatorLogin>(&body) else {
        return refuse(
            StatusCode::BAD_REQUEST,
            "expected {\"token\": \"ahk_…\"}: an operator token of the token store",
        );
    };
    let name = match operators.admit(&login.token) {
        Ok(name) => name,
        Err((status, why)) => return refuse(status, why),
    };
    let id = match new_session(&console) {
        Ok(id) => id,
        Err(e) => return refuse(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
    };
    operators.hold(&id, &login.token);
    (
        [(
            header::SET_COOKIE,
            format!(
                "{COOKIE}={id}; HttpOnly; SameSite=Strict; Path=/{}",
                operators.cookie_flags()
            ),
        )],
        axum::Json(json!({"ok": true, "name": name})),
    )
        .into_response()
}

/// A new session with its CSRF token: the id its cookie carries.
fn new_session(console: &Console) -> Result<String, ConsoleError> {
    let (id, csrf) = (secret()?, secret()?);
    console
        .sessions
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .push((id.clone(), csrf));
    Ok(id)
}

async fn session(State(console): State<Arc<Console>>, headers: HeaderMap) -> Response {
    let csrf = session_of(&console, &headers).unwrap_or_default();
    axum::Json(json!({"ok": true, "csrf": csrf})).into_response()
}

/// Server-sent events: one `decision` per dispatch from the moment the page connects.
async fn live(
    State(console): State<Arc<Console>>,
) -> Sse<impl futures::Stream<Item = Result<SseEvent, Infallible>>> {
    let receiver = console.feed.0.subscribe();
    let stream = futures::stream::unfold(receiver, |mut receiver| async move {
        loop {
            match receiver.recv().await {
                Ok(line) => {
                    return Some((
                        Ok(SseEvent::default().event("decision").data(&*line)),
                        receiver,
                    ));
                }
                Err(broadcast::error::RecvError::Lagged(_)) => continue,
                Err(broadcast::error::RecvError::Closed) => return None,
            }
        }
    });
    Sse::new(stream).keep_alive(KeepAlive::default())
}

async fn hooks(State(console): State<Arc<Console>>) -> Response {
    on_engine(&console, |engine| {
        let listing = agent_hooks_runtime::hook_listing(engine);
        Ok(json!({"master_enabled": listing.master_enabled, "hooks": listing.hooks}))
    })
    .await
}

/// What changed in a hook's files since its approval: the approved text beside today's.
async fn changes(
    State(console): State<Arc<Console>>,
    axum::extract::Query(query): axum::extract::Query<Approval>,
) -> Response {
    on_engine(&console, move |engine| {
        let files = agent_hooks_runtime::approved_file_texts(engine.workspace(), &query.key);
        Ok(json!({"files": files}))
    })
    .await
}

#[derive(serde::Deserialize)]
struct Approval {
    key: String,
}

/// Refused while self-approval is off, as the sidecar's own approve route is: whoever started
/// the sidecar has its login link, and that may be the agent.
async fn approve(
    State(console): State<Arc<Console>>,
    axum::Json(body): axum::Json<Approval>,
) -> Response {
    if let Some(refused) = steering_refused(&console, "approve") {
        return refused;
    }
    on_engine(&console, move |engine| {
        let events = engine.approve(None, &body.key)?;
        Ok(json!({"events": events.iter().map(|e| e.name()).collect::<Vec<_>>()}))
    })
    .await
}

async fn revoke(
    State(console): State<Arc<Console>>,
    axum::Json(body): axum::Json<Approval>,
) -> Response {
    if let Some(refused) = steering_refused(&console, "revoke") {
        return refused;
    }
    on_engine(&console, move |engine| {
        Ok(json!({"removed": engine.revoke(&body.key)?}))
    })
    .await
}

/// The 403 of an approval or revocation while self-approval is off, with the setting to change.
fn steering_refused(console: &Console, verb: &str) -> Option<Response> {
    let engine = console
        .slot
        .read()
        .unwrap_or_else(|p| p.into_inner())
        .clone();
    crate::self_approve::refusal(&engine.snapshot(), "the console", verb)
        .map(|why| refuse(StatusCode::FORBIDDEN, why))
}

/// Every session of the decision log.
async fn session_list(State(console): State<Arc<Console>>) -> Response {
    blocking(&console, sessions::list).await
}

#[derive(serde::Deserialize)]
struct SessionQuery {
    id: String,
}

/// One session's decisions and its coverage.
async fn session_one(
    State(console): State<Arc<Console>>,
    axum::extract::Query(query): axum::extract::Query<SessionQuery>,
) -> Response {
    blocking(&console, move |engine| sessions::one(engine, &query.id)).await
}

/// The statistics the metrics page draws, as they stand.
async fn metrics_now(State(console): State<Arc<Console>>) -> Response {
    let mut answer = metrics::snapshot(&console.stats);
    answer["ok"] = json!(true);
    axum::Json(answer).into_response()
}

/// Runs `act` on the engine in force, off the async threads (approving hashes files), and
/// answers with its fields beside `"ok": true`, or its error.
async fn on_engine(
    console: &Console,
    act: impl FnOnce(&agent_hooks_runtime::Engine) -> Result<Value, agent_hooks_runtime::EngineError>
    + Send
    + 'static,
) -> Response {
    blocking(console, act).await
}

/// [`on_engine`] for any error that says itself.
async fn blocking<E: std::fmt::Display + Send + 'static>(
    console: &Console,
    act: impl FnOnce(&agent_hooks_runtime::Engine) -> Result<Value, E> + Send + 'static,
) -> Response {
    let engine = console
        .slot
        .read()
        .unwrap_or_else(|p| p.into_inner())
        .clone();
    match tokio::task::spawn_blocking(move || act(&engine)).await {
        Ok(Ok(mut answer)) => {
            answer["ok"] = json!(true);
            axum::Json(answer).into_response()
        }
        Ok(Err(e)) => refuse(StatusCode::UNPROCESSABLE_ENTITY, e.to_string()),
        Err(e) => refuse(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
    }
}
