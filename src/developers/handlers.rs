//! The Developers page's requests: show it, create a key (its secret in that one answer), and
//! revoke one (then back to the page). A signed-out visitor goes to sign in.
// A handler's early exit is a whole response; boxing it would only move the size elsewhere.
#![allow(clippy::result_large_err)]
use crate::api_keys::model::ApiKeyCursor;
use crate::api_keys::service::{self, Rate};
use crate::auth::session::Member;
use crate::developers::page::{render, Notice};
use crate::error::AppError;
use crate::platform::AppState;
use crate::server_page::{Poster, Viewer};
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Redirect, Response};
use serde::Deserialize;
use uuid::Uuid;

async fn page(
    state: &AppState,
    m: &Member,
    before: Option<ApiKeyCursor>,
    notice: Notice,
    status: StatusCode,
) -> Response {
    let owner = m.require_owner().is_ok();
    let (keys, hooks) = if owner {
        let keys = service::list(state, m, before).await;
        let hooks = crate::webhooks::service::list(state, m).await;
        match (keys, hooks) {
            (Ok(k), Ok(h)) => (Some(k), h),
            (Err(e), _) | (_, Err(e)) => {
                return (StatusCode::INTERNAL_SERVER_ERROR, e.to_string()).into_response()
            }
        }
    } else {
        (None, Vec::new())
    };
    let body = crate::server_page::main_html(render(owner, keys.as_ref(), &hooks, &notice));
    let html =
        crate::server_page::signed_in_document(state, m, "Developers", "/settings", body).await;
    (status, Html(html)).into_response()
}

#[derive(Deserialize)]
pub struct Older {
    before_at: Option<i64>,
    before_id: Option<Uuid>,
}

pub async fn show(
    State(state): State<AppState>,
    Viewer(m): Viewer,
    Query(q): Query<Older>,
) -> Response {
    let before = match (q.before_at, q.before_id) {
        (Some(at), Some(id)) => {
            chrono::DateTime::from_timestamp_micros(at).map(|at| ApiKeyCursor { at, id })
        }
        _ => None,
    };
    page(&state, &m, before, Notice::default(), StatusCode::OK).await
}

pub async fn create_key(
    State(state): State<AppState>,
    Poster(m): Poster,
    body: String,
) -> Response {
    let (name, scopes) = form(&body, "name", "scope");
    match service::create(&state, &m, &name, &scopes, Rate::default()).await {
        Ok(k) => {
            let notice = Notice {
                secret: Some((k.key.name, k.token)),
                ..Default::default()
            };
            page(&state, &m, None, notice, StatusCode::CREATED).await
        }
        Err(e) => {
            let status = match e {
                AppError::Forbidden => StatusCode::FORBIDDEN,
                _ => StatusCode::BAD_REQUEST,
            };
            let notice = Notice {
                error: Some(e.to_string()),
                name,
                ..Default::default()
            };
            page(&state, &m, None, notice, status).await
        }
    }
}

pub async fn revoke_key(
    State(state): State<AppState>,
    Poster(m): Poster,
    Path(id): Path<Uuid>,
) -> Response {
    match service::revoke(&state, &m, id).await {
        Ok(_) => Redirect::to(crate::developers::PATH).into_response(),
        Err(e) => {
            let notice = Notice {
                error: Some(e.to_string()),
                ..Default::default()
            };
            let status = match e {
                AppError::NotFound(_) => StatusCode::NOT_FOUND,
                AppError::Forbidden => StatusCode::FORBIDDEN,
                _ => StatusCode::BAD_REQUEST,
            };
            page(&state, &m, None, notice, status).await
        }
    }
}

fn status_of(e: &AppError) -> StatusCode {
    match e {
        AppError::Forbidden => StatusCode::FORBIDDEN,
        AppError::NotFound(_) => StatusCode::NOT_FOUND,
        AppError::Conflict(_) => StatusCode::CONFLICT,
        _ => StatusCode::BAD_REQUEST,
    }
}

pub async fn subscribe(State(state): State<AppState>, Poster(m): Poster, body: String) -> Response {
    let (url, events) = form(&body, "url", "event");
    match crate::webhooks::service::create(&state, &m, &url, &events).await {
        Ok((row, secret)) => {
            let notice = Notice {
                webhook_secret: Some((row.url, secret)),
                ..Default::default()
            };
            page(&state, &m, None, notice, StatusCode::CREATED).await
        }
        Err(e) => {
            let status = status_of(&e);
            let notice = Notice {
                webhook_error: Some(e.to_string()),
                url,
                ..Default::default()
            };
            page(&state, &m, None, notice, status).await
        }
    }
}

/// What a button on a webhook or a delivery does.
pub async fn webhook_action(
    State(state): State<AppState>,
    Poster(m): Poster,
    Path((id, action)): Path<(Uuid, String)>,
) -> Response {
    use crate::webhooks::service as hooks;
    let done = match action.as_str() {
        "test" => hooks::send_test(&state, &m, id).await,
        "remove" => hooks::remove(&state, &m, id).await,
        "redeliver" => hooks::redeliver(&state, &m, id).await,
        _ => Err(AppError::not_found("That action")),
    };
    match done {
        Ok(()) => Redirect::to(crate::developers::PATH).into_response(),
        Err(e) => {
            let status = status_of(&e);
            let notice = Notice {
                webhook_error: Some(e.to_string()),
                ..Default::default()
            };
            page(&state, &m, None, notice, status).await
        }
    }
}

/// A posted form's one `single` field and every value of its `many` field (checkboxes).
fn form(body: &str, single: &str, many: &str) -> (String, Vec<String>) {
    let fields: Vec<(String, String)> = serde_urlencoded::from_str(body).unwrap_or_default();
    let one = fields
        .iter()
        .find(|(k, _)| k == single)
        .map(|(_, v)| v.clone())
        .unwrap_or_default();
    let all = fields
        .into_iter()
        .filter(|(k, _)| k == many)
        .map(|(_, v)| v)
        .collect();
    (one, all)
}
