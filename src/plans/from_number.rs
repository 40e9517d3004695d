//! A campaign plan's from-number: chosen when the plan is presented (the authoring agent's
//! assigned number, else the organisation's first), always one of the organisation's, and
//! changeable by a person before approval.
use crate::ai_agent::entity::ai_agent;
use crate::error::{AppError, AppResult};
use crate::phone_numbers::entity as phone_number;
use crate::plans::model::PlanAction;
use crate::platform::AppState;
use uuid::Uuid;

/// The number a campaign of `agent`'s sends from when the plan names none.
pub async fn default_for(
    state: &AppState,
    agent: &ai_agent::Model,
    org: Uuid,
) -> AppResult<Option<Uuid>> {
    let numbers = crate::phone_numbers::service::list(state, org).await?;
    Ok(numbers
        .iter()
        .find(|n| n.ai_agent_id == Some(agent.id))
        .or(numbers.first())
        .map(|n| n.id))
}

/// The action with its from-number filled in where it names none: a campaign's, and each text
/// step's (so the card shows the number every text leaves from before anyone approves).
pub async fn with_default(
    state: &AppState,
    agent: &ai_agent::Model,
    org: Uuid,
    mut action: PlanAction,
) -> AppResult<PlanAction> {
    match &mut action {
        PlanAction::BulkSmsCampaign { from_number_id, .. } if from_number_id.is_none() => {
            *from_number_id = default_for(state, agent, org).await?;
        }
        PlanAction::Steps { steps, .. } => {
            let texts = steps.iter_mut().filter(|s| {
                crate::plans::model::texts_people(&s.tool)
                    && s.arguments.get("phone_number_id").is_none()
            });
            let mut default = None;
            for s in texts {
                if default.is_none() {
                    default = default_for(state, agent, org).await?;
                }
                if let (Some(id), Some(args)) = (default, s.arguments.as_object_mut()) {
                    args.insert("phone_number_id".into(), serde_json::json!(id));
                }
            }
        }
        _ => {}
    }
    Ok(action)
}

/// The organisation's number `id`, or why a plan cannot send from it.
pub async fn find(state: &AppState, org: Uuid, id: Uuid) -> AppResult<phone_number::Model> {
    crate::phone_numbers::service::find_in_org(&state.db, org, id)
        .await
        .map_err(|e| match e {
            AppError::NotFound(_) => AppError::validation(
                "The plan's from-number is not one of the organisation's numbers.",
            ),
            other => other,
        })
}
