//! Every `/v1` call but the OpenAPI document: the `Authorization: Bearer herald_…` key is
//! checked and counted against its rate before anything else runs, then the scope the document
//! names for the operation (so that a key without it is refused before its input is read), and
//! a write is audited with the key as its actor once it is answered. A read is counted on its key
//! (in the rate's own write) rather than written as an undeletable row of its own (issue 49 §6).
use crate::api_keys::service::{authenticate, Caller, Refusal};
use crate::platform::AppState;
use crate::public_api::problem::{ApiResult, Problem};
use axum::extract::{MatchedPath, Request, State};
use axum::http::{header, Method};
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
    let read = matches!(*req.method(), Method::GET | Method::HEAD);
    let caller = match authenticate(&state, &token, read).await {
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
    let scope = req
        .extensions()
        .get::<MatchedPath>()
        .and_then(|m| scope_of(req.method(), m.as_str()));
    req.extensions_mut().insert(caller.clone());
    let res = match scope {
        Some(s) if !caller.has(s) => Problem::forbidden().into_response(),
        _ => next.run(req).await,
    };
    let status = res.status().as_u16();
    if read {
        tracing::info!(key = %caller.key_id, org = %caller.member.organization_id, %target, status, "API read");
        return res;
    }
    if let Err(e) = crate::audit::service::record_api_call(
        &state.db,
        crate::audit::service::KeyCaller {
            organization_id: caller.member.organization_id,
            user_id: caller.member.user_id,
            key_id: caller.key_id,
        },
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

/// The scope the document names for an operation (`security: [{api_key: [scope]}]`), by method
/// and route (`/v1/contacts/{id}`).
fn scope_of(method: &Method, route: &str) -> Option<&'static str> {
    static SCOPES: std::sync::LazyLock<std::collections::HashMap<(String, String), String>> =
        std::sync::LazyLock::new(|| {
            let doc = crate::public_api::document();
            let mut m = std::collections::HashMap::new();
            for (path, item) in doc["paths"].as_object().into_iter().flatten() {
                for (verb, op) in item.as_object().into_iter().flatten() {
                    if let Some(s) = op.pointer("/security/0/api_key/0").and_then(|s| s.as_str()) {
                        m.insert((verb.to_uppercase(), path.clone()), s.to_owned());
                    }
                }
            }
            m
        });
    let path = route.strip_prefix("/v1").unwrap_or(route);
    SCOPES
        .get(&(method.as_str().to_owned(), path.to_owned()))
        .map(String::as_str)
}

/// The scope a handler needs: 403 without it.
pub fn need(caller: &Caller, scope: &str) -> ApiResult<()> {
    if caller.has(scope) {
        Ok(())
    } else {
        Err(Problem::forbidden())
    }
}
