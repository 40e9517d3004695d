//! `/v1/segments`, `/v1/numbers` and `/v1/agents`: what an integration needs to name when it
//! lists contacts, sends a text or reads plans. Read only.
use crate::api_keys::service::Caller;
use crate::platform::AppState;
use crate::public_api::caller::need;
use crate::public_api::problem::{ApiResult, Problem};
use crate::public_api::schema::{
    Agent, AgentList, PhoneNumber, PhoneNumberList, Segment, SegmentList,
};
use axum::extract::State;
use axum::{Extension, Json};

#[utoipa::path(get, path = "/segments", tag = "directory", operation_id = "listSegments",
    security(("api_key" = ["contacts:read"])),
    responses((status = 200, body = SegmentList, description = "The organisation's saved segments"),
        (status = "4XX", body = Problem, description = "Refused (see the problem)")))]
pub async fn segments(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
) -> ApiResult<Json<SegmentList>> {
    need(&caller, "contacts:read")?;
    let l = crate::contacts::segments::list(&state.db, caller.member.organization_id).await?;
    Ok(Json(SegmentList {
        data: l
            .items
            .into_iter()
            .map(|s| Segment {
                id: s.id,
                name: s.name,
                filter: serde_json::to_value(&s.filter).unwrap_or_default(),
                created_at: s.created_at,
            })
            .collect(),
        total: l.total,
    }))
}

#[utoipa::path(get, path = "/numbers", tag = "directory", operation_id = "listNumbers",
    security(("api_key" = ["messages:read"])),
    responses((status = 200, body = PhoneNumberList, description = "The organisation's phone numbers"),
        (status = "4XX", body = Problem, description = "Refused (see the problem)")))]
pub async fn numbers(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
) -> ApiResult<Json<PhoneNumberList>> {
    need(&caller, "messages:read")?;
    let rows = crate::phone_numbers::service::list(&state, caller.member.organization_id).await?;
    let data: Vec<PhoneNumber> = rows
        .into_iter()
        .map(|n| PhoneNumber {
            id: n.id,
            number: n.number.into_string(),
            friendly_name: n.friendly_name,
        })
        .collect();
    Ok(Json(PhoneNumberList {
        total: data.len() as u64,
        data,
    }))
}

#[utoipa::path(get, path = "/agents", tag = "directory", operation_id = "listAgents",
    security(("api_key" = ["plans:read"])),
    responses((status = 200, body = AgentList, description = "The organisation's agents"),
        (status = "4XX", body = Problem, description = "Refused (see the problem)")))]
pub async fn agents(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
) -> ApiResult<Json<AgentList>> {
    need(&caller, "plans:read")?;
    let rows = crate::ai_agent::service::list(&state, &caller.member).await?;
    let data: Vec<Agent> = rows
        .into_iter()
        .map(|a| Agent {
            id: a.id,
            name: a.name,
            send_mode: a.send_mode.as_str().into(),
            number_ids: a.number_ids,
            planning_enabled: a.planning_enabled,
            plan_approval: a.plan_approval.as_str().into(),
        })
        .collect();
    Ok(Json(AgentList {
        total: data.len() as u64,
        data,
    }))
}
