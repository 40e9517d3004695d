//! Plans as people see them, read in batches: a page of 200 plans costs a handful of queries
//! (names, opt-outs, agents, numbers, audit rows and the people in them), never a few per plan.
use crate::ai_agent::entity::ai_agent;
use crate::auth::entity::user;
use crate::contacts::entity::contact;
use crate::contacts::opt_out;
use crate::error::AppResult;
use crate::phone_numbers::entity as phone_number;
use crate::plans::entity::{audit, plan};
use crate::plans::model::*;
use crate::plans::service::UNREADABLE;
use crate::platform::AppState;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect};
use std::collections::{BTreeSet, HashMap};
use uuid::Uuid;

/// Ids per `IN (…)`: well under SQLite's and PostgreSQL's parameter limits.
const CHUNK: usize = 1_000;

/// Contact names by id, read in chunks.
pub(crate) async fn names(state: &AppState, ids: &[Uuid]) -> AppResult<HashMap<Uuid, String>> {
    Ok(people(state, ids)
        .await?
        .into_iter()
        .map(|(id, (name, _))| (id, name))
        .collect())
}

/// Contact names by id, with whether each has written (marketing) consent on record.
async fn people(state: &AppState, ids: &[Uuid]) -> AppResult<HashMap<Uuid, (String, bool)>> {
    let mut out = HashMap::new();
    for part in ids.chunks(CHUNK) {
        for c in contact::Entity::find()
            .filter(contact::Column::Id.is_in(part.iter().copied()))
            .all(&state.db)
            .await?
        {
            let consent = crate::compliance::model::ConsentSource::parse(&c.consent_source)
                .unwrap_or_default();
            out.insert(c.id, (c.name, consent.allows_marketing()));
        }
    }
    Ok(out)
}

async fn opted_out(state: &AppState, ids: &[Uuid]) -> AppResult<HashMap<Uuid, String>> {
    let mut out = HashMap::new();
    for part in ids.chunks(CHUNK) {
        out.extend(opt_out::sms_opt_outs(&state.db, part).await?);
    }
    Ok(out)
}

fn decision_of(d: &str) -> Decision {
    if d == "proceed" {
        Decision::Proceed
    } else {
        Decision::Gate
    }
}

/// A step plan's steps as the card shows them: layer, whether each writes, and the arguments
/// each would run with once its inputs are there.
/// The step catalog is built once per page of plans, and only if a step plan is on it.
fn step_views(
    state: &AppState,
    action: &PlanAction,
    catalog: &std::cell::OnceCell<crate::steps::validate::ToolCatalog>,
) -> Vec<crate::steps::model::StepView> {
    use crate::plans::steps::run::arguments_hash;
    use crate::steps::catalog::step_catalog;
    use crate::steps::{graph::Graph, model::StepView, schedule};
    let steps = action.steps();
    if steps.is_empty() {
        return Vec::new();
    }
    let catalog = catalog.get_or_init(|| step_catalog(&state.tools().for_steps()));
    let graph = Graph::of(steps).ok();
    let layer_of = |i: usize| {
        graph
            .as_ref()
            .and_then(|g| g.layers.iter().position(|l| l.contains(&i)))
            .unwrap_or(0)
    };
    steps
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let mut resolved = schedule::resolved_arguments(steps, i).ok();
            let arguments_hash = resolved.as_ref().map(arguments_hash);
            // A for_each step's items are counted and sampled in `each`, not sent whole.
            if let Some(r) = resolved.as_mut().filter(|_| s.for_each.is_some()) {
                if let Some(n) = r["for_each"].as_array().map(Vec::len) {
                    r["for_each"] = serde_json::json!(format!("{n} items"));
                }
            }
            StepView {
                id: s.id.clone(),
                layer: layer_of(i),
                mutates: catalog.get(&s.tool).is_some_and(|t| t.mutates),
                arguments_hash,
                resolved,
                each: None,
                readable: Vec::new(),
                wont_send: None,
                result_words: s
                    .result
                    .as_ref()
                    .map(crate::plans::result_words::result_in_words),
            }
        })
        .collect()
}

