//! The `Host` a request names (issue 49 §9): `PUBLIC_URL`'s host, a loopback address (`127.x`,
//! `::1`, `localhost`: this machine's own tools and tests), or one the operator lists in
//! `ALLOWED_HOSTS`. Anything else is refused before it reaches a page or a server function: a
//! page served under a name an attacker controls (DNS rebinding) would otherwise be this origin to
//! the browser. The health checks answer whatever the host, for load balancers that ask by address.
use crate::platform::AppState;
use axum::extract::{Request, State};
use axum::http::{header, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

/// The host part of a `Host` header or URL authority: no port, no brackets, lower case.
fn host_only(authority: &str) -> String {
    let a = authority.trim();
    let host = if let Some(rest) = a.strip_prefix('[') {
        rest.split(']').next().unwrap_or_default()
    } else {
        a.rsplit_once(':')
            .filter(|(_, port)| port.chars().all(|c| c.is_ascii_digit()))
            .map_or(a, |(h, _)| h)
    };
    host.to_ascii_lowercase()
}

/// `PUBLIC_URL`'s host.
pub fn public_host(public_url: &str) -> String {
    let rest = public_url.split_once("://").map_or(public_url, |(_, r)| r);
    host_only(rest.split('/').next().unwrap_or_default())
}

/// Whether a request naming `host` is for this Herald.
pub fn allowed(host: &str, public_url: &str, extra: &[String]) -> bool {
    let h = host_only(host);
    if h == "localhost"
        || h.parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
    {
        return true;
    }
    h == public_host(public_url) || extra.iter().any(|e| host_only(e) == h)
}

pub async fn check(State(state): State<AppState>, req: Request, next: Next) -> Response {
    let path = req.uri().path();
    if path == "/healthz" || path == "/readyz" {
        return next.run(req).await;
    }
    let host = req
        .headers()
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .map(str::to_owned)
        .or_else(|| req.uri().authority().map(|a| a.to_string()))
        .unwrap_or_default();
    let c = &state.config;
    if !allowed(&host, &c.public_url, &c.allowed_hosts) {
        tracing::warn!(%host, path, "request for another host refused");
        return (
            StatusCode::MISDIRECTED_REQUEST,
            "This server does not answer for that host name.",
        )
            .into_response();
    }
    next.run(req).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_our_host_and_loopback_are_answered() {
        let public = "https://sms.example.com";
        let extra = vec!["herald.internal".to_owned()];
        for ok in [
            "sms.example.com",
            "SMS.example.com:443",
            "127.0.0.1:8080",
            "127.9.9.9",
            "[::1]:8080",
            "localhost:3000",
            "herald.internal:8080",
        ] {
            assert!(allowed(ok, public, &extra), "{ok}");
        }
        for refused in [
            "evil.example",
            "sms.example.com.evil",
            "10.0.0.5:8080",
            "",
            "[::2]",
        ] {
            assert!(!allowed(refused, public, &extra), "{refused}");
        }
        assert_eq!(public_host("http://127.0.0.1:8080/"), "127.0.0.1");
    }
}
