//! Runs an approved step plan. Each step calls its tool from the step catalog with the plan's
//! agent's powers, under the effect key (plan, step, hash of its resolved arguments), so a step
//! re-run after a crash never repeats its effect. A step that writes waits until a person has
//! confirmed exactly those arguments. People's decisions (confirm, skip, continue) live in the
//! plan's audit, which the runner reads at every (re)start and never writes over; the runner
//! saves each transition to the step's own row (`super::store`) and streams it live.
use crate::ai_agent::entity::ai_agent;
use crate::ai_agent::tools::{EffectKey, ToolCtx, TurnScope};
use crate::error::{AppError, AppResult};
use crate::plans::approval::step_waived;
use crate::plans::entity::{audit, plan};
use crate::plans::model::{ApprovalPolicy, PlanAction, PlanStatus};
use crate::platform::AppState;
use crate::steps::catalog::step_catalog;
use crate::steps::graph::Graph;
use crate::steps::model::{PlanStep, StepConfirmation, StepMode, StepStatus};
use crate::steps::schedule::{
    block_downstream, resolved_arguments, run_steps, RunHooks, RunOutcome,
};
use crate::steps::validate::check_resolved;
use sea_orm::sea_query::Expr;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QueryOrder};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use uuid::Uuid;

/// Steps of one plan that run at once (eager).
const CONCURRENCY: usize = 8;
/// How long a runner's claim on its plan lasts between heartbeats.
const LEASE: chrono::Duration = chrono::Duration::seconds(60);

/// Audit kinds of people's decisions about steps (the audit's `kind` holds 16 characters).
pub const CONFIRMED: &str = "step_confirmed";
/// Every step still to run at that moment, confirmed whatever arguments its inputs give it.
pub const CONFIRMED_ALL: &str = "step_confirm_all";
pub const SKIPPED: &str = "step_skipped";
pub const CONTINUED: &str = "step_continue";
/// Every kind of decision the runner reads, edits (`super::edit::EDITED`) among them.
const DECISIONS: [&str; 5] = [
    CONFIRMED,
    CONFIRMED_ALL,
    SKIPPED,
    CONTINUED,
    super::edit::EDITED,
];

/// A confirmation from "confirm all remaining": for whatever arguments the step runs with.
pub const ANY_ARGUMENTS: &str = "*";

/// The hash a confirmation is bound to: of the step's arguments as resolved for running.
///
/// Objects' keys are sorted first. The same arguments come in different key orders: a tool's
/// result as it ran (its fields' order) and the same result read back from the plan (PostgreSQL
/// stores it as `jsonb`, which reorders keys). Unsorted, a runner that had just run a step
/// hashed its dependents' arguments differently from the card the person confirmed, read the
/// confirmation, did not match it and paused for good; and a step re-run after a crash, from
/// the stored result, got another effect key.
pub fn arguments_hash(resolved: &Value) -> String {
    let mut canonical = resolved.clone();
    canonical.sort_all_objects();
    let digest = Sha256::digest(canonical.to_string().as_bytes());
    digest.iter().take(12).map(|b| format!("{b:02x}")).collect()
}

/// How a run of the plan ended.
#[derive(Debug, PartialEq, Eq)]
pub enum StepsOutcome {
    /// Every step reached an end; `failed` of them failed (their dependents are blocked).
    Finished { failed: usize, blocked: usize },
    /// Waiting for a person: a confirmation, or (lazy) the next Continue. `seen` decisions
    /// were read; `waiting` are the steps awaiting confirmation.
    Paused { seen: usize, waiting: Vec<String> },
    /// A person stopped the plan: the steps that were running finished, and the rest were
    /// skipped without starting.
    Stopped,
}

/// The steps awaiting confirmation, for a pause.
fn paused(steps: &[PlanStep], seen: usize) -> StepsOutcome {
    let mut waiting: Vec<String> = awaiting(steps).into_iter().map(str::to_owned).collect();
    waiting.sort();
    StepsOutcome::Paused { seen, waiting }
}

/// How many decisions about the plan's steps people have recorded.
pub async fn decision_count(state: &AppState, plan_id: Uuid) -> AppResult<usize> {
    use sea_orm::PaginatorTrait;
    Ok(audit::Entity::find()
        .filter(audit::Column::PlanId.eq(plan_id))
        .filter(audit::Column::Kind.is_in(DECISIONS))
        .count(&state.db)
        .await? as usize)
}

