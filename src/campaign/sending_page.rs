//! Settings → Sending, `/settings/sending`: the sender profiles numbers send under (issue 30
//! §2, `campaign::profiles_page`); when a campaign pauses itself (§3), as shares of its last 100
//! texts filtered by carriers (30007) or undelivered; and each number's carrier-filtered texts.
//! Everyone in the organisation reads it; owners change it.
//! Rendered by the server (`server_page`): the app's first-load budget is spent.
// A handler's early exit is a whole response; boxing it would only move the size elsewhere.
#![allow(clippy::result_large_err)]
use crate::auth::session::Member;
use crate::campaign::delivery_alarm::{
    filtered_by_number, set_thresholds, thresholds, MIN_OUTCOMES, WINDOW,
};
use crate::error::AppError;
use crate::platform::AppState;
use crate::server_page::{error_page, main_html, signed_in_document, status_of, Poster, Viewer};
use axum::extract::{Form, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::routing::get;
use axum::Router;
use dioxus::prelude::*;

/// Numbers listed on the page; past it, the page says how many more there are.
const NUMBERS_SHOWN: u64 = 200;

pub fn routes(state: AppState) -> Router {
    Router::new()
        .route("/settings/sending", get(show).post(save))
        .with_state(state)
}

#[derive(serde::Deserialize)]
pub struct Thresholds {
    filtered_pct: String,
    undelivered_pct: String,
}

#[derive(serde::Deserialize)]
struct Shown {
    saved: Option<String>,
}

/// What was refused, shown again with why (and any form as it was typed).
pub enum Trouble {
    Thresholds(AppError, Thresholds),
    Profile(AppError, crate::campaign::profiles_page::ProfileForm),
    Numbers(AppError),
}

impl Trouble {
    fn error(&self) -> &AppError {
        match self {
            Trouble::Thresholds(e, _) | Trouble::Profile(e, _) | Trouble::Numbers(e) => e,
        }
    }
}

async fn show(
    State(state): State<AppState>,
    Viewer(m): Viewer,
    axum::extract::Query(q): axum::extract::Query<Shown>,
) -> Response {
    page(&state, &m, None, q.saved).await
}

async fn save(
    State(state): State<AppState>,
    Poster(m): Poster,
    Form(f): Form<Thresholds>,
) -> Response {
    match set_thresholds(&state, &m, &f.filtered_pct, &f.undelivered_pct).await {
        Ok(_) => Redirect::to("/settings/sending?saved=1").into_response(),
        Err(e) => page(&state, &m, Some(Trouble::Thresholds(e, f)), None).await,
    }
}

/// The page; after a refusal, with why and the values as they were typed (nothing is lost).
pub async fn page(
    state: &AppState,
    m: &Member,
    trouble: Option<Trouble>,
    saved: Option<String>,
) -> Response {
    let status = trouble
        .as_ref()
        .map_or(StatusCode::OK, |t| status_of(t.error()));
    let org = m.organization_id;
    let (t, numbers) = match (
        thresholds(state, org).await,
        filtered_by_number(state, org, NUMBERS_SHOWN).await,
    ) {
        (Ok(t), Ok(n)) => (t, n),
        (Err(e), _) | (_, Err(e)) => {
            return error_page(state, "Sending", ("/settings", "Settings"), &e)
        }
    };
    let (mut error, mut typed, mut profile, mut numbers_error) = (None, None, None, None);
    match trouble {
        Some(Trouble::Thresholds(e, f)) => (error, typed) = (Some(e.to_string()), Some(f)),
        Some(Trouble::Profile(e, f)) => profile = Some((e.to_string(), f)),
        Some(Trouble::Numbers(e)) => numbers_error = Some(e.to_string()),
        None => {}
    }
    let profiles =
        match crate::campaign::profiles_page::sections(state, m, profile, numbers_error).await {
            Ok(p) => p,
            Err(e) => return error_page(state, "Sending", ("/settings", "Settings"), &e),
        };
    let (filtered, undelivered) = match typed {
        Some(f) => (f.filtered_pct, f.undelivered_pct),
        None => (t.filtered_pct.to_string(), t.undelivered_pct.to_string()),
    };
    let saved_words = saved.map(|s| match s.as_str() {
        "profile" => "The sender profile is saved.",
        "removed" => "The sender profile is removed; its numbers send on their own.",
        "number" => "The number's sender profile is saved.",
        _ => "Saved.",
    });
    let owner = m.require_owner().is_ok();
    let (rows, all) = numbers;
    let more = all.saturating_sub(rows.len() as u64);
    let body = rsx! {
        main { class: "page sending-settings",
            p { a { href: "/settings", "← Settings" } }
            header { class: "page-head", h1 { "Sending" } }
            if let Some(w) = saved_words { p { class: "notice", role: "status", id: "sending-saved", "{w}" } }
            {profiles}
            section { class: "card", id: "campaign-alarm",
                h2 { "When a campaign pauses itself" }
                p { "Carriers filter texts they take for spam (error 30007), and a list with many dead numbers goes undelivered. A campaign watches its last {WINDOW} texts and pauses itself past these shares, once at least {MIN_OUTCOMES} have a delivery outcome. Owners are told, with the errors, and resume or cancel it." }
                if let Some(e) = &error { p { class: "error", role: "alert", id: "sending-error", "{e}" } }
                form { method: "post", action: "/settings/sending", class: "stack",
                    label { "Carrier-filtered share (%)"
                        input { name: "filtered_pct", id: "filtered-pct", inputmode: "numeric", value: "{filtered}", disabled: !owner }
                    }
                    label { "Undelivered share (%)"
                        input { name: "undelivered_pct", id: "undelivered-pct", inputmode: "numeric", value: "{undelivered}", disabled: !owner }
                    }
                    if owner {
                        button { r#type: "submit", id: "sending-save", "Save" }
                    } else {
                        p { class: "muted small", "Only an owner changes these." }
                    }
                }
            }
            section { class: "card", id: "filtered-by-number",
                h2 { "Carrier-filtered texts by number" }
                if rows.is_empty() {
                    p { class: "muted", "No numbers yet." }
                } else {
                    table { class: "table",
                        thead { tr { th { "Number" } th { "Filtered (30007)" } } }
                        tbody {
                            for (number, n) in rows.iter() {
                                tr { td { "{number}" } td { class: "num", "{n}" } }
                            }
                        }
                    }
                    if more > 0 {
                        p { class: "muted small", "and {more} more numbers, not shown." }
                    }
                }
            }
        }
    };
    let html = signed_in_document(state, m, "Sending", "/settings", main_html(body)).await;
    (status, Html(html)).into_response()
}
