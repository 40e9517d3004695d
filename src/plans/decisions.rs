//! People deciding on plans: edit (audited, before and after), approve atomically, and reject
//! with a reason that goes back to the authoring thread.
use crate::ai_agent::entity::ai_thread;
use crate::ai_agent::events::AiThreadEventPayload;
use crate::auth::session::Member;
use crate::error::{AppError, AppResult};
use crate::plans::edit::Editable;
use crate::plans::entity::plan;
use crate::plans::model::*;
use crate::plans::service::{action_of, record, transition, validate_action, view};
use crate::platform::AppState;
use sea_orm::sea_query::Expr;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use serde_json::json;
use uuid::Uuid;

/// Edits title, summary and who is in; only while the plan awaits approval.
pub async fn edit(state: &AppState, m: &Member, id: Uuid, e: &PlanEdit) -> AppResult<PlanView> {
    let p = crate::plans::access::find_visible(state, m, id).await?;
    if p.status != PlanStatus::AwaitingApproval {
        return Err(AppError::Conflict(
            "Only a plan awaiting approval can be edited.".into(),
        ));
    }
    let before = json!({"title": p.title, "summary": p.summary, "action": p.action_payload});
    let before_action = action_of(&p)?;
    let edited = e.apply(&Editable {
        title: p.title.clone(),
        summary: p.summary.clone(),
        action: before_action.clone(),
    })?;
    validate_action(state, m.organization_id, &edited.action).await?;
    let Editable {
        title,
        summary,
        mut action,
    } = edited;
    let txn = crate::platform::db::begin_write(&state.db).await?;
    // The contacts a person left out or put back are resolved again; nobody else's row moves.
    if !e.include.is_empty() {
        crate::plans::audience::lifecycle::on_edit(
            &txn,
            m.organization_id,
            id,
            &mut action,
            &e.include,
            state.clock.now(),
        )
        .await?;
    }
    let after = json!({"title": title, "summary": summary, "action": action});
    let p = save_edit(&txn, id, title, summary, &action, state.clock.now()).await?;
    txn.commit().await?;
    crate::plans::learning::edited(state, m, &p, &before_action, &action).await?;
    record(
        &state.db,
        state.clock.now(),
        id,
        "edit",
        Some(m.user_id),
        None,
        None,
        None,
        Some(before),
        Some(after),
    )
    .await?;
    view(state, p).await
}

/// Writes an edit only while the plan still awaits approval: an approval that raced the edit wins,
/// and the edit is refused rather than changing a plan that is running (issue 49 §9).
pub async fn save_edit<C: sea_orm::ConnectionTrait>(
    txn: &C,
    id: Uuid,
    title: String,
    summary: String,
    action: &PlanAction,
    now: chrono::DateTime<chrono::Utc>,
) -> AppResult<plan::Model> {
    let payload = serde_json::to_value(action).map_err(|e| AppError::Internal(e.to_string()))?;
    let done = plan::Entity::update_many()
        .col_expr(plan::Column::Title, Expr::value(title))
        .col_expr(plan::Column::Summary, Expr::value(summary))
        .col_expr(plan::Column::ActionPayload, Expr::value(payload))
        .col_expr(plan::Column::UpdatedAt, Expr::value(now))
        .filter(plan::Column::Id.eq(id))
        .filter(plan::Column::Status.eq(PlanStatus::AwaitingApproval))
        .exec(txn)
        .await?;
    if done.rows_affected == 0 {
        return Err(AppError::Conflict(
            "This plan was decided while you edited it; it can no longer be edited.".into(),
        ));
    }
    plan::Entity::find_by_id(id)
        .one(txn)
        .await?
        .ok_or_else(|| AppError::not_found("Plan"))
}

