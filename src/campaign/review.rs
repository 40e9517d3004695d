//! The draft review sheet (Gate 2): view drafts with segments and cost, edit, skip or
//! regenerate one, approve all to start sending, or cancel. An operation made from a member's
//! private Assistant plan is seen, like the plan, by that member and by owners only.
use crate::ai_agent::service::others_assistants;
use crate::auth::model::Role;
use crate::auth::session::Member;
use crate::campaign::entity::{item, operation};
use crate::campaign::model::{
    ItemStatus, ItemView, OperationStatus, OperationView, OperationsPage, ReviewSheet,
    OPERATIONS_PAGE, SHEET_PAGE,
};
use crate::contacts::entity::contact;
use crate::error::{AppError, AppResult};
use crate::messaging::entity as message;
use crate::platform::events::DomainEvent;
use crate::platform::AppState;
use sea_orm::sea_query::Expr;
use sea_orm::{
    ColumnTrait, Condition, ConnectionTrait, EntityTrait, PaginatorTrait, QueryFilter, QueryOrder,
    QuerySelect,
};
use std::collections::HashMap;
use uuid::Uuid;

/// The organisation's operations this member may see: those of another member's Assistant
/// are hidden from them, as its plans are (`plans::access`).
pub fn visible_to(m: &Member) -> Condition {
    let org = Condition::all().add(operation::Column::OrganizationId.eq(m.organization_id));
    match m.role {
        Role::Owner => org,
        _ => org.add(operation::Column::AgentId.not_in_subquery(others_assistants(m))),
    }
}

/// The operation, if this member may see it ("not found" otherwise).
pub async fn find_visible(state: &AppState, m: &Member, id: Uuid) -> AppResult<operation::Model> {
    operation::Entity::find_by_id(id)
        .filter(visible_to(m))
        .one(&state.db)
        .await?
        .ok_or_else(|| AppError::not_found("Operation"))
}

/// The card's counts of an operation's items, by the database whatever its size: each skip
/// reason with how many it skipped (in the order the reasons first appear), and the texts in
/// doubt.
async fn item_counts<C: ConnectionTrait>(db: &C, op: Uuid) -> AppResult<(Vec<(String, i32)>, i32)> {
    let reasons: Vec<(String, i64, i32)> = item::Entity::find()
        .select_only()
        .column(item::Column::SkipReason)
        .column_as(item::Column::Id.count(), "n")
        .column_as(item::Column::Position.min(), "first")
        .filter(item::Column::OperationId.eq(op))
        .filter(item::Column::Status.eq(ItemStatus::Skipped))
        .filter(item::Column::SkipReason.is_not_null())
        .group_by(item::Column::SkipReason)
        .into_tuple()
        .all(db)
        .await?;
    let mut reasons = reasons;
    reasons.sort_by_key(|r| r.2);
    let unknown = item::Entity::find()
        .filter(item::Column::OperationId.eq(op))
        .filter(item::Column::Status.eq(ItemStatus::Unknown))
        .count(db)
        .await?;
    Ok((
        reasons.into_iter().map(|(r, n, _)| (r, n as i32)).collect(),
        unknown as i32,
    ))
}

pub async fn view(state: &AppState, op: operation::Model) -> AppResult<OperationView> {
    let (reasons, unknown) = item_counts(&state.db, op.id).await?;
    let from = crate::phone_numbers::entity::Entity::find_by_id(op.phone_number_id)
        .one(&state.db)
        .await?
        .map(|n| crate::phone_numbers::service::label(&n))
        .unwrap_or_default();
    // A campaign its stopped plan paused waits in review, marked by what it was doing.
    let status = match op.paused_from {
        Some(_) => OperationStatus::Paused,
        None => op.status,
    };
    let finish = crate::campaign::estimate::for_operation(state, &op, status).await?;
    Ok(OperationView {
        id: op.id,
        plan_id: op.plan_id,
        status,
        message_concept: op.message_concept,
        from_number: from,
        total: op.total,
        drafted: op.drafted,
        sent: op.sent,
        failed: op.failed,
        skipped: op.skipped,
        unknown,
        skip_reasons: reasons,
        pictures: crate::campaign::pictures::of(&state.db, op.id)
            .await?
            .into_iter()
            .map(|u| crate::media::model::UploadView {
                id: u.id,
                content_type: u.content_type,
                size_bytes: u.size_bytes as u64,
            })
            .collect(),
        error: op.error,
        filtered: crate::campaign::delivery_alarm::filtered_count(state, op.id).await? as i32,
        paused_reason: op.paused_from.as_ref().map(|_| {
            op.paused_reason
                .clone()
                .unwrap_or_else(|| crate::campaign::model::STOPPED_BY_PLAN.to_owned())
        }),
        link_prefix: op
            .track_links
            .then(|| crate::links::service::prefix(&state.config.public_url)),
        clicked: crate::links::service::clicked_contacts(&state.db, op.id).await? as i32,
        finish,
        send_after: op.send_after,
        written: op.kind == crate::campaign::written::KIND,
        created_at: op.created_at,
        updated_at: op.updated_at,
    })
}

