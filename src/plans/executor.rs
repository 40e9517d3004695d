//! PlanExecutor: runs approved plans off the request path, dispatching by action; plans left
//! Approved or Executing by a restart are picked up again.
use crate::contacts::entity::contact;
use crate::error::{AppError, AppResult};
use crate::plans::entity::plan;
use crate::plans::model::{PlanAction, PlanStatus};
use crate::plans::service::{action_of, transition};
use crate::server::AppState;
use chrono::Utc;
use sea_orm::sea_query::Expr;
use sea_orm::{ActiveModelTrait, ColumnTrait, EntityTrait, QueryFilter, Set};
use uuid::Uuid;

pub fn spawn_execution(state: &AppState, plan_id: Uuid) {
    let bg = state.clone();
    state
        .tasks
        .spawn(async move { execute_plan(&bg, plan_id).await });
}

/// Plans a restart left Approved or Executing run again (every handler is idempotent).
pub async fn resume_pending(state: &AppState) -> AppResult<usize> {
    let rows = plan::Entity::find()
        .filter(plan::Column::Status.is_in([
            PlanStatus::Approved.as_str(),
            PlanStatus::Executing.as_str(),
        ]))
        .all(&state.db)
        .await?;
    for p in &rows {
        spawn_execution(state, p.id);
    }
    Ok(rows.len())
}

#[tracing::instrument(skip(state))]
pub async fn execute_plan(state: &AppState, plan_id: Uuid) {
    if let Err(e) = run(state, plan_id).await {
        tracing::error!(error = %e, "plan failed");
        let _ = plan::Entity::update_many()
            .col_expr(
                plan::Column::Status,
                Expr::value(PlanStatus::Failed.as_str()),
            )
            .col_expr(plan::Column::Error, Expr::value(Some(e.to_string())))
            .col_expr(plan::Column::UpdatedAt, Expr::value(Utc::now()))
            .filter(plan::Column::Id.eq(plan_id))
            .filter(plan::Column::Status.eq(PlanStatus::Executing.as_str()))
            .exec(&state.db)
            .await;
    }
    publish(state, plan_id).await;
}

async fn publish(state: &AppState, plan_id: Uuid) {
    if let Ok(Some(p)) = plan::Entity::find_by_id(plan_id).one(&state.db).await {
        state.live.publish(
            p.organization_id,
            crate::messaging::model::LiveEvent::PlanUpdated { plan_id },
        );
    }
}

async fn run(state: &AppState, plan_id: Uuid) -> AppResult<()> {
    let Some(p) = plan::Entity::find_by_id(plan_id).one(&state.db).await? else {
        return Ok(());
    };
    match PlanStatus::parse(&p.status) {
        // Only one worker moves a plan from Approved to Executing.
        Some(PlanStatus::Approved) => {
            if !transition(&state.db, &p, PlanStatus::Executing).await? {
                return Ok(());
            }
        }
        // Picked up after a restart.
        Some(PlanStatus::Executing) => {}
        _ => return Ok(()),
    }
    publish(state, plan_id).await;
    let executed_ref = dispatch(state, &p, action_of(&p)?).await?;
    let p = plan::Entity::find_by_id(plan_id)
        .one(&state.db)
        .await?
        .ok_or_else(|| AppError::not_found("Plan"))?;
    transition(&state.db, &p, PlanStatus::Done).await?;
    plan::Entity::update_many()
        .col_expr(plan::Column::ExecutedRef, Expr::value(executed_ref))
        .filter(plan::Column::Id.eq(plan_id))
        .exec(&state.db)
        .await?;
    Ok(())
}

/// One handler per action; answers what the execution produced, if it has an id.
async fn dispatch(
    state: &AppState,
    p: &plan::Model,
    action: PlanAction,
) -> AppResult<Option<Uuid>> {
    match action {
        PlanAction::TagContacts { changes } => {
            for c in changes.iter().filter(|c| c.include) {
                let Some(row) = contact::Entity::find_by_id(c.contact_id)
                    .filter(contact::Column::OrganizationId.eq(p.organization_id))
                    .one(&state.db)
                    .await?
                else {
                    continue;
                };
                let mut tags: Vec<String> =
                    serde_json::from_value(row.tags.clone()).unwrap_or_default();
                tags.retain(|t| !c.remove_tags.iter().any(|r| r.eq_ignore_ascii_case(t)));
                for t in &c.add_tags {
                    let t = t.trim().to_lowercase();
                    if !t.is_empty() && !tags.contains(&t) {
                        tags.push(t);
                    }
                }
                let mut am: contact::ActiveModel = row.into();
                am.tags = Set(serde_json::json!(tags));
                am.updated_at = Set(Utc::now());
                am.update(&state.db).await?;
            }
            Ok(None)
        }
        PlanAction::BulkSmsCampaign {
            audience,
            message_concept,
        } => {
            let op = crate::bulk_operation::create::create_bulk_operation(
                state,
                p,
                &audience,
                &message_concept,
            )
            .await?;
            crate::bulk_operation::draft_engine::spawn_draft_engine(state, op);
            Ok(Some(op))
        }
    }
}
