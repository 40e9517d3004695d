//! Telling people about a plan. A plan awaiting approval notifies its agent's owner with a deep
//! link to its card, and the notification is read once anyone decides; an auto-approved plan
//! leaves a note in its thread. Each is idempotent: a presentation run again announces once.
use crate::ai_agent::entity::ai_agent;
use crate::ai_agent::events::AiThreadEventPayload;
use crate::error::AppResult;
use crate::notifications::service::{notify, resolve, Notice};
use crate::plans::entity::plan;
use crate::plans::model::PlanStatus;
use crate::server::AppState;
use uuid::Uuid;

fn awaiting_key(plan_id: Uuid) -> String {
    format!("plan-awaiting:{plan_id}")
}

/// Announces a plan just presented (or found again under its presentation's key).
pub async fn presented(
    state: &AppState,
    agent: &ai_agent::Model,
    p: &plan::Model,
) -> AppResult<()> {
    let status = PlanStatus::parse(&p.status);
    if status == Some(PlanStatus::AwaitingApproval) {
        if let Some(user_id) = agent.user_id {
            notify(
                state,
                Notice {
                    organization_id: p.organization_id,
                    user_id,
                    kind: "plan_awaiting",
                    title: format!("{} has a plan for you to approve", agent.name),
                    body: p.title.clone(),
                    link: Some(format!("/plans/{}", p.id)),
                    source_key: Some(awaiting_key(p.id)),
                },
            )
            .await?;
        }
    }
    let auto = p.decision.as_deref() == Some("proceed") && p.approved_by.is_none();
    if let (true, Some(thread_id)) = (auto, p.thread_id) {
        let note = AiThreadEventPayload::PlanNote {
            plan_id: p.id,
            text: format!("Plan auto-approved, executing: {}", p.title),
            reason: p.decision_reason.clone().unwrap_or_default(),
        };
        crate::ai_agent::thread::append_event_once(
            &state.db,
            thread_id,
            &note,
            state.clock.now(),
            Some(format!("plan-note:auto:{}", p.id)),
        )
        .await?;
    }
    Ok(())
}

/// A person decided: the plan no longer waits, so its notification is read.
pub async fn decided(state: &AppState, p: &plan::Model) -> AppResult<()> {
    resolve(state, p.organization_id, &awaiting_key(p.id)).await
}
