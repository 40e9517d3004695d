//! A campaign plan's campaign: the plan's included contacts and its concept handed to
//! `campaign::create`, which records the plan it came from.
use crate::campaign::create::{create, FromPlan};
use crate::error::AppResult;
use crate::plans::entity::plan;
use crate::plans::model::ContactDecision;
use crate::platform::AppState;
use uuid::Uuid;

/// Creates the plan's campaign for its included contacts (idempotent per plan).
pub async fn create_campaign(
    state: &AppState,
    p: &plan::Model,
    audience: &[ContactDecision],
    concept: &str,
    from_number_id: Option<Uuid>,
) -> AppResult<Uuid> {
    let included: Vec<Uuid> = audience
        .iter()
        .filter(|d| d.include)
        .map(|d| d.contact_id)
        .collect();
    let from = FromPlan {
        plan_id: p.id,
        organization_id: p.organization_id,
        agent_id: p.agent_id,
        thread_id: p.thread_id,
        created_by: p.created_by,
    };
    create(state, from, &included, concept, from_number_id).await
}
