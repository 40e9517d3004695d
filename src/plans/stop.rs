//! Stopping a plan after approval (issue 29 §2). An owner, or the member who directs the plan's
//! agent, stops an approved or running plan: it becomes `stopped` at once, so nothing new of it
//! starts (the runner watches its status; steps already running finish, the rest are skipped),
//! its scheduled texts are cancelled, and the campaigns it started are paused with their review
//! sheets kept (an owner may resume one). A paused campaign waits in review with `paused_from`
//! set (the status column's CHECK knows no "paused"): no engine runs it and no one approves it. Who stopped it and why go to the audit and to the
//! plan's thread, so the agent's next turn knows. A stopped plan can be re-planned.
use crate::ai_agent::entity::ai_agent;
use crate::auth::entity::user;
use crate::auth::session::Member;
use crate::campaign::entity::operation;
use crate::campaign::model::OperationStatus;
use crate::error::{AppError, AppResult};
use crate::messaging::scheduled::{entity as scheduled, status as scheduled_status};
use crate::plans::entity::plan;
use crate::plans::model::{PlanAction, PlanStatus, PlanView};
use crate::platform::AppState;
use sea_orm::sea_query::Expr;
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QuerySelect};
use serde_json::json;
use uuid::Uuid;

/// The audit kind of a stop (the audit's `kind` holds 16 characters).
pub const STOPPED: &str = "plan_stopped";
/// The longest reason kept, in characters.
pub const MAX_REASON: usize = 500;

pub async fn stop(
    state: &AppState,
    m: &Member,
    plan_id: Uuid,
    reason: &str,
) -> AppResult<PlanView> {
    let p = crate::plans::access::find_visible(state, m, plan_id).await?;
    let reason = may_stop(state, m, &p, reason).await?;
    let now = state.clock.now();
    let txn = crate::platform::db::begin_write(&state.db).await?;
    let res = plan::Entity::update_many()
        .col_expr(plan::Column::Status, Expr::value(PlanStatus::Stopped))
        .col_expr(
            plan::Column::PausedAt,
            Expr::value(None::<chrono::DateTime<chrono::Utc>>),
        )
        .col_expr(plan::Column::WaitingSteps, Expr::value(0))
        .col_expr(plan::Column::UpdatedAt, Expr::value(now))
        .filter(plan::Column::Id.eq(plan_id))
        .filter(plan::Column::Status.is_in([
            PlanStatus::Approved.as_str(),
            PlanStatus::Executing.as_str(),
        ]))
        .exec(&txn)
        .await?;
    if res.rows_affected != 1 {
        return Err(AppError::Conflict(format!(
            "This plan is {}; only an approved or running plan can be stopped.",
            p.status.as_str().replace('_', " ")
        )));
    }
    let cancelled = cancel_scheduled(&txn, plan_id, now).await?;
    let paused_ops = pause_campaigns(&txn, plan_id, now).await?;
    // Steps nobody is running (waiting on a person, or not yet started) are skipped now; a
    // runner that holds the plan skips its own once its running steps finish.
    let held = p.lease_owner.is_some() && p.lease_expires_at.is_some_and(|t| t > now);
    if let (false, Ok(PlanAction::Steps { mut steps, .. })) =
        (held, crate::plans::steps::store::action(&txn, &p).await)
    {
        crate::plans::steps::run::skip_unstarted(&mut steps);
        crate::plans::pause::write_steps_if_unheld(&txn, plan_id, &steps, now).await?;
    }
    crate::plans::service::record(
        &txn,
        now,
        plan_id,
        STOPPED,
        Some(m.user_id),
        None,
        None,
        (!reason.is_empty()).then(|| reason.to_owned()),
        Some(json!({"status": p.status})),
        Some(json!({"scheduled_cancelled": cancelled, "campaigns_paused": paused_ops.len()})),
    )
    .await?;
    let stopped = PlanStatus::Stopped.as_str();
    crate::plans::webhook_events::plan_event(&txn, &p, "plan.finished", stopped, None, now).await?;
    txn.commit().await?;
    tracing::info!(plan = %plan_id, cancelled, campaigns = paused_ops.len(), "plan stopped");
    tell_agent(state, m, &p, reason, cancelled, paused_ops.len()).await?;
    state.live.publish(
        p.organization_id,
        crate::messaging::model::LiveEvent::PlanUpdated { plan_id },
    );
    for operation_id in paused_ops {
        state.live.publish(
            p.organization_id,
            crate::messaging::model::LiveEvent::OperationUpdated { operation_id },
        );
    }
    crate::plans::service::view(
        state,
        crate::plans::access::find_visible(state, m, plan_id).await?,
    )
    .await
}

