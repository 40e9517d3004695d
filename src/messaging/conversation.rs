//! A conversation's history and state, read from the per-conversation rows the database
//! keeps as texts arrive (`entity::conversation`): keyset pages, exact totals, and no scan of
//! the message table at any size.
use crate::auth::entity::{membership, user};
use crate::error::AppResult;
use crate::messaging::conversation_state::{Assignee, ConversationState, Triage};
use crate::messaging::entity::{self as message, conversation};
use chrono::{DateTime, Utc};
use sea_orm::sea_query::Expr;
use sea_orm::{
    ColumnTrait, ConnectionTrait, DatabaseConnection, EntityTrait, PaginatorTrait, QueryFilter,
    QueryOrder, QuerySelect,
};
use std::collections::HashMap;
use uuid::Uuid;

/// Messages on one page of a conversation.
pub const HISTORY_PAGE: u64 = 50;

/// Conversations with an unread inbound text (the navigation's count): an index range, not a
/// scan of messages.
pub async fn unread_conversations<C: ConnectionTrait>(db: &C, org_id: Uuid) -> AppResult<u64> {
    Ok(conversation::Entity::find()
        .filter(conversation::Column::OrganizationId.eq(org_id))
        .filter(conversation::Column::UnreadCount.gt(0))
        .count(db)
        .await?)
}

/// The names of the members among `ids` (someone who has left the organisation has none).
pub async fn assignee_names<C: ConnectionTrait>(
    db: &C,
    org_id: Uuid,
    ids: impl Iterator<Item = Uuid>,
) -> AppResult<HashMap<Uuid, String>> {
    let ids: Vec<Uuid> = ids
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    if ids.is_empty() {
        return Ok(HashMap::new());
    }
    let members: Vec<Uuid> = membership::Entity::find()
        .filter(membership::Column::OrganizationId.eq(org_id))
        .filter(membership::Column::UserId.is_in(ids))
        .all(db)
        .await?
        .into_iter()
        .map(|m| m.user_id)
        .collect();
    Ok(user::Entity::find()
        .filter(user::Column::Id.is_in(members))
        .all(db)
        .await?
        .into_iter()
        .map(|u| (u.id, u.name))
        .collect())
}

/// A row's state at `now`, and its assignee's name.
pub fn triage(
    r: &conversation::Model,
    names: &HashMap<Uuid, String>,
    now: DateTime<Utc>,
) -> Triage {
    let state = r.state.at(r.snoozed_until, now);
    Triage {
        state,
        snoozed_until: r
            .snoozed_until
            .filter(|_| state == ConversationState::Snoozed),
        assignee: r.assignee_id.and_then(|id| {
            names.get(&id).map(|name| Assignee {
                user_id: id,
                name: name.clone(),
            })
        }),
        ai_paused_until: r.ai_paused_until.filter(|until| *until > now),
        ai_paused_by: r
            .ai_paused_by
            .filter(|_| r.ai_paused_until.is_some_and(|until| until > now))
            .map(|id| {
                names
                    .get(&id)
                    .cloned()
                    .unwrap_or_else(|| "A teammate".into())
            }),
    }
}

/// The messages before `before` (a `seq`; None: the newest), oldest first, and where the page
/// before them starts.
pub async fn history<C: ConnectionTrait>(
    db: &C,
    org_id: Uuid,
    contact_id: Uuid,
    before: Option<i64>,
) -> AppResult<(Vec<message::Model>, Option<i64>)> {
    let mut q = message::Entity::find()
        .filter(message::Column::OrganizationId.eq(org_id))
        .filter(message::Column::ContactId.eq(contact_id));
    if let Some(b) = before {
        q = q.filter(message::Column::Seq.lt(b));
    }
    let mut rows = q
        .order_by_desc(message::Column::Seq)
        .limit(HISTORY_PAGE + 1)
        .all(db)
        .await?;
    let more = rows.len() as u64 > HISTORY_PAGE;
    rows.truncate(HISTORY_PAGE as usize);
    let older = if more {
        rows.last().and_then(|m| m.seq)
    } else {
        None
    };
    rows.reverse();
    Ok((rows, older))
}

/// The conversation's message count (0 before its first text).
pub async fn message_count<C: ConnectionTrait>(db: &C, contact_id: Uuid) -> AppResult<u64> {
    Ok(conversation::Entity::find_by_id(contact_id)
        .one(db)
        .await?
        .map(|c| c.message_count.max(0) as u64)
        .unwrap_or(0))
}

/// Marks the contact's inbound texts read and lowers the conversation's unread count by exactly
/// the texts this marked, in one transaction (a text arriving meanwhile stays unread).
pub async fn mark_read(
    db: &DatabaseConnection,
    org_id: Uuid,
    contact_id: Uuid,
    now: chrono::DateTime<chrono::Utc>,
) -> AppResult<()> {
    let txn = crate::platform::db::begin_write(db).await?;
    let marked = message::Entity::update_many()
        .col_expr(message::Column::ReadAt, Expr::value(now))
        .filter(message::Column::OrganizationId.eq(org_id))
        .filter(message::Column::ContactId.eq(contact_id))
        .filter(message::Column::ReadAt.is_null())
        .filter(message::Column::Direction.eq("inbound"))
        .exec(&txn)
        .await?
        .rows_affected;
    if marked > 0 {
        conversation::Entity::update_many()
            .col_expr(
                conversation::Column::UnreadCount,
                Expr::cust(format!(
                    "CASE WHEN unread_count > {marked} THEN unread_count - {marked} ELSE 0 END"
                )),
            )
            .filter(conversation::Column::OrganizationId.eq(org_id))
            .filter(conversation::Column::ContactId.eq(contact_id))
            .exec(&txn)
            .await?;
    }
    txn.commit().await?;
    Ok(())
}

/// The conversation's state and assignee as its page shows them (open before its first text).
pub async fn triage_of(
    state: &crate::platform::AppState,
    org: Uuid,
    contact_id: Uuid,
) -> AppResult<Triage> {
    let Some(r) = conversation::Entity::find_by_id(contact_id)
        .filter(conversation::Column::OrganizationId.eq(org))
        .one(&state.db)
        .await?
    else {
        return Ok(Triage::default());
    };
    let ids = [r.assignee_id, r.ai_paused_by].into_iter().flatten();
    let names = assignee_names(&state.db, org, ids).await?;
    Ok(triage(&r, &names, state.clock.now()))
}
