//! `reports_bench`'s one very large campaign: every seeded contact texted once (its first text
//! out is the campaign's), its funnel counted by the migration's backfill and the passes, and
//! the old way of reading a funnel (paging the sent items and their texts, replies and
//! opt-outs) kept here as the baseline.
use chrono::{DateTime, Duration, Utc};
use herald::campaign::entity::{item, operation};
use herald::campaign::funnel::{Funnel, WITHIN};
use herald::contacts::entity::{contact, suppression};
use herald::messaging::entity as message;
use sea_orm::{
    ColumnTrait, ConnectionTrait, EntityTrait, PaginatorTrait, QueryFilter, QueryOrder,
    QuerySelect, Set,
};
use std::collections::HashMap;
use uuid::Uuid;

const PAGE: u64 = 1000;

/// A sent item: its id, contact, when it was sent and its text.
type SentItem = (Uuid, Uuid, Option<DateTime<Utc>>, Option<Uuid>);

/// Seeds a done campaign to every contact of `org`, each item pointing at the contact's first
/// text out; answers the operation.
pub async fn seed<C: ConnectionTrait>(
    db: &C,
    org: Uuid,
    number: Uuid,
    at: DateTime<Utc>,
) -> operation::Model {
    let agent: Uuid = herald::ai_agent::entity::ai_agent::Entity::find()
        .select_only()
        .column(herald::ai_agent::entity::ai_agent::Column::Id)
        .filter(herald::ai_agent::entity::ai_agent::Column::OrganizationId.eq(org))
        .into_tuple()
        .one(db)
        .await
        .unwrap()
        .expect("an agent");
    let op = Uuid::new_v4();
    insert_op(db, op, org, agent, number, at).await;
    let mut after: Option<Uuid> = None;
    let mut n = 0;
    loop {
        let mut q = contact::Entity::find()
            .select_only()
            .column(contact::Column::Id)
            .filter(contact::Column::OrganizationId.eq(org))
            .order_by_asc(contact::Column::Id)
            .limit(PAGE);
        if let Some(a) = after {
            q = q.filter(contact::Column::Id.gt(a));
        }
        let ids: Vec<Uuid> = q.into_tuple().all(db).await.unwrap();
        let Some(last) = ids.last() else { break };
        after = Some(*last);
        let texts: Vec<(Uuid, Uuid, DateTime<Utc>)> = message::Entity::find()
            .select_only()
            .columns([
                message::Column::ContactId,
                message::Column::Id,
                message::Column::CreatedAt,
            ])
            .filter(message::Column::ContactId.is_in(ids.iter().copied()))
            .filter(message::Column::Direction.eq("outbound"))
            .into_tuple()
            .all(db)
            .await
            .unwrap();
        let mut first: HashMap<Uuid, (Uuid, DateTime<Utc>)> = HashMap::new();
        for (c, id, at) in texts {
            let e = first.entry(c).or_insert((id, at));
            if at < e.1 {
                *e = (id, at);
            }
        }
        let rows: Vec<item::ActiveModel> = first
            .into_iter()
            .map(|(c, (id, sent))| {
                n += 1;
                item::ActiveModel {
                    id: Set(Uuid::new_v4()),
                    operation_id: Set(op),
                    organization_id: Set(org),
                    contact_id: Set(c),
                    position: Set(n),
                    status: Set(herald::campaign::model::ItemStatus::Sent),
                    skip_reason: Set(None),
                    draft: Set(Some("Hi".into())),
                    edited: Set(false),
                    claimed_by: Set(None),
                    heartbeat_at: Set(None),
                    attempts: Set(1),
                    idempotency_key: Set(Uuid::new_v4()),
                    message_id: Set(Some(id)),
                    error: Set(None),
                    drafted_at: Set(Some(sent)),
                    sent_at: Set(Some(sent)),
                    created_at: Set(sent),
                    updated_at: Set(sent),
                    sent_by: Set(None),
                    replied_at: Set(None),
                    opted_out_at: Set(None),
                    clicked_at: Set(None),
                }
            })
            .collect();
        for part in rows.chunks(200) {
            item::Entity::insert_many(part.to_vec())
                .exec(db)
                .await
                .unwrap();
        }
    }
    operation::Entity::update_many()
        .col_expr(operation::Column::Total, sea_orm::sea_query::Expr::value(n))
        .col_expr(
            operation::Column::Drafted,
            sea_orm::sea_query::Expr::value(n),
        )
        .col_expr(operation::Column::Sent, sea_orm::sea_query::Expr::value(n))
        .filter(operation::Column::Id.eq(op))
        .exec(db)
        .await
        .unwrap();
    operation::Entity::find_by_id(op)
        .one(db)
        .await
        .unwrap()
        .unwrap()
}

