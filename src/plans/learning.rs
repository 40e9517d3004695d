//! The plan gate's signals for the learning loop: who a person left out or put back (with their
//! tags and the reason kind), concept rewrites, approvals and rejections.
use crate::ai_agent::learning::signals::{self, record, Signal};
use crate::auth::session::Member;
use crate::contacts::entity::contact;
use crate::error::AppResult;
use crate::plans::entity::plan;
use crate::plans::model::PlanAction;
use crate::platform::AppState;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use serde_json::{json, Value};
use std::collections::{BTreeSet, HashMap};
use uuid::Uuid;

fn tags_of(c: Option<&contact::Model>) -> Vec<String> {
    c.and_then(|c| serde_json::from_value::<Vec<String>>(c.tags.clone()).ok())
        .unwrap_or_default()
}

/// A person's signal about a plan.
pub(crate) fn signal(p: &plan::Model, m: &Member, kind: &'static str, detail: Value) -> Signal {
    Signal {
        organization_id: p.organization_id,
        agent_id: p.agent_id,
        kind,
        subject_kind: "plan",
        subject_id: p.id,
        detail,
        actor_user_id: Some(m.user_id),
    }
}

/// Records what an edit changed: each contact switched out or in, and a rewritten concept.
pub async fn edited(
    state: &AppState,
    m: &Member,
    p: &plan::Model,
    before: &PlanAction,
    after: &PlanAction,
) -> AppResult<()> {
    let was: HashMap<Uuid, (bool, &str)> = before
        .changes()
        .iter()
        .map(|c| (c.contact_id, (c.include, c.kind.as_str())))
        .collect();
    let switched: Vec<_> = after
        .changes()
        .iter()
        .filter(|c| was.get(&c.contact_id).is_some_and(|w| w.0 != c.include))
        .collect();
    let now = state.clock.now();
    if !switched.is_empty() {
        let ids: Vec<Uuid> = after.changes().iter().map(|c| c.contact_id).collect();
        let people: HashMap<Uuid, contact::Model> = contact::Entity::find()
            .filter(contact::Column::OrganizationId.eq(p.organization_id))
            .filter(contact::Column::Id.is_in(ids))
            .all(&state.db)
            .await?
            .into_iter()
            .map(|c| (c.id, c))
            .collect();
        // The tags of everyone still in: a tag they share is not why someone was left out.
        let kept: BTreeSet<String> = after
            .changes()
            .iter()
            .filter(|c| c.include)
            .flat_map(|c| tags_of(people.get(&c.contact_id)))
            .collect();
        for c in switched {
            let person = people.get(&c.contact_id);
            let kind = if c.include {
                signals::AUDIENCE_INCLUDE
            } else {
                signals::AUDIENCE_DROP
            };
            let detail = json!({
                "contact_id": c.contact_id,
                "name": person.map(|p| p.name.clone()).unwrap_or_default(),
                "tags": tags_of(person),
                "kept_tags": kept,
                // Why the agent had them in or out before the person switched them.
                "reason_kind": was.get(&c.contact_id).map(|w| w.1).unwrap_or_default(),
                "campaign": after.sends_messages(),
            });
            record(&state.db, signal(p, m, kind, detail), now).await?;
        }
    }
    if let (Some(b), Some(a)) = (before.message_concept(), after.message_concept()) {
        if a != b {
            let detail = json!({"before": b, "after": a});
            record(
                &state.db,
                signal(p, m, signals::CONCEPT_REWRITE, detail),
                now,
            )
            .await?;
        }
    }
    Ok(())
}

/// Records a person's approval, or rejection with its reason.
pub async fn decided(
    state: &AppState,
    m: &Member,
    p: &plan::Model,
    rejection: Option<&str>,
) -> AppResult<()> {
    let (kind, detail) = match rejection {
        Some(reason) => (signals::PLAN_REJECTED, json!({"reason": reason})),
        None => (signals::PLAN_APPROVED, json!({})),
    };
    record(&state.db, signal(p, m, kind, detail), state.clock.now()).await?;
    Ok(())
}

/// What the agent's audience lessons say about a campaign it presents: contacts with a tag a
/// lesson leaves out are switched out, with the lesson as the reason; a person can put them back.
pub async fn apply_lessons(
    state: &AppState,
    agent_id: Uuid,
    org: Uuid,
    mut action: PlanAction,
) -> AppResult<PlanAction> {
    if !action.sends_messages() {
        return Ok(action);
    }
    let rules: Vec<(String, String)> =
        crate::ai_agent::learning::service::enabled(&state.db, agent_id)
            .await?
            .into_iter()
            .filter_map(|(key, text)| {
                crate::ai_agent::learning::distill::excluded_tag(&key).map(|t| (t.to_owned(), text))
            })
            .collect();
    if rules.is_empty() {
        return Ok(action);
    }
    // An audience the server resolves leaves out everyone with such a tag, with the lesson.
    if let Some(a) = action.audience_mut() {
        a.lessons = rules
            .into_iter()
            .map(|(tag, text)| (tag, format!("a lesson: {text}")))
            .collect();
        return Ok(action);
    }
    let ids: Vec<Uuid> = action
        .changes()
        .iter()
        .filter(|c| c.include)
        .map(|c| c.contact_id)
        .collect();
    let people: HashMap<Uuid, Vec<String>> = contact::Entity::find()
        .filter(contact::Column::OrganizationId.eq(org))
        .filter(contact::Column::Id.is_in(ids))
        .all(&state.db)
        .await?
        .into_iter()
        .map(|c| {
            let tags = tags_of(Some(&c))
                .iter()
                .map(|t| t.trim().to_lowercase())
                .collect();
            (c.id, tags)
        })
        .collect();
    let Some(changes) = action.changes_mut() else {
        return Ok(action);
    };
    for c in changes.iter_mut().filter(|c| c.include) {
        let tags = people.get(&c.contact_id).cloned().unwrap_or_default();
        if let Some((_, text)) = rules.iter().find(|(tag, _)| tags.contains(tag)) {
            c.include = false;
            c.reason = format!("a lesson: {text}");
            c.kind = "lesson".into();
        }
    }
    Ok(action)
}