/// What a page of plans needs from other tables, each read once for the whole page.
struct Batch {
    people: HashMap<Uuid, (String, bool)>,
    outs: HashMap<Uuid, String>,
    agents: HashMap<Uuid, String>,
    numbers: HashMap<Uuid, (Uuid, String)>,
    audits: HashMap<Uuid, Vec<audit::Model>>,
    users: HashMap<Uuid, String>,
    revised: HashMap<Uuid, Uuid>,
    audiences: HashMap<Uuid, crate::plans::audience::model::AudienceView>,
    eaches: HashMap<(Uuid, String), crate::steps::model::EachView>,
    wont_send: HashMap<(Uuid, String), String>,
    named: crate::steps::readable::Named,
    catalog: std::cell::OnceCell<crate::steps::validate::ToolCatalog>,
}

/// The views of `rows`, in their order.
pub async fn views(state: &AppState, rows: Vec<plan::Model>) -> AppResult<Vec<PlanView>> {
    let decoded: Vec<(PlanAction, Option<String>)> =
        crate::plans::steps::store::actions(&state.db, &rows)
            .await?
            .into_iter()
            .map(|a| match a {
                Ok(a) => (a, None),
                Err(_) => (PlanAction::tagging(vec![]), Some(UNREADABLE.to_owned())),
            })
            .collect();
    let knowns: Vec<_> = decoded
        .iter()
        .map(|(a, _)| crate::steps::schedule::known_results(a.steps()))
        .collect();
    let mut batch = Batch::read(state, &rows, &decoded, &knowns).await?;
    Ok(rows
        .into_iter()
        .zip(decoded)
        .zip(knowns)
        .map(|((p, (action, unreadable)), known)| batch.view(state, p, action, unreadable, &known))
        .collect())
}

impl Batch {
    async fn read(
        state: &AppState,
        rows: &[plan::Model],
        decoded: &[(PlanAction, Option<String>)],
        knowns: &[HashMap<String, serde_json::Value>],
    ) -> AppResult<Self> {
        let contact_ids: Vec<Uuid> = decoded
            .iter()
            .flat_map(|(a, _)| a.changes().iter().map(|c| c.contact_id))
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        let agent_ids: BTreeSet<Uuid> = rows.iter().map(|p| p.agent_id).collect();
        let number_ids: BTreeSet<Uuid> = decoded
            .iter()
            .filter_map(|(a, _)| a.from_number_id())
            .collect();
        let audits = audits_of(state, rows).await?;
        let user_ids: BTreeSet<Uuid> = audits
            .values()
            .flatten()
            .filter_map(|a| a.actor_user_id)
            .chain(rows.iter().filter_map(|p| p.approved_by))
            .collect();
        let named_ids: Vec<Uuid> = decoded
            .iter()
            .zip(knowns)
            .flat_map(|((a, _), k)| crate::steps::readable::ids_named(a.steps(), k))
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        Ok(Self {
            people: people(state, &contact_ids).await?,
            outs: opted_out(state, &contact_ids).await?,
            agents: ai_agent::Entity::find()
                .filter(ai_agent::Column::Id.is_in(agent_ids))
                .all(&state.db)
                .await?
                .into_iter()
                .map(|a| (a.id, a.name))
                .collect(),
            // A number shows only on its own organisation's plans.
            numbers: phone_number::Entity::find()
                .filter(phone_number::Column::Id.is_in(number_ids))
                .all(&state.db)
                .await?
                .into_iter()
                .map(|n| {
                    let label = crate::phone_numbers::service::label(&n);
                    (n.id, (n.organization_id, label))
                })
                .collect(),
            audits,
            users: user::Entity::find()
                .filter(user::Column::Id.is_in(user_ids))
                .all(&state.db)
                .await?
                .into_iter()
                .map(|u| (u.id, u.name))
                .collect(),
            revised: revisions_of(state, rows).await?,
            audiences: audiences_of(state, rows, decoded).await?,
            eaches: eaches_of(state, rows, decoded).await,
            wont_send: crate::plans::wont_send::of(state, rows, decoded).await?,
            named: crate::steps::readable::Named::read(&state.db, &named_ids).await?,
            catalog: std::cell::OnceCell::new(),
        })
    }

