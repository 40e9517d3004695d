//! A step plan waiting on a person is paused (issue 29 §2): `paused_at` is set, nobody holds
//! it, the sweeper leaves it alone (`executor::claimable`), and only a decision wakes it. The
//! agent's owner is told which steps wait. A decision that lands while the runner is pausing
//! is not lost: the runner counts the decisions again once paused, and wakes the plan itself.
use crate::ai_agent::entity::ai_agent;
use crate::error::AppResult;
use crate::notifications::service::{notify, Notice};
use crate::plans::entity::plan;
use crate::platform::AppState;
use sea_orm::sea_query::Expr;
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter};
use uuid::Uuid;

/// Pauses the plan this runner (`owner`) holds, having read `seen` decisions, with `waiting`
/// steps awaiting confirmation.
pub async fn pause(
    state: &AppState,
    p: &plan::Model,
    owner: &str,
    seen: usize,
    waiting: &[String],
) -> AppResult<()> {
    let res = plan::Entity::update_many()
        .col_expr(plan::Column::LeaseOwner, Expr::value(None::<String>))
        .col_expr(
            plan::Column::LeaseExpiresAt,
            Expr::value(None::<chrono::DateTime<chrono::Utc>>),
        )
        .col_expr(plan::Column::PausedAt, Expr::value(Some(state.clock.now())))
        .col_expr(
            plan::Column::WaitingSteps,
            Expr::value(waiting.len() as i32),
        )
        .filter(plan::Column::Id.eq(p.id))
        .filter(plan::Column::LeaseOwner.eq(owner))
        .exec(&state.db)
        .await?;
    if res.rows_affected == 0 {
        return Ok(());
    }
    if crate::plans::steps::run::decision_count(state, p.id).await? > seen {
        // Decided while this runner still held the plan: that decision's own run found it
        // taken, so the plan goes on now.
        wake(&state.db, p.id).await?;
        crate::plans::executor::spawn_execution(state, p.id);
        return Ok(());
    }
    state.live.publish(
        p.organization_id,
        crate::messaging::model::LiveEvent::PlanUpdated { plan_id: p.id },
    );
    if !waiting.is_empty() {
        tell_owner(state, p, waiting).await?;
    }
    Ok(())
}

/// "2 steps wait for you in …", to the agent's owner, once for each set of waiting steps.
async fn tell_owner(state: &AppState, p: &plan::Model, waiting: &[String]) -> AppResult<()> {
    let Some(agent) = ai_agent::Entity::find_by_id(p.agent_id)
        .one(&state.db)
        .await?
    else {
        return Ok(());
    };
    let Some(user_id) = agent.user_id else {
        return Ok(());
    };
    let mut ids = waiting.to_vec();
    ids.sort();
    let n = ids.len();
    let steps = if n == 1 { "1 step waits" } else { "steps wait" };
    let title = if n == 1 {
        format!("{steps} for you in \"{}\"", p.title)
    } else {
        format!("{n} {steps} for you in \"{}\"", p.title)
    };
    notify(
        state,
        Notice {
            agent_id: None,
            organization_id: p.organization_id,
            user_id,
            kind: "plan_steps_waiting",
            title,
            body: format!("Confirm, edit or skip: {}", ids.join(", ")),
            link: Some(format!("/plans/{}", p.id)),
            source_key: Some(format!("plan-waiting:{}:{}", p.id, ids.join(","))),
        },
    )
    .await?;
    Ok(())
}

/// Wakes a paused plan (a decision was recorded): the executor may take it again.
pub async fn wake<C: ConnectionTrait>(db: &C, plan_id: Uuid) -> AppResult<()> {
    plan::Entity::update_many()
        .col_expr(
            plan::Column::PausedAt,
            Expr::value(None::<chrono::DateTime<chrono::Utc>>),
        )
        .col_expr(plan::Column::WaitingSteps, Expr::value(0))
        .filter(plan::Column::Id.eq(plan_id))
        .exec(db)
        .await?;
    Ok(())
}

/// Lets go of a plan this runner held, leaving its status as it is (a stopped plan).
pub async fn release(state: &AppState, plan_id: Uuid, owner: &str) -> AppResult<()> {
    plan::Entity::update_many()
        .col_expr(plan::Column::LeaseOwner, Expr::value(None::<String>))
        .col_expr(
            plan::Column::LeaseExpiresAt,
            Expr::value(None::<chrono::DateTime<chrono::Utc>>),
        )
        .col_expr(
            plan::Column::PausedAt,
            Expr::value(None::<chrono::DateTime<chrono::Utc>>),
        )
        .col_expr(plan::Column::WaitingSteps, Expr::value(0))
        .filter(plan::Column::Id.eq(plan_id))
        .filter(plan::Column::LeaseOwner.eq(owner))
        .exec(&state.db)
        .await?;
    Ok(())
}

/// Writes a step plan's steps (their rows, `super::steps::store`), in the caller's transaction,
/// when no runner holds the plan (its claim is free or has expired): a person's stop or edit
/// shows on the card at once. A runner that holds the plan reads the same decision from the
/// audit and writes its own steps.
pub async fn write_steps_if_unheld<C: ConnectionTrait>(
    db: &C,
    plan_id: Uuid,
    steps: &[crate::steps::model::PlanStep],
    now: chrono::DateTime<chrono::Utc>,
) -> AppResult<()> {
    let unheld = plan::Entity::update_many()
        .col_expr(plan::Column::UpdatedAt, Expr::value(now))
        .filter(plan::Column::Id.eq(plan_id))
        .filter(
            sea_orm::Condition::any()
                .add(plan::Column::LeaseOwner.is_null())
                .add(plan::Column::LeaseExpiresAt.lte(now)),
        )
        .exec(db)
        .await?;
    if unheld.rows_affected == 1 {
        crate::plans::steps::store::write(db, plan_id, steps, now).await?;
    }
    Ok(())
}
