//! The audit log page, `/audit`: owners read the organisation's log, newest first, a page of
//! `AUDIT_PAGE` at a time with the exact total, and "Older entries" carries the cursor in the
//! address. Rendered by the server (`server_page`), as rarely opened pages are, so the app's
//! first load does not carry it.
// A handler's early exit is a whole response; boxing it would only move the size elsewhere.
#![allow(clippy::result_large_err)]
use crate::audit::model::AuditCursor;
use crate::audit_log::read::page;
use crate::platform::AppState;
use crate::server_page::{error_page, main_html, signed_in_document, Viewer};
use axum::extract::{Query, State};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use dioxus::prelude::*;
use uuid::Uuid;

pub fn routes(state: AppState) -> Router {
    Router::new().route("/audit", get(show)).with_state(state)
}

/// The cursor of an older page: the last entry's time (nanoseconds since 1970) and id.
#[derive(serde::Deserialize)]
struct Before {
    at: Option<i64>,
    id: Option<Uuid>,
}

async fn show(
    State(state): State<AppState>,
    Viewer(m): Viewer,
    Query(q): Query<Before>,
) -> Response {
    let before = match (q.at, q.id) {
        (Some(at), Some(id)) => Some(AuditCursor {
            at: chrono::DateTime::from_timestamp_nanos(at),
            id,
        }),
        _ => None,
    };
    let older = before.is_some();
    let p = match page(&state, &m, before).await {
        Ok(p) => p,
        Err(e) => return error_page(&state, "Audit log", ("/team", "Team"), &e),
    };
    let next = p.next.as_ref().and_then(|c| {
        c.at.timestamp_nanos_opt()
            .map(|at| format!("/audit?at={at}&id={}", c.id))
    });
    let shown = p.entries.len();
    let total = p.total;
    let body = rsx! {
        main { class: "page audit-page",
            p { a { href: "/team", "← Team" } }
            header { class: "page-head", h1 { "Audit log" } }
            p { class: "muted", id: "audit-count",
                if older { "{shown} older entries of {total}, newest first. " } else { "The newest {shown} of {total} entries. " }
                "Entries cannot be edited."
            }
            table { class: "table", id: "audit",
                thead { tr { th { "When" } th { "Who" } th { "What" } th { "On" } } }
                tbody {
                    for e in p.entries.iter() {
                        tr { class: "audit-{e.action}",
                            td { "data-label": "When", {crate::format::day_time_utc(e.at)} }
                            td { "data-label": "Who", {e.actor.clone().unwrap_or_else(|| "Herald".into())} }
                            td { class: "cell-title", "{e.label}" if let Some(d) = e.detail.clone() { div { class: "muted", "{d}" } } }
                            td { "data-label": "On", "{e.target}" }
                        }
                    }
                }
            }
            p {
                if older { a { href: "/audit", id: "audit-newest", "Newest entries" } " " }
                if let Some(n) = next { a { href: "{n}", id: "audit-older", class: "button", "Older entries →" } }
            }
        }
    };
    Html(signed_in_document(&state, &m, "Audit log", "/team", main_html(body)).await)
        .into_response()
}
