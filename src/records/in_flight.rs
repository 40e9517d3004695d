//! What stops a merge or a deletion of a contact: a text of theirs in flight. A campaign still
//! sending to them, a scheduled text leaving, an agent answering them, or a text of theirs queued,
//! sending or in doubt.
use crate::ai_agent::entity::ai_thread;
use crate::ai_agent::thread::contact_key;
use crate::campaign::entity::{item, operation};
use crate::campaign::model::{ItemStatus, OperationStatus};
use crate::contacts::entity::contact;
use crate::error::{AppError, AppResult};
use crate::messaging::entity as message;
use crate::messaging::model::SendState;
use crate::messaging::scheduled::{entity as scheduled, status as scheduled_status};
use chrono::{DateTime, Utc};
use sea_orm::sea_query::Query;
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, PaginatorTrait, QueryFilter};
use uuid::Uuid;

/// Refuses while a text to the duplicate is in flight: moving it mid-send could text the kept
/// contact twice or lose the send's record.
pub async fn refuse<C: ConnectionTrait>(
    db: &C,
    org: Uuid,
    dup: &contact::Model,
    now: DateTime<Utc>,
    then: &str,
) -> AppResult<()> {
    let running = Query::select()
        .column(operation::Column::Id)
        .from(operation::Entity)
        .and_where(operation::Column::OrganizationId.eq(org))
        .and_where(
            operation::Column::Status.is_in(
                [
                    OperationStatus::Drafting,
                    OperationStatus::AwaitingApproval,
                    OperationStatus::Sending,
                ]
                .map(OperationStatus::as_str),
            ),
        )
        .to_owned();
    let pending = item::Entity::find()
        .filter(item::Column::OrganizationId.eq(org))
        .filter(item::Column::ContactId.eq(dup.id))
        .filter(item::Column::Status.is_in([
            ItemStatus::Pending,
            ItemStatus::Drafting,
            ItemStatus::Drafted,
            ItemStatus::Sending,
        ]))
        .filter(item::Column::OperationId.in_subquery(running))
        .one(db)
        .await?;
    if let Some(i) = pending {
        return Err(AppError::Conflict(format!(
            "{} is in a campaign that has not finished with them ({}). {then} once it ends, or \
             cancel it.",
            display_name(dup),
            i.operation_id
        )));
    }
    let leaving = scheduled::Entity::find()
        .filter(scheduled::Column::OrganizationId.eq(org))
        .filter(scheduled::Column::ContactId.eq(dup.id))
        .filter(scheduled::Column::Status.eq(scheduled_status::SENDING))
        .count(db)
        .await?;
    if leaving > 0 {
        return Err(AppError::Conflict(format!(
            "A scheduled text to {} is being sent right now. Try again in a minute.",
            display_name(dup)
        )));
    }
    let answering = ai_thread::Entity::find()
        .filter(ai_thread::Column::OrganizationId.eq(org))
        .filter(ai_thread::Column::CorrelationKey.eq(contact_key(dup.id)))
        .filter(ai_thread::Column::LeaseExpiresAt.gt(now))
        .count(db)
        .await?;
    if answering > 0 {
        return Err(AppError::Conflict(format!(
            "An agent is answering {} right now. Try again in a minute.",
            display_name(dup)
        )));
    }
    // A text of theirs still leaving, or in doubt, must be settled first.
    let leaving = message::Entity::find()
        .filter(message::Column::OrganizationId.eq(org))
        .filter(message::Column::ContactId.eq(dup.id))
        .filter(message::Column::SendState.is_in([
            SendState::Queued,
            SendState::Sending,
            SendState::Unknown,
        ]))
        .count(db)
        .await?;
    if leaving > 0 {
        return Err(AppError::Conflict(format!(
            "A text to {} is still being sent, or waits for a person to settle whether it was. \
             {then} once it is settled.",
            display_name(dup)
        )));
    }
    Ok(())
}

/// The contact's name, or their number when they have none.
pub(super) fn display_name(c: &contact::Model) -> String {
    match (c.name.trim(), &c.phone) {
        ("", Some(p)) => p.clone(),
        (n, _) => n.to_owned(),
    }
}
