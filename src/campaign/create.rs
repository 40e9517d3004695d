//! `create`: items for the plan's included contacts only, with deterministic skips
//! (no phone, opted out, duplicate phone) recorded whatever the plan says. Idempotent per plan.
use crate::campaign::entity::{item, operation};
use crate::campaign::model::ItemStatus;
use crate::contacts::entity::contact;
use crate::contacts::opt_out;
use crate::error::{AppError, AppResult};
use crate::platform::AppState;
use sea_orm::{ActiveModelTrait, ColumnTrait, EntityTrait, QueryFilter, QueryOrder, Set};
use std::collections::{HashMap, HashSet};
use uuid::Uuid;

/// Why an included contact is skipped, if it is.
pub fn skip_reason(
    c: Option<&contact::Model>,
    opted_out: bool,
    seen_phones: &mut HashSet<String>,
) -> Option<&'static str> {
    let Some(c) = c else {
        return Some("contact no longer exists");
    };
    let Some(phone) = c.phone.as_deref().filter(|p| !p.is_empty()) else {
        return Some("no phone number");
    };
    if !crate::contacts::phone::can_text(phone) {
        return Some("cannot be texted (a short code or sender name)");
    }
    if opted_out {
        return Some("opted out");
    }
    if c.unreachable_at.is_some() {
        return Some(crate::contacts::reachability::SKIP_REASON);
    }
    let consent =
        crate::compliance::model::ConsentSource::parse(&c.consent_source).unwrap_or_default();
    if !consent.allows_marketing() {
        return Some("no marketing consent on record");
    }
    if !seen_phones.insert(phone.to_owned()) {
        return Some("duplicate phone number");
    }
    None
}

/// The plan a campaign is created from, as the campaign records it (`plans::campaign_start`
/// reads it off the plan).
#[derive(Clone, Copy, Debug)]
pub struct FromPlan {
    pub plan_id: Uuid,
    pub organization_id: Uuid,
    pub agent_id: Uuid,
    pub thread_id: Option<Uuid>,
    pub created_by: Option<Uuid>,
}

/// Creates the plan's campaign for the contacts it `included` (in the plan's order), sending from
/// `from_number_id` (one of the organisation's numbers; a plan from before from-numbers names
/// none and sends from the organisation's first).
#[tracing::instrument(skip(state, p, included, concept), fields(plan = %p.plan_id))]
pub async fn create(
    state: &AppState,
    p: FromPlan,
    included: &[Uuid],
    concept: &str,
    from_number_id: Option<Uuid>,
) -> AppResult<Uuid> {
    if let Some(existing) = of_plan(state, p.plan_id).await? {
        return Ok(existing);
    }
    let number = sending_number(state, p.organization_id, from_number_id).await?;
    let people = people_of(state, p.organization_id, included).await?;
    let outs = opt_out::sms_opt_outs(&state.db, included).await?;
    let agent = crate::ai_agent::entity::ai_agent::Entity::find_by_id(p.agent_id)
        .one(&state.db)
        .await?;
    let now = state.clock.now();
    let op_id = Uuid::new_v4();
    let rows = item_rows(included, &people, &outs);
    let total = rows.len() as i32;
    let skipped = rows.iter().filter(|r| r.2.is_some()).count() as i32;
    let txn = crate::platform::db::begin_write(&state.db).await?;
    let inserted = operation::ActiveModel {
        plan_id: Set(Some(p.plan_id)),
        thread_id: Set(p.thread_id),
        owner_user_id: Set(agent.as_ref().and_then(|a| a.user_id).or(p.created_by)),
        persona: Set(agent.map(|a| a.persona).unwrap_or_default()),
        total: Set(total),
        skipped: Set(skipped),
        ..operation_row(
            op_id,
            (p.organization_id, p.agent_id, number.id),
            "bulk_sms",
            concept,
            crate::campaign::model::OperationStatus::Drafting,
            now,
        )
    }
    .insert(&txn)
    .await;
    match inserted {
        Ok(_) => {}
        // Another instance made this plan's campaign first (one per plan: a unique index).
        Err(e) if crate::platform::db::is_unique_violation(&e) => {
            txn.rollback().await?;
            return of_plan(state, p.plan_id)
                .await?
                .ok_or_else(|| AppError::Internal("campaign race lost but none found".into()));
        }
        Err(e) => return Err(e.into()),
    }
    let items: Vec<item::ActiveModel> = rows
        .into_iter()
        .map(|row| new_item(op_id, p.organization_id, row, now))
        .collect();
    // Many rows a statement, within both databases' limits on bound values.
    for part in items.chunks(200) {
        item::Entity::insert_many(part.to_vec()).exec(&txn).await?;
    }
    txn.commit().await?;
    Ok(op_id)
}

