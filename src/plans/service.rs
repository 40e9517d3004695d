//! Plans: present (persist, resolve the policy, gate or approve), view, edit, approve atomically,
//! reject back to the authoring thread; every decision and edit is audited.
use crate::ai_agent::entity::ai_agent;
use crate::auth::session::Member;
use crate::contacts::entity::contact;
use crate::contacts::opt_out;
use crate::error::{AppError, AppResult};
use crate::plans::approval::{effective_policy, resolve_approval};
use crate::plans::entity::{audit, plan};
use crate::plans::model::*;
use crate::platform::AppState;
use crate::steps::catalog::step_catalog;
use crate::steps::validate::ToolCatalog;
use chrono::Utc;
use sea_orm::sea_query::Expr;
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder,
    QuerySelect, Set,
};
use uuid::Uuid;

#[allow(clippy::too_many_arguments)]
pub(crate) async fn record<C: ConnectionTrait>(
    db: &C,
    now: chrono::DateTime<Utc>,
    plan_id: Uuid,
    kind: &str,
    actor_user: Option<Uuid>,
    policy: Option<&str>,
    decision: Option<&str>,
    reason: Option<String>,
    before: Option<serde_json::Value>,
    after: Option<serde_json::Value>,
) -> AppResult<()> {
    audit::ActiveModel {
        id: Set(Uuid::new_v4()),
        plan_id: Set(plan_id),
        kind: Set(kind.into()),
        actor: Set(if actor_user.is_some() {
            "user".into()
        } else {
            "policy".into()
        }),
        actor_user_id: Set(actor_user),
        policy: Set(policy.map(str::to_owned)),
        decision: Set(decision.map(str::to_owned)),
        reason: Set(reason),
        before: Set(before),
        after: Set(after),
        created_at: Set(now),
    }
    .insert(db)
    .await?;
    Ok(())
}

/// Checks every contact in the plan belongs to the organisation, and no opted-out contact is in.
pub(crate) async fn validate_action(
    state: &AppState,
    org: Uuid,
    action: &PlanAction,
) -> AppResult<()> {
    if action.changes().len() > HAND_PICKED_MAX {
        return Err(AppError::validation(format!(
            "A plan lists at most {HAND_PICKED_MAX} contacts one by one; for more, name a segment or give a filter as its audience."
        )));
    }
    if action.audience().is_some() && !action.changes().is_empty() {
        return Err(AppError::validation(
            "A plan lists its contacts one by one or names an audience, not both.",
        ));
    }
    if let PlanAction::TagContacts {
        segment: Some(_),
        add_tags,
        remove_tags,
        ..
    } = action
    {
        if add_tags.is_empty() && remove_tags.is_empty() {
            return Err(AppError::validation(
                "A tag plan over an audience names tags to add or remove.",
            ));
        }
    }
    let mut ids: Vec<Uuid> = action.changes().iter().map(|c| c.contact_id).collect();
    // An audience's hand-picked contacts must be the organisation's too.
    if let Some(a) = action.audience() {
        ids.extend(a.exclude.iter().chain(&a.include).map(|e| e.contact_id));
    }
    // A step that names a contact or a number outright: it must be the organisation's.
    let literal = |s: &PlanStep, key: &str| {
        s.arguments
            .get(key)
            .and_then(|v| v.as_str())
            .and_then(|v| v.parse::<Uuid>().ok())
    };
    for s in action.steps() {
        ids.extend(literal(s, "contact_id"));
        if let Some(number) = literal(s, "phone_number_id") {
            crate::plans::from_number::find(state, org, number).await?;
        }
    }
    let found: Vec<Uuid> = contact::Entity::find()
        .select_only()
        .column(contact::Column::Id)
        .filter(contact::Column::OrganizationId.eq(org))
        .filter(contact::Column::Id.is_in(ids.clone()))
        .into_tuple()
        .all(&state.db)
        .await?;
    if let Some(missing) = ids.iter().find(|id| !found.contains(id)) {
        return Err(AppError::NotFound(format!("Contact {missing}")));
    }
    if let Some(number) = action.from_number_id() {
        crate::plans::from_number::find(state, org, number).await?;
    }
    let outs = opt_out::sms_opt_outs(&state.db, &ids).await?;
    let names = crate::plans::view::names(state, &ids).await?;
    if let Some(c) = action
        .changes()
        .iter()
        .find(|c| c.include && outs.contains_key(&c.contact_id))
    {
        let name = names.get(&c.contact_id).cloned().unwrap_or_default();
        return Err(AppError::OptedOut(format!(
            "{name} has opted out, so the plan cannot include them."
        )));
    }
    Ok(())
}

