//! `GET /healthz`: answers 200 when the database answers (liveness), and reports the scheduled
//! backups; `GET /readyz`: whether to route traffic here.
use crate::platform::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;

/// A failed backup shows in `backup.last_error` but leaves the status code alone: restarting
/// the process would not fix a full disk.
pub async fn healthz(State(state): State<AppState>) -> (StatusCode, Json<serde_json::Value>) {
    let backup = state.backups.get();
    match state.db.ping().await {
        Ok(()) => (
            StatusCode::OK,
            Json(serde_json::json!({"status": "ok", "database": "ok", "backup": backup})),
        ),
        Err(e) => {
            tracing::error!(error = %e, "health check: database unreachable");
            (
                StatusCode::SERVICE_UNAVAILABLE,
                Json(
                    serde_json::json!({"status": "error", "database": "unreachable", "backup": backup}),
                ),
            )
        }
    }
}

/// `GET /readyz`: 200 only when this instance should take traffic: the database answers, every
/// migration is applied, and the server is not shutting down. A load balancer routes by it;
/// `/healthz` stays a liveness check.
pub async fn readyz(State(state): State<AppState>) -> (StatusCode, Json<serde_json::Value>) {
    use migration::MigratorTrait;
    let not_ready = |why: &str| {
        (
            StatusCode::SERVICE_UNAVAILABLE,
            Json(serde_json::json!({"status": "not ready", "reason": why})),
        )
    };
    if state.draining.is_cancelled() || state.shutdown.is_cancelled() {
        return not_ready("shutting down");
    }
    if let Err(e) = state.db.ping().await {
        tracing::error!(error = %e, "readiness: database unreachable");
        return not_ready("database unreachable");
    }
    match migration::Migrator::get_pending_migrations(&state.db).await {
        Ok(p) if p.is_empty() => (
            StatusCode::OK,
            Json(serde_json::json!({"status": "ready", "database": "ok", "migrations": "applied"})),
        ),
        Ok(p) => not_ready(&format!("{} migration(s) pending", p.len())),
        Err(e) => {
            tracing::error!(error = %e, "readiness: migrations unreadable");
            not_ready("migrations unreadable")
        }
    }
}