/// Whether a person stopped the plan (its status says so).
async fn is_stopped(state: &AppState, plan_id: Uuid) -> AppResult<bool> {
    Ok(plan::Entity::find_by_id(plan_id)
        .one(&state.db)
        .await?
        .is_some_and(|p| p.status == PlanStatus::Stopped))
}

/// Watches the plan's status while its steps run, on any instance: `flag` goes up once a
/// person stops it. Ends with the run (the caller aborts it).
fn watch_for_stop(
    state: &AppState,
    plan_id: Uuid,
    flag: Arc<AtomicBool>,
) -> tokio::task::JoinHandle<()> {
    let state = state.clone();
    tokio::spawn(async move {
        // Real time: how soon another instance's stop is seen, not a time of the business.
        let mut every = tokio::time::interval(std::time::Duration::from_millis(250));
        loop {
            every.tick().await;
            if is_stopped(&state, plan_id).await.unwrap_or(false) {
                flag.store(true, Ordering::SeqCst);
                return;
            }
        }
    })
}

/// After a stop: every step that had not started is skipped, saying why.
pub fn skip_unstarted(steps: &mut [PlanStep]) {
    for s in steps.iter_mut().filter(|s| !s.status.is_final()) {
        s.status = StepStatus::Skipped;
        s.error = Some("not run: the plan was stopped".into());
    }
}

/// A person's decision about one step, from the audit.
struct Decided {
    kind: String,
    step: String,
    /// The steps a confirm-all named.
    steps: Vec<String>,
    hash: Option<String>,
    /// An edit's changed fields.
    changes: serde_json::Map<String, Value>,
    by: Option<Uuid>,
    at: chrono::DateTime<chrono::Utc>,
}

async fn decisions(state: &AppState, plan_id: Uuid) -> AppResult<Vec<Decided>> {
    Ok(audit::Entity::find()
        .filter(audit::Column::PlanId.eq(plan_id))
        .filter(audit::Column::Kind.is_in(DECISIONS))
        .order_by_asc(audit::Column::CreatedAt)
        .all(&state.db)
        .await?
        .into_iter()
        .map(|a| {
            let after = a.after.unwrap_or_default();
            Decided {
                kind: a.kind,
                step: after["step"].as_str().unwrap_or_default().to_owned(),
                steps: after["steps"]
                    .as_array()
                    .map(|l| {
                        l.iter()
                            .filter_map(|s| s.as_str().map(str::to_owned))
                            .collect()
                    })
                    .unwrap_or_default(),
                hash: after["hash"].as_str().map(str::to_owned),
                changes: after["arguments"].as_object().cloned().unwrap_or_default(),
                by: a.actor_user_id,
                at: a.created_at,
            }
        })
        .collect())
}

/// Applies people's edits first, then confirmations (bound to the arguments' hash, so one made
/// before an edit no longer matches) and skips; answers whether anything changed. A confirm-all
/// marks the steps it named as confirmed whatever their arguments turn out to be
/// (`ANY_ARGUMENTS`).
fn apply(steps: &mut [PlanStep], graph: &Graph, decided: &[Decided]) -> bool {
    let edits: Vec<super::edit::Edit> = decided
        .iter()
        .filter(|d| d.kind == super::edit::EDITED)
        .map(|d| super::edit::Edit {
            step: d.step.clone(),
            changes: d.changes.clone(),
        })
        .collect();
    let mut changed = super::edit::apply_edits(steps, &edits);
    for d in decided.iter().filter(|d| d.kind == CONFIRMED_ALL) {
        for s in steps.iter_mut().filter(|s| {
            d.steps.contains(&s.id)
                && matches!(
                    s.status,
                    StepStatus::Ready | StepStatus::AwaitingConfirmation
                )
                && s.confirmation.as_ref().map(|c| c.arguments_hash.as_str()) != Some(ANY_ARGUMENTS)
        }) {
            s.confirmation = Some(StepConfirmation {
                by: d.by.unwrap_or_default(),
                at: d.at,
                arguments_hash: ANY_ARGUMENTS.into(),
            });
            s.status = StepStatus::Ready;
            changed = true;
        }
    }
    for d in decided {
        let Some(i) = steps.iter().position(|s| s.id == d.step) else {
            continue;
        };
        match d.kind.as_str() {
            SKIPPED
                if matches!(
                    steps[i].status,
                    StepStatus::Ready | StepStatus::AwaitingConfirmation
                ) =>
            {
                steps[i].status = StepStatus::Skipped;
                steps[i].error = Some("skipped by a person".into());
                block_downstream(steps, graph, i);
                changed = true;
            }
            CONFIRMED => {
                let Ok(args) = resolved_arguments(steps, i) else {
                    continue;
                };
                let hash = arguments_hash(&args);
                let current = steps[i].confirmation.as_ref().map(|c| &c.arguments_hash);
                if d.hash.as_ref() == Some(&hash)
                    && current != Some(&hash)
                    && matches!(
                        steps[i].status,
                        StepStatus::Ready | StepStatus::AwaitingConfirmation
                    )
                {
                    steps[i].confirmation = Some(StepConfirmation {
                        by: d.by.unwrap_or_default(),
                        at: d.at,
                        arguments_hash: hash,
                    });
                    steps[i].status = StepStatus::Ready;
                    changed = true;
                }
            }
            _ => {}
        }
    }
    changed
}

