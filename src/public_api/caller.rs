//! Every `/v1` call but the OpenAPI document: the `Authorization: Bearer herald_…` key is
//! checked and counted against its rate before anything else runs, and the call is audited with
//! the key as its actor once it is answered.
use crate::api_keys::service::{authenticate, Caller, Refusal};
use crate::public_api::problem::{ApiResult, Problem};
use crate::server::AppState;
use axum::extract::{Request, State};
use axum::http::header;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

pub async fn require_key(State(state): State<AppState>, mut req: Request, next: Next) -> Response {
    let token = req
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::to_owned);
    let Some(token) = token else {
        return Problem::unauthorized().into_response();
    };
    let caller = match authenticate(&state, &token).await {
        Ok(Ok(c)) => c,
        Ok(Err(Refusal::Unknown)) => return Problem::unauthorized().into_response(),
        Ok(Err(Refusal::Limited(s))) => return Problem::limited(s).into_response(),
        Err(e) => return Problem::from(e).into_response(),
    };
    // Inside `/v1` the path is the nested one; the audit names the whole.
    let path = req
        .extensions()
        .get::<axum::extract::OriginalUri>()
        .map(|u| u.0.path().to_owned())
        .unwrap_or_else(|| req.uri().path().to_owned());
    let target = format!("{} {path}", req.method());
    req.extensions_mut().insert(caller.clone());
    let res = next.run(req).await;
    let status = res.status().as_u16();
    if let Err(e) = crate::audit::service::record_api_call(
        &state.db,
        &caller,
        &target,
        status,
        state.clock.now(),
    )
    .await
    {
        tracing::error!(error = %e, key = %caller.key_id, "could not audit an API call");
    }
    tracing::info!(key = %caller.key_id, org = %caller.member.organization_id, %target, status, "API call");
    res
}

/// The scope a handler needs: 403 without it.
pub fn need(caller: &Caller, scope: &str) -> ApiResult<()> {
    if caller.has(scope) {
        Ok(())
    } else {
        Err(Problem::forbidden())
    }
}
