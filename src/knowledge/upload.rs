//! `POST /api/knowledge/document?name=<file name>`: a member's document, its bytes the request's
//! body and its type in `Content-Type`, as the composer's pictures are uploaded. The route takes
//! at most 10 MB and a little more (`server::router`), beyond the 8 MB other routes take.
use crate::auth::session::member_from_cookie_header;
use crate::knowledge::documents;
use crate::media::upload::error_response;
use crate::platform::AppState;
use axum::body::Bytes;
use axum::extract::Query;
use axum::http::{header, HeaderMap};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use serde::Deserialize;

#[derive(Deserialize)]
pub struct Named {
    #[serde(default)]
    name: String,
}

pub async fn document_handler(
    Extension(state): Extension<AppState>,
    Query(named): Query<Named>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let cookies = headers.get(header::COOKIE).and_then(|v| v.to_str().ok());
    let m = match member_from_cookie_header(&state, cookies).await {
        Ok(m) => m,
        Err(e) => return error_response(e),
    };
    let declared = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    match documents::add_document(&state, &m, &named.name, declared, body.to_vec()).await {
        Ok(v) => Json(v).into_response(),
        Err(e) => error_response(e),
    }
}
