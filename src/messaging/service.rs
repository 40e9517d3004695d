//! Reading messages and conversations, scoped to one organisation.
use crate::contacts::service as contacts;
use crate::error::AppResult;
use crate::media::model::MediaView;
use crate::messaging::conversation;
use crate::messaging::entity as message;
use crate::messaging::model::{Direction, MessagePage, MessageView};
use crate::phone_numbers::service as numbers;
use crate::platform::AppState;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QueryOrder};
use uuid::Uuid;

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
        seq: m.seq,
        media: vec![],
        sources: m
            .cites
            .and_then(|c| serde_json::from_value(c).ok())
            .unwrap_or_default(),
    }
}

/// The texts with their media copies, read in one query for the page.
pub async fn with_media(
    state: &AppState,
    org_id: Uuid,
    rows: Vec<message::Model>,
) -> AppResult<Vec<MessageView>> {
    let ids: Vec<Uuid> = rows
        .iter()
        .filter(|m| m.media_count > 0)
        .map(|m| m.id)
        .collect();
    let mut media = crate::media::copier::for_messages(&state.db, org_id, &ids).await?;
    let mut views: Vec<MessageView> = rows.into_iter().map(to_view).collect();
    for v in views.iter_mut().filter(|v| v.media_count > 0) {
        let (mine, rest): (Vec<_>, Vec<_>) = media.into_iter().partition(|x| x.message_id == v.id);
        media = rest;
        v.media = mine
            .into_iter()
            .map(|x| MediaView {
                id: x.id,
                has_thumb: x.thumb_key.is_some(),
                content_type: x.content_type,
                status: x.status,
                error: x.error,
            })
            .collect();
    }
    Ok(views)
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

/// The page of a conversation before `before` (a message's `seq`), oldest first.
pub async fn older_messages(
    state: &AppState,
    org_id: Uuid,
    contact_id: Uuid,
    before: i64,
) -> AppResult<MessagePage> {
    contacts::view(state, org_id, contact_id).await?;
    let (rows, older) = conversation::history(&state.db, org_id, contact_id, Some(before)).await?;
    Ok(MessagePage {
        messages: with_media(state, org_id, rows).await?,
        older,
    })
}