/// Approves atomically: of two concurrent approvals exactly one wins and executes.
#[tracing::instrument(skip(state, m))]
pub async fn approve(state: &AppState, m: &Member, id: Uuid) -> AppResult<PlanView> {
    let p = crate::plans::access::find_visible(state, m, id).await?;
    // A plan whose action no longer reads is never approved: it could not run.
    action_of(&p)?;
    let now = state.clock.now();
    let next_ok = Some(p.status).is_some_and(|s| s.can_become(PlanStatus::Approved));
    if !next_ok {
        return Err(AppError::Conflict(format!(
            "This plan is already {}.",
            p.status.as_str().replace('_', " ")
        )));
    }
    // An audience is resolved again: a changed membership is shown before anyone approves it.
    crate::plans::audience::lifecycle::on_approve(state, &p, m.user_id).await?;
    let res = plan::Entity::update_many()
        .col_expr(plan::Column::Status, Expr::value(PlanStatus::Approved))
        .col_expr(plan::Column::ApprovedBy, Expr::value(Some(m.user_id)))
        .col_expr(plan::Column::ApprovedAt, Expr::value(Some(now)))
        .col_expr(plan::Column::Decision, Expr::value(Some("proceed")))
        .col_expr(
            plan::Column::DecisionReason,
            Expr::value(Some("Approved by a person.")),
        )
        .col_expr(plan::Column::UpdatedAt, Expr::value(now))
        .filter(plan::Column::Id.eq(id))
        .filter(plan::Column::Status.eq(PlanStatus::AwaitingApproval))
        .exec(&state.db)
        .await?;
    if res.rows_affected != 1 {
        return Err(AppError::Conflict("This plan was already decided.".into()));
    }
    record(
        &state.db,
        state.clock.now(),
        id,
        "decision",
        Some(m.user_id),
        Some(&p.approval_policy),
        Some("proceed"),
        Some("Approved by a person.".into()),
        None,
        None,
    )
    .await?;
    crate::plans::announce::decided(state, &p).await?;
    crate::plans::announce::progress(
        state,
        &p,
        format!("plan-approved:{id}"),
        format!(
            "Your plan \"{}\" was approved by a person; it runs now.",
            p.title
        ),
    )
    .await;
    crate::plans::learning::decided(state, m, &p, None).await?;
    crate::plans::executor::spawn_execution(state, id);
    view(
        state,
        crate::plans::access::find_visible(state, m, id).await?,
    )
    .await
}

/// Rejects with a reason, which goes back to the authoring thread so the agent can revise.
#[tracing::instrument(skip(state, m, reason))]
pub async fn reject(state: &AppState, m: &Member, id: Uuid, reason: &str) -> AppResult<PlanView> {
    let reason = reason.trim();
    if reason.is_empty() {
        return Err(AppError::validation(
            "Say why, so the agent can revise the plan.",
        ));
    }
    let p = crate::plans::access::find_directed(state, m, id).await?;
    if !transition(&state.db, state.clock.now(), &p, PlanStatus::Rejected).await? {
        return Err(AppError::Conflict("This plan was already decided.".into()));
    }
    plan::Entity::update_many()
        .col_expr(plan::Column::Decision, Expr::value(Some("gate")))
        .col_expr(
            plan::Column::DecisionReason,
            Expr::value(Some(format!("Rejected: {reason}"))),
        )
        .filter(plan::Column::Id.eq(id))
        .exec(&state.db)
        .await?;
    record(
        &state.db,
        state.clock.now(),
        id,
        "decision",
        Some(m.user_id),
        Some(&p.approval_policy),
        Some("reject"),
        Some(reason.to_owned()),
        None,
        None,
    )
    .await?;
    crate::plans::announce::decided(state, &p).await?;
    crate::plans::learning::decided(state, m, &p, Some(reason)).await?;
    if let Some(thread_id) = p.thread_id {
        if ai_thread::Entity::find_by_id(thread_id)
            .one(&state.db)
            .await?
            .is_some()
        {
            let text = format!(
                "The plan \"{}\" was rejected: {reason}. Revise it and present a new plan.",
                p.title
            );
            crate::ai_agent::worker::enqueue_and_maybe_spawn(
                state,
                thread_id,
                AiThreadEventPayload::UserMessage {
                    text,
                    plan_mode: true,
                },
            )
            .await?;
        }
    }
    view(
        state,
        crate::plans::access::find_visible(state, m, id).await?,
    )
    .await
}