/// The campaign made for this plan, if any (one per plan: a unique index).
pub async fn of_plan(state: &AppState, plan_id: Uuid) -> AppResult<Option<Uuid>> {
    Ok(operation::Entity::find()
        .filter(operation::Column::PlanId.eq(plan_id))
        .one(&state.db)
        .await?
        .map(|o| o.id))
}

/// The number the campaign sends from: the one the plan names, still the organisation's, or
/// the organisation's first.
async fn sending_number(
    state: &AppState,
    org: Uuid,
    from_number_id: Option<Uuid>,
) -> AppResult<crate::phone_numbers::entity::Model> {
    match from_number_id {
        Some(id) => crate::phone_numbers::service::find_in_org(&state.db, org, id)
            .await
            .map_err(|_| {
                AppError::validation("The plan's from-number is no longer the organisation's.")
            }),
        None => crate::phone_numbers::service::list(state, org)
            .await?
            .into_iter()
            .next()
            .ok_or_else(|| {
                AppError::validation("The organisation has no phone number to send from.")
            }),
    }
}

/// The organisation's contacts among `ids`. A segment's audience may be tens of thousands:
/// looked up a part at a time.
async fn people_of(
    state: &AppState,
    org: Uuid,
    ids: &[Uuid],
) -> AppResult<HashMap<Uuid, contact::Model>> {
    let mut people = HashMap::with_capacity(ids.len());
    for part in ids.chunks(1_000) {
        people.extend(
            contact::Entity::find()
                .filter(contact::Column::OrganizationId.eq(org))
                .filter(contact::Column::Id.is_in(part.iter().copied()))
                .all(&state.db)
                .await?
                .into_iter()
                .map(|c| (c.id, c)),
        );
    }
    Ok(people)
}

