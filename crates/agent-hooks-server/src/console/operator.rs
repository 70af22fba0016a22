//! Signing in to the console of a team service: no link is printed (the service's stdout is a
//! log, often shared); the login page takes an operator token of the token store once, over the
//! service's own TLS, and trades it for a session cookie. An agent's token is refused.

use std::collections::HashMap;
use std::sync::Mutex;

use axum::http::{HeaderMap, StatusCode, header};
use sha2::{Digest, Sha256};

use crate::team::{Role, TokenStore};

pub(super) const LOGIN_PAGE: &str = include_str!("login.html");
pub(super) const LOGIN_SCRIPT: &str = include_str!("login.js");

/// How a team console checks who signs in.
#[derive(Debug)]
pub(crate) struct Operators {
    /// The service's token store, read again when it changes.
    pub(crate) tokens: TokenStore,
    /// Whether the console speaks TLS: its cookie is then `Secure`.
    pub(crate) tls: bool,
    /// The SHA-256 of the token each session signed in with (never the token itself).
    pub(crate) holders: Mutex<HashMap<String, [u8; 32]>>,
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

    /// The name of the operator whose token `token` is; an agent's token is refused with 403,
    /// one the store does not hold with 401.
    pub(super) fn admit(&self, token: &str) -> Result<String, (StatusCode, String)> {
        match self.tokens.identify(token.trim().as_bytes()) {
            None => Err((
                StatusCode::UNAUTHORIZED,
                "not a token of this service's token store".to_owned(),
            )),
            Some((name, Role::Agent)) => {
                tracing::info!("refused a console sign-in by \"{name}\": it has the agent role");
                Err((
                    StatusCode::FORBIDDEN,
                    format!(
                        "\"{name}\" has the agent role; the console needs an operator token (agent-hooks token add NAME --role operator)"
                    ),
                ))
            }
            Some((name, _)) => {
                tracing::info!("\"{name}\" signed in to the console");
                Ok(name)
            }
        }
    }

    /// Remembers that session `id` signed in with `token` (its digest, as the store keeps it).
    pub(super) fn hold(&self, id: &str, token: &str) {
        let digest: [u8; 32] = Sha256::digest(token.trim().as_bytes()).into();
        self.holders
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(id.to_owned(), digest);
    }

    /// What the session cookie adds over TLS.
    pub(super) fn cookie_flags(&self) -> &'static str {
        if self.tls { "; Secure" } else { "" }
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
            .copied()
            .ok_or("this session signed in with no token; sign in again")?;
        // The store as every route sees it: read again when it changed, the last good one
        // kept (and the trouble logged) when it cannot be read.
        match self.tokens.identify_digest(&digest) {
            Some((_, Role::Operator)) => Ok(()),
            _ => Err("the token this session signed in with was revoked or is no operator's; sign in again".to_owned()),
        }
    }
}

/// A console served by a team service: who may sign in, and the service's TLS and limits.
pub(crate) struct TeamConsole {
    /// Who may sign in.
    pub(crate) operators: Operators,
    /// The service's TLS, which the console speaks too.
    pub(crate) tls: Option<std::sync::Arc<crate::tls::Acceptor>>,
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
