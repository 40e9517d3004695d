//! Who may see and steer a plan. A member's Assistant is private: its plans, with the requests
//! in them, are visible to that member and to owners only. Rejecting or re-planning writes into
//! the agent's thread, so it needs the right to direct that agent.
use crate::ai_agent::entity::ai_agent;
use crate::auth::model::Role;
use crate::auth::session::Member;
use crate::error::{AppError, AppResult};
use crate::plans::entity::plan;
use crate::platform::AppState;

use sea_orm::{ColumnTrait, Condition, EntityTrait, QueryFilter};
use uuid::Uuid;

pub use crate::ai_agent::service::others_assistants;

async fn agent_of(state: &AppState, p: &plan::Model) -> AppResult<Option<ai_agent::Model>> {
    Ok(ai_agent::Entity::find_by_id(p.agent_id)
        .one(&state.db)
        .await?)
}

/// The organisation's plans this member may see, as a condition on `plan`: every read of a plan
/// (one by id, a list, a count, a contact's history, a line of revisions) goes through it. Owners
/// see every plan of their organisation; a member, all but other members' Assistants' plans.
pub fn visible_to(m: &Member) -> Condition {
    let org = Condition::all().add(plan::Column::OrganizationId.eq(m.organization_id));
    match m.role {
        Role::Owner => org,
        _ => org.add(plan::Column::AgentId.not_in_subquery(others_assistants(m))),
    }
}

/// The plan, if this member may see it (a private plan is "not found" to the others).
pub async fn find_visible(state: &AppState, m: &Member, id: Uuid) -> AppResult<plan::Model> {
    plan::Entity::find_by_id(id)
        .filter(visible_to(m))
        .one(&state.db)
        .await?
        .ok_or_else(|| AppError::not_found("Plan"))
}

/// The plan, if this member directs its agent (its owner, or an organisation owner).
pub async fn find_directed(state: &AppState, m: &Member, id: Uuid) -> AppResult<plan::Model> {
    let p = find_visible(state, m, id).await?;
    match agent_of(state, &p).await? {
        Some(a) if crate::ai_agent::service::directs(m, &a) => Ok(p),
        None if m.role == Role::Owner => Ok(p),
        _ => Err(AppError::NotPermitted(
            "Only the person who directs this plan's agent, or an owner, can reject or re-plan it."
                .into(),
        )),
    }
}
