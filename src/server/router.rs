//! The axum router: the Dioxus app's static files, server functions and pages, the webhooks,
//! health and metrics.
use crate::ops::health;
use crate::platform::metrics;
use crate::platform::AppState;
use axum::routing::get;
use axum::{Extension, Router};

/// The largest request body a route takes (a picture uploaded for a text, with room to spare),
/// but for a knowledge document's upload, which takes 10 MB.
pub const MAX_BODY_BYTES: usize = 8 * 1024 * 1024;

pub fn build_router(state: AppState) -> Router {
    let ops = Router::new()
        .route("/healthz", get(health::healthz))
        .route("/readyz", get(health::readyz))
        .route("/metrics", get(metrics::metrics))
        .with_state(state.clone());
    // A knowledge document may be 10 MB: its one route takes that, beyond every other route's.
    let documents = Router::new()
        .route(
            crate::knowledge::model::DOCUMENT_UPLOAD_PATH,
            axum::routing::post(crate::knowledge::upload::document_handler),
        )
        .layer(axum::extract::DefaultBodyLimit::disable())
        .layer(tower_http::limit::RequestBodyLimitLayer::new(
            crate::knowledge::model::DOCUMENT_MAX_BYTES as usize + 64 * 1024,
        ));
    app_router(state.config.public_dir.as_deref())
        .merge(crate::messaging::webhook::routes(state.clone()))
        .merge(crate::public_api::routes(state.clone()))
        .merge(crate::developers::routes(state.clone()))
        .merge(crate::records::erase_page::routes(state.clone()))
        .merge(crate::campaign::sending_page::routes(state.clone()))
        .merge(crate::campaign::profiles_page::routes(state.clone()))
        .merge(crate::messaging::timeline_page::routes(state.clone()))
        .merge(crate::contacts::reachability::routes(state.clone()))
        .merge(crate::audit_log::page::routes(state.clone()))
        .merge(crate::team::forgot_page::routes(state.clone()))
        .merge(crate::links::redirect::routes(state.clone()))
        .merge(crate::reports::page::routes(state.clone()))
        .merge(ops)
        .route(
            crate::contacts::export::EXPORT_PATH,
            get(crate::contacts::export::export),
        )
        .route(
            crate::contacts::import_job::REFUSED_PATH,
            get(crate::contacts::import_job::refused_csv),
        )
        .route(
            crate::media::serve::MEDIA_PATH,
            get(crate::media::serve::original),
        )
        .route(
            crate::media::serve::THUMB_PATH,
            get(crate::media::serve::thumb),
        )
        .route(
            crate::media::upload::UPLOAD_PATH,
            axum::routing::post(crate::media::upload::upload_handler).layer(
                axum::extract::DefaultBodyLimit::max(
                    crate::media::model::MAX_SEND_BYTES as usize + 1024,
                ),
            ),
        )
        .route(
            crate::media::upload::PUBLIC_PATH,
            get(crate::media::upload::public_handler),
        )
        .layer(tower_http::limit::RequestBodyLimitLayer::new(
            MAX_BODY_BYTES,
        ))
        .merge(documents)
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            crate::platform::origin::same_site_only,
        ))
        .layer(axum::middleware::from_fn(
            crate::server::assets::no_store_by_default,
        ))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            crate::server::security_headers::add,
        ))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            metrics::track,
        ))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            crate::server::host_check::check,
        ))
        // Every route has a time limit and a body limit (issue 49 §7): routes take less where
        // they read less (a webhook's form 64 KB, a server function's arguments 2 MB).
        .layer(tower_http::timeout::TimeoutLayer::with_status_code(
            axum::http::StatusCode::REQUEST_TIMEOUT,
            state.config.request_timeout,
        ))
        .layer(Extension(state))
}

/// The Dioxus app: its static files (precompressed, see `assets`) when a built `public/` folder
/// is configured, then server functions and server-rendered pages.
fn app_router(public: Option<&std::path::Path>) -> Router {
    use dioxus::server::{DioxusRouterExt, FullstackState, ServeConfig};
    let mut router = Router::<FullstackState>::new();
    if let Some(public) = public {
        router = crate::server::assets::routes(router, public);
    }
    let app = router
        .serve_api_application(ServeConfig::new(), crate::ui::app::App)
        // Malformed arguments are refused, naming the field, before Dioxus reads them.
        .layer(axum::middleware::from_fn(crate::platform::arg_check::check));
    // The seldom-opened pages load the full web client (`server::full_client`).
    match public.and_then(crate::server::full_client::Clients::read) {
        Some(clients) => app.layer(axum::middleware::from_fn_with_state(
            std::sync::Arc::new(clients),
            crate::server::full_client::answer,
        )),
        None => app,
    }
}
