//! Round-robin auto-assignment per number: an inbound text on a number that assigns
//! automatically gives its conversation, while nobody has it, to the next member online (a
//! session of theirs used in the last 15 minutes), in turn after the member the number last
//! assigned. Nobody online: the conversation stays in Unassigned.
//!
//! Two texts at once on one number take turns: each reads and moves the number's `assigned_last`
//! under a lock on the number (SQLite's writer lock, PostgreSQL's row lock), so no turn is lost
//! or given twice. A conversation someone assigned meanwhile is left as it is.
use crate::auth::entity::{membership, session};
use crate::error::AppResult;
use crate::messaging::entity::conversation;
use crate::messaging::model::LiveEvent;
use crate::notifications::service::{notify, Notice};
use crate::phone_numbers::entity as phone_number;
use crate::platform::AppState;
use chrono::{DateTime, Duration, Utc};
use sea_orm::sea_query::Expr;
use sea_orm::{ColumnTrait, Condition, ConnectionTrait, EntityTrait, QueryFilter, QuerySelect};
use std::collections::BTreeSet;
use uuid::Uuid;

/// A member counts as online this long after their last request.
pub const ONLINE_MINUTES: i64 = 15;

/// The member whose turn it is: the first after `last` in a fixed order (their ids), wrapping
/// round; None when nobody is online.
pub fn next_in_turn(online: &BTreeSet<Uuid>, last: Option<Uuid>) -> Option<Uuid> {
    last.and_then(|l| {
        online
            .range((std::ops::Bound::Excluded(l), std::ops::Bound::Unbounded))
            .next()
    })
    .or_else(|| online.iter().next())
    .copied()
}

/// The organisation's members with a session used since `now` less `ONLINE_MINUTES`.
pub async fn online_members<C: ConnectionTrait>(
    db: &C,
    org: Uuid,
    now: DateTime<Utc>,
) -> AppResult<BTreeSet<Uuid>> {
    let users: Vec<Uuid> = session::Entity::find()
        .select_only()
        .column(session::Column::UserId)
        .distinct()
        .filter(session::Column::OrganizationId.eq(org))
        .filter(session::Column::LastSeenAt.gte(now - Duration::minutes(ONLINE_MINUTES)))
        .filter(session::Column::ExpiresAt.gt(now))
        .into_tuple()
        .all(db)
        .await?;
    if users.is_empty() {
        return Ok(BTreeSet::new());
    }
    // Still members (a session outlives nothing, but a removal and a sign-in may cross).
    Ok(membership::Entity::find()
        .select_only()
        .column(membership::Column::UserId)
        .filter(membership::Column::OrganizationId.eq(org))
        .filter(membership::Column::UserId.is_in(users))
        .into_tuple::<Uuid>()
        .all(db)
        .await?
        .into_iter()
        .collect())
}

/// Assigns the conversation of an inbound text on `number`, if the number assigns automatically
/// and nobody has the conversation yet. Answers the member it went to.
pub async fn on_inbound(
    state: &AppState,
    number: &phone_number::Model,
    contact_id: Uuid,
) -> AppResult<Option<Uuid>> {
    if !number.auto_assign {
        return Ok(None);
    }
    let org = number.organization_id;
    let unassigned = Condition::all()
        .add(conversation::Column::OrganizationId.eq(org))
        .add(conversation::Column::ContactId.eq(contact_id))
        .add(conversation::Column::AssigneeId.is_null());
    // Cheap first: a conversation someone has needs no turn (most texts).
    if conversation::Entity::find()
        .filter(unassigned.clone())
        .one(&state.db)
        .await?
        .is_none()
    {
        return Ok(None);
    }
    let now = state.clock.now();
    // One turn at a time per number: SQLite's writer lock from BEGIN IMMEDIATE, PostgreSQL's
    // lock on the number's row. The turn is read and moved under it.
    let txn = crate::platform::db::begin_write(&state.db).await?;
    let Some(locked) = phone_number::Entity::find_by_id(number.id)
        .lock_exclusive()
        .one(&txn)
        .await?
    else {
        return Ok(None);
    };
    let online = online_members(&txn, org, now).await?;
    let Some(to) = next_in_turn(&online, locked.assigned_last) else {
        tracing::info!(number = %number.number, "nobody online to auto-assign to");
        return Ok(None);
    };
    let assigned = conversation::Entity::update_many()
        .col_expr(conversation::Column::AssigneeId, Expr::value(Some(to)))
        .filter(unassigned)
        .exec(&txn)
        .await?
        .rows_affected;
    if assigned == 0 {
        // Someone assigned it meanwhile; the turn is not used up.
        return Ok(None);
    }
    phone_number::Entity::update_many()
        .col_expr(phone_number::Column::AssignedLast, Expr::value(Some(to)))
        .filter(phone_number::Column::Id.eq(number.id))
        .exec(&txn)
        .await?;
    txn.commit().await?;
    tracing::info!(%contact_id, assignee = %to, number = %number.number, "conversation auto-assigned");
    told(state, org, contact_id, to).await?;
    Ok(Some(to))
}

async fn told(state: &AppState, org: Uuid, contact_id: Uuid, to: Uuid) -> AppResult<()> {
    let row = conversation::Entity::find_by_id(contact_id)
        .filter(conversation::Column::OrganizationId.eq(org))
        .one(&state.db)
        .await?;
    let who = crate::contacts::entity::contact::Entity::find_by_id(contact_id)
        .filter(crate::contacts::entity::contact::Column::OrganizationId.eq(org))
        .one(&state.db)
        .await?
        .map(|c| c.name)
        .unwrap_or_else(|| "a contact".into());
    notify(
        state,
        Notice {
            agent_id: None,
            organization_id: org,
            user_id: to,
            kind: "conversation_assigned",
            title: format!("New conversation with {who}, assigned to you in turn"),
            body: row.map(|r| r.last_body).unwrap_or_default(),
            link: Some(format!("/messaging/{contact_id}")),
            source_key: None,
        },
    )
    .await?;
    state
        .live
        .publish(org, LiveEvent::ContactChanged { contact_id });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(n: u128) -> Uuid {
        Uuid::from_u128(n)
    }

    #[test]
    fn turns_go_round_in_order_and_skip_who_is_away() {
        let online: BTreeSet<Uuid> = [id(1), id(2), id(3)].into();
        assert_eq!(next_in_turn(&online, None), Some(id(1)), "the first turn");
        assert_eq!(next_in_turn(&online, Some(id(1))), Some(id(2)));
        assert_eq!(
            next_in_turn(&online, Some(id(3))),
            Some(id(1)),
            "wraps round"
        );
        // The last one assigned went offline: the turn passes to whoever follows them.
        let two: BTreeSet<Uuid> = [id(1), id(3)].into();
        assert_eq!(next_in_turn(&two, Some(id(2))), Some(id(3)));
        assert_eq!(
            next_in_turn(&BTreeSet::new(), Some(id(2))),
            None,
            "nobody online"
        );
    }
}
