//! A plan that starts a campaign is done only when its campaign ends (issue 29 §2). Once the
//! campaign is created the plan stays `executing`, let go by its runner and left alone by the
//! sweeper (`paused_at`), with the campaign as its `executed_ref`. Its thread hears the drafting,
//! the review and the sending as they happen ("drafted 212", "approved by Dana", "205 sent, 7
//! failed: 5 opted out, 2 unreachable"), so the agent's next turn knows. When the campaign ends
//! the plan ends with it: sent → done, cancelled → stopped, failed → failed. A sweep settles a
//! plan whose campaign ended while no instance was there to tell it.
use crate::campaign::entity::{item, operation};
use crate::campaign::model::{ItemStatus, OperationStatus};
use crate::error::AppResult;
use crate::plans::entity::plan;
use crate::plans::model::PlanStatus;
use crate::platform::events::{DomainEvent, Listener};
use crate::platform::AppState;
use sea_orm::sea_query::{Expr, Query};
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect};
use uuid::Uuid;

/// Reasons named per outcome in the thread; the rest are counted as "other".
const REASONS: u64 = 4;
/// Longest reason kept, in characters.
const REASON_CHARS: usize = 80;

/// The runner hands the plan to its campaign: still executing, with nobody holding it.
pub async fn watch(state: &AppState, plan_id: Uuid, owner: &str, op_id: Uuid) -> AppResult<()> {
    let now = state.clock.now();
    let res = plan::Entity::update_many()
        .col_expr(plan::Column::ExecutedRef, Expr::value(Some(op_id)))
        .col_expr(plan::Column::PausedAt, Expr::value(Some(now)))
        .col_expr(plan::Column::WaitingSteps, Expr::value(0))
        .col_expr(
            plan::Column::LeaseOwner,
            Expr::value(Option::<String>::None),
        )
        .col_expr(
            plan::Column::LeaseExpiresAt,
            Expr::value(Option::<chrono::DateTime<chrono::Utc>>::None),
        )
        .col_expr(plan::Column::UpdatedAt, Expr::value(now))
        .filter(plan::Column::Id.eq(plan_id))
        .filter(plan::Column::Status.eq(PlanStatus::Executing))
        .filter(plan::Column::LeaseOwner.eq(owner))
        .exec(&state.db)
        .await?;
    if res.rows_affected != 1 {
        return Ok(());
    }
    let (Some(p), Some(op)) = (find(state, plan_id).await?, op(state, op_id).await?) else {
        return Ok(());
    };
    let text = format!(
        "Your plan \"{}\" started its campaign: drafting {} text(s). You will hear how the \
         drafting, the review and the sending go.",
        p.title, op.total
    );
    tell(state, &p, "started", text).await;
    // The campaign's engines may have gone ahead while the runner let go: what they told no
    // plan is told now (each note once), and a campaign that already ended ends the plan.
    match op.status {
        OperationStatus::Drafting => Ok(()),
        OperationStatus::AwaitingApproval | OperationStatus::Sending => drafted(state, op_id).await,
        _ => ended(state, op_id).await,
    }
}

/// Hears a campaign's course (`DomainEvent::Campaign*`) for the plan that started it.
pub struct CampaignOutcome;

#[async_trait::async_trait]
impl Listener for CampaignOutcome {
    async fn on(&self, state: &AppState, event: &DomainEvent) -> AppResult<()> {
        match *event {
            DomainEvent::CampaignDrafted { operation_id } => drafted(state, operation_id).await,
            DomainEvent::CampaignApproved {
                operation_id,
                by_user_id,
            } => approved(state, by_user_id, operation_id).await,
            DomainEvent::CampaignEnded { operation_id } => ended(state, operation_id).await,
            _ => Ok(()),
        }
    }
}

/// The campaign's drafts are ready for review.
pub async fn drafted(state: &AppState, op_id: Uuid) -> AppResult<()> {
    let Some((p, op)) = watched(state, op_id).await? else {
        return Ok(());
    };
    let left_out = reasons(state, op_id, ItemStatus::Skipped, item::Column::SkipReason).await?;
    let text = format!(
        "The campaign of your plan \"{}\" drafted {} text(s){}; they wait for an owner's review.",
        p.title,
        op.drafted,
        if op.skipped > 0 {
            format!(" and left {} out ({left_out})", op.skipped)
        } else {
            String::new()
        }
    );
    tell(state, &p, "drafted", text).await;
    Ok(())
}

/// An owner approved the drafts: sending starts.
pub async fn approved(state: &AppState, by_user_id: Uuid, op_id: Uuid) -> AppResult<()> {
    let Some((p, op)) = watched(state, op_id).await? else {
        return Ok(());
    };
    let who = crate::auth::entity::user::Entity::find_by_id(by_user_id)
        .one(&state.db)
        .await?
        .map(|u| u.name)
        .unwrap_or_else(|| "an owner".into());
    let text = format!(
        "{who} approved the {} draft(s) of your plan \"{}\"; sending now.",
        op.drafted, p.title
    );
    tell(state, &p, "approved", text).await;
    Ok(())
}

