//! PlanExecutor: runs approved plans off the request path under a lease, dispatching by action;
//! plans left Approved, or Executing by a worker that died, are picked up again.
use crate::error::{AppError, AppResult};
use crate::plans::entity::plan;
use crate::plans::model::{PlanAction, PlanStatus};
use crate::plans::service::action_of;
use crate::platform::AppState;
use sea_orm::sea_query::Expr;
use sea_orm::{ColumnTrait, Condition, EntityTrait, QueryFilter};
use uuid::Uuid;

/// How long an executing plan's claim lasts; a worker that died past it leaves the plan to others.
const PLAN_LEASE: chrono::Duration = chrono::Duration::seconds(60);
/// Tries of a plan whose execution hit a server error (a database hiccup) before it fails.
const PLAN_TRIES: u32 = 5;

pub fn spawn_execution(state: &AppState, plan_id: Uuid) {
    let bg = state.clone();
    state.work.spawn(
        &state.tasks,
        async move { execute_plan(&bg, plan_id).await },
    );
}

/// Plans a restart left Approved, or Executing under a lease that expired, run again (every
/// handler is idempotent). A plan another live instance is executing is left to it.
pub async fn resume_pending(state: &AppState) -> AppResult<usize> {
    let now = state.clock.now();
    let rows = plan::Entity::find()
        .filter(claimable(now, None))
        .all(&state.db)
        .await?;
    for p in &rows {
        spawn_execution(state, p.id);
    }
    Ok(rows.len())
}

/// Runs the plan under a supervisor: a transient error (a busy database) is retried with
/// backoff; any other error, or too many, fails the plan for good, with its reason.
#[tracing::instrument(skip(state))]
pub async fn execute_plan(state: &AppState, plan_id: Uuid) {
    let mut backoff = std::time::Duration::from_millis(50);
    let mut tries = 0;
    let owner = format!("{}:{}", state.instance_id, Uuid::new_v4().simple());
    loop {
        tries += 1;
        match run(state, plan_id, &owner).await {
            Ok(()) => break,
            Err(e) if e.is_transient() && tries < PLAN_TRIES => {
                tracing::warn!(error = %e, tries, "plan execution hit a server error; retrying");
                tokio::time::sleep(backoff).await;
                backoff *= 2;
            }
            Err(e) => {
                tracing::error!(error = %e, "plan failed");
                if let Err(e) = fail(state, plan_id, &e.to_string()).await {
                    tracing::error!(error = %e, "could not record the plan's failure");
                }
                break;
            }
        }
    }
    publish(state, plan_id).await;
    if let Ok(Some(p)) = plan::Entity::find_by_id(plan_id).one(&state.db).await {
        crate::plans::announce::finished(state, &p).await;
        if p.status == PlanStatus::Failed {
            if let Err(e) = crate::plans::replan::after_failure(state, &p).await {
                tracing::warn!(error = %e, "could not ask for a revised plan");
            }
        }
    }
}

/// An executing plan fails for good, with its reason and its `plan.finished` event.
async fn fail(state: &AppState, plan_id: Uuid, why: &str) -> AppResult<()> {
    let now = state.clock.now();
    let txn = crate::platform::db::begin_write(&state.db).await?;
    let res = plan::Entity::update_many()
        .col_expr(plan::Column::Status, Expr::value(PlanStatus::Failed))
        .col_expr(plan::Column::Error, Expr::value(Some(why.to_owned())))
        .col_expr(plan::Column::UpdatedAt, Expr::value(now))
        .col_expr(
            plan::Column::LeaseOwner,
            Expr::value(Option::<String>::None),
        )
        .filter(plan::Column::Id.eq(plan_id))
        .filter(plan::Column::Status.eq(PlanStatus::Executing))
        .exec(&txn)
        .await?;
    if res.rows_affected == 1 {
        if let Some(p) = plan::Entity::find_by_id(plan_id).one(&txn).await? {
            let failed = PlanStatus::Failed.as_str();
            let event = "plan.finished";
            crate::plans::webhook_events::plan_event(&txn, &p, event, failed, Some(why), now)
                .await?;
        }
    }
    txn.commit().await?;
    Ok(())
}

