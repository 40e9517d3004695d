//! Keeping the campaign funnels (`campaign_funnel`) as data arrives, inside the report passes:
//! - a text's final outcome: a delivered campaign text adds one to its campaign's deliveries;
//! - a text in (not a keyword) marks each campaign item texted to that contact in the 72 hours
//!   before it as answered, once;
//! - an opt-out (a new `suppression` row) marks each item texted to that number in the 72 hours
//!   before it as opted out, once;
//! - a link's first click marks its campaign's item for that contact as clicked, once.
//!
//! Each item's mark is set by one `UPDATE … WHERE mark IS NULL RETURNING`, so an item counts
//! once however many passes, instances or texts touch it; the counters are added in campaign
//! order, in the pass's transaction, with the marks of what was counted.
use crate::campaign::entity::{campaign_funnel, item};
use crate::campaign::funnel::WITHIN;
use crate::campaign::model::ItemStatus;
use crate::contacts::entity::{contact, suppression};
use crate::error::AppResult;
use crate::links::entity as tracked_link;
use chrono::{DateTime, Utc};
use migration::m20261129_000054_campaign_funnels::{CLICK_PENDING, OPT_OUT_PENDING};
use sea_orm::sea_query::{Expr, LockBehavior, LockType, OnConflict, Query};
use sea_orm::{
    ColumnTrait, ConnectionTrait, DbBackend, EntityTrait, QueryFilter, QueryOrder, QuerySelect, Set,
};
use std::collections::BTreeMap;
use uuid::Uuid;

/// A text in that may answer campaign texts.
#[derive(Clone, Copy, Debug)]
pub struct Answer {
    pub contact: Uuid,
    pub at: DateTime<Utc>,
}

/// A link clicked: its id, campaign, contact and first click.
type ClickedLink = (Uuid, Option<Uuid>, Uuid, Option<DateTime<Utc>>);

/// Additions to each campaign's counters, by campaign.
#[derive(Default)]
struct Tally(BTreeMap<Uuid, (Uuid, [i64; 4])>);

const DELIVERED: usize = 0;
const REPLIED: usize = 1;
const OPTED_OUT: usize = 2;
const CLICKED: usize = 3;

impl Tally {
    fn bump(&mut self, op: Uuid, org: Uuid, what: usize, n: i64) {
        self.0.entry(op).or_insert((org, [0; 4])).1[what] += n;
    }

    /// Adds the counts, in campaign order (no two passes deadlock).
    async fn add<C: ConnectionTrait>(self, db: &C) -> AppResult<()> {
        for (op, (org, n)) in self.0 {
            campaign_funnel::Entity::insert(campaign_funnel::ActiveModel {
                operation_id: Set(op),
                organization_id: Set(org),
                approved: Set(0),
                delivered: Set(n[DELIVERED]),
                replied: Set(n[REPLIED]),
                opted_out: Set(n[OPTED_OUT]),
                clicked: Set(n[CLICKED]),
            })
            .on_conflict(
                OnConflict::column(campaign_funnel::Column::OperationId)
                    .values([
                        (campaign_funnel::Column::Delivered, sum("delivered")),
                        (campaign_funnel::Column::Replied, sum("replied")),
                        (campaign_funnel::Column::OptedOut, sum("opted_out")),
                        (campaign_funnel::Column::Clicked, sum("clicked")),
                    ])
                    .to_owned(),
            )
            .exec_without_returning(db)
            .await?;
        }
        Ok(())
    }
}

fn sum(col: &str) -> Expr {
    Expr::cust(format!("campaign_funnel.{col} + excluded.{col}"))
}

/// Sets `mark` to `at` on the items matching `filter` whose mark is unset; answers the
/// (campaign, organisation) of each item marked.
async fn mark<C: ConnectionTrait>(
    db: &C,
    mark: item::Column,
    at: DateTime<Utc>,
    filter: Vec<Expr>,
) -> AppResult<Vec<(Uuid, Uuid)>> {
    let mut q = Query::update();
    q.table(item::Entity)
        .value(mark, at)
        .and_where(mark.is_null())
        .returning(
            Query::returning().columns([item::Column::OperationId, item::Column::OrganizationId]),
        );
    for f in filter {
        q.and_where(f);
    }
    let rows = db
        .query_all_raw(db.get_database_backend().build(&q))
        .await?;
    rows.iter()
        .map(|r| {
            Ok((
                r.try_get::<Uuid>("", "operation_id")?,
                r.try_get::<Uuid>("", "organization_id")?,
            ))
        })
        .collect()
}

/// The items texted to `contacts` of `org` in the 72 hours up to `at`.
fn texted_before(org: Uuid, contacts: Vec<Uuid>, at: DateTime<Utc>) -> Vec<Expr> {
    vec![
        item::Column::OrganizationId.eq(org),
        item::Column::ContactId.is_in(contacts),
        item::Column::Status.eq(ItemStatus::Sent),
        item::Column::SentAt.lte(at),
        item::Column::SentAt.gte(at - WITHIN),
    ]
}

/// Counts what a rollup pass claimed: the texts in that answer, and the texts delivered.
pub async fn count<C: ConnectionTrait>(
    db: &C,
    answers: &[Answer],
    delivered: &[Uuid],
) -> AppResult<()> {
    let mut tally = Tally::default();
    for part in delivered.chunks(500) {
        let rows: Vec<(Uuid, Uuid)> = item::Entity::find()
            .select_only()
            .columns([item::Column::OperationId, item::Column::OrganizationId])
            .filter(item::Column::MessageId.is_in(part.iter().copied()))
            .into_tuple()
            .all(db)
            .await?;
        for (op, org) in rows {
            tally.bump(op, org, DELIVERED, 1);
        }
    }
    for (item, at) in answered(db, answers).await? {
        let filter = vec![item::Column::Id.eq(item)];
        for (op, org) in mark(db, item::Column::RepliedAt, at, filter).await? {
            tally.bump(op, org, REPLIED, 1);
        }
    }
    tally.add(db).await
}