/// Saves these steps (their rows in `plan_step`, see `super::store`) under this runner's claim,
/// which it extends, and tells the plan's pages. With no steps it only extends the claim.
///
/// The claim is checked first, and only a runner that holds it writes: having just extended it
/// to a minute from now, nobody else can take the plan before the rows are written, so the two
/// statements need no transaction around them (one round trip and one lock fewer per save).
async fn save(state: &AppState, p: &plan::Model, owner: &str, steps: &[PlanStep]) -> AppResult<()> {
    let now = state.clock.now();
    let res = plan::Entity::update_many()
        .col_expr(plan::Column::LeaseExpiresAt, Expr::value(Some(now + LEASE)))
        .col_expr(plan::Column::UpdatedAt, Expr::value(now))
        .filter(plan::Column::Id.eq(p.id))
        .filter(plan::Column::LeaseOwner.eq(owner))
        .exec(&state.db)
        .await?;
    if res.rows_affected != 1 {
        return Err(AppError::Conflict(
            "Another worker took over this plan.".into(),
        ));
    }
    super::store::write(&state.db, p.id, steps, now).await?;
    if !steps.is_empty() {
        state.live.publish(
            p.organization_id,
            crate::messaging::model::LiveEvent::PlanUpdated { plan_id: p.id },
        );
    }
    Ok(())
}

/// The tools' context: the plan's agent, with its owner's membership, organisation-wide.
pub(crate) async fn tool_ctx(state: &AppState, p: &plan::Model) -> AppResult<ToolCtx> {
    let agent = ai_agent::Entity::find_by_id(p.agent_id)
        .one(&state.db)
        .await?
        .ok_or_else(|| AppError::not_found("The plan's agent"))?;
    let owner = match agent.user_id {
        Some(u) => crate::auth::session::member_for(state, u, p.organization_id)
            .await
            .map_err(|_| AppError::Validation("The agent's owner is no longer a member.".into()))?,
        None => {
            return Err(AppError::Validation(
                "A platform agent cannot run a plan.".into(),
            ))
        }
    };
    Ok(ToolCtx {
        state: state.clone(),
        agent,
        organization_id: p.organization_id,
        thread_id: p.thread_id.unwrap_or_default(),
        member: Some(owner),
        reply: None,
        scope: TurnScope::Operator,
        plan_id: Some(p.id),
        taint: Default::default(),
        knowledge: Default::default(),
    })
}

/// Saves every transition as it happens: the run loop hands each changed step over, and this
/// writes those steps' rows (several transitions at once when they come together; a step that
/// moved twice is written once, as it last stood), and keeps the runner's claim alive while a
/// long step runs.
async fn write_through(
    state: AppState,
    p: plan::Model,
    owner: String,
    mut rx: tokio::sync::mpsc::UnboundedReceiver<PlanStep>,
) -> AppResult<()> {
    let mut beat = tokio::time::interval(std::time::Duration::from_secs(20));
    beat.tick().await;
    loop {
        tokio::select! {
            got = rx.recv() => {
                let Some(first) = got else { return Ok(()) };
                let mut batch = vec![first];
                while let Ok(more) = rx.try_recv() {
                    match batch.iter_mut().find(|s| s.id == more.id) {
                        Some(slot) => *slot = more,
                        None => batch.push(more),
                    }
                }
                save(&state, &p, &owner, &batch).await?;
            }
            _ = beat.tick() => save(&state, &p, &owner, &[]).await?,
        }
    }
}

