//! `GET /healthz`: answers 200 when the database answers.
use crate::server::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;

pub async fn healthz(State(state): State<AppState>) -> (StatusCode, Json<serde_json::Value>) {
    match state.db.ping().await {
        Ok(()) => (
            StatusCode::OK,
            Json(serde_json::json!({"status": "ok", "database": "ok"})),
        ),
        Err(e) => {
            tracing::error!(error = %e, "health check: database unreachable");
            (
                StatusCode::SERVICE_UNAVAILABLE,
                Json(serde_json::json!({"status": "error", "database": "unreachable"})),
            )
        }
    }
}