/// A page of the operations this member may see, newest first: those older than `before` (an
/// operation id; None: the newest), at most `OPERATIONS_PAGE`.
pub async fn list(state: &AppState, m: &Member, before: Option<Uuid>) -> AppResult<OperationsPage> {
    let q = operation::Entity::find().filter(visible_to(m));
    let total = q.clone().count(&state.db).await?;
    let after = match before {
        Some(b) => find_visible(state, m, b)
            .await
            .map(|o| Some((o.created_at, o.id)))?,
        None => None,
    };
    let order = (operation::Column::CreatedAt, operation::Column::Id);
    let page =
        crate::platform::keyset::newest_first(&state.db, q, order, after, OPERATIONS_PAGE).await?;
    let next_before = page.next(|r| r.id);
    let mut items = Vec::with_capacity(page.rows.len());
    for r in page.rows {
        items.push(view(state, r).await?);
    }
    Ok(OperationsPage {
        items,
        total,
        next_before,
    })
}

pub async fn sheet(state: &AppState, m: &Member, id: Uuid) -> AppResult<ReviewSheet> {
    sheet_page(state, m, id, None).await
}

/// The review sheet with the page of items after position `after`: the page's contacts and
/// their flags are read for that page only; the digest, the cost and the link check cover
/// every draft, read as columns alone.
pub async fn sheet_page(
    state: &AppState,
    m: &Member,
    id: Uuid,
    after: Option<i32>,
) -> AppResult<ReviewSheet> {
    let op = find_visible(state, m, id).await?;
    let mut q = item::Entity::find()
        .filter(item::Column::OperationId.eq(id))
        .order_by_asc(item::Column::Position)
        .limit(SHEET_PAGE as u64 + 1);
    if let Some(a) = after {
        q = q.filter(item::Column::Position.gt(a));
    }
    let mut items = q.all(&state.db).await?;
    let next_after = (items.len() > SHEET_PAGE).then(|| {
        items.truncate(SHEET_PAGE);
        items.last().map_or(0, |i| i.position)
    });
    let views = item_views(&state.db, items).await?;
    let overlaps = crate::campaign::overlap::of_operation(state, &op).await?;
    let schedule = match op.send_after.filter(|at| *at > state.clock.now()) {
        Some(at) => {
            let zone = crate::messaging::quiet::org_zone(&state.db, op.organization_id).await?;
            let words = crate::campaign::overlap::day_words(at, state.clock.now(), &zone);
            Some(format!("Sends {words} ({zone}), once approved."))
        }
        None => None,
    };
    let operation = view(state, op).await?;
    let drafts = crate::campaign::review_digest::drafts(&state.db, id).await?;
    let digest = crate::campaign::review_digest::sealed(
        crate::campaign::review_digest::digest(
            drafts
                .iter()
                .map(|(i, s, d)| (*i, s.as_str(), d.as_deref())),
        ),
        operation.pictures.iter().map(|p| p.id),
        operation.link_prefix.is_some(),
    );
    let (cost, linked) = cost_of(
        &drafts,
        !operation.pictures.is_empty(),
        operation.link_prefix.as_deref(),
    );
    Ok(ReviewSheet {
        operation,
        items: views,
        total_items: drafts.len() as u64,
        after,
        next_after,
        cost,
        linked,
        digest,
        overlaps,
        schedule,
    })
}

/// The estimated cost of the texts drafted for sending, sent or not, and whether any draft
/// carries a link. With a picture each text is one MMS, whatever its length; otherwise its
/// segments are counted on the text as sent, each link as its short link under `prefix`.
fn cost_of(
    drafts: &[crate::campaign::review_digest::Draft],
    mms: bool,
    prefix: Option<&str>,
) -> (f64, bool) {
    use crate::campaign::segments::{segments, COST_PER_MMS};
    use crate::links::model as links;
    let counted = [ItemStatus::Drafted, ItemStatus::Sending, ItemStatus::Sent];
    let cost = drafts
        .iter()
        .filter(|(_, s, _)| counted.iter().any(|c| c.as_str() == s))
        .filter_map(|(_, _, d)| d.as_deref())
        .fold(0.0, |sum, d| {
            sum + if mms {
                COST_PER_MMS
            } else {
                segments(&links::as_sent(d, prefix)).cost()
            }
        });
    let linked = drafts
        .iter()
        .filter_map(|(_, _, d)| d.as_deref())
        .any(|d| !links::find(d).is_empty());
    (cost, linked)
}