    fn user_name(&self, id: Option<Uuid>) -> Option<String> {
        id.and_then(|u| self.users.get(&u).cloned())
    }

    /// One plan's view, taking its entries out of the batch.
    fn view(
        &mut self,
        state: &AppState,
        p: plan::Model,
        action: PlanAction,
        unreadable: Option<String>,
        known: &HashMap<String, serde_json::Value>,
    ) -> PlanView {
        let mut step_views = step_views(state, &action, &self.catalog);
        for (i, v) in step_views.iter_mut().enumerate() {
            v.each = self.eaches.remove(&(p.id, v.id.clone()));
            v.wont_send = self.wont_send.remove(&(p.id, v.id.clone()));
            v.readable = self
                .named
                .lines(p.organization_id, action.steps(), i, known);
        }
        let estimated_cost = estimated_cost(&action, &step_views);
        let campaign = matches!(action, PlanAction::BulkSmsCampaign { .. });
        let contacts = action
            .changes()
            .iter()
            .map(|c| PlanContact {
                change: c.clone(),
                name: self
                    .people
                    .get(&c.contact_id)
                    .map(|p| p.0.clone())
                    .unwrap_or_default(),
                opted_out: self.outs.contains_key(&c.contact_id),
                no_marketing_consent: campaign
                    && self.people.get(&c.contact_id).is_some_and(|p| !p.1),
            })
            .collect();
        let from_number = action
            .from_number_id()
            .and_then(|id| self.numbers.get(&id))
            .filter(|(org, _)| *org == p.organization_id)
            .map(|(_, n)| n.clone());
        let audit = self.audits.remove(&p.id).unwrap_or_default();
        let audit = audit
            .into_iter()
            .map(|a| AuditEntry {
                actor_name: self.user_name(a.actor_user_id),
                kind: a.kind,
                actor: a.actor,
                policy: a.policy,
                decision: a.decision,
                reason: a.reason,
                before: a.before,
                after: a.after,
                at: a.created_at,
            })
            .collect();
        let step_meta = matches!(action, PlanAction::Steps { .. })
            .then(|| crate::steps::model::StepPlanMeta::of(p.request.clone(), action.steps()));
        let replannable = crate::plans::replan::replannable(
            p.status,
            p.revision,
            p.thread_id,
            &action,
            self.revised.contains_key(&p.id),
        );
        PlanView {
            id: p.id,
            agent_id: p.agent_id,
            agent_name: self.agents.get(&p.agent_id).cloned().unwrap_or_default(),
            thread_id: p.thread_id,
            title: p.title,
            summary: p.summary,
            estimated_cost,
            step_views,
            from_number,
            contacts,
            action,
            approval_policy: ApprovalPolicy::parse(&p.approval_policy)
                .unwrap_or(ApprovalPolicy::HumanReview),
            status: p.status,
            decision: p.decision.as_deref().map(decision_of),
            decision_reason: p.decision_reason,
            approved_by_name: self.user_name(p.approved_by),
            approved_at: p.approved_at,
            executed_ref: p.executed_ref,
            error: p.error,
            created_at: p.created_at,
            updated_at: p.updated_at,
            audit,
            unreadable,
            replannable,
            revision: p.revision,
            revision_of: p.revision_of,
            revised_by: self.revised.get(&p.id).copied(),
            step_meta,
            audience: self.audiences.remove(&p.id),
        }
    }
}

