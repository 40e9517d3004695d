//! Reading messages and conversations, scoped to one organisation.
use crate::contacts::entity::contact;
use crate::contacts::{opt_out, service as contacts};
use crate::error::AppResult;
use crate::messaging::entity as message;
use crate::messaging::model::{ConversationSummary, ConversationView, Direction, MessageView};
use crate::phone_numbers::service as numbers;
use crate::server::AppState;
use chrono::{DateTime, Utc};
use sea_orm::sea_query::Expr;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect};
use std::collections::HashMap;
use uuid::Uuid;

const INBOX_LIMIT: u64 = 200;
const HISTORY_LIMIT: u64 = 500;

pub fn to_view(m: message::Model) -> MessageView {
    MessageView {
        id: m.id,
        contact_id: m.contact_id,
        phone_number_id: m.phone_number_id,
        direction: if m.direction == "inbound" {
            Direction::Inbound
        } else {
            Direction::Outbound
        },
        body: m.body,
        media_count: m.media_count,
        media_urls: serde_json::from_value(m.media_urls).unwrap_or_default(),
        status: m.status,
        ai_origin: m.ai_origin,
        keyword: m.keyword,
        error: m.error,
        created_at: m.created_at,
        send_state: m.send_state,
    }
}

/// Conversations, newest activity first, with unread inbound counts.
pub async fn list_conversations(
    state: &AppState,
    org_id: Uuid,
) -> AppResult<Vec<ConversationSummary>> {
    let latest: Vec<(Uuid, DateTime<Utc>)> = message::Entity::find()
        .select_only()
        .column(message::Column::ContactId)
        .column_as(message::Column::CreatedAt.max(), "last_at")
        .filter(message::Column::OrganizationId.eq(org_id))
        .group_by(message::Column::ContactId)
        .order_by_desc(Expr::col("last_at"))
        .limit(INBOX_LIMIT)
        .into_tuple()
        .all(&state.db)
        .await?;
    let ids: Vec<Uuid> = latest.iter().map(|(c, _)| *c).collect();
    if ids.is_empty() {
        return Ok(vec![]);
    }
    let unread: HashMap<Uuid, i64> = message::Entity::find()
        .select_only()
        .column(message::Column::ContactId)
        .column_as(message::Column::Id.count(), "n")
        .filter(message::Column::OrganizationId.eq(org_id))
        .filter(message::Column::ContactId.is_in(ids.clone()))
        .filter(message::Column::Direction.eq("inbound"))
        .filter(message::Column::ReadAt.is_null())
        .group_by(message::Column::ContactId)
        .into_tuple::<(Uuid, i64)>()
        .all(&state.db)
        .await?
        .into_iter()
        .collect();
    let people: HashMap<Uuid, contact::Model> = contact::Entity::find()
        .filter(contact::Column::OrganizationId.eq(org_id))
        .filter(contact::Column::Id.is_in(ids.clone()))
        .all(&state.db)
        .await?
        .into_iter()
        .map(|c| (c.id, c))
        .collect();
    let outs = opt_out::sms_opt_outs(&state.db, &ids).await?;
    let mut out = Vec::with_capacity(latest.len());
    for (contact_id, _) in latest {
        let Some(c) = people.get(&contact_id) else {
            continue;
        };
        let Some(last) = message::Entity::find()
            .filter(message::Column::OrganizationId.eq(org_id))
            .filter(message::Column::ContactId.eq(contact_id))
            .order_by_desc(message::Column::CreatedAt)
            .one(&state.db)
            .await?
        else {
            continue;
        };
        let last = to_view(last);
        out.push(ConversationSummary {
            contact_id,
            contact_name: c.name.clone(),
            contact_phone: c.phone.clone(),
            last_body: last.body,
            last_direction: last.direction,
            last_at: last.created_at,
            unread: unread.get(&contact_id).copied().unwrap_or(0) as u64,
            opted_out: outs.contains_key(&contact_id),
        });
    }
    Ok(out)
}

/// The number the contact last texted; failing that, the last one used, then the first the organisation has.
pub async fn default_number_for(
    state: &AppState,
    org_id: Uuid,
    contact_id: Uuid,
) -> AppResult<Option<Uuid>> {
    for dir in ["inbound", "outbound"] {
        let last = message::Entity::find()
            .filter(message::Column::OrganizationId.eq(org_id))
            .filter(message::Column::ContactId.eq(contact_id))
            .filter(message::Column::Direction.eq(dir))
            .order_by_desc(message::Column::CreatedAt)
            .one(&state.db)
            .await?;
        if let Some(m) = last {
            return Ok(Some(m.phone_number_id));
        }
    }
    Ok(numbers::list(state, org_id).await?.first().map(|n| n.id))
}

/// The conversation with one contact; opening it marks inbound messages read.
pub async fn conversation(
    state: &AppState,
    org_id: Uuid,
    contact_id: Uuid,
) -> AppResult<ConversationView> {
    let contact = contacts::view(state, org_id, contact_id).await?;
    let mut rows = message::Entity::find()
        .filter(message::Column::OrganizationId.eq(org_id))
        .filter(message::Column::ContactId.eq(contact_id))
        .order_by_desc(message::Column::CreatedAt)
        .limit(HISTORY_LIMIT)
        .all(&state.db)
        .await?;
    rows.reverse();
    message::Entity::update_many()
        .col_expr(message::Column::ReadAt, Expr::value(state.clock.now()))
        .filter(message::Column::OrganizationId.eq(org_id))
        .filter(message::Column::ContactId.eq(contact_id))
        .filter(message::Column::ReadAt.is_null())
        .filter(message::Column::Direction.eq("inbound"))
        .exec(&state.db)
        .await?;
    Ok(ConversationView {
        contact,
        messages: rows.into_iter().map(to_view).collect(),
        numbers: numbers::list(state, org_id)
            .await?
            .into_iter()
            .map(numbers::to_view)
            .collect(),
        default_number_id: default_number_for(state, org_id, contact_id).await?,
        possible_opt_out: crate::compliance::review::open_for_contact(state, org_id, contact_id)
            .await?,
    })
}