/// The sheet's rows for a page of items: two reads for the page, whatever its size.
async fn item_views<C: ConnectionTrait>(
    db: &C,
    items: Vec<item::Model>,
) -> AppResult<Vec<ItemView>> {
    let ids: Vec<Uuid> = items.iter().map(|i| i.contact_id).collect();
    let people: HashMap<Uuid, contact::Model> = contact::Entity::find()
        .filter(contact::Column::Id.is_in(ids.clone()))
        .all(db)
        .await?
        .into_iter()
        .map(|c| (c.id, c))
        .collect();
    // A contact who texted in after their draft was written: flag it for a second look.
    let waiting: Vec<&item::Model> = items
        .iter()
        .filter(|i| i.status == ItemStatus::Drafted && i.drafted_at.is_some())
        .collect();
    let mut latest_in: HashMap<Uuid, chrono::DateTime<chrono::Utc>> = HashMap::new();
    if let Some(since) = waiting.iter().filter_map(|i| i.drafted_at).min() {
        let rows: Vec<(Uuid, Option<chrono::DateTime<chrono::Utc>>)> = message::Entity::find()
            .select_only()
            .column(message::Column::ContactId)
            .column_as(message::Column::CreatedAt.max(), "latest")
            .filter(message::Column::ContactId.is_in(waiting.iter().map(|i| i.contact_id)))
            .filter(message::Column::Direction.eq("inbound"))
            .filter(message::Column::CreatedAt.gt(since))
            .group_by(message::Column::ContactId)
            .into_tuple()
            .all(db)
            .await?;
        latest_in = rows
            .into_iter()
            .filter_map(|(c, t)| Some((c, t?)))
            .collect();
    }
    Ok(items
        .into_iter()
        .map(|i| {
            let replied = i.status == ItemStatus::Drafted
                && i.drafted_at
                    .zip(latest_in.get(&i.contact_id))
                    .is_some_and(|(at, last)| *last > at);
            let c = people.get(&i.contact_id);
            ItemView {
                id: i.id,
                position: i.position,
                contact_id: i.contact_id,
                contact_name: c.map(|c| c.name.clone()).unwrap_or_default(),
                phone: c.and_then(|c| c.phone.clone()),
                status: i.status,
                skip_reason: i.skip_reason,
                draft: i.draft,
                edited: i.edited,
                replied_since_drafting: replied,
                error: i.error,
            }
        })
        .collect())
}

async fn item_in_review(
    state: &AppState,
    m: &Member,
    item_id: Uuid,
) -> AppResult<(operation::Model, item::Model)> {
    let it = item::Entity::find_by_id(item_id)
        .filter(item::Column::OrganizationId.eq(m.organization_id))
        .one(&state.db)
        .await?
        .ok_or_else(|| AppError::not_found("Draft"))?;
    let op = find_visible(state, m, it.operation_id).await?;
    if op.status != OperationStatus::AwaitingApproval {
        return Err(AppError::Conflict(
            "Drafts can change only while the operation awaits review.".into(),
        ));
    }
    if it.status != ItemStatus::Drafted {
        return Err(AppError::Conflict(format!(
            "This draft is {}, not awaiting review.",
            it.status
        )));
    }
    Ok((op, it))
}

pub async fn edit_draft(
    state: &AppState,
    m: &Member,
    item_id: Uuid,
    text: &str,
) -> AppResult<ReviewSheet> {
    let text = text.trim();
    if text.is_empty() {
        return Err(AppError::validation(
            "A draft cannot be empty; skip it instead.",
        ));
    }
    if text.chars().count() > crate::messaging::model::MAX_SMS_CHARS {
        return Err(AppError::validation("That draft is too long for a text."));
    }
    let (op, it) = item_in_review(state, m, item_id).await?;
    let before = it.draft.clone().unwrap_or_default();
    if before.trim() != text {
        // The draft gate's signal for the learning loop: the words before and after.
        crate::ai_agent::learning::signals::record(
            &state.db,
            crate::ai_agent::learning::signals::Signal {
                organization_id: op.organization_id,
                agent_id: op.agent_id,
                kind: crate::ai_agent::learning::signals::DRAFT_EDIT,
                subject_kind: "item",
                subject_id: item_id,
                detail: serde_json::json!({"before": before, "after": text, "operation_id": op.id}),
                actor_user_id: Some(m.user_id),
            },
            state.clock.now(),
        )
        .await?;
    }
    let update = item::Entity::update_many()
        .col_expr(item::Column::Draft, Expr::value(Some(text.to_owned())))
        .col_expr(item::Column::Edited, Expr::value(true))
        .col_expr(
            item::Column::DraftedAt,
            Expr::value(Some(state.clock.now())),
        );
    change_in_review(state, op.id, item_id, update).await?;
    sheet(state, m, op.id).await
}