/// Runs the steps with every transition written through to the plan as it happens (batched
/// when transitions come together, with heartbeats on the claim), then saves the end state.
/// This is the runner's persistence; the step plan bench measures it with a no-op tool.
#[allow(clippy::too_many_arguments)]
pub async fn run_written_through<Run, Fut>(
    state: &AppState,
    p: &plan::Model,
    owner: &str,
    mode: StepMode,
    steps: &mut [PlanStep],
    graph: &Graph,
    needs: &(dyn Fn(&PlanStep, &Value) -> bool + Sync),
    stopped: &(dyn Fn() -> bool + Sync),
    run: Run,
) -> AppResult<RunOutcome>
where
    Run: Fn(usize, Value) -> Fut,
    Fut: std::future::Future<Output = Result<Value, String>>,
{
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel::<PlanStep>();
    let writer = tokio::spawn(write_through(
        state.clone(),
        p.clone(),
        owner.to_owned(),
        rx,
    ));
    let mut on_save = |s: &PlanStep| {
        let _ = tx.send(s.clone());
    };
    let now = || state.clock.now();
    let ran = run_steps(
        steps,
        graph,
        RunHooks {
            mode,
            concurrency: CONCURRENCY,
            needs_confirmation: needs,
            run,
            save: &mut on_save,
            now: &now,
            stopped,
        },
    )
    .await;
    drop(tx);
    writer
        .await
        .map_err(|e| AppError::Internal(format!("step writer: {e}")))??;
    save(state, p, owner, steps).await?;
    Ok(ran)
}

/// Runs the plan's steps until they finish or wait for a person.
pub async fn run_plan(state: &AppState, p: &plan::Model, owner: &str) -> AppResult<StepsOutcome> {
    let PlanAction::Steps { mode, mut steps } = super::store::action(&state.db, p).await? else {
        return Err(AppError::Internal("not a step plan".into()));
    };
    let graph = Graph::of(&steps).map_err(|e| {
        AppError::Validation(format!("The plan's steps do not form a graph: {e:?}"))
    })?;
    // A step left executing by a runner that died (this one holds the plan's claim now) runs
    // again under the same effect key, so its effect happens once; its confirmation stands.
    for s in steps
        .iter_mut()
        .filter(|s| s.status == StepStatus::Executing)
    {
        s.status = StepStatus::Ready;
        s.started_at = None;
    }
    let stop = Arc::new(AtomicBool::new(false));
    let watch = watch_for_stop(state, p.id, stop.clone());
    let ran = run_until_paused(state, p, owner, mode, &mut steps, &graph, &stop).await;
    watch.abort();
    let ran = ran?;
    if stop.load(Ordering::SeqCst) || is_stopped(state, p.id).await? {
        skip_unstarted(&mut steps);
        save(state, p, owner, &steps).await?;
        crate::plans::announce::steps_ended(state, p, &steps).await;
        return Ok(StepsOutcome::Stopped);
    }
    Ok(ran)
}

/// The run loop of `run_plan`: steps run until they finish, wait for a person, or the plan is
/// stopped (`stop`).
#[allow(clippy::too_many_arguments)]
async fn run_until_paused(
    state: &AppState,
    p: &plan::Model,
    owner: &str,
    mode: StepMode,
    steps: &mut [PlanStep],
    graph: &Graph,
    stop: &Arc<AtomicBool>,
) -> AppResult<StepsOutcome> {
    let tools = state.tools().for_steps();
    let catalog = step_catalog(&tools);
    let ctx = tool_ctx(state, p).await?;
    // The policy chosen for the plan; older plans have only the one they were approved under.
    let policy = ApprovalPolicy::parse(p.step_policy.as_deref().unwrap_or(&p.approval_policy));
    let stopped = || stop.load(Ordering::SeqCst);
    loop {
        if stopped() {
            return Ok(StepsOutcome::Stopped);
        }
        let decided = decisions(state, p.id).await?;
        let seen = decided.len();
        apply(steps, graph, &decided);
        // Lazy: one step per Continue; the approval itself runs none.
        let continues = decided.iter().filter(|d| d.kind == CONTINUED).count();
        let started = steps.iter().filter(|s| s.started_at.is_some()).count();
        if mode == StepMode::Lazy && continues <= started {
            save(state, p, owner, steps).await?;
            crate::plans::announce::steps_ended(state, p, steps).await;
            return Ok(outcome(steps).unwrap_or_else(|| paused(steps, seen)));
        }
        let needs = |s: &PlanStep, args: &Value| {
            let confirmed = s.confirmation.as_ref().map(|c| c.arguments_hash.as_str());
            catalog.get(&s.tool).is_some_and(|t| t.mutates)
                && confirmed != Some(ANY_ARGUMENTS)
                && confirmed != Some(arguments_hash(args).as_str())
                && !step_waived(policy, s, args, state.plan_risk())
        };
        let planned = steps.to_vec();
        let run = |i: usize, args: Value| {
            let step = &planned[i];
            let (tools, catalog, ctx) = (&tools, &catalog, &ctx);
            async move {
                let spec = catalog
                    .get(&step.tool)
                    .ok_or_else(|| format!("`{}` is not a step tool", step.tool))?;
                let tool = tools
                    .iter()
                    .find(|t| t.def().name == step.tool)
                    .ok_or_else(|| format!("`{}` is not a step tool", step.tool))?;
                if step.for_each.is_some() {
                    return super::items::run_each(ctx, p, step, &args, tool.as_ref(), spec, stop)
                        .await;
                }
                check_resolved(spec, &args)?;
                let key = EffectKey::named(format!(
                    "step:{}:{}:{}",
                    p.id,
                    step.id,
                    arguments_hash(&args)
                ));
                tool.call(ctx, &key, args).await.map_err(|e| e.to_string())
            }
        };
        let ran =
            run_written_through(state, p, owner, mode, steps, graph, &needs, &stopped, run).await?;
        crate::plans::announce::steps_ended(state, p, steps).await;
        if ran == RunOutcome::Finished {
            return Ok(outcome(steps).unwrap_or_else(|| paused(steps, seen)));
        }
        if stopped() {
            return Ok(StepsOutcome::Stopped);
        }
        // A decision that came in while the steps ran is taken now rather than waiting.
        if mode == StepMode::Lazy || decisions(state, p.id).await?.len() <= seen {
            return Ok(paused(steps, seen));
        }
    }
}

