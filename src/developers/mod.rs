//! The Developers page, `/developers`: an owner's API keys and webhooks, and the public API's
//! document.
//! It is rendered by the server as plain HTML with forms, not by the wasm app: it is opened
//! rarely, by owners, and the app's first-load budget cannot carry it (issue 28's 400 KB goal,
//! with 0.5 KB left). The settings page links to it. Forms post back here; a cross-site post is
//! refused, as `/api` calls are.
pub mod handlers;
pub mod page;

use crate::platform::AppState;
use axum::routing::{get, post};
use axum::Router;

pub const PATH: &str = "/developers";

pub fn routes(state: AppState) -> Router {
    Router::new()
        .route(PATH, get(handlers::show))
        .route("/developers/keys", post(handlers::create_key))
        .route("/developers/keys/{id}/revoke", post(handlers::revoke_key))
        .route("/developers/webhooks", post(handlers::subscribe))
        .route(
            "/developers/webhooks/{id}/{action}",
            post(handlers::webhook_action),
        )
        .route(
            "/developers/deliveries/{id}/{action}",
            post(handlers::webhook_action),
        )
        .with_state(state)
}