pub async fn skip_item(state: &AppState, m: &Member, item_id: Uuid) -> AppResult<ReviewSheet> {
    let (op, _) = item_in_review(state, m, item_id).await?;
    let update = item::Entity::update_many()
        .col_expr(item::Column::Status, Expr::value(ItemStatus::Skipped))
        .col_expr(
            item::Column::SkipReason,
            Expr::value(Some("skipped at review")),
        );
    change_in_review(state, op.id, item_id, update).await?;
    crate::campaign::draft_engine::refresh_counters(state, op.id).await?;
    sheet(state, m, op.id).await
}

pub async fn regenerate_item(
    state: &AppState,
    m: &Member,
    item_id: Uuid,
) -> AppResult<ReviewSheet> {
    let (op, it) = item_in_review(state, m, item_id).await?;
    if op.kind == crate::campaign::written::KIND {
        return Err(AppError::validation(
            "These are a person's own words: edit the text; no model rewrites it.",
        ));
    }
    let org = crate::auth::entity::organization::Entity::find_by_id(op.organization_id)
        .one(&state.db)
        .await?
        .ok_or_else(|| AppError::not_found("Organisation"))?;
    let c = contact::Entity::find_by_id(it.contact_id)
        .one(&state.db)
        .await?
        .ok_or_else(|| AppError::not_found("Contact"))?;
    let req = crate::campaign::drafter::DraftRequest {
        organization: org.name,
        rules: org.rules.unwrap_or_default(),
        lessons: crate::ai_agent::learning::service::enabled(&state.db, op.agent_id)
            .await?
            .into_iter()
            .map(|(_, text)| text)
            .collect(),
        persona: op.persona.clone(),
        concept: op.message_concept.clone(),
        instruction: "Write a different version from the last one.".into(),
        contact_context: format!(
            "Contact: {} · previous draft: {}",
            c.name,
            it.draft.clone().unwrap_or_default()
        ),
        first_name: c
            .name
            .split_whitespace()
            .next()
            .unwrap_or("there")
            .to_owned(),
    };
    let text = state
        .drafter()
        .draft(&req)
        .await
        .map_err(|e| AppError::Transport(e.to_string()))?;
    let update = item::Entity::update_many()
        .col_expr(item::Column::Draft, Expr::value(Some(text)))
        .col_expr(item::Column::Edited, Expr::value(false))
        .col_expr(
            item::Column::DraftedAt,
            Expr::value(Some(state.clock.now())),
        );
    change_in_review(state, op.id, item_id, update).await?;
    sheet(state, m, op.id).await
}

/// Changes one draft still awaiting review, holding the operation in review while it does (see
/// `review_digest`): a change that loses the race to an approval is refused, not sent unseen.
async fn change_in_review(
    state: &AppState,
    operation_id: Uuid,
    item_id: Uuid,
    update: sea_orm::UpdateMany<item::Entity>,
) -> AppResult<()> {
    let txn = crate::platform::db::begin_write(&state.db).await?;
    crate::campaign::review_digest::hold_in_review(&txn, operation_id, state.clock.now()).await?;
    let res = update
        .filter(item::Column::Id.eq(item_id))
        .filter(item::Column::Status.eq(ItemStatus::Drafted))
        .exec(&txn)
        .await?;
    if res.rows_affected == 0 {
        return Err(AppError::Conflict(
            "This draft is no longer awaiting review.".into(),
        ));
    }
    txn.commit().await?;
    Ok(())
}