/// The campaign ended (sent, cancelled or failed): so does its plan, once, and the thread hears
/// the outcome with its figures.
pub async fn ended(state: &AppState, op_id: Uuid) -> AppResult<()> {
    let Some((p, op)) = watched(state, op_id).await? else {
        return Ok(());
    };
    let (to, error) = match op.status {
        OperationStatus::Done => (PlanStatus::Done, None),
        OperationStatus::Cancelled => (PlanStatus::Stopped, None),
        OperationStatus::Failed => (
            PlanStatus::Failed,
            Some(format!(
                "Its campaign failed: {}",
                op.error.clone().unwrap_or_default()
            )),
        ),
        _ => return Ok(()),
    };
    let now = state.clock.now();
    let txn = crate::platform::db::begin_write(&state.db).await?;
    let res = plan::Entity::update_many()
        .col_expr(plan::Column::Status, Expr::value(to.as_str()))
        .col_expr(plan::Column::Error, Expr::value(error.clone()))
        .col_expr(
            plan::Column::PausedAt,
            Expr::value(Option::<chrono::DateTime<chrono::Utc>>::None),
        )
        .col_expr(plan::Column::UpdatedAt, Expr::value(now))
        .filter(plan::Column::Id.eq(p.id))
        .filter(plan::Column::Status.eq(PlanStatus::Executing))
        .filter(plan::Column::ExecutedRef.eq(op_id))
        .exec(&txn)
        .await?;
    if res.rows_affected != 1 {
        return Ok(());
    }
    let (event, to_str) = ("plan.finished", to.as_str());
    crate::plans::webhook_events::plan_event(&txn, &p, event, to_str, error.as_deref(), now)
        .await?;
    txn.commit().await?;
    let failed = reasons(state, op_id, ItemStatus::Failed, item::Column::Error).await?;
    let figures = format!(
        "{} of {} sent{}{}",
        op.sent,
        op.total,
        if op.failed > 0 {
            format!(", {} failed: {failed}", op.failed)
        } else {
            String::new()
        },
        if op.skipped > 0 {
            format!(", {} left out", op.skipped)
        } else {
            String::new()
        }
    );
    let text = match to {
        PlanStatus::Done => format!("Your plan \"{}\" is done: its campaign {figures}.", p.title),
        PlanStatus::Stopped => format!(
            "The campaign of your plan \"{}\" was cancelled, so the plan stopped: {figures} \
             before that; nothing more goes.",
            p.title
        ),
        _ => format!(
            "Your plan \"{}\" failed: {}; {figures}.",
            p.title,
            error.unwrap_or_default()
        ),
    };
    tracing::info!(plan = %p.id, operation = %op_id, status = to.as_str(), "campaign plan ended");
    tell(state, &p, "ended", text).await;
    state.live.publish(
        p.organization_id,
        crate::messaging::model::LiveEvent::PlanUpdated { plan_id: p.id },
    );
    Ok(())
}

/// Plans whose campaign ended while no instance was there to tell them (a crash between the
/// two): ended now. A page at a time, of only such plans.
pub async fn settle(state: &AppState) -> AppResult<usize> {
    let ended_ops = Query::select()
        .column(operation::Column::Id)
        .from(operation::Entity)
        .and_where(operation::Column::Status.is_in([
            OperationStatus::Done,
            OperationStatus::Cancelled,
            OperationStatus::Failed,
        ]))
        .to_owned();
    let ops: Vec<Option<Uuid>> = plan::Entity::find()
        .select_only()
        .column(plan::Column::ExecutedRef)
        .filter(plan::Column::Status.eq(PlanStatus::Executing))
        .filter(plan::Column::PausedAt.is_not_null())
        .filter(plan::Column::ExecutedRef.in_subquery(ended_ops))
        .limit(100)
        .into_tuple()
        .all(&state.db)
        .await?;
    for op_id in ops.iter().flatten() {
        ended(state, *op_id).await?;
    }
    Ok(ops.len())
}

/// The campaign and the plan waiting on it, if one does.
async fn watched(
    state: &AppState,
    op_id: Uuid,
) -> AppResult<Option<(plan::Model, operation::Model)>> {
    let Some(op) = op(state, op_id).await? else {
        return Ok(None);
    };
    let Some(plan_id) = op.plan_id else {
        return Ok(None);
    };
    Ok(find(state, plan_id)
        .await?
        .filter(|p| p.status == PlanStatus::Executing && p.executed_ref == Some(op_id))
        .map(|p| (p, op)))
}

async fn find(state: &AppState, plan_id: Uuid) -> AppResult<Option<plan::Model>> {
    Ok(plan::Entity::find_by_id(plan_id).one(&state.db).await?)
}

async fn op(state: &AppState, op_id: Uuid) -> AppResult<Option<operation::Model>> {
    Ok(operation::Entity::find_by_id(op_id).one(&state.db).await?)
}

/// "5 opted out, 2 unreachable": the items with this status, counted by their reason in the
/// database, the commonest first; reasons past the first few are counted together.
async fn reasons(
    state: &AppState,
    op_id: Uuid,
    status: ItemStatus,
    column: item::Column,
) -> AppResult<String> {
    let rows: Vec<(Option<String>, i64)> = item::Entity::find()
        .select_only()
        .column(column)
        .column_as(item::Column::Id.count(), "n")
        .filter(item::Column::OperationId.eq(op_id))
        .filter(item::Column::Status.eq(status))
        .group_by(column)
        .order_by_desc(item::Column::Id.count())
        .limit(REASONS + 1)
        .into_tuple()
        .all(&state.db)
        .await?;
    let mut parts: Vec<String> = rows
        .iter()
        .take(REASONS as usize)
        .map(|(why, n)| {
            let why = why.as_deref().unwrap_or("no reason given");
            let cut: String = why.chars().take(REASON_CHARS).collect();
            format!("{n} {cut}")
        })
        .collect();
    if rows.len() as u64 > REASONS {
        parts.push("other reasons".into());
    }
    Ok(parts.join(", "))
}

/// One note in the plan's thread per (plan, stage).
async fn tell(state: &AppState, p: &plan::Model, stage: &str, text: String) {
    crate::plans::announce::progress(state, p, format!("plan-campaign:{}:{stage}", p.id), text)
        .await;
}