/// A step plan's steps as planned (whatever run state a presenter claimed is dropped), checked
/// against the step catalog: every problem, one per line, or the steps.
pub fn checked_steps(catalog: &ToolCatalog, steps: &[PlanStep]) -> AppResult<Vec<PlanStep>> {
    let steps: Vec<PlanStep> = steps.iter().map(PlanStep::as_planned).collect();
    let mut issues = crate::steps::validate::validate(&steps, catalog);
    let campaigns = steps
        .iter()
        .filter(|s| s.tool == crate::plans::model::CAMPAIGN_TOOL)
        .count();
    if campaigns > 1 {
        issues.push(crate::steps::validate::StepIssue {
            step: String::new(),
            message: format!("a plan starts at most one campaign, and this one starts {campaigns}"),
        });
    }
    if issues.is_empty() {
        return Ok(steps);
    }
    let lines: Vec<String> = issues.iter().map(|i| format!("- {i}")).collect();
    Err(AppError::Validation(format!(
        "The plan has problems; fix them and present it again:\n{}",
        lines.join("\n")
    )))
}

/// A plan as an agent (or a test) presents it.
pub struct Presented<'a> {
    pub thread_id: Option<Uuid>,
    pub title: &'a str,
    pub summary: &'a str,
    pub action: PlanAction,
    pub policy_override: Option<ApprovalPolicy>,
    /// The effect key of the presenting call: presented twice, it is one plan.
    pub source_key: Option<String>,
    /// The plan this one revises (a re-plan of a step plan).
    pub revises: Option<Uuid>,
}

/// Persists a presented plan and lets the policy decide: gate it, or approve and execute it.
#[tracing::instrument(skip(state, agent, p), fields(agent = %agent.id))]
pub async fn present_plan(
    state: &AppState,
    agent: &ai_agent::Model,
    p: Presented<'_>,
) -> AppResult<plan::Model> {
    let Presented {
        thread_id,
        title,
        summary,
        action,
        policy_override,
        source_key,
        revises,
    } = p;
    let org = agent
        .organization_id
        .ok_or_else(|| AppError::validation("A platform agent cannot plan."))?;
    // The same presentation, re-run after a failure, is the same plan: decided once.
    if let Some(key) = &source_key {
        if let Some(existing) = plan::Entity::find()
            .filter(plan::Column::SourceKey.eq(key.as_str()))
            .filter(plan::Column::OrganizationId.eq(org))
            .one(&state.db)
            .await?
        {
            crate::plans::announce::presented(state, agent, &existing).await?;
            return Ok(existing);
        }
    }
    check_shape(title, &action)?;
    let action = crate::plans::from_number::with_default(state, agent, org, action).await?;
    let (mut action, old) = revised(state, agent, org, action, revises).await?;
    if let Some(a) = action.audience_mut() {
        crate::plans::audience::resolve::prepare(state, org, a).await?;
    }
    let mut action = crate::plans::learning::apply_lessons(state, agent.id, org, action).await?;
    validate_action(state, org, &action).await?;
    let agent_policy = crate::ai_agent::settings::AgentSettings::of(agent).plan_approval;
    let chosen = policy_override
        .or(action.policy_override())
        .unwrap_or(agent_policy);
    let policy = effective_policy(chosen, None, &action);
    let (decision, reason) = resolve_approval(policy, &action, state.plan_risk());
    let now = state.clock.now();
    let status = match decision {
        Decision::Gate => PlanStatus::AwaitingApproval,
        Decision::Proceed => PlanStatus::Approved,
    };
    let id = Uuid::new_v4();
    let row = plan::ActiveModel {
        id: Set(id),
        organization_id: Set(org),
        agent_id: Set(agent.id),
        thread_id: Set(thread_id),
        title: Set(title.trim().chars().take(255).collect()),
        summary: Set(summary.trim().to_owned()),
        action_type: Set(action.type_name().into()),
        action_payload: Set(
            serde_json::to_value(&action).map_err(|e| AppError::Internal(e.to_string()))?
        ),
        approval_policy: Set(policy.as_str().into()),
        status: Set(status),
        decision: Set(Some(decision_str(decision).into())),
        decision_reason: Set(Some(reason.clone())),
        created_by: Set(agent.user_id),
        approved_by: Set(None),
        approved_at: Set((decision == Decision::Proceed).then_some(now)),
        executed_ref: Set(None),
        error: Set(None),
        created_at: Set(now),
        updated_at: Set(now),
        source_key: Set(source_key),
        lease_owner: Set(None),
        lease_expires_at: Set(None),
        revision_of: Set(old.as_ref().map(|o| o.id)),
        revision: Set(old.as_ref().map_or(1, |o| o.revision + 1)),
        request: Set(match &old {
            Some(o) => o.request.clone(),
            None => original_request(state, thread_id).await?,
        }),
        paused_at: Set(None),
        waiting_steps: Set(0),
        // The steps follow the policy chosen for the plan; texts and campaigns still wait.
        step_policy: Set(matches!(action, PlanAction::Steps { .. }).then(|| chosen.as_str().into())),
    };
    // A revision replaces its plan in the same transaction; a second revision of the same plan
    // is refused by the unique `revision_of`.
    let txn = crate::platform::db::begin_write(&state.db).await?;
    if let Some(o) = &old {
        crate::plans::replan::close_old(&txn, now, o, id).await?;
    }
    let mut row = row.insert(&txn).await.map_err(|e| match (&old, e) {
        (Some(_), sea_orm::DbErr::RecordNotInserted) => {
            AppError::Conflict("That plan was revised already.".into())
        }
        (Some(_), e) if crate::platform::db::is_unique_violation(&e) => {
            AppError::Conflict("That plan was revised already.".into())
        }
        (_, e) => AppError::from(e),
    })?;
    if action.audience().is_some() {
        crate::plans::audience::lifecycle::on_present(&txn, org, id, &mut action, now).await?;
        row.action_payload =
            serde_json::to_value(&action).map_err(|e| AppError::Internal(e.to_string()))?;
    }
    if status == PlanStatus::AwaitingApproval {
        let event = "plan.awaiting_approval";
        crate::plans::webhook_events::plan_event(&txn, &row, event, status.as_str(), None, now)
            .await?;
    }
    txn.commit().await?;
    record(
        &state.db,
        now,
        id,
        "decision",
        None,
        Some(policy.as_str()),
        Some(decision_str(decision)),
        Some(reason),
        None,
        None,
    )
    .await?;
    crate::plans::announce::presented(state, agent, &row).await?;
    if decision == Decision::Proceed {
        crate::plans::executor::spawn_execution(state, id);
    }
    Ok(row)
}