/// Approve all: atomically from review to sending, for exactly the drafts the approver saw
/// (`digest`), then the send engine starts.
pub async fn approve_all(
    state: &AppState,
    m: &Member,
    id: Uuid,
    digest: &str,
) -> AppResult<ReviewSheet> {
    let op = find_visible(state, m, id).await?;
    // Sending a campaign texts many people from the business's numbers: an owner decides.
    m.require_owner()?;
    let txn = crate::platform::db::begin_write(&state.db).await?;
    let res = operation::Entity::update_many()
        .col_expr(
            operation::Column::Status,
            Expr::value(OperationStatus::Sending),
        )
        .col_expr(operation::Column::UpdatedAt, Expr::value(state.clock.now()))
        .filter(operation::Column::Id.eq(id))
        .filter(operation::Column::Status.eq(OperationStatus::AwaitingApproval))
        .filter(operation::Column::PausedFrom.is_null())
        .exec(&txn)
        .await?;
    if res.rows_affected != 1 {
        return Err(AppError::Conflict(
            "Only an operation awaiting review can be approved (a paused one is resumed first)."
                .into(),
        ));
    }
    if crate::campaign::review_digest::current(&txn, id).await? != digest {
        return Err(AppError::Conflict(
            "The drafts changed since this sheet was loaded; review again.".into(),
        ));
    }
    crate::campaign::funnel::approved(&txn, id, op.organization_id).await?;
    txn.commit().await?;
    crate::campaign::engines::start(state, id, crate::campaign::engines::Engine::Send);
    let event = DomainEvent::CampaignApproved {
        operation_id: id,
        by_user_id: m.user_id,
    };
    crate::platform::events::publish(state, event).await?;
    // What the "drafts are ready" notice asked is done.
    let notice = crate::campaign::draft_engine::drafted_notice(id);
    crate::notifications::service::resolve(state, op.organization_id, &notice).await?;
    sheet(state, m, id).await
}

/// Cancel: nothing not yet sent goes out.
pub async fn cancel(state: &AppState, m: &Member, id: Uuid) -> AppResult<ReviewSheet> {
    let op = find_visible(state, m, id).await?;
    let status = op.status;
    if matches!(
        status,
        OperationStatus::Done | OperationStatus::Cancelled | OperationStatus::Failed
    ) {
        return Err(AppError::Conflict(format!(
            "The operation is already {}.",
            op.status.as_str()
        )));
    }
    // Cancelled once, in one transaction with what was left, the recount and `campaign.finished`.
    let txn = crate::platform::db::begin_write(&state.db).await?;
    let res = operation::Entity::update_many()
        .col_expr(
            operation::Column::Status,
            Expr::value(OperationStatus::Cancelled),
        )
        // A paused campaign cancelled is cancelled, not paused any more.
        .col_expr(operation::Column::PausedFrom, Expr::value(None::<String>))
        .col_expr(operation::Column::PausedReason, Expr::value(None::<String>))
        .filter(operation::Column::Id.eq(id))
        .filter(operation::Column::Status.eq(op.status.as_str()))
        .exec(&txn)
        .await?;
    if res.rows_affected != 1 {
        return Err(AppError::Conflict(
            "The campaign changed meanwhile; look again.".into(),
        ));
    }
    item::Entity::update_many()
        .col_expr(item::Column::Status, Expr::value(ItemStatus::Cancelled))
        .filter(item::Column::OperationId.eq(id))
        .filter(item::Column::Status.is_in([
            ItemStatus::Pending,
            ItemStatus::Drafting,
            ItemStatus::Drafted,
        ]))
        .exec(&txn)
        .await?;
    let now = state.clock.now();
    crate::campaign::draft_engine::recount_in(&txn, id, now, None).await?;
    crate::campaign::webhook_events::campaign_finished(&txn, id, now).await?;
    txn.commit().await?;
    crate::campaign::draft_engine::published(state, id).await?;
    let event = DomainEvent::CampaignEnded { operation_id: id };
    crate::platform::events::publish(state, event).await?;
    let notice = crate::campaign::draft_engine::drafted_notice(id);
    crate::notifications::service::resolve(state, op.organization_id, &notice).await?;
    sheet(state, m, id).await
}

/// Resolves a campaign text in doubt: sent anyway, or marked as sent; the item follows its text.
pub async fn resolve_item(
    state: &AppState,
    m: &Member,
    item_id: Uuid,
    how: crate::messaging::model::Resolution,
) -> AppResult<ReviewSheet> {
    let it = item::Entity::find_by_id(item_id)
        .filter(item::Column::OrganizationId.eq(m.organization_id))
        .one(&state.db)
        .await?
        .ok_or_else(|| AppError::not_found("Campaign text"))?;
    find_visible(state, m, it.operation_id).await?;
    let Some(message_id) = it.message_id.filter(|_| it.status == ItemStatus::Unknown) else {
        return Err(AppError::Conflict(
            "That text is not waiting for a decision.".into(),
        ));
    };
    crate::messaging::ledger::resolve_unknown(state, m.organization_id, message_id, how).await?;
    crate::campaign::send_engine::sync_items(state, it.operation_id, state.engine().stale_after)
        .await?;
    crate::campaign::draft_engine::refresh_counters(state, it.operation_id).await?;
    sheet(state, m, it.operation_id).await
}
