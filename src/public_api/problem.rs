//! Errors as RFC 9457 problem details (`application/problem+json`). Most are `about:blank`, so
//! `title` is the status's own phrase and `detail` says what went wrong in words; a refusal with
//! a reason a program may act on has a `type` of its own (`QUIET_HOURS`, `OPTED_OUT`,
//! `COMPLIANCE`). A refused key (401) or scope (403) says no more than its status.
//!
//! What the statuses mean on `/v1`: 400, the request breaks the published document (a body, query
//! or path the schema refuses, named by `pointer` or `parameter`); 404, an id the organisation
//! does not have; 409, a conflict with the state (a duplicate phone, a plan already decided, an
//! `Idempotency-Key` used for another body); 422, a request the document allows but the rules
//! refuse (a phone number that does not exist, a text the compliance rules hold back).
use crate::error::AppError;
use axum::body::Body;
use axum::extract::Request;
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

pub const PROBLEM_JSON: &str = "application/problem+json";

/// The `type` of a problem its status says all about.
pub const ABOUT_BLANK: &str = "about:blank";
/// A text held back because its recipient is in quiet hours (422): `send_after` says when it may
/// go. Nothing is queued; send it again then.
pub const QUIET_HOURS: &str = "tag:herald.example,2026:problems/quiet-hours";
/// A text to a number that opted out (422): nothing more is sent to it unless they text START.
pub const OPTED_OUT: &str = "tag:herald.example,2026:problems/opted-out";
/// A text the compliance rules refuse for another reason (422), such as no marketing consent on
/// record, a possible opt-out awaiting a person, or a state's daily cap; `detail` says which.
pub const COMPLIANCE: &str = "tag:herald.example,2026:problems/compliance";

/// A problem detail (RFC 9457).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Problem {
    /// `about:blank` (the status says what kind of problem it is), or one of Herald's problem
    /// types: `tag:herald.example,2026:problems/quiet-hours` (a text held back by the
    /// recipient's quiet hours, 422, with `send_after`), `…/opted-out` (a text to a number that
    /// opted out, 422) and `…/compliance` (a text another compliance rule refuses, 422).
    #[serde(rename = "type")]
    pub kind: String,
    /// The status's phrase, such as "Not Found", or the problem type's own title.
    pub title: String,
    pub status: u16,
    /// What went wrong, for a person.
    pub detail: String,
    /// The part of the JSON body at fault, as a JSON Pointer fragment (`#/filter/ids/0`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pointer: Option<String>,
    /// The query, path or header parameter at fault.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parameter: Option<String>,
    /// Seconds to wait before trying again (429 only; also the `Retry-After` header).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_after: Option<u64>,
    /// When the text may go (quiet hours only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub send_after: Option<DateTime<Utc>>,
}

impl Problem {
    pub fn new(status: StatusCode, detail: impl Into<String>) -> Self {
        Self {
            kind: ABOUT_BLANK.into(),
            title: status.canonical_reason().unwrap_or("Error").into(),
            status: status.as_u16(),
            detail: detail.into(),
            pointer: None,
            parameter: None,
            retry_after: None,
            send_after: None,
        }
    }

    /// A problem of one of Herald's own types.
    pub fn typed(status: StatusCode, kind: &str, title: &str, detail: impl Into<String>) -> Self {
        Self {
            kind: kind.into(),
            title: title.into(),
            ..Self::new(status, detail)
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

    /// A query, path or header parameter the document refuses (400).
    pub fn bad_parameter(name: &str, detail: impl Into<String>) -> Self {
        let mut p = Self::bad_request(detail);
        p.parameter = Some(name.into());
        p
    }

    /// A part of the body the document refuses (400); `pointer` is a JSON Pointer.
    pub fn bad_body(pointer: &str, detail: impl Into<String>) -> Self {
        let mut p = Self::bad_request(detail);
        p.pointer = Some(format!("#{pointer}"));
        p
    }
}

impl From<AppError> for Problem {
    fn from(e: AppError) -> Self {
        use dioxus::fullstack::AsStatusCode;
        match e {
            AppError::Unauthorized => Self::unauthorized(),
            AppError::Forbidden => Self::forbidden(),
            // Whatever reaches a service has passed the document: what it refuses, it refuses
            // for what the input means (no such phone number, no number to send from).
            AppError::Validation(m) => Self::new(StatusCode::UNPROCESSABLE_ENTITY, m),
            AppError::OptedOut(m) => {
                Self::typed(StatusCode::UNPROCESSABLE_ENTITY, OPTED_OUT, "Opted out", m)
            }
            other => {
                let status = StatusCode::from_u16(other.as_status_code().as_u16())
                    .unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
                Self::new(status, other.to_string())
            }
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
        h.insert(header::CONTENT_TYPE, HeaderValue::from_static(PROBLEM_JSON));
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

/// The longest error body from elsewhere (axum's own rejections) that is kept as a detail.
const FOREIGN_BODY_MAX: usize = 4096;

/// Every error `/v1` answers is problem JSON, whoever made it: an answer of 400 or more in any
/// other form (axum's 405 for a method a path does not take, a body over the size limit) is
/// rewritten as a problem with the same status and headers, its text as the detail.
pub async fn ensure_problem(req: Request, next: Next) -> Response {
    let res = next.run(req).await;
    let is_error = res.status().is_client_error() || res.status().is_server_error();
    let is_problem = res
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(PROBLEM_JSON.as_bytes()));
    if !is_error || is_problem {
        return res;
    }
    let (mut parts, body) = res.into_parts();
    let text = axum::body::to_bytes(body, FOREIGN_BODY_MAX)
        .await
        .map(|b| String::from_utf8_lossy(&b).trim().to_owned())
        .unwrap_or_default();
    let detail = if text.is_empty() {
        parts
            .status
            .canonical_reason()
            .unwrap_or("Error")
            .to_owned()
    } else {
        text
    };
    let problem = Problem::new(parts.status, detail);
    let json = serde_json::to_vec(&problem).unwrap_or_default();
    parts
        .headers
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(PROBLEM_JSON));
    parts.headers.remove(header::CONTENT_LENGTH);
    Response::from_parts(parts, Body::from(json))
}