/// A plan names what it is and whom it touches: a title, and a contact or an audience (a plan
/// of steps finds its own).
fn check_shape(title: &str, action: &PlanAction) -> AppResult<()> {
    if title.trim().is_empty() {
        return Err(AppError::validation("A plan needs a title."));
    }
    if !matches!(action, PlanAction::Steps { .. })
        && action.changes().is_empty()
        && action.audience().is_none()
    {
        return Err(AppError::validation("A plan needs at least one contact."));
    }
    Ok(())
}

/// The action with its steps checked against the catalog; a re-plan's steps merged into the
/// plan it revises (answered too). Only a plan of steps can revise one.
async fn revised(
    state: &AppState,
    agent: &ai_agent::Model,
    org: Uuid,
    action: PlanAction,
    revises: Option<Uuid>,
) -> AppResult<(PlanAction, Option<plan::Model>)> {
    let catalog = || step_catalog(&state.tools().for_steps());
    match (action, revises) {
        (PlanAction::Steps { mode, steps }, Some(old_id)) => {
            let (was, merged) =
                crate::plans::replan::revision_of(state, agent.id, org, old_id, &steps).await?;
            checked_steps(&catalog(), &merged)?;
            let steps = merged;
            Ok((PlanAction::Steps { mode, steps }, Some(was)))
        }
        (_, Some(_)) => Err(AppError::validation(
            "Only a plan of steps can revise a plan.",
        )),
        (PlanAction::Steps { mode, steps }, None) => {
            let steps = checked_steps(&catalog(), &steps)?;
            Ok((PlanAction::Steps { mode, steps }, None))
        }
        (other, None) => Ok((other, None)),
    }
}

/// The request a plan answers: the newest message a person wrote in its thread.
async fn original_request(state: &AppState, thread_id: Option<Uuid>) -> AppResult<Option<String>> {
    use crate::ai_agent::entity::ai_thread_event as event;
    let Some(thread_id) = thread_id else {
        return Ok(None);
    };
    let row = event::Entity::find()
        .filter(event::Column::ThreadId.eq(thread_id))
        .filter(event::Column::Kind.eq("user_message"))
        .order_by_desc(event::Column::Seq)
        .one(&state.db)
        .await?;
    Ok(row
        .and_then(|e| e.payload["text"].as_str().map(str::to_owned))
        .map(|t| t.chars().take(2_000).collect()))
}

fn decision_str(d: Decision) -> &'static str {
    match d {
        Decision::Gate => "gate",
        Decision::Proceed => "proceed",
    }
}

pub async fn find_in_org<C: ConnectionTrait>(
    db: &C,
    org: Uuid,
    id: Uuid,
) -> AppResult<plan::Model> {
    plan::Entity::find_by_id(id)
        .filter(plan::Column::OrganizationId.eq(org))
        .one(db)
        .await?
        .ok_or_else(|| AppError::not_found("Plan"))
}

