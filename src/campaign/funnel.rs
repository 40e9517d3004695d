//! A campaign's funnel (issue 30 §5): its audience, drafted, approved, sent, delivered,
//! clicked, and who replied (a keyword such as STOP is not a reply) or opted out within 72
//! hours of their text.
//!
//! Read from counters kept as the data arrives, never from the items: the audience, drafts and
//! sends are the operation row's own counts (kept by its engines), the approvals are written
//! when a person approves, and the rest grow with the report passes
//! (`reports::funnel_pass`). So a
//! campaign of any size costs two row reads.
use crate::campaign::entity::campaign_funnel;
use crate::campaign::entity::{item, operation};
use crate::campaign::model::ItemStatus;
use crate::error::AppResult;
use chrono::Duration;
use sea_orm::sea_query::{Expr, OnConflict};
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, PaginatorTrait, QueryFilter, Set};
use uuid::Uuid;

/// How long after a text a reply or an opt-out counts as its answer.
pub const WITHIN: Duration = Duration::hours(72);

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

pub async fn of<C: ConnectionTrait>(db: &C, op: &operation::Model) -> AppResult<Funnel> {
    let kept = campaign_funnel::Entity::find_by_id(op.id).one(db).await?;
    let kept = kept.unwrap_or(campaign_funnel::Model {
        operation_id: op.id,
        organization_id: op.organization_id,
        approved: 0,
        delivered: 0,
        replied: 0,
        opted_out: 0,
        clicked: 0,
    });
    Ok(Funnel {
        audience: op.total as i64,
        drafted: op.drafted as i64,
        approved: kept.approved,
        sent: op.sent as i64,
        delivered: kept.delivered,
        clicked: kept.clicked,
        replied: kept.replied,
        opted_out: kept.opted_out,
    })
}

/// Writes, in the approval's transaction, how many drafts a person approved to send: one count
/// at the moment of approval, whatever happens to each text afterwards.
pub async fn approved<C: ConnectionTrait>(txn: &C, op: Uuid, org: Uuid) -> AppResult<i64> {
    let n = item::Entity::find()
        .filter(item::Column::OperationId.eq(op))
        .filter(item::Column::Status.eq(ItemStatus::Drafted))
        .count(txn)
        .await? as i64;
    campaign_funnel::Entity::insert(campaign_funnel::ActiveModel {
        operation_id: Set(op),
        organization_id: Set(org),
        approved: Set(n),
        delivered: Set(0),
        replied: Set(0),
        opted_out: Set(0),
        clicked: Set(0),
    })
    .on_conflict(
        OnConflict::column(campaign_funnel::Column::OperationId)
            .value(
                campaign_funnel::Column::Approved,
                Expr::cust("excluded.approved"),
            )
            .to_owned(),
    )
    .exec_without_returning(txn)
    .await?;
    Ok(n)
}
