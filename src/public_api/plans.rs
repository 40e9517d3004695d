//! `/v1/plans`: list, get, approve, reject and stop. A campaign still starts only through a
//! plan that its approval policy lets through: the API decides as the key's owner would in the
//! app, with the same role checks, and cannot skip a review sheet.
use crate::api_keys::service::Caller;
use crate::plans::model::{PlanCursor, PlanStatus};
use crate::platform::AppState;
use crate::public_api::caller::need;
use crate::public_api::cursor;
use crate::public_api::extract::{id_param, Body, Id, Params};
use crate::public_api::problem::{ApiResult, Problem};
use crate::public_api::schema::{Plan, PlanList, Rejection, StopReason};
use axum::extract::State;
use axum::{Extension, Json};
use serde::Deserialize;
use utoipa::{IntoParams, ToSchema};

/// A plan's status.
#[derive(Debug, Clone, Copy, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum PlanStatusParam {
    Drafting,
    AwaitingApproval,
    Approved,
    Rejected,
    Executing,
    Done,
    Failed,
    Stopped,
}

impl From<PlanStatusParam> for PlanStatus {
    fn from(s: PlanStatusParam) -> Self {
        match s {
            PlanStatusParam::Drafting => PlanStatus::Drafting,
            PlanStatusParam::AwaitingApproval => PlanStatus::AwaitingApproval,
            PlanStatusParam::Approved => PlanStatus::Approved,
            PlanStatusParam::Rejected => PlanStatus::Rejected,
            PlanStatusParam::Executing => PlanStatus::Executing,
            PlanStatusParam::Done => PlanStatus::Done,
            PlanStatusParam::Failed => PlanStatus::Failed,
            PlanStatusParam::Stopped => PlanStatus::Stopped,
        }
    }
}

#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct PlanQuery {
    /// drafting, awaiting_approval, approved, rejected, executing, done, failed or stopped.
    #[param(inline)]
    pub status: Option<PlanStatusParam>,
    /// Only this agent's plans.
    #[param(value_type = Option<Uuid>)]
    pub agent_id: Option<String>,
    /// From a previous page's `next_cursor`.
    pub cursor: Option<String>,
}

#[utoipa::path(get, path = "/plans", tag = "plans", operation_id = "listPlans", params(PlanQuery),
    security(("api_key" = ["plans:read"])),
    responses((status = 200, body = PlanList, description = "A page of plans, newest first"),
        (status = "4XX", body = Problem, description = "Refused (see the problem)")))]
pub async fn list(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Params(q): Params<PlanQuery>,
) -> ApiResult<Json<PlanList>> {
    need(&caller, "plans:read")?;
    let status = q.status.map(PlanStatus::from);
    let agent = id_param("agent_id", q.agent_id.as_deref())?;
    let after =
        cursor::read_at(q.cursor.as_deref())?.map(|(created_at, id)| PlanCursor { created_at, id });
    let by = crate::plans::service::PlanQuery {
        status,
        agent,
        thread: None,
        search: None,
        waiting: false,
        within_days: None,
    };
    let page = crate::plans::service::list(&state, &caller.member, by, after).await?;
    Ok(Json(PlanList {
        data: page.items.into_iter().map(Plan::from).collect(),
        total: page.total,
        next_cursor: page.next.as_ref().map(|c| cursor::at(c.created_at, c.id)),
    }))
}

#[utoipa::path(get, path = "/plans/{id}", tag = "plans", operation_id = "getPlan",
    params(("id" = Uuid, Path, description = "The plan's id")),
    security(("api_key" = ["plans:read"])),
    responses((status = 200, body = Plan, description = "The plan"),
        (status = "4XX", body = Problem, description = "Refused (see the problem); 404: no such plan")))]
pub async fn get(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Id(id): Id,
) -> ApiResult<Json<Plan>> {
    need(&caller, "plans:read")?;
    let p = crate::plans::access::find_visible(&state, &caller.member, id).await?;
    Ok(Json(crate::plans::service::view(&state, p).await?.into()))
}

#[utoipa::path(post, path = "/plans/{id}/approve", tag = "plans", operation_id = "approvePlan",
    params(("id" = Uuid, Path, description = "The plan's id")),
    security(("api_key" = ["plans:write"])),
    responses((status = 200, body = Plan, description = "The plan, approved"),
        (status = 409, body = Problem, description = "The plan was already decided"),
        (status = "4XX", body = Problem, description = "Refused (see the problem); 404: no such plan")))]
pub async fn approve(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Id(id): Id,
) -> ApiResult<Json<Plan>> {
    need(&caller, "plans:write")?;
    let p = crate::plans::decisions::approve(&state, &caller.member, id).await?;
    Ok(Json(p.into()))
}

#[utoipa::path(post, path = "/plans/{id}/reject", tag = "plans", operation_id = "rejectPlan",
    request_body = Rejection,
    params(("id" = Uuid, Path, description = "The plan's id")),
    security(("api_key" = ["plans:write"])),
    responses((status = 200, body = Plan, description = "The plan, rejected"),
        (status = 409, body = Problem, description = "The plan was already decided"),
        (status = "4XX", body = Problem, description = "Refused (see the problem); 404: no such plan")))]
pub async fn reject(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Id(id): Id,
    Body(r): Body<Rejection>,
) -> ApiResult<Json<Plan>> {
    need(&caller, "plans:write")?;
    let p = crate::plans::decisions::reject(&state, &caller.member, id, &r.reason).await?;
    Ok(Json(p.into()))
}

#[utoipa::path(post, path = "/plans/{id}/stop", tag = "plans", operation_id = "stopPlan",
    request_body = StopReason,
    params(("id" = Uuid, Path, description = "The plan's id")),
    security(("api_key" = ["plans:write"])),
    responses((status = 200, body = Plan, description = "The plan, stopped"),
        (status = 409, body = Problem, description = "Only an approved or running plan can be stopped"),
        (status = "4XX", body = Problem, description = "Refused (see the problem); 404: no such plan")))]
pub async fn stop(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Id(id): Id,
    Body(r): Body<StopReason>,
) -> ApiResult<Json<Plan>> {
    need(&caller, "plans:write")?;
    let p = crate::plans::stop::stop(&state, &caller.member, id, &r.reason).await?;
    Ok(Json(p.into()))
}
