//! `/messages/{id}/timeline`: a text's timeline (`timeline`), opened from the status mark under
//! each outbound bubble. Rendered by the server (`server_page`), in the organisation's time.
// A handler's early exit is a whole response; boxing it would only move the size elsewhere.
#![allow(clippy::result_large_err)]
use crate::messaging::timeline::timeline;
use crate::platform::AppState;
use crate::server_page::{error_page, main_html, signed_in_document, Viewer};
use axum::extract::{Path, State};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use chrono_tz::Tz;
use dioxus::prelude::*;
use uuid::Uuid;

pub fn routes(state: AppState) -> Router {
    Router::new()
        .route("/messages/{id}/timeline", get(show))
        .with_state(state)
}

async fn show(State(state): State<AppState>, Viewer(m): Viewer, Path(id): Path<Uuid>) -> Response {
    let t = match timeline(&state, m.organization_id, id).await {
        Ok(t) => t,
        Err(e) => return error_page(&state, "A text", ("/messaging", "Inbox"), &e),
    };
    let zone: Tz = crate::messaging::quiet::org_zone(&state.db, m.organization_id)
        .await
        .ok()
        .and_then(|z| z.parse().ok())
        .unwrap_or(Tz::UTC);
    let when = |at: Option<chrono::DateTime<chrono::Utc>>| {
        at.map(|a| {
            a.with_timezone(&zone)
                .format("%b %-d, %H:%M:%S %Z")
                .to_string()
        })
        .unwrap_or_default()
    };
    let msg = &t.message;
    let contact = msg.contact_id;
    let body = rsx! {
        main { class: "page message-timeline",
            p { a { href: "/messaging/{contact}", "← Conversation" } }
            header { class: "page-head", h1 { "What happened to this text" } }
            section { class: "card",
                blockquote { class: "bubble", "{msg.body}" }
                if msg.media_count > 0 { p { class: "muted small", "With {msg.media_count} picture(s)" } }
                ol { class: "timeline", id: "timeline",
                    for e in t.entries.iter() {
                        li {
                            span { class: "muted small", "{when(e.at)} " }
                            strong { "{e.what}" }
                            if let Some(why) = &e.why { p { class: "message-error", "{why}" } }
                        }
                    }
                }
                if t.more { p { class: "muted small", "Later status changes are not shown." } }
            }
        }
    };
    let html = signed_in_document(
        &state,
        &m,
        "A text's timeline",
        "/messaging",
        main_html(body),
    )
    .await;
    Html(html).into_response()
}
