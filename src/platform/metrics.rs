//! Prometheus metrics: HTTP requests and latency by route, inbound and outbound message counters.
use crate::platform::AppState;
use axum::extract::{MatchedPath, Request, State};
use axum::http::header;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::histogram::{exponential_buckets, Histogram};
use prometheus_client::registry::Registry;
use std::time::Instant;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct RequestLabels {
    pub method: String,
    pub route: String,
    pub status: u16,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct RouteLabels {
    pub method: String,
    pub route: String,
}

pub struct Metrics {
    registry: Registry,
    pub requests: Family<RequestLabels, Counter>,
    pub latency: Family<RouteLabels, Histogram>,
    pub inbound_messages: Counter,
    pub outbound_messages: Counter,
    pub refused_messages: Counter,
    pub opt_outs: Counter,
}

impl Default for Metrics {
    fn default() -> Self {
        Self::new()
    }
}

impl Metrics {
    pub fn new() -> Self {
        let mut registry = Registry::with_prefix("herald");
        let requests = Family::<RequestLabels, Counter>::default();
        let latency = Family::<RouteLabels, Histogram>::new_with_constructor(|| {
            Histogram::new(exponential_buckets(0.0005, 2.0, 16))
        });
        let inbound_messages = Counter::default();
        let outbound_messages = Counter::default();
        let refused_messages = Counter::default();
        let opt_outs = Counter::default();
        registry.register(
            "refused_messages",
            "Outbound texts the compliance gate refused as they left",
            refused_messages.clone(),
        );
        registry.register(
            "opt_outs",
            "Numbers put on a suppression list",
            opt_outs.clone(),
        );
        registry.register("http_requests", "HTTP requests handled", requests.clone());
        registry.register(
            "http_request_duration_seconds",
            "HTTP request latency",
            latency.clone(),
        );
        registry.register(
            "inbound_messages",
            "Inbound texts stored",
            inbound_messages.clone(),
        );
        registry.register(
            "outbound_messages",
            "Outbound texts accepted by the transport",
            outbound_messages.clone(),
        );
        Self {
            registry,
            requests,
            latency,
            inbound_messages,
            outbound_messages,
            refused_messages,
            opt_outs,
        }
    }

    pub fn encode(&self) -> String {
        let mut out = String::new();
        prometheus_client::encoding::text::encode(&mut out, &self.registry)
            .expect("writing to a String cannot fail");
        out
    }
}

/// Middleware that counts and times every request by its route pattern.
pub async fn track(State(state): State<AppState>, req: Request, next: Next) -> Response {
    let method = method_label(req.method()).to_owned();
    let route = req
        .extensions()
        .get::<MatchedPath>()
        .map(|p| p.as_str().to_owned())
        .unwrap_or_else(|| "page".into());
    let start = Instant::now();
    let res = next.run(req).await;
    let labels = RouteLabels {
        method: method.clone(),
        route: route.clone(),
    };
    state
        .metrics
        .latency
        .get_or_create(&labels)
        .observe(start.elapsed().as_secs_f64());
    state
        .metrics
        .requests
        .get_or_create(&RequestLabels {
            method,
            route,
            status: res.status().as_u16(),
        })
        .inc();
    res
}

/// A bounded label for the request's method: a caller can send any token as a method, and
/// each new one would otherwise be a new time series kept for ever.
fn method_label(m: &axum::http::Method) -> &'static str {
    use axum::http::Method;
    match *m {
        Method::GET => "GET",
        Method::POST => "POST",
        Method::PUT => "PUT",
        Method::PATCH => "PATCH",
        Method::DELETE => "DELETE",
        Method::HEAD => "HEAD",
        Method::OPTIONS => "OPTIONS",
        _ => "other",
    }
}

/// `GET /metrics` in the Prometheus text format, for a caller bearing `METRICS_TOKEN`; without
/// that setting, for loopback callers only (behind a trusted proxy, the proxy's client counts).
pub async fn metrics(
    State(state): State<AppState>,
    axum::extract::ConnectInfo(peer): axum::extract::ConnectInfo<std::net::SocketAddr>,
    headers: axum::http::HeaderMap,
) -> axum::response::Response {
    if !metrics_allowed(&state, peer.ip(), &headers) {
        return (
            axum::http::StatusCode::UNAUTHORIZED,
            [(header::WWW_AUTHENTICATE, "Bearer")],
            "Metrics need the METRICS_TOKEN bearer token.\n",
        )
            .into_response();
    }
    (
        [(
            header::CONTENT_TYPE,
            "application/openmetrics-text; version=1.0.0; charset=utf-8",
        )],
        state.metrics.encode(),
    )
        .into_response()
}

fn metrics_allowed(
    state: &AppState,
    peer: std::net::IpAddr,
    headers: &axum::http::HeaderMap,
) -> bool {
    use sha2::{Digest, Sha256};
    match &state.config.metrics_token {
        Some(token) => headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            // Compared as digests: the time taken says nothing about the token.
            .is_some_and(|given| Sha256::digest(given.trim()) == Sha256::digest(token.as_bytes())),
        None => crate::platform::client_address::address_of(
            headers,
            Some(peer),
            state.config.trusted_proxy_header.as_deref(),
        )
        .and_then(|a| a.parse::<std::net::IpAddr>().ok())
        .is_some_and(|ip| ip.is_loopback()),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn made_up_methods_share_one_label() {
        use axum::http::Method;
        assert_eq!(super::method_label(&Method::POST), "POST");
        for m in ["FOO", "BAR", "X-ANYTHING"] {
            let m = Method::from_bytes(m.as_bytes()).unwrap();
            assert_eq!(super::method_label(&m), "other");
        }
    }
}