/// The campaign items not yet answered that `answers` answer, each with its first answer's
/// time: one read a 500 contacts for the items sent to them in the window, so a pass of texts
/// from people no campaign texted costs a read, not a write a text. The items come in id order,
/// so that passes on two instances lock them in the same order.
async fn answered<C: ConnectionTrait>(
    db: &C,
    answers: &[Answer],
) -> AppResult<Vec<(Uuid, DateTime<Utc>)>> {
    let Some(since) = answers.iter().map(|a| a.at).min() else {
        return Ok(Vec::new());
    };
    let mut by_contact: BTreeMap<Uuid, Vec<DateTime<Utc>>> = BTreeMap::new();
    for a in answers {
        by_contact.entry(a.contact).or_default().push(a.at);
    }
    let contacts: Vec<Uuid> = by_contact.keys().copied().collect();
    let mut out = Vec::new();
    for part in contacts.chunks(500) {
        let sent: Vec<(Uuid, Uuid, Option<DateTime<Utc>>)> = item::Entity::find()
            .select_only()
            .columns([
                item::Column::Id,
                item::Column::ContactId,
                item::Column::SentAt,
            ])
            .filter(item::Column::ContactId.is_in(part.iter().copied()))
            .filter(item::Column::Status.eq(ItemStatus::Sent))
            .filter(item::Column::RepliedAt.is_null())
            .filter(item::Column::SentAt.gte(since - WITHIN))
            .into_tuple()
            .all(db)
            .await?;
        for (id, contact, sent_at) in sent {
            let Some(s) = sent_at else { continue };
            let first = by_contact
                .get(&contact)
                .into_iter()
                .flatten()
                .filter(|at| **at >= s && **at <= s + WITHIN)
                .min()
                .copied();
            if let Some(at) = first {
                out.push((id, at));
            }
        }
    }
    out.sort();
    Ok(out)
}

/// Claims up to `batch` rows matching `pending` (raw SQL, the partial index's own words).
fn claimed<E: EntityTrait>(
    q: sea_orm::Select<E>,
    db: DbBackend,
    pending: &'static str,
    batch: u64,
) -> sea_orm::Select<E> {
    let q = q.filter(Expr::cust(pending)).limit(batch);
    match db {
        DbBackend::Postgres => q.lock_with_behavior(LockType::Update, LockBehavior::SkipLocked),
        _ => q,
    }
}

/// Counts up to `batch` new opt-outs and `batch` newly clicked links; answers how many.
pub async fn pass<C: ConnectionTrait>(db: &C, batch: u64) -> AppResult<usize> {
    let backend = db.get_database_backend();
    let mut tally = Tally::default();
    let outs: Vec<(Uuid, Uuid, String, DateTime<Utc>)> = claimed(
        suppression::Entity::find().select_only().columns([
            suppression::Column::Id,
            suppression::Column::OrganizationId,
            suppression::Column::Phone,
            suppression::Column::CreatedAt,
        ]),
        backend,
        OPT_OUT_PENDING,
        batch,
    )
    .order_by_asc(suppression::Column::CreatedAt)
    .into_tuple()
    .all(db)
    .await?;
    for (_, org, phone, at) in &outs {
        let contacts: Vec<Uuid> = contact::Entity::find()
            .select_only()
            .column(contact::Column::Id)
            .filter(contact::Column::OrganizationId.eq(*org))
            .filter(contact::Column::Phone.eq(phone.as_str()))
            .into_tuple()
            .all(db)
            .await?;
        if contacts.is_empty() {
            continue;
        }
        let filter = texted_before(*org, contacts, *at);
        for (op, org) in mark(db, item::Column::OptedOutAt, *at, filter).await? {
            tally.bump(op, org, OPTED_OUT, 1);
        }
    }
    let links: Vec<ClickedLink> = claimed(
        tracked_link::Entity::find().select_only().columns([
            tracked_link::Column::Id,
            tracked_link::Column::OperationId,
            tracked_link::Column::ContactId,
            tracked_link::Column::FirstClickAt,
        ]),
        backend,
        CLICK_PENDING,
        batch,
    )
    .order_by_asc(tracked_link::Column::CreatedAt)
    .into_tuple()
    .all(db)
    .await?;
    for (_, op, contact, first) in &links {
        let Some(op) = op else { continue };
        let filter = vec![
            item::Column::OperationId.eq(*op),
            item::Column::ContactId.eq(*contact),
        ];
        let at = first.unwrap_or_default();
        for (op, org) in mark(db, item::Column::ClickedAt, at, filter).await? {
            tally.bump(op, org, CLICKED, 1);
        }
    }
    tally.add(db).await?;
    for part in outs.chunks(500) {
        suppression::Entity::update_many()
            .col_expr(suppression::Column::FunnelRolled, Expr::value(true))
            .filter(suppression::Column::Id.is_in(part.iter().map(|r| r.0)))
            .exec(db)
            .await?;
    }
    for part in links.chunks(500) {
        tracked_link::Entity::update_many()
            .col_expr(tracked_link::Column::FunnelRolled, Expr::value(true))
            .filter(tracked_link::Column::Id.is_in(part.iter().map(|r| r.0)))
            .exec(db)
            .await?;
    }
    Ok(outs.len() + links.len())
}
