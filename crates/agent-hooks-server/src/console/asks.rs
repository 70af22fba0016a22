//! The console's Pending page: the asks waiting for an operator (`ask: {via: console}`), kept
//! in the state store by whichever process dispatched them, listed live, and answered once with
//! Allow or Deny and a note.

use std::convert::Infallible;
use std::sync::Arc;

use axum::Router;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use futures::StreamExt as _;
use futures::stream::BoxStream;
use serde_json::json;

use agent_hooks_runtime::pending_ask::{self, Answered, AskDecision};

use super::{Console, page, refuse};

const SCRIPT: &str = include_str!("asks.js");

/// The longest note an operator may send with an answer.
const MAX_NOTE: usize = 2000;

/// The Pending page's routes, behind the console's session and CSRF checks.
pub(super) fn routes() -> Router<Arc<Console>> {
    Router::new()
        .route(
            "/asks.js",
            get(|| async { page(SCRIPT, "text/javascript; charset=utf-8") }),
        )
        .route("/api/asks", get(list))
        .route("/api/asks/live", get(live))
        .route("/api/asks/answer", post(answer))
}

fn workspace(console: &Console) -> agent_hooks_runtime::Workspace {
    console
        .slot
        .read()
        .unwrap_or_else(|p| p.into_inner())
        .workspace()
        .clone()
}

/// The pending asks as the page reads them: `{"ok": true, "asks": [...]}`.
async fn listing(ws: agent_hooks_runtime::Workspace) -> Result<serde_json::Value, String> {
    let asks = tokio::task::spawn_blocking(move || pending_ask::pending(&ws))
        .await
        .map_err(|e| e.to_string())??;
    Ok(json!({"ok": true, "asks": asks}))
}

async fn list(State(console): State<Arc<Console>>) -> Response {
    match listing(workspace(&console)).await {
        Ok(body) => axum::Json(body).into_response(),
        Err(why) => refuse(StatusCode::SERVICE_UNAVAILABLE, why),
    }
}

/// Server-sent events: the whole list of pending asks at once, and again whenever the store
/// says an ask was put or answered. A store that cannot be watched is told once, and the
/// stream ends (the browser connects again a few seconds later).
async fn live(State(console): State<Arc<Console>>) -> impl IntoResponse {
    let ws = workspace(&console);
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel::<()>();
    // The first list is sent without waiting for a change.
    let _ = tx.send(());
    let watch = pending_ask::watch(&ws, move || {
        let _ = tx.send(());
    });
    let stream: BoxStream<'static, Result<SseEvent, Infallible>> = match watch {
        Err(why) => {
            let event = SseEvent::default()
                .event("asks")
                .data(json!({"ok": false, "error": why}).to_string());
            futures::stream::once(async move { Ok(event) }).boxed()
        }
        Ok(watch) => futures::stream::unfold((rx, ws, watch), |(mut rx, ws, watch)| async move {
            rx.recv().await?;
            // Changes that came together are one list.
            while rx.try_recv().is_ok() {}
            let data = match listing(ws.clone()).await {
                Ok(body) => body,
                Err(why) => json!({"ok": false, "error": why}),
            };
            let event = SseEvent::default().event("asks").data(data.to_string());
            Some((Ok(event), (rx, ws, watch)))
        })
        .boxed(),
    };
    Sse::new(stream).keep_alive(KeepAlive::default())
}

#[derive(serde::Deserialize)]
struct AnswerBody {
    id: String,
    decision: String,
    #[serde(default)]
    note: String,
}

/// Answers one ask: 200 when this answer stands, 409 with the first answer when another came
/// first, 404 for an ask that is not kept.
async fn answer(
    State(console): State<Arc<Console>>,
    axum::Json(body): axum::Json<AnswerBody>,
) -> Response {
    let decision = match body.decision.as_str() {
        "allow" => AskDecision::Allow,
        "deny" => AskDecision::Deny,
        other => {
            return refuse(
                StatusCode::UNPROCESSABLE_ENTITY,
                format!("decision \"{other}\": expected allow or deny"),
            );
        }
    };
    if body.note.chars().count() > MAX_NOTE {
        return refuse(
            StatusCode::UNPROCESSABLE_ENTITY,
            format!("the note is longer than {MAX_NOTE} characters"),
        );
    }
    let ws = workspace(&console);
    let id = body.id.clone();
    let answered = tokio::task::spawn_blocking(move || {
        pending_ask::answer(&ws, &body.id, decision, &body.note)
    })
    .await;
    match answered {
        Ok(Ok(Answered::Now)) => axum::Json(json!({"ok": true, "id": id})).into_response(),
        Ok(Ok(Answered::Already(first))) => (
            StatusCode::CONFLICT,
            axum::Json(json!({
                "ok": false,
                "error": format!(
                    "this ask was already answered: {} by {}{}",
                    match first.decision {
                        AskDecision::Allow => "allow",
                        AskDecision::Deny => "deny",
                        AskDecision::Ask => "ask",
                    },
                    first.by,
                    if first.note.is_empty() { String::new() } else { format!(" ({})", first.note) }
                ),
                "answer": first,
            })),
        )
            .into_response(),
        Ok(Ok(Answered::Unknown)) => refuse(
            StatusCode::NOT_FOUND,
            format!("no pending ask \"{id}\": it was never made here, or it expired"),
        ),
        Ok(Err(why)) => refuse(StatusCode::SERVICE_UNAVAILABLE, why),
        Err(e) => refuse(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
    }
}
