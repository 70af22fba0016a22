//! Signing in to the console of a team service: no link is printed (the service's stdout is a
//! log, often shared); the login page takes an operator token of the token store once, over the
//! service's own TLS, and trades it for a session cookie. An agent's token is refused.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::extract::{Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::json;

use super::{COOKIE, Console, Door, new_session, page, refuse};
use sha2::{Digest, Sha256};

use crate::team::{Role, TokenStore, list_tokens};

pub(super) const LOGIN_PAGE: &str = include_str!("login.html");
pub(super) const LOGIN_SCRIPT: &str = include_str!("login.js");

/// How a team console checks who signs in.
#[derive(Debug)]
pub(crate) struct Operators {
    /// The service's token store, read again when it changes.
    pub(crate) tokens: TokenStore,
    /// Whether the console speaks TLS: its cookie is then `Secure`.
    pub(crate) tls: bool,
    /// The SHA-256 (hex, as the store keeps it) of the token each session signed in with.
    pub(crate) holders: Mutex<HashMap<String, String>>,
}

impl Operators {
    /// The sign-in of a team service's operators, checked against the store at `tokens`.
    pub(crate) fn new(tokens: TokenStore, tls: bool) -> Operators {
        Operators {
            tokens,
            tls,
            holders: Mutex::default(),
        }
    }

    /// Whether the token session `id` signed in with is still an operator's token of the
    /// store: a token revoked (or turned into an agent's) ends its sessions at their next
    /// request.
    pub(super) fn still_holds(&self, id: &str) -> Result<(), String> {
        let digest = self
            .holders
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(id)
            .cloned()
            .ok_or("this session signed in with no token; sign in again")?;
        let entries = list_tokens(self.tokens.path()).map_err(|e| {
            format!("the token store cannot be read, so no session is trusted: {e}")
        })?;
        if entries
            .iter()
            .any(|t| t.sha256 == digest && t.role == Role::Operator)
        {
            Ok(())
        } else {
            Err("the token this session signed in with was revoked or is no operator's; sign in again".to_owned())
        }
    }
}

/// A console served by a team service: who may sign in, and the service's TLS and limits.
pub(crate) struct TeamConsole {
    /// Who may sign in.
    pub(crate) operators: Operators,
    /// The service's TLS, which the console speaks too.
    pub(crate) tls: Option<tokio_rustls::TlsAcceptor>,
    /// The service's connection limits, which the console's listener keeps too.
    pub(crate) limits: crate::listen::Limits,
}

/// Whether `origin` is the page's own: the scheme the console speaks and the `Host` the
/// request was sent to (a team console answers to the service's names).
pub(super) fn own_origin(operators: &Operators, headers: &HeaderMap, origin: &str) -> bool {
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("");
    let scheme = if operators.tls { "https" } else { "http" };
    !host.is_empty() && origin == format!("{scheme}://{host}")
}

#[derive(serde::Deserialize)]
struct Login {
    token: String,
}

/// `POST /login` with `{"token": "ahk_…"}`: an operator's token gets a session; an agent's is
/// refused with 403, anything else with 401.
pub(super) async fn sign_in(State(console): State<Arc<Console>>, request: Request) -> Response {
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
    if !own_origin(operators, request.headers(), origin) {
        return refuse(
            StatusCode::FORBIDDEN,
            format!("Origin \"{origin}\" is refused: sign in from the console's own login page"),
        );
    }
    let body = match axum::body::to_bytes(request.into_body(), 4096).await {
        Ok(body) => body,
        Err(e) => return refuse(StatusCode::BAD_REQUEST, format!("unreadable body: {e}")),
    };
    let Ok(login) = serde_json::from_slice::<Login>(&body) else {
        return refuse(
            StatusCode::BAD_REQUEST,
            "expected {\"token\": \"ahk_…\"}: an operator token of the token store",
        );
    };
    match operators.tokens.identify(login.token.trim().as_bytes()) {
        None => refuse(
            StatusCode::UNAUTHORIZED,
            "not a token of this service's token store",
        ),
        Some((name, Role::Agent)) => {
            tracing::info!("refused a console sign-in by \"{name}\": it has the agent role");
            refuse(
                StatusCode::FORBIDDEN,
                format!(
                    "\"{name}\" has the agent role; the console needs an operator token (agent-hooks token add NAME --role operator)"
                ),
            )
        }
        Some((name, _)) => {
            let id = match new_session(&console) {
                Ok(id) => id,
                Err(e) => return refuse(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
            };
            let digest: String = Sha256::digest(login.token.trim().as_bytes())
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect();
            operators
                .holders
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .insert(id.clone(), digest);
            tracing::info!("\"{name}\" signed in to the console");
            let secure = if operators.tls { "; Secure" } else { "" };
            (
                [(
                    header::SET_COOKIE,
                    format!("{COOKIE}={id}; HttpOnly; SameSite=Strict; Path=/{secure}"),
                )],
                axum::Json(json!({"ok": true, "name": name})),
            )
                .into_response()
        }
    }
}

/// The login page of a team console.
pub(super) fn login_page() -> Response {
    page(LOGIN_PAGE, "text/html; charset=utf-8")
}