async fn publish(state: &AppState, plan_id: Uuid) {
    if let Ok(Some(p)) = plan::Entity::find_by_id(plan_id).one(&state.db).await {
        state.live.publish(
            p.organization_id,
            crate::messaging::model::LiveEvent::PlanUpdated { plan_id },
        );
    }
}

/// Plans a worker may take: Approved, or Executing under a lease that expired (or that is
/// `owner`'s own, when it retries).
fn claimable(now: chrono::DateTime<chrono::Utc>, owner: Option<&str>) -> Condition {
    let mut lease_free = Condition::any()
        .add(plan::Column::LeaseExpiresAt.is_null())
        .add(plan::Column::LeaseExpiresAt.lt(now));
    if let Some(owner) = owner {
        lease_free = lease_free.add(plan::Column::LeaseOwner.eq(owner));
    }
    Condition::any()
        .add(plan::Column::Status.eq(PlanStatus::Approved))
        .add(
            Condition::all()
                .add(plan::Column::Status.eq(PlanStatus::Executing))
                // A plan waiting on a person is left alone: a decision wakes it.
                .add(plan::Column::PausedAt.is_null())
                .add(lease_free),
        )
}

/// Claims the plan for `owner`: Approved → Executing, or Executing whose lease expired (or is
/// already this worker's, when it retries).
async fn claim(state: &AppState, plan_id: Uuid, owner: &str) -> AppResult<bool> {
    let now = state.clock.now();
    let res = plan::Entity::update_many()
        .col_expr(plan::Column::Status, Expr::value(PlanStatus::Executing))
        .col_expr(
            plan::Column::LeaseOwner,
            Expr::value(Some(owner.to_owned())),
        )
        .col_expr(
            plan::Column::LeaseExpiresAt,
            Expr::value(Some(now + PLAN_LEASE)),
        )
        .col_expr(plan::Column::UpdatedAt, Expr::value(now))
        .filter(plan::Column::Id.eq(plan_id))
        .filter(claimable(now, Some(owner)))
        .exec(&state.db)
        .await?;
    Ok(res.rows_affected == 1)
}

async fn run(state: &AppState, plan_id: Uuid, owner: &str) -> AppResult<()> {
    if !claim(state, plan_id, owner).await? {
        return Ok(());
    }
    publish(state, plan_id).await;
    state.faults.check(crate::platform::faults::PLAN_EXECUTE)?;
    let p = plan::Entity::find_by_id(plan_id)
        .one(&state.db)
        .await?
        .ok_or_else(|| AppError::not_found("Plan"))?;
    let executed_ref = match dispatch(state, &p, action_of(&p)?, owner).await? {
        Dispatched::Done(made) => made,
        Dispatched::Paused { seen, waiting } => {
            crate::plans::pause::pause(state, &p, owner, seen, &waiting).await?;
            return Ok(());
        }
        Dispatched::Stopped => {
            // A person stopped it: the status is theirs; the runner only lets go.
            crate::plans::pause::release(state, plan_id, owner).await?;
            return Ok(());
        }
        Dispatched::Failed(why) => return Err(AppError::Validation(why)),
        Dispatched::Watching(op) => {
            // Done only when its campaign ends: the campaign's engines tell it.
            return crate::plans::campaign_outcome::watch(state, plan_id, owner, op).await;
        }
    };
    // Done and what it made, in one statement: never Done without its reference; its event in
    // the same transaction.
    let now = state.clock.now();
    let txn = crate::platform::db::begin_write(&state.db).await?;
    let res = plan::Entity::update_many()
        .col_expr(plan::Column::Status, Expr::value(PlanStatus::Done))
        .col_expr(plan::Column::ExecutedRef, Expr::value(executed_ref))
        .col_expr(
            plan::Column::LeaseOwner,
            Expr::value(Option::<String>::None),
        )
        .col_expr(plan::Column::UpdatedAt, Expr::value(now))
        .filter(plan::Column::Id.eq(plan_id))
        .filter(plan::Column::Status.eq(PlanStatus::Executing))
        .filter(plan::Column::LeaseOwner.eq(owner))
        .exec(&txn)
        .await?;
    if res.rows_affected == 1 {
        let done = PlanStatus::Done.as_str();
        crate::plans::webhook_events::plan_event(&txn, &p, "plan.finished", done, None, now)
            .await?;
    }
    txn.commit().await?;
    Ok(())
}

