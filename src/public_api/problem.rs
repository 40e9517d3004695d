//! Errors as RFC 9457 problem details (`application/problem+json`): `type` is `about:blank`, so
//! `title` is the status's own phrase, and `detail` says what went wrong in words. A refused key
//! (401) or scope (403) says no more than its status.
use crate::error::AppError;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A problem detail (RFC 9457).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Problem {
    /// Always `about:blank`: the status says what kind of problem it is.
    #[serde(rename = "type")]
    pub kind: String,
    /// The status's phrase, such as "Not Found".
    pub title: String,
    pub status: u16,
    /// What went wrong, for a person.
    pub detail: String,
    /// Seconds to wait before trying again (429 only; also the `Retry-After` header).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_after: Option<u64>,
}

impl Problem {
    pub fn new(status: StatusCode, detail: impl Into<String>) -> Self {
        Self {
            kind: "about:blank".into(),
            title: status.canonical_reason().unwrap_or("Error").into(),
            status: status.as_u16(),
            detail: detail.into(),
            retry_after: None,
        }
    }

    pub fn unauthorized() -> Self {
        Self::new(StatusCode::UNAUTHORIZED, "A valid API key is needed.")
    }

    pub fn forbidden() -> Self {
        Self::new(StatusCode::FORBIDDEN, "This key may not do that.")
    }

    pub fn limited(seconds: u64) -> Self {
        let mut p = Self::new(
            StatusCode::TOO_MANY_REQUESTS,
            format!("Too many requests with this key: try again in {seconds} s."),
        );
        p.retry_after = Some(seconds);
        p
    }

    pub fn bad_request(detail: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, detail)
    }
}

impl From<AppError> for Problem {
    fn from(e: AppError) -> Self {
        use dioxus::fullstack::AsStatusCode;
        let status = StatusCode::from_u16(e.as_status_code().as_u16())
            .unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        match e {
            AppError::Unauthorized => Self::unauthorized(),
            AppError::Forbidden => Self::forbidden(),
            other => Self::new(status, other.to_string()),
        }
    }
}

impl From<sea_orm::DbErr> for Problem {
    fn from(e: sea_orm::DbErr) -> Self {
        AppError::from(e).into()
    }
}

impl IntoResponse for Problem {
    fn into_response(self) -> Response {
        let status = StatusCode::from_u16(self.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let retry = self.retry_after;
        let unauthorized = status == StatusCode::UNAUTHORIZED;
        let mut res = (status, axum::Json(self)).into_response();
        let h = res.headers_mut();
        h.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/problem+json"),
        );
        if let Some(s) = retry {
            h.insert(header::RETRY_AFTER, HeaderValue::from(s));
        }
        if unauthorized {
            h.insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        }
        res
    }
}

/// What every handler answers.
pub type ApiResult<T> = Result<T, Problem>;

/// A JSON body or query that did not parse, as a problem rather than axum's plain text.
pub fn rejected(e: impl std::fmt::Display) -> Problem {
    Problem::bad_request(e.to_string())
}
