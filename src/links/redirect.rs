//! `GET /l/<code>`: a short link's redirect (302) to where it goes, counting the click. A code
//! that is not one gets the same bare 404 as any unknown path, whatever the reason. Link
//! previews (a phone's or a chat app's robot fetching the page to draw a card) are redirected
//! but not counted, and neither is a HEAD request: only a person's tap is a click.
use crate::links::model::PATH;
use crate::platform::AppState;
use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;

/// Words in the User-Agent of the common link-preview robots.
const PREVIEW_AGENTS: [&str; 12] = [
    "facebookexternalhit",
    "facebot",
    "twitterbot",
    "slackbot",
    "whatsapp",
    "telegrambot",
    "discordbot",
    "linkedinbot",
    "skypeuripreview",
    "googlebot",
    "bingbot",
    "applebot",
];

pub fn routes(state: AppState) -> Router {
    Router::new()
        .route(&format!("{PATH}{{code}}"), get(follow))
        .with_state(state)
}

/// True when the request comes from a link-preview robot.
fn is_preview(headers: &HeaderMap) -> bool {
    let agent = headers
        .get(header::USER_AGENT)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_ascii_lowercase();
    PREVIEW_AGENTS.iter().any(|a| agent.contains(a))
}

async fn follow(
    State(state): State<AppState>,
    method: Method,
    headers: HeaderMap,
    Path(code): Path<String>,
) -> Response {
    let count = method == Method::GET && !is_preview(&headers);
    match crate::links::service::click(&state.db, &code, count, state.clock.now()).await {
        Ok(Some(url)) => (
            StatusCode::FOUND,
            [
                (header::LOCATION, url),
                (header::REFERRER_POLICY, "no-referrer".to_owned()),
                (header::CACHE_CONTROL, "no-store".to_owned()),
            ],
        )
            .into_response(),
        Ok(None) => (StatusCode::NOT_FOUND, "Not found").into_response(),
        Err(e) => {
            tracing::error!(error = %e, "short link lookup failed");
            (StatusCode::SERVICE_UNAVAILABLE, "Try again in a moment.").into_response()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn previews_are_told_from_people() {
        let mut h = HeaderMap::new();
        assert!(!is_preview(&h));
        h.insert(
            header::USER_AGENT,
            "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0) Safari/604.1"
                .parse()
                .unwrap(),
        );
        assert!(!is_preview(&h));
        h.insert(
            header::USER_AGENT,
            "facebookexternalhit/1.1 Facebot Twitterbot/1.0"
                .parse()
                .unwrap(),
        );
        assert!(is_preview(&h));
    }
}
