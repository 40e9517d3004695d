//! Security headers on every response: a Content-Security-Policy the app runs under (its own
//! scripts, WebAssembly and live socket; no plug-ins, no framing, no foreign connections or form
//! targets), `X-Frame-Options: DENY`, `X-Content-Type-Options: nosniff`, a same-origin
//! `Referrer-Policy` (invitation and reset links carry tokens in their path), and HSTS when the
//! public address is https.
use crate::platform::AppState;
use axum::extract::{Request, State};
use axum::http::{header, HeaderValue};
use axum::middleware::Next;
use axum::response::Response;

/// Dioxus's fullstack pages carry inline bootstrap and hydration scripts, and its `eval` builds
/// functions from strings, so scripts are limited to this origin plus those; everything else
/// (connections, images, fonts, frames, objects, forms, `<base>`) to this origin or nothing.
pub const CSP: &str = "default-src 'self'; \
    script-src 'self' 'unsafe-inline' 'unsafe-eval' 'wasm-unsafe-eval'; \
    style-src 'self' 'unsafe-inline'; \
    img-src 'self' data: blob:; \
    font-src 'self' data:; \
    connect-src 'self'; \
    object-src 'none'; \
    base-uri 'self'; \
    form-action 'self'; \
    frame-ancestors 'none'";

pub async fn add(State(state): State<AppState>, req: Request, next: Next) -> Response {
    let mut res = next.run(req).await;
    let h = res.headers_mut();
    // A response that set its own policy keeps it: a served media file's sandbox is stricter than
    // the app's, and the app's would undo it (issue 49 §9).
    if !h.contains_key(header::CONTENT_SECURITY_POLICY) {
        h.insert(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(CSP),
        );
    }
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("same-origin"),
    );
    if state.config.public_url.starts_with("https://") {
        h.insert(
            header::STRICT_TRANSPORT_SECURITY,
            HeaderValue::from_static("max-age=31536000"),
        );
    }
    res
}