/// One campaign item to be: its position in the plan, its contact, and why it is skipped.
type ItemRow = (usize, Uuid, Option<&'static str>);

/// The items in the plan's order, each with its skip reason. Another organisation's or a
/// deleted contact never becomes an item.
fn item_rows(
    included: &[Uuid],
    people: &HashMap<Uuid, contact::Model>,
    outs: &HashMap<Uuid, String>,
) -> Vec<ItemRow> {
    let mut seen = HashSet::new();
    included
        .iter()
        .enumerate()
        .filter(|(_, id)| people.contains_key(id))
        .map(|(position, id)| {
            let reason = skip_reason(people.get(id), outs.contains_key(id), &mut seen);
            (position, *id, reason)
        })
        .collect()
}

/// A new item's row: pending, or skipped with its reason.
fn new_item(
    op_id: Uuid,
    org: Uuid,
    (position, contact_id, reason): ItemRow,
    now: chrono::DateTime<chrono::Utc>,
) -> item::ActiveModel {
    let start = match reason {
        Some(why) => ItemStart::Skipped(why.to_owned()),
        None => ItemStart::Pending,
    };
    item_row(op_id, org, contact_id, position, start, now)
}

/// How an item begins: to be drafted, with its text already written, or skipped and why.
pub enum ItemStart {
    Pending,
    Drafted(String),
    Skipped(String),
}

/// A campaign's row with nothing counted yet, for `id` in `org` by `agent` from `number`; a
/// caller sets what differs (`..operation_row(…)`).
pub fn operation_row(
    id: Uuid,
    (org, agent, number): (Uuid, Uuid, Uuid),
    kind: &str,
    concept: &str,
    status: crate::campaign::model::OperationStatus,
    now: chrono::DateTime<chrono::Utc>,
) -> operation::ActiveModel {
    operation::ActiveModel {
        id: Set(id),
        organization_id: Set(org),
        agent_id: Set(agent),
        plan_id: Set(None),
        thread_id: Set(None),
        owner_user_id: Set(None),
        phone_number_id: Set(number),
        kind: Set(kind.to_owned()),
        message_concept: Set(concept.to_owned()),
        persona: Set(String::new()),
        status: Set(status),
        total: Set(0),
        drafted: Set(0),
        sent: Set(0),
        failed: Set(0),
        skipped: Set(0),
        error: Set(None),
        created_at: Set(now),
        updated_at: Set(now),
        paused_from: Set(None),
        paused_reason: Set(None),
        alarm_from: Set(None),
        track_links: Set(true),
        send_after: Set(None),
    }
}

/// One item's row at its start.
pub fn item_row(
    op_id: Uuid,
    org: Uuid,
    contact_id: Uuid,
    position: usize,
    start: ItemStart,
    now: chrono::DateTime<chrono::Utc>,
) -> item::ActiveModel {
    let (status, draft, reason) = match start {
        ItemStart::Pending => (ItemStatus::Pending, None, None),
        ItemStart::Drafted(text) => (ItemStatus::Drafted, Some(text), None),
        ItemStart::Skipped(why) => (ItemStatus::Skipped, None, Some(why)),
    };
    item::ActiveModel {
        id: Set(Uuid::new_v4()),
        operation_id: Set(op_id),
        organization_id: Set(org),
        contact_id: Set(contact_id),
        position: Set(position as i32),
        status: Set(status),
        skip_reason: Set(reason),
        drafted_at: Set(draft.as_ref().map(|_| now)),
        draft: Set(draft),
        edited: Set(false),
        claimed_by: Set(None),
        heartbeat_at: Set(None),
        attempts: Set(0),
        idempotency_key: Set(Uuid::new_v4()),
        message_id: Set(None),
        error: Set(None),
        sent_at: Set(None),
        created_at: Set(now),
        updated_at: Set(now),
        sent_by: Set(None),
        replied_at: Set(None),
        opted_out_at: Set(None),
        clicked_at: Set(None),
    }
}

/// Items of an operation in order.
pub async fn items_of(state: &AppState, op: Uuid) -> AppResult<Vec<item::Model>> {
    Ok(item::Entity::find()
        .filter(item::Column::OperationId.eq(op))
        .order_by_asc(item::Column::Position)
        .all(&state.db)
        .await?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(phone: Option<&str>) -> contact::Model {
        contact::Model {
            id: Uuid::new_v4(),
            organization_id: Uuid::nil(),
            name: "x".into(),
            phone: phone.map(str::to_owned),
            email: None,
            tags: serde_json::json!([]),
            custom_fields: serde_json::json!({}),
            notes: String::new(),
            time_zone: None,
            created_at: chrono::Utc::now(),
            updated_at: chrono::Utc::now(),
            consent_source: "web_form".into(),
            consent_at: None,
            consent_note: None,
            unreachable_reason: None,
            unreachable_at: None,
        }
    }

    #[test]
    fn skips_are_deterministic() {
        let mut seen = HashSet::new();
        assert_eq!(
            skip_reason(Some(&c(None)), false, &mut seen),
            Some("no phone number")
        );
        assert_eq!(
            skip_reason(Some(&c(Some("+14155550001"))), true, &mut seen),
            Some("opted out")
        );
        assert_eq!(
            skip_reason(Some(&c(Some("+14155550002"))), false, &mut seen),
            None
        );
        assert_eq!(
            skip_reason(Some(&c(Some("+14155550002"))), false, &mut seen),
            Some("duplicate phone number")
        );
        assert_eq!(
            skip_reason(None, false, &mut seen),
            Some("contact no longer exists")
        );
        assert_eq!(
            skip_reason(Some(&c(Some("ACME"))), false, &mut seen),
            Some("cannot be texted (a short code or sender name)")
        );
        let verbal = contact::Model {
            consent_source: "verbal".into(),
            ..c(Some("+14155550003"))
        };
        assert_eq!(
            skip_reason(Some(&verbal), false, &mut seen),
            Some("no marketing consent on record")
        );
        let gone = contact::Model {
            unreachable_reason: Some("The number is no longer in service (error 30005).".into()),
            unreachable_at: Some(chrono::Utc::now()),
            ..c(Some("+14155550004"))
        };
        assert_eq!(
            skip_reason(Some(&gone), false, &mut seen),
            Some(crate::contacts::reachability::SKIP_REASON)
        );
    }
}
