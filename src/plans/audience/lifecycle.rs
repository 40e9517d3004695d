//! An audience through a plan's life: resolved when the plan is presented, resolved again when a
//! person approves it (a different membership is shown and approval refused once), then paged
//! through by the executors.
use crate::error::{AppError, AppResult};
use crate::plans::audience::model::change_note;
use crate::plans::audience::resolve;
use crate::plans::entity::plan;
use crate::plans::model::{ContactDecision, PlanAction};
use crate::platform::AppState;
use sea_orm::sea_query::Expr;
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter};
use uuid::Uuid;

/// Members the executors read at a time.
const BATCH: u64 = 500;

fn is_campaign(action: &PlanAction) -> bool {
    matches!(action, PlanAction::BulkSmsCampaign { .. })
}

async fn save_action<C: ConnectionTrait>(
    db: &C,
    plan_id: Uuid,
    action: &PlanAction,
    now: chrono::DateTime<chrono::Utc>,
) -> AppResult<()> {
    let payload = serde_json::to_value(action).map_err(|e| AppError::Internal(e.to_string()))?;
    plan::Entity::update_many()
        .col_expr(plan::Column::ActionPayload, Expr::value(payload))
        .col_expr(plan::Column::UpdatedAt, Expr::value(now))
        .filter(plan::Column::Id.eq(plan_id))
        .exec(db)
        .await?;
    Ok(())
}

/// At presentation, in the transaction that stored the plan: its audience's first resolution.
/// An audience with nobody in it is refused, so the author can think again.
pub async fn on_present<C: ConnectionTrait>(
    db: &C,
    org: Uuid,
    plan_id: Uuid,
    action: &mut PlanAction,
    now: chrono::DateTime<chrono::Utc>,
) -> AppResult<()> {
    let campaign = is_campaign(action);
    let Some(a) = action.audience_mut() else {
        return Ok(());
    };
    let members = resolve::snapshot(db, org, plan_id, 1, a, campaign, now).await?;
    if members == 0 {
        let left_out = resolve::exclusions(db, plan_id, 1).await?;
        let why = if left_out.is_empty() {
            "no contact matches it".to_owned()
        } else {
            let groups: Vec<String> = left_out
                .iter()
                .map(|(why, n)| format!("{n} {why}"))
                .collect();
            format!("everyone it matches is left out ({})", groups.join(", "))
        };
        return Err(AppError::validation(format!(
            "That audience has nobody in it today: {why}."
        )));
    }
    a.members = Some(members);
    save_action(db, plan_id, action, now).await
}

/// At approval, before the plan's status changes: the audience resolved again. The same
/// membership passes. A different one replaces the last, is recorded on the plan and in its
/// audit, and refuses this approval so that a person sees the change before approving again.
pub async fn on_approve(state: &AppState, p: &plan::Model, actor: Uuid) -> AppResult<()> {
    let mut action = crate::plans::service::action_of(p)?;
    let campaign = is_campaign(&action);
    let Some(a) = action.audience_mut() else {
        return Ok(());
    };
    let now = state.clock.now();
    let old = resolve::generation(&state.db, p.id).await?.unwrap_or(0);
    let new = old + 1;
    let txn = crate::platform::db::begin_write(&state.db).await?;
    let members =
        match resolve::snapshot(&txn, p.organization_id, p.id, new, a, campaign, now).await {
            Ok(n) => n,
            Err(e) => {
                drop(txn);
                // Two approvals at once: the other wrote this generation first.
                if resolve::generation(&state.db, p.id).await? >= Some(new) {
                    return Err(AppError::Conflict(
                        "Someone is approving this plan already.".into(),
                    ));
                }
                return Err(e);
            }
        };
    let (joined, left) = if old == 0 {
        (members, 0)
    } else {
        resolve::changes(&txn, p.id, old, new).await?
    };
    let Some(note) = change_note(joined, left) else {
        resolve::drop_generation(&txn, p.id, new).await?;
        txn.commit().await?;
        return Ok(());
    };
    resolve::drop_generation(&txn, p.id, old).await?;
    a.members = Some(members);
    a.changed = Some(note.clone());
    save_action(&txn, p.id, &action, now).await?;
    crate::plans::service::record(
        &txn,
        now,
        p.id,
        "audience_changed",
        Some(actor),
        None,
        None,
        Some(format!("{note}: {members} members now.")),
        None,
        None,
    )
    .await?;
    txn.commit().await?;
    tracing::info!(plan = %p.id, joined, left, "audience changed before approval");
    Err(AppError::Conflict(format!(
        "{note}: {members} members now. Look over the audience, then approve again."
    )))
}

/// After a person's edit: the contacts they left out or put back are resolved again in the
/// current generation (an opted-out contact put back stays out, with that reason), and the
/// member count follows.
pub async fn on_edit<C: ConnectionTrait>(
    db: &C,
    org: Uuid,
    plan_id: Uuid,
    action: &mut PlanAction,
    edited: &[(Uuid, bool)],
    now: chrono::DateTime<chrono::Utc>,
) -> AppResult<()> {
    let campaign = is_campaign(action);
    let Some(a) = action.audience_mut() else {
        return Ok(());
    };
    let Some(gen) = resolve::generation(db, plan_id).await? else {
        return Ok(());
    };
    let only: Vec<Uuid> = edited.iter().map(|(id, _)| *id).collect();
    a.members = Some(resolve::resolve_again(db, org, plan_id, gen, a, campaign, now, &only).await?);
    Ok(())
}

/// Calls `each` with the plan's members, a batch at a time, in contact order.
pub async fn for_each_batch<F, Fut>(state: &AppState, plan_id: Uuid, mut each: F) -> AppResult<()>
where
    F: FnMut(Vec<Uuid>) -> Fut,
    Fut: std::future::Future<Output = AppResult<()>>,
{
    let Some(gen) = resolve::generation(&state.db, plan_id).await? else {
        return Ok(());
    };
    let mut after = None;
    loop {
        let ids = resolve::member_ids(&state.db, plan_id, gen, after, BATCH).await?;
        let Some(last) = ids.last().copied() else {
            return Ok(());
        };
        let full = ids.len() as u64 == BATCH;
        each(ids).await?;
        if !full {
            return Ok(());
        }
        after = Some(last);
    }
}

/// A campaign's members as per-contact decisions, for the bulk engine's items.
pub async fn decisions(state: &AppState, plan_id: Uuid) -> AppResult<Vec<ContactDecision>> {
    let mut out = Vec::new();
    for_each_batch(state, plan_id, |ids| {
        out.extend(ids.into_iter().map(|contact_id| ContactDecision {
            contact_id,
            include: true,
            reason: "in the audience".into(),
            add_tags: vec![],
            remove_tags: vec![],
            kind: "audience".into(),
        }));
        async { Ok(()) }
    })
    .await?;
    Ok(out)
}
