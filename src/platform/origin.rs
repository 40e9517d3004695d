//! Cross-site request forgery: a browser says where a request comes from (`Sec-Fetch-Site`,
//! `Origin`). A state-changing `/api` call, or the live WebSocket, from another site is refused
//! before it reaches a server function. Callers that are not browsers send neither header and
//! pass; the session cookie (SameSite=Lax) is the other half of the defence.
use crate::platform::AppState;
use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

/// Refuses cross-site state-changing `/api` calls and cross-site live sockets.
pub async fn same_site_only(State(state): State<AppState>, req: Request, next: Next) -> Response {
    let path = req.uri().path();
    let upgrade = req.headers().contains_key(header::UPGRADE);
    let changes_state = !matches!(*req.method(), Method::GET | Method::HEAD | Method::OPTIONS);
    if path.starts_with("/api/")
        && (changes_state || upgrade)
        && !same_site(req.headers(), &state.config.public_url)
    {
        tracing::warn!(
            path,
            origin = ?req.headers().get(header::ORIGIN),
            "cross-site request refused"
        );
        return (
            StatusCode::FORBIDDEN,
            "This request came from another site, so Herald refused it.",
        )
            .into_response();
    }
    next.run(req).await
}

/// Whether the browser's headers place the request on this site (or say nothing).
pub fn same_site(headers: &HeaderMap, public_url: &str) -> bool {
    if let Some(site) = headers.get("sec-fetch-site").and_then(|v| v.to_str().ok()) {
        // "none" is a person typing the address; same-origin and same-site are this app.
        if site == "cross-site" {
            return false;
        }
    }
    let Some(origin) = headers.get(header::ORIGIN) else {
        return true;
    };
    let Ok(origin) = origin.to_str() else {
        return false;
    };
    if origin == "null" {
        return false;
    }
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
    let origin_host = origin.split_once("://").map(|(_, h)| h).unwrap_or(origin);
    host.is_some_and(|h| h.eq_ignore_ascii_case(origin_host))
        || origin.eq_ignore_ascii_case(public_url.trim_end_matches('/'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, v.parse().unwrap());
        }
        h
    }

    #[test]
    fn only_this_site_may_change_state() {
        let public = "https://crm.example.com";
        assert!(same_site(&headers(&[]), public), "not a browser");
        assert!(same_site(
            &headers(&[
                ("host", "127.0.0.1:8080"),
                ("origin", "http://127.0.0.1:8080")
            ]),
            public
        ));
        assert!(same_site(
            &headers(&[
                ("host", "10.0.0.5:8080"),
                ("origin", "https://crm.example.com")
            ]),
            public
        ));
        assert!(same_site(
            &headers(&[("sec-fetch-site", "same-origin")]),
            public
        ));
        assert!(!same_site(
            &headers(&[
                ("host", "127.0.0.1:8080"),
                ("origin", "https://evil.example")
            ]),
            public
        ));
        assert!(!same_site(
            &headers(&[("sec-fetch-site", "cross-site")]),
            public
        ));
        assert!(!same_site(
            &headers(&[("host", "127.0.0.1:8080"), ("origin", "null")]),
            public
        ));
        assert!(!same_site(
            &headers(&[
                ("host", "127.0.0.1:8080"),
                ("origin", "http://127.0.0.1:8080.evil.example")
            ]),
            public
        ));
    }
}
