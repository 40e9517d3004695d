//! Server functions' arguments, checked before Dioxus reads them (issue 49 §10). Dioxus answers
//! a body it cannot read as its arguments with a 500 ("error deserializing …"); here the body is
//! read as each function's own arguments first (`rpc::ArgCheck`, registered by `server_fn!`), so
//! that a malformed one is a 400 that names the field, in the error shape the clients read.
use crate::error::AppError;
use axum::body::Body;
use axum::extract::Request;
use axum::http::{header, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use std::collections::HashMap;
use std::sync::LazyLock;

/// The largest body a server function takes: axum's own default, which Dioxus's reader uses too.
pub const MAX_ARGS_BYTES: usize = 2 * 1024 * 1024;

/// A server function's argument check (`rpc::ArgCheck::check`).
type Check = fn(&[u8]) -> Result<(), String>;

static CHECKS: LazyLock<HashMap<&'static str, Check>> = LazyLock::new(|| {
    inventory::iter::<crate::rpc::ArgCheck>
        .into_iter()
        .map(|c| (c.path, c.check))
        .collect()
});

/// How many server functions have a check (every POST one).
pub fn registered() -> usize {
    CHECKS.len()
}

/// The error as the clients decode it (`rpc::client::error_from`): Dioxus's payload with the
/// serialised `AppError` as its data.
pub fn error_response(status: StatusCode, e: AppError) -> Response {
    let body = serde_json::json!({"message": e.to_string(), "code": status.as_u16(), "data": e});
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}

pub async fn check(req: Request, next: Next) -> Response {
    if req.method() != Method::POST {
        return next.run(req).await;
    }
    let Some(check) = CHECKS.get(req.uri().path()).copied() else {
        return next.run(req).await;
    };
    let (parts, body) = req.into_parts();
    let bytes = match axum::body::to_bytes(body, MAX_ARGS_BYTES).await {
        Ok(b) => b,
        Err(_) => {
            return error_response(
                StatusCode::PAYLOAD_TOO_LARGE,
                AppError::Validation(format!(
                    "The request is over {} MB.",
                    MAX_ARGS_BYTES / (1024 * 1024)
                )),
            )
        }
    };
    if let Err(why) = check(&bytes) {
        tracing::info!(path = %parts.uri.path(), %why, "server function arguments refused");
        return error_response(StatusCode::BAD_REQUEST, AppError::Validation(why));
    }
    next.run(Request::from_parts(parts, Body::from(bytes)))
        .await
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_post_server_function_has_its_check() {
        let posts = dioxus::server::ServerFunction::collect()
            .iter()
            .filter(|f| f.method() == axum::http::Method::POST)
            .count();
        assert!(posts >= 100, "{posts}");
        assert_eq!(super::registered(), posts);
    }

    #[test]
    fn a_missing_or_mistyped_field_is_named() {
        use crate::rpc::check_args;
        #[derive(serde::Deserialize)]
        #[allow(dead_code)]
        struct Args {
            id: uuid::Uuid,
            digest: String,
            status: Option<crate::plans::model::PlanStatus>,
        }
        let id = uuid::Uuid::nil();
        let err = |body: &str| check_args::<Args>(body.as_bytes()).unwrap_err();
        assert!(err(&format!(r#"{{"id":"{id}"}}"#)).contains("missing field `digest`"));
        let status = err(&format!(r#"{{"id":"{id}","digest":"d","status":"All"}}"#));
        assert!(
            status.starts_with("The field `status` is malformed"),
            "{status}"
        );
        assert!(err(r#"{"id":"x","digest":"d"}"#).contains("`id`"));
        assert!(err("{{").starts_with("The request is not valid JSON"));
        assert!(check_args::<Args>(format!(r#"{{"id":"{id}","digest":"d"}}"#).as_bytes()).is_ok());
    }
}