/// What dispatching an action came to.
enum Dispatched {
    /// It ran; what it made, if that has an id.
    Done(Option<Uuid>),
    /// A step plan waits for a person: having read `seen` decisions, on the steps `waiting`.
    Paused { seen: usize, waiting: Vec<String> },
    /// A person stopped the plan; running steps finished and nothing new started.
    Stopped,
    /// A step plan ended with steps that failed (their dependents blocked).
    Failed(String),
    /// It started this campaign, and ends when the campaign does.
    Watching(Uuid),
}

/// One handler per action.
async fn dispatch(
    state: &AppState,
    p: &plan::Model,
    action: PlanAction,
    owner: &str,
) -> AppResult<Dispatched> {
    use crate::plans::steps::run::{run_plan, StepsOutcome};
    match action {
        PlanAction::Steps { .. } => Ok(match run_plan(state, p, owner).await? {
            StepsOutcome::Paused { seen, waiting } => Dispatched::Paused { seen, waiting },
            StepsOutcome::Stopped => Dispatched::Stopped,
            StepsOutcome::Finished {
                failed: 0,
                blocked: 0,
            } => match crate::campaign::create::of_plan(state, p.id).await? {
                Some(op) => Dispatched::Watching(op),
                None => Dispatched::Done(None),
            },
            StepsOutcome::Finished { failed, blocked } => Dispatched::Failed(format!(
                "{failed} step(s) failed and {blocked} could not run because of it."
            )),
        }),
        PlanAction::TagContacts {
            segment: Some(_),
            add_tags,
            remove_tags,
            ..
        } => {
            tag_audience(state, p, &add_tags, &remove_tags).await?;
            Ok(Dispatched::Done(None))
        }
        PlanAction::TagContacts { changes, .. } => {
            for c in changes.iter().filter(|c| c.include) {
                match crate::contacts::edits::retag(
                    &state.db,
                    p.organization_id,
                    c.contact_id,
                    &c.add_tags,
                    &c.remove_tags,
                    state.clock.now(),
                )
                .await
                {
                    // A contact deleted since the plan was made is passed over.
                    Ok(_) | Err(AppError::NotFound(_)) => {}
                    Err(e) => return Err(e),
                }
            }
            Ok(Dispatched::Done(None))
        }
        PlanAction::BulkSmsCampaign {
            audience,
            segment,
            message_concept,
            from_number_id,
        } => {
            let audience = match segment {
                Some(_) => crate::plans::audience::lifecycle::decisions(state, p.id).await?,
                None => audience,
            };
            let op = crate::plans::campaign_start::create_campaign(
                state,
                p,
                &audience,
                &message_concept,
                from_number_id,
            )
            .await?;
            crate::campaign::engines::start(state, op, crate::campaign::engines::Engine::Draft);
            Ok(Dispatched::Watching(op))
        }
    }
}

/// Tags every member of the plan's resolved audience, a batch per transaction: a re-run after a
/// crash gives each the same tags again, which changes nothing.
async fn tag_audience(
    state: &AppState,
    p: &plan::Model,
    add: &[String],
    remove: &[String],
) -> AppResult<()> {
    crate::plans::audience::lifecycle::for_each_batch(state, p.id, |ids| async move {
        let txn = crate::platform::db::begin_write(&state.db).await?;
        let now = state.clock.now();
        // A contact deleted since the plan was approved is passed over.
        crate::contacts::edits::retag_many(&txn, p.organization_id, &ids, add, remove, now).await?;
        txn.commit().await?;
        Ok(())
    })
    .await
}