/// Whether a failed step's failure was handled: a step that runs `on: failure` of it completed
/// (seed 004's "receipt or error": the plan took the other branch, and did not fail).
fn handled(steps: &[PlanStep], failed: &PlanStep) -> bool {
    steps.iter().any(|t| {
        t.on == Some(crate::steps::model::StepOn::Failure)
            && t.status == StepStatus::Completed
            && crate::steps::graph::step_references(t)
                .is_ok_and(|refs| refs.iter().any(|(_, r)| r.step == failed.id))
    })
}

fn outcome(steps: &[PlanStep]) -> Option<StepsOutcome> {
    steps
        .iter()
        .all(|s| s.status.is_final())
        .then(|| StepsOutcome::Finished {
            failed: steps
                .iter()
                .filter(|s| s.status == StepStatus::Failed && !handled(steps, s))
                .count(),
            // What a handled failure blocked was the branch not taken.
            blocked: steps
                .iter()
                .filter(|s| s.status == StepStatus::Blocked)
                .filter(|s| {
                    let cause = s
                        .error
                        .as_deref()
                        .and_then(|e| e.strip_prefix(crate::steps::schedule::BLOCKED_BY_FAILURE));
                    !cause.is_some_and(|id| steps.iter().any(|f| f.id == id && handled(steps, f)))
                })
                .count(),
        })
}

/// Ids of the steps waiting for a person's confirmation.
pub fn awaiting(steps: &[PlanStep]) -> HashSet<&str> {
    steps
        .iter()
        .filter(|s| s.status == StepStatus::AwaitingConfirmation)
        .map(|s| s.id.as_str())
        .collect()
}

/// Whether a plan in this status may take decisions about its steps.
pub fn takes_decisions(status: PlanStatus) -> bool {
    matches!(status, PlanStatus::Approved | PlanStatus::Executing)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decision_kinds_fit_the_audit_column() {
        for kind in DECISIONS {
            assert!(kind.len() <= 16, "{kind}");
        }
    }

    #[test]
    fn a_confirmation_is_bound_to_the_arguments() {
        let a = serde_json::json!({"contact_id": "x", "body": "Hi"});
        let b = serde_json::json!({"contact_id": "y", "body": "Hi"});
        assert_eq!(arguments_hash(&a), arguments_hash(&a.clone()));
        assert_ne!(arguments_hash(&a), arguments_hash(&b));
        assert_ne!(arguments_hash(&a), ANY_ARGUMENTS);
    }

    #[test]
    fn a_confirmation_does_not_depend_on_key_order() {
        // As a tool returned it, and as PostgreSQL's jsonb gives it back.
        let ran: Value =
            serde_json::from_str(r#"{"contacts": [{"name": "Kay", "id": "k"}], "add": ["x"]}"#)
                .unwrap();
        let stored: Value =
            serde_json::from_str(r#"{"add": ["x"], "contacts": [{"id": "k", "name": "Kay"}]}"#)
                .unwrap();
        assert_ne!(ran.to_string(), stored.to_string(), "the orders differ");
        assert_eq!(arguments_hash(&ran), arguments_hash(&stored));
    }
}