/// What a person is told about a plan whose stored action no longer reads.
pub const UNREADABLE: &str = "This plan's stored action can no longer be read, so it cannot be \
    edited, approved or run. Reject it and ask the agent for a new plan.";

/// The plan's typed action; a payload that no longer decodes is a conflict the person can
/// resolve (by rejecting the plan), never a server error that breaks every page listing it.
pub fn action_of(p: &plan::Model) -> AppResult<PlanAction> {
    serde_json::from_value(p.action_payload.clone()).map_err(|e| {
        tracing::warn!(plan = %p.id, error = %e, "a stored plan action does not decode");
        AppError::Conflict(UNREADABLE.into())
    })
}

/// One plan's view (see `plans::view` for the batched reading).
pub async fn view(state: &AppState, p: plan::Model) -> AppResult<PlanView> {
    crate::plans::view::views(state, vec![p])
        .await?
        .pop()
        .ok_or_else(|| AppError::not_found("Plan"))
}

/// Plans on one page of the Plans page.
pub const PLANS_PAGE: u64 = 50;

/// What the plans list is filtered by.
#[derive(Clone, Debug, Default)]
pub struct PlanQuery {
    pub status: Option<PlanStatus>,
    pub agent: Option<Uuid>,
    pub thread: Option<Uuid>,
    /// Words in the title or the request, any case.
    pub search: Option<String>,
    /// Only plans with steps waiting on a person's confirmation.
    pub waiting: bool,
    /// Only plans created in the last this many days.
    pub within_days: Option<u32>,
}

/// The longest search kept, in characters.
const SEARCH_CHARS: usize = 200;

/// One page of the plans the member may see, newest first, with the exact total.
pub async fn list(
    state: &AppState,
    m: &Member,
    by: PlanQuery,
    after: Option<PlanCursor>,
) -> AppResult<PlanPage> {
    use sea_orm::{Condition, PaginatorTrait};
    let mut q = plan::Entity::find().filter(crate::plans::access::visible_to(m));
    if let Some(s) = by.status {
        q = q.filter(plan::Column::Status.eq(s.as_str()));
    }
    if let Some(a) = by.agent {
        q = q.filter(plan::Column::AgentId.eq(a));
    }
    if let Some(t) = by.thread {
        q = q.filter(plan::Column::ThreadId.eq(t));
    }
    if by.waiting {
        q = q
            .filter(plan::Column::Status.eq(PlanStatus::Executing))
            .filter(plan::Column::WaitingSteps.gt(0));
    }
    if let Some(days) = by.within_days {
        let since = state.clock.now() - chrono::Duration::days(i64::from(days.min(36_500)));
        q = q.filter(plan::Column::CreatedAt.gte(since));
    }
    if let Some(words) = by
        .search
        .as_deref()
        .map(str::trim)
        .filter(|w| !w.is_empty())
    {
        use sea_orm::sea_query::{Expr, ExprTrait, Func};
        let term: String = words
            .to_lowercase()
            .replace(['%', '_'], "")
            .chars()
            .take(SEARCH_CHARS)
            .collect();
        let like = format!("%{term}%");
        let lower = |c: plan::Column| Expr::expr(Func::lower(Expr::col((plan::Entity, c))));
        q = q.filter(
            Condition::any()
                .add(lower(plan::Column::Title).like(like.clone()))
                .add(lower(plan::Column::Request).like(like)),
        );
    }
    let total = q.clone().count(&state.db).await?;
    let order = (plan::Column::CreatedAt, plan::Column::Id);
    let after = after.map(|c| (c.created_at, c.id));
    let page =
        crate::platform::keyset::newest_first(&state.db, q, order, after, PLANS_PAGE).await?;
    let next = page.next(|p| PlanCursor {
        created_at: p.created_at,
        id: p.id,
    });
    let rows = page.rows;
    let items = crate::plans::view::views(state, rows).await?;
    Ok(PlanPage { items, total, next })
}

/// Moves a plan from one status to the next, refusing an illegal transition with a clear error.
pub async fn transition<C: ConnectionTrait>(
    db: &C,
    now: chrono::DateTime<Utc>,
    p: &plan::Model,
    next: PlanStatus,
) -> AppResult<bool> {
    let now_status = p.status;
    if !now_status.can_become(next) {
        return Err(AppError::Conflict(format!(
            "A plan that is {} cannot become {}.",
            now_status.as_str().replace('_', " "),
            next.as_str().replace('_', " ")
        )));
    }
    let res = plan::Entity::update_many()
        .col_expr(plan::Column::Status, Expr::value(next.as_str()))
        .col_expr(plan::Column::UpdatedAt, Expr::value(now))
        .filter(plan::Column::Id.eq(p.id))
        .filter(plan::Column::Status.eq(now_status.as_str()))
        .exec(db)
        .await?;
    Ok(res.rows_affected == 1)
}
