//! The public API, `/v1` (issue 31 §2): other systems reach Herald with an API key
//! (`crate::api_keys`) instead of a browser session. Every route but `/v1/openapi.json` passes
//! `caller::require_key`; each handler then checks its scope and calls the same services the app's
//! server functions do, so every rule (organisation scoping, roles, the compliance gate) holds
//! here too. Errors are RFC 9457 problem JSON. The OpenAPI 3.1 document is generated from the
//! handlers' annotations, so the routes and the document cannot drift apart; `contract` adds what
//! the derive cannot say (patterns, bounds, the rule across a new contact's fields), and every
//! body is checked against the document as published (`extract`). The document passes
//! openapi-spec-validator, and schemathesis finds nothing with all its checks
//! (`tests/integration/api_conformance.rs`).
// A handler's early exit is a whole problem answer; boxing it would only move the size elsewhere.
#![allow(clippy::result_large_err)]
pub mod caller;
pub mod contacts;
pub mod contract;
pub mod cursor;
pub mod directory;
pub mod extract;
pub mod messages;
pub mod plans;
pub mod problem;
pub mod schema;
pub mod webhooks;

use crate::platform::AppState;
use axum::http::{header, StatusCode};
use axum::response::IntoResponse;
use axum::routing::get;
use axum::Router;
use std::sync::{Arc, LazyLock};
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::OpenApi;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

pub const OPENAPI_PATH: &str = "/v1/openapi.json";

#[derive(OpenApi)]
#[openapi(
    info(
        title = "Herald API",
        version = "1",
        description = "Contacts, conversations, texts and plans of one organisation, with an API key (`Authorization: Bearer herald_…`) an owner creates in Settings → API keys. Each key has scopes and a rate limit (10 requests a second with bursts of 50 unless its owner chose otherwise). Errors are RFC 9457 problem details."
    ),
    servers((url = "/v1")),
    modifiers(&Security),
    tags(
        (name = "contacts", description = "Contacts, their tags and fields; opt-out state is read only"),
        (name = "messages", description = "Conversations, their messages, and sending a text"),
        (name = "plans", description = "Plans the agents present, and decisions on them"),
        (name = "directory", description = "Segments, phone numbers and agents"),
        (name = "webhooks", description = "Subscriptions to Herald's events, delivered signed (Standard Webhooks)")
    )
)]
struct ApiDoc;

struct Security;

impl utoipa::Modify for Security {
    fn modify(&self, api: &mut utoipa::openapi::OpenApi) {
        let components = api.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "api_key",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .bearer_format("herald_…")
                    .build(),
            ),
        );
    }
}

/// The `/v1` routes and the document that describes them.
fn api_router() -> (Router<AppState>, utoipa::openapi::OpenApi) {
    OpenApiRouter::with_openapi(ApiDoc::openapi())
        .routes(routes!(contacts::list, contacts::create))
        .routes(routes!(contacts::get, contacts::update, contacts::delete))
        .routes(routes!(contacts::import))
        .routes(routes!(contacts::search))
        .routes(routes!(messages::conversations))
        .routes(routes!(messages::messages))
        .routes(routes!(messages::send))
        .routes(routes!(plans::list))
        .routes(routes!(plans::get))
        .routes(routes!(plans::approve))
        .routes(routes!(plans::reject))
        .routes(routes!(plans::stop))
        .routes(routes!(directory::segments))
        .routes(routes!(directory::numbers))
        .routes(routes!(directory::agents))
        .routes(routes!(webhooks::list, webhooks::create))
        .routes(routes!(webhooks::remove))
        .split_for_parts()
}

/// The document as the handlers' annotations derive it, before `contract::tighten`.
pub fn derived_document() -> serde_json::Value {
    serde_json::to_value(api_router().1).unwrap_or_default()
}

static DOCUMENT: LazyLock<serde_json::Value> = LazyLock::new(|| {
    let mut doc = derived_document();
    let missing = contract::tighten(&mut doc);
    if !missing.is_empty() {
        tracing::error!(
            ?missing,
            "constraints with nowhere to go in the API document"
        );
    }
    doc
});

/// The OpenAPI document `/v1/openapi.json` publishes, and the bodies are checked against.
pub fn document() -> &'static serde_json::Value {
    &DOCUMENT
}

/// The OpenAPI document as JSON, for tests and tools.
pub fn openapi_json() -> String {
    serde_json::to_string_pretty(document()).unwrap_or_default()
}

pub fn routes(state: AppState) -> Router {
    let (api, _) = api_router();
    let doc = Arc::new(openapi_json());
    let api = api
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            caller::require_key,
        ))
        .fallback(|| async { problem::Problem::new(StatusCode::NOT_FOUND, "No such API route.") })
        .layer(axum::middleware::from_fn(problem::ensure_problem))
        .with_state(state);
    Router::new().nest("/v1", api).route(
        OPENAPI_PATH,
        get(move || {
            let doc = doc.clone();
            async move { ([(header::CONTENT_TYPE, "application/json")], (*doc).clone()).into_response() }
        }),
    )
}
