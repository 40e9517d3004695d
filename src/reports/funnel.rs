//! A campaign's funnel (issue 30 §5): its audience, drafted, approved, sent, delivered,
//! clicked, and who replied (a keyword such as STOP is not a reply) or opted out within 72
//! hours of their text. Read for one campaign at
//! a time, its sent items a page at a time (`PAGE`), so memory stays flat at any size.
use crate::bulk_operation::entity::{item, operation};
use crate::bulk_operation::model::{item_status, OperationStatus};
use crate::contacts::entity::{contact, suppression};
use crate::error::AppResult;
use crate::messaging::entity as message;
use chrono::{DateTime, Duration, Utc};
use sea_orm::{
    ColumnTrait, ConnectionTrait, EntityTrait, PaginatorTrait, QueryFilter, QueryOrder, QuerySelect,
};
use std::collections::HashMap;
use uuid::Uuid;

/// Sent items read at once.
const PAGE: u64 = 1000;
/// How long after a text a reply or an opt-out counts as its answer.
pub const WITHIN: Duration = Duration::hours(72);

/// A sent item: its id, contact, when it was sent and its text.
type SentItem = (Uuid, Uuid, Option<DateTime<Utc>>, Option<Uuid>);

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Funnel {
    pub audience: i64,
    pub drafted: i64,
    pub approved: i64,
    pub sent: i64,
    pub delivered: i64,
    pub clicked: i64,
    pub replied: i64,
    pub opted_out: i64,
}

async fn count_items<C: ConnectionTrait>(db: &C, op: Uuid, statuses: &[&str]) -> AppResult<i64> {
    Ok(item::Entity::find()
        .filter(item::Column::OperationId.eq(op))
        .filter(item::Column::Status.is_in(statuses.iter().copied()))
        .count(db)
        .await? as i64)
}

pub async fn of<C: ConnectionTrait>(db: &C, op: &operation::Model) -> AppResult<Funnel> {
    use item_status::*;
    let approved = match OperationStatus::parse(&op.status) {
        OperationStatus::Sending | OperationStatus::Done => {
            count_items(db, op.id, &[DRAFTED, SENDING, SENT, UNKNOWN]).await?
                + item::Entity::find()
                    .filter(item::Column::OperationId.eq(op.id))
                    .filter(item::Column::Status.eq(FAILED))
                    .filter(item::Column::MessageId.is_not_null())
                    .count(db)
                    .await? as i64
        }
        // Cancelled or paused after approval: what was sent or tried was approved.
        _ if op.paused_from.as_deref() == Some(OperationStatus::Sending.as_str())
            || op.status == OperationStatus::Cancelled.as_str() =>
        {
            count_items(db, op.id, &[SENDING, SENT, UNKNOWN]).await?
        }
        _ => 0,
    };
    let mut f = Funnel {
        audience: op.total as i64,
        drafted: op.drafted as i64,
        approved,
        clicked: crate::links::service::clicked_contacts(db, op.id).await?,
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
            .filter(item::Column::Status.eq(SENT))
            .order_by_asc(item::Column::Id)
            .limit(PAGE);
        if let Some(a) = after {
            q = q.filter(item::Column::Id.gt(a));
        }
        let rows: Vec<SentItem> = q.into_tuple().all(db).await?;
        let Some(last) = rows.last() else { break };
        after = Some(last.0);
        f.sent += rows.len() as i64;
        f.delivered += message::Entity::find()
            .filter(message::Column::Id.is_in(rows.iter().filter_map(|r| r.3)))
            .filter(message::Column::Status.eq("delivered"))
            .count(db)
            .await? as i64;
        let sent: HashMap<Uuid, DateTime<Utc>> =
            rows.iter().filter_map(|r| Some((r.1, r.2?))).collect();
        let (Some(first), Some(end)) = (
            sent.values().min().copied(),
            sent.values().max().map(|t| *t + WITHIN),
        ) else {
            continue;
        };
        let within = |who: &Uuid, at: DateTime<Utc>| {
            sent.get(who).is_some_and(|s| at >= *s && at <= *s + WITHIN)
        };
        let replies: Vec<(Uuid, DateTime<Utc>)> = message::Entity::find()
            .select_only()
            .column(message::Column::ContactId)
            .column(message::Column::CreatedAt)
            .filter(message::Column::OrganizationId.eq(op.organization_id))
            .filter(message::Column::ContactId.is_in(sent.keys().copied()))
            .filter(message::Column::Direction.eq("inbound"))
            // A keyword (STOP, HELP, START) is not an answer; the opt-out counts on its own.
            .filter(message::Column::Keyword.is_null())
            .filter(message::Column::CreatedAt.gte(first))
            .filter(message::Column::CreatedAt.lte(end))
            .into_tuple()
            .all(db)
            .await?;
        let mut answered: Vec<Uuid> = replies
            .into_iter()
            .filter(|(c, at)| within(c, *at))
            .map(|(c, _)| c)
            .collect();
        answered.sort();
        answered.dedup();
        f.replied += answered.len() as i64;
        // Opt-outs are kept by number: each sent contact's number, then its suppression.
        let phones: HashMap<String, Uuid> = contact::Entity::find()
            .select_only()
            .column(contact::Column::Phone)
            .column(contact::Column::Id)
            .filter(contact::Column::Id.is_in(sent.keys().copied()))
            .into_tuple::<(Option<String>, Uuid)>()
            .all(db)
            .await?
            .into_iter()
            .filter_map(|(p, id)| Some((p?, id)))
            .collect();
        let outs: Vec<(String, DateTime<Utc>)> = suppression::Entity::find()
            .select_only()
            .column(suppression::Column::Phone)
            .column(suppression::Column::CreatedAt)
            .filter(suppression::Column::OrganizationId.eq(op.organization_id))
            .filter(suppression::Column::Phone.is_in(phones.keys().cloned()))
            .into_tuple()
            .all(db)
            .await?;
        f.opted_out += outs
            .into_iter()
            .filter(|(p, at)| phones.get(p).is_some_and(|c| within(c, *at)))
            .count() as i64;
        if (rows.len() as u64) < PAGE {
            break;
        }
    }
    Ok(f)
}
