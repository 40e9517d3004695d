//! The axum router: the Dioxus app and its server functions, the webhooks, health and metrics.
use crate::ops::{health, metrics};
use crate::server::AppState;
use axum::routing::get;
use axum::{Extension, Router};

pub fn build_router(state: AppState) -> Router {
    let ops = Router::new()
        .route("/healthz", get(health::healthz))
        .route("/metrics", get(metrics::metrics))
        .with_state(state.clone());
    app_router()
        .merge(crate::messaging::webhook::routes(state.clone()))
        .merge(ops)
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            crate::server::origin::same_site_only,
        ))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            metrics::track,
        ))
        .layer(Extension(state))
}

/// The Dioxus app; without a built `public/` folder (tests, `cargo run`) it serves pages and
/// server functions but no static assets.
fn app_router() -> Router {
    use dioxus::server::{DioxusRouterExt, FullstackState, ServeConfig};
    let public = std::env::var_os("DIOXUS_PUBLIC_PATH")
        .map(std::path::PathBuf::from)
        .or_else(|| {
            std::env::current_exe()
                .ok()?
                .parent()
                .map(|p| p.join("public"))
        });
    if public.is_some_and(|p| p.is_dir()) {
        dioxus::server::router(crate::app::App)
    } else {
        Router::<FullstackState>::new().serve_api_application(ServeConfig::new(), crate::app::App)
    }
}
