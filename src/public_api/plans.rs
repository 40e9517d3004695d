//! `/v1/plans`: list, get, approve, reject and stop. A campaign still starts only through a
//! plan that its approval policy lets through: the API decides as the key's owner would in the
//! app, with the same role checks, and cannot skip a review sheet.
use crate::api_keys::service::Caller;
use crate::plans::model::{PlanCursor, PlanStatus};
use crate::public_api::caller::need;
use crate::public_api::cursor;
use crate::public_api::problem::{rejected, ApiResult, Problem};
use crate::public_api::schema::{Plan, PlanList, Reason};
use crate::server::AppState;
use axum::extract::rejection::{JsonRejection, QueryRejection};
use axum::extract::{Path, Query, State};
use axum::{Extension, Json};
use serde::Deserialize;
use utoipa::IntoParams;
use uuid::Uuid;

#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct PlanQuery {
    /// drafting, awaiting_approval, approved, rejected, executing, done, failed or stopped.
    pub status: Option<String>,
    pub agent_id: Option<Uuid>,
    pub cursor: Option<String>,
}

#[utoipa::path(get, path = "/plans", tag = "plans", params(PlanQuery),
    security(("api_key" = ["plans:read"])),
    responses((status = 200, body = PlanList), (status = "4XX", body = Problem)))]
pub async fn list(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    q: Result<Query<PlanQuery>, QueryRejection>,
) -> ApiResult<Json<PlanList>> {
    need(&caller, "plans:read")?;
    let Query(q) = q.map_err(rejected)?;
    let status = match q.status.as_deref() {
        None => None,
        Some(s) => Some(
            PlanStatus::parse(s)
                .ok_or_else(|| Problem::bad_request(format!("\"{s}\" is not a plan status.")))?,
        ),
    };
    let after: Option<PlanCursor> = cursor::decode(q.cursor.as_deref())?;
    let by = crate::plans::service::PlanQuery {
        status,
        agent: q.agent_id,
        thread: None,
        search: None,
        waiting: false,
        within_days: None,
    };
    let page = crate::plans::service::list(&state, &caller.member, by, after).await?;
    Ok(Json(PlanList {
        data: page.items.into_iter().map(Plan::from).collect(),
        total: page.total,
        next_cursor: page.next.as_ref().map(cursor::encode),
    }))
}

#[utoipa::path(get, path = "/plans/{id}", tag = "plans",
    params(("id" = Uuid, Path, description = "The plan's id")),
    security(("api_key" = ["plans:read"])),
    responses((status = 200, body = Plan), (status = "4XX", body = Problem)))]
pub async fn get(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<Uuid>,
) -> ApiResult<Json<Plan>> {
    need(&caller, "plans:read")?;
    let p = crate::plans::access::find_visible(&state, &caller.member, id).await?;
    Ok(Json(crate::plans::service::view(&state, p).await?.into()))
}

#[utoipa::path(post, path = "/plans/{id}/approve", tag = "plans",
    params(("id" = Uuid, Path, description = "The plan's id")),
    security(("api_key" = ["plans:write"])),
    responses((status = 200, body = Plan), (status = "4XX", body = Problem)))]
pub async fn approve(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<Uuid>,
) -> ApiResult<Json<Plan>> {
    need(&caller, "plans:write")?;
    let p = crate::plans::decisions::approve(&state, &caller.member, id).await?;
    Ok(Json(p.into()))
}

#[utoipa::path(post, path = "/plans/{id}/reject", tag = "plans", request_body = Reason,
    params(("id" = Uuid, Path, description = "The plan's id")),
    security(("api_key" = ["plans:write"])),
    responses((status = 200, body = Plan), (status = "4XX", body = Problem)))]
pub async fn reject(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<Uuid>,
    body: Result<Json<Reason>, JsonRejection>,
) -> ApiResult<Json<Plan>> {
    need(&caller, "plans:write")?;
    let Json(r) = body.map_err(rejected)?;
    let p = crate::plans::decisions::reject(&state, &caller.member, id, &r.reason).await?;
    Ok(Json(p.into()))
}

#[utoipa::path(post, path = "/plans/{id}/stop", tag = "plans", request_body = Reason,
    params(("id" = Uuid, Path, description = "The plan's id")),
    security(("api_key" = ["plans:write"])),
    responses((status = 200, body = Plan), (status = "4XX", body = Problem)))]
pub async fn stop(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<Uuid>,
    body: Result<Json<Reason>, JsonRejection>,
) -> ApiResult<Json<Plan>> {
    need(&caller, "plans:write")?;
    let Json(r) = body.map_err(rejected)?;
    let p = crate::plans::stop::stop(&state, &caller.member, id, &r.reason).await?;
    Ok(Json(p.into()))
}