async fn insert_op<C: ConnectionTrait>(
    db: &C,
    op: Uuid,
    org: Uuid,
    agent: Uuid,
    number: Uuid,
    at: DateTime<Utc>,
) {
    operation::Entity::insert(operation::ActiveModel {
        id: Set(op),
        organization_id: Set(org),
        agent_id: Set(agent),
        plan_id: Set(None),
        thread_id: Set(None),
        owner_user_id: Set(None),
        phone_number_id: Set(number),
        kind: Set("campaign".into()),
        message_concept: Set("Everyone, once".into()),
        persona: Set(String::new()),
        status: Set(herald::campaign::model::OperationStatus::Done),
        total: Set(0),
        drafted: Set(0),
        sent: Set(0),
        failed: Set(0),
        skipped: Set(0),
        error: Set(None),
        created_at: Set(at),
        updated_at: Set(at),
        paused_from: Set(None),
        paused_reason: Set(None),
        alarm_from: Set(None),
        track_links: Set(false),
        send_after: Set(None),
    })
    .exec(db)
    .await
    .unwrap();
}

/// The funnel as the Reports page read it before the counters: a page of sent items at a time,
/// their texts' outcomes, the contacts' texts in and their opt-outs.
pub async fn the_old_way<C: ConnectionTrait>(db: &C, op: &operation::Model) -> Funnel {
    let approved = item::Entity::find()
        .filter(item::Column::OperationId.eq(op.id))
        .filter(item::Column::Status.is_in(["drafted", "sending", "sent", "unknown"]))
        .count(db)
        .await
        .unwrap() as i64;
    let mut f = Funnel {
        audience: op.total as i64,
        drafted: op.drafted as i64,
        approved,
        clicked: herald::links::service::clicked_contacts(db, op.id)
            .await
            .unwrap(),
        ..Default::default()
    };
    let mut after: Option<Uuid> = None;
    loop {
        let mut q = item::Entity::find()
            .select_only()
            .columns([
                item::Column::Id,
                item::Column::ContactId,
                item::Column::SentAt,
            ])
            .column(item::Column::MessageId)
            .filter(item::Column::OperationId.eq(op.id))
            .filter(item::Column::Status.eq("sent"))
            .order_by_asc(item::Column::Id)
            .limit(PAGE);
        if let Some(a) = after {
            q = q.filter(item::Column::Id.gt(a));
        }
        let rows: Vec<SentItem> = q.into_tuple().all(db).await.unwrap();
        let Some(last) = rows.last() else { break };
        after = Some(last.0);
        f.sent += rows.len() as i64;
        f.delivered += message::Entity::find()
            .filter(message::Column::Id.is_in(rows.iter().filter_map(|r| r.3)))
            .filter(message::Column::Status.eq("delivered"))
            .count(db)
            .await
            .unwrap() as i64;
        let sent: HashMap<Uuid, DateTime<Utc>> =
            rows.iter().filter_map(|r| Some((r.1, r.2?))).collect();
        let first = sent.values().min().copied().unwrap_or_default();
        let end = sent.values().max().map(|t| *t + WITHIN).unwrap_or_default();
        let within = |who: &Uuid, at: DateTime<Utc>| {
            sent.get(who).is_some_and(|s| at >= *s && at <= *s + WITHIN)
        };
        let replies: Vec<(Uuid, DateTime<Utc>)> = message::Entity::find()
            .select_only()
            .columns([message::Column::ContactId, message::Column::CreatedAt])
            .filter(message::Column::OrganizationId.eq(op.organization_id))
            .filter(message::Column::ContactId.is_in(sent.keys().copied()))
            .filter(message::Column::Direction.eq("inbound"))
            .filter(message::Column::Keyword.is_null())
            .filter(message::Column::CreatedAt.gte(first))
            .filter(message::Column::CreatedAt.lte(end))
            .into_tuple()
            .all(db)
            .await
            .unwrap();
        let mut answered: Vec<Uuid> = replies
            .into_iter()
            .filter(|(c, at)| within(c, *at))
            .map(|(c, _)| c)
            .collect();
        answered.sort();
        answered.dedup();
        f.replied += answered.len() as i64;
        let phones: HashMap<String, Uuid> = contact::Entity::find()
            .select_only()
            .columns([contact::Column::Phone, contact::Column::Id])
            .filter(contact::Column::Id.is_in(sent.keys().copied()))
            .into_tuple::<(Option<String>, Uuid)>()
            .all(db)
            .await
            .unwrap()
            .into_iter()
            .filter_map(|(p, id)| Some((p?, id)))
            .collect();
        let outs: Vec<(String, DateTime<Utc>)> = suppression::Entity::find()
            .select_only()
            .columns([suppression::Column::Phone, suppression::Column::CreatedAt])
            .filter(suppression::Column::OrganizationId.eq(op.organization_id))
            .filter(suppression::Column::Phone.is_in(phones.keys().cloned()))
            .into_tuple()
            .all(db)
            .await
            .unwrap();
        f.opted_out += outs
            .into_iter()
            .filter(|(p, at)| phones.get(p).is_some_and(|c| within(c, *at)))
            .count() as i64;
    }
    f
}

/// When the campaign began: within the 90 days the page reads.
pub fn began(now: DateTime<Utc>) -> DateTime<Utc> {
    now - Duration::days(89)
}