/// An owner, or the member who directs the plan's agent, may stop it, saying why in at most
/// `MAX_REASON` characters. Answers the reason, trimmed.
async fn may_stop<'r>(
    state: &AppState,
    m: &Member,
    p: &plan::Model,
    reason: &'r str,
) -> AppResult<&'r str> {
    let directs = ai_agent::Entity::find_by_id(p.agent_id)
        .one(&state.db)
        .await?
        .and_then(|a| a.user_id)
        == Some(m.user_id);
    if !directs {
        m.require_owner()?;
    }
    let reason = reason.trim();
    if reason.chars().count() > MAX_REASON {
        return Err(AppError::Validation(format!(
            "Say why in at most {MAX_REASON} characters."
        )));
    }
    Ok(reason)
}

/// Cancels the plan's scheduled texts not yet sent; answers how many.
async fn cancel_scheduled<C: ConnectionTrait>(
    txn: &C,
    plan_id: Uuid,
    now: chrono::DateTime<chrono::Utc>,
) -> AppResult<u64> {
    Ok(scheduled::Entity::update_many()
        .col_expr(
            scheduled::Column::Status,
            Expr::value(scheduled_status::CANCELED),
        )
        .col_expr(scheduled::Column::UpdatedAt, Expr::value(now))
        .filter(scheduled::Column::PlanId.eq(plan_id))
        .filter(scheduled::Column::Status.eq(scheduled_status::SCHEDULED))
        .exec(txn)
        .await?
        .rows_affected)
}

/// Pauses the campaigns the plan started that are still drafting, in review or sending;
/// answers which.
async fn pause_campaigns<C: ConnectionTrait>(
    txn: &C,
    plan_id: Uuid,
    now: chrono::DateTime<chrono::Utc>,
) -> AppResult<Vec<Uuid>> {
    let running = [
        OperationStatus::Drafting,
        OperationStatus::AwaitingApproval,
        OperationStatus::Sending,
    ];
    let paused_ops: Vec<Uuid> = operation::Entity::find()
        .select_only()
        .column(operation::Column::Id)
        .filter(operation::Column::PlanId.eq(plan_id))
        .filter(operation::Column::Status.is_in(running))
        .into_tuple()
        .all(txn)
        .await?;
    // Each campaign remembers what it was doing (the right side reads the old status) and
    // waits in review, where no engine runs and nothing is approved while `paused_from` is set.
    operation::Entity::update_many()
        .col_expr(
            operation::Column::PausedFrom,
            Expr::col(operation::Column::Status),
        )
        .col_expr(
            operation::Column::Status,
            Expr::value(OperationStatus::AwaitingApproval),
        )
        .col_expr(
            operation::Column::PausedReason,
            Expr::value(Some(crate::campaign::model::STOPPED_BY_PLAN.to_owned())),
        )
        .col_expr(operation::Column::UpdatedAt, Expr::value(now))
        .filter(operation::Column::Id.is_in(paused_ops.iter().copied()))
        .filter(operation::Column::Status.is_in(running))
        .filter(operation::Column::PausedFrom.is_null())
        .exec(txn)
        .await?;
    Ok(paused_ops)
}

/// Tells the plan's agent, in its thread, who stopped it, why, and what was undone.
async fn tell_agent(
    state: &AppState,
    m: &Member,
    p: &plan::Model,
    reason: &str,
    cancelled: u64,
    paused: usize,
) -> AppResult<()> {
    let who = user::Entity::find_by_id(m.user_id)
        .one(&state.db)
        .await?
        .map(|u| u.name)
        .unwrap_or_else(|| "a person".into());
    let why = if reason.is_empty() {
        String::new()
    } else {
        format!(": {reason}")
    };
    crate::plans::announce::progress(
        state,
        p,
        format!("plan-stopped:{}", p.id),
        format!(
            "Your plan \"{}\" was stopped by {who}{why}. Steps already running finished and \
             nothing more of it runs; {cancelled} scheduled text(s) were cancelled and {} \
             campaign(s) paused. Propose a new plan if the work should go on.",
            p.title, paused
        ),
    )
    .await;
    Ok(())
}