/// The plan's cost, when it sends texts. A text step run once per item counts once in the
/// plan's own estimate: count its items.
fn estimated_cost(
    action: &PlanAction,
    step_views: &[crate::steps::model::StepView],
) -> Option<CostEstimate> {
    let mut cost = action.sends_messages().then(|| action.estimated_cost())?;
    for (s, v) in action.steps().iter().zip(step_views) {
        let n = v.each.as_ref().and_then(|e| e.count).unwrap_or(1) as usize;
        if s.for_each.is_some() && s.tool == SEND_TOOL && !s.status.is_final() && n > 1 {
            let body = s.arguments["body"].as_str().unwrap_or("");
            let per = crate::campaign::segments::segments(body).count.max(1);
            cost = CostEstimate::of(cost.texts + n - 1, cost.segments + per * (n - 1));
        }
        // A text that will not be sent costs nothing.
        if v.wont_send.is_some() && s.tool == SEND_TOOL {
            let body = s.arguments["body"].as_str().unwrap_or("");
            let per = crate::campaign::segments::segments(body).count.max(1);
            cost = CostEstimate::of(
                cost.texts.saturating_sub(1),
                cost.segments.saturating_sub(per),
            );
        }
    }
    Some(cost)
}

/// Each plan's audit rows, oldest first.
async fn audits_of(
    state: &AppState,
    rows: &[plan::Model],
) -> AppResult<HashMap<Uuid, Vec<audit::Model>>> {
    let plan_ids: Vec<Uuid> = rows.iter().map(|p| p.id).collect();
    let mut audits: HashMap<Uuid, Vec<audit::Model>> = HashMap::new();
    for part in plan_ids.chunks(CHUNK) {
        for a in audit::Entity::find()
            .filter(audit::Column::PlanId.is_in(part.iter().copied()))
            .order_by_asc(audit::Column::CreatedAt)
            .all(&state.db)
            .await?
        {
            audits.entry(a.plan_id).or_default().push(a);
        }
    }
    Ok(audits)
}

/// Plans already revised (one revision each), and by which plan.
async fn revisions_of(state: &AppState, rows: &[plan::Model]) -> AppResult<HashMap<Uuid, Uuid>> {
    let mut revised: HashMap<Uuid, Uuid> = HashMap::new();
    for part in rows.chunks(CHUNK) {
        let found: Vec<(Uuid, Option<Uuid>)> = plan::Entity::find()
            .select_only()
            .column(plan::Column::Id)
            .column(plan::Column::RevisionOf)
            .filter(plan::Column::RevisionOf.is_in(part.iter().map(|p| p.id)))
            .into_tuple()
            .all(&state.db)
            .await?;
        revised.extend(
            found
                .into_iter()
                .filter_map(|(id, of)| of.map(|of| (of, id))),
        );
    }
    Ok(revised)
}

/// Audiences the server resolved: their counts, exclusions and first page, from SQL.
async fn audiences_of(
    state: &AppState,
    rows: &[plan::Model],
    decoded: &[(PlanAction, Option<String>)],
) -> AppResult<HashMap<Uuid, crate::plans::audience::model::AudienceView>> {
    let mut audiences = HashMap::new();
    for (p, (action, _)) in rows.iter().zip(decoded) {
        if let Some(a) = action.audience() {
            let now = state.clock.now();
            let org = p.organization_id;
            let view = crate::plans::audience::resolve::view(&state.db, org, p.id, a, now).await?;
            if let Some(v) = view {
                audiences.insert(p.id, v);
            }
        }
    }
    Ok(audiences)
}

/// for_each steps: what they run over, a sample, the cost, and their progress, from SQL. One
/// that cannot be read is left out of its card, with a warning, not the whole page refused.
async fn eaches_of(
    state: &AppState,
    rows: &[plan::Model],
    decoded: &[(PlanAction, Option<String>)],
) -> HashMap<(Uuid, String), crate::steps::model::EachView> {
    let mut eaches = HashMap::new();
    for (p, (action, _)) in rows.iter().zip(decoded) {
        let steps = action.steps();
        for (i, s) in steps
            .iter()
            .enumerate()
            .filter(|(_, s)| s.for_each.is_some())
        {
            let resolved = crate::steps::schedule::resolved_arguments(steps, i).ok();
            let v =
                crate::plans::steps::each_view::each_view(state, p, steps, i, resolved.as_ref())
                    .await;
            match v {
                Ok(v) => {
                    eaches.insert((p.id, s.id.clone()), v);
                }
                Err(e) => tracing::warn!(plan = %p.id, step = %s.id, error = %e, "for_each view"),
            }
        }
    }
    eaches
}
