//! An inbox view's pages, read from the per-conversation rows the database keeps as texts arrive:
//! keyset pages, exact totals, and no scan of the message table at any size.
use crate::contacts::entity::contact;
use crate::contacts::opt_out;
use crate::error::AppResult;
use crate::inbox::views::{self, Viewer};
use crate::messaging::conversation::{assignee_names, triage};
use crate::messaging::entity::conversation;
use crate::messaging::model::{
    ConversationSummary, Direction, InboxCursor, InboxFilter, InboxPage,
};
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter};
use std::collections::HashMap;
use uuid::Uuid;

/// Conversations on one inbox page.
pub const INBOX_PAGE: u64 = 50;

/// One page of an inbox view, newest activity first, after `after`.
pub async fn inbox<C: ConnectionTrait>(
    db: &C,
    viewer: &Viewer,
    filter: InboxFilter,
    after: Option<InboxCursor>,
) -> AppResult<InboxPage> {
    let org_id = viewer.organization_id;
    let total = views::count(db, viewer, filter).await?;
    let q = conversation::Entity::find().filter(views::condition(viewer, filter));
    let order = (
        conversation::Column::LastAt,
        conversation::Column::ContactId,
    );
    let after = after.map(|c| (c.last_at, c.contact_id));
    let page = crate::platform::keyset::newest_first(db, q, order, after, INBOX_PAGE).await?;
    let next = page.next(|last| InboxCursor {
        last_at: last.last_at,
        contact_id: last.contact_id,
    });
    let rows = page.rows;
    let ids: Vec<Uuid> = rows.iter().map(|r| r.contact_id).collect();
    let people: HashMap<Uuid, contact::Model> = contact::Entity::find()
        .filter(contact::Column::OrganizationId.eq(org_id))
        .filter(contact::Column::Id.is_in(ids.clone()))
        .all(db)
        .await?
        .into_iter()
        .map(|c| (c.id, c))
        .collect();
    let outs = opt_out::sms_opt_outs(db, &ids).await?;
    // Collected first: a closure's iterator held across the await would keep the future from
    // being `Send` for every lifetime (which the public API's handlers need).
    let people_ids: Vec<Uuid> = rows
        .iter()
        .flat_map(|r| [r.assignee_id, r.ai_paused_by])
        .flatten()
        .collect();
    let names = assignee_names(db, org_id, people_ids.into_iter()).await?;
    let items = rows
        .into_iter()
        .filter_map(|r| {
            let c = people.get(&r.contact_id)?;
            let triage = triage(&r, &names, viewer.now);
            Some(ConversationSummary {
                contact_id: r.contact_id,
                contact_name: c.name.clone(),
                contact_phone: c.phone.clone(),
                last_body: r.last_body,
                last_direction: if r.last_direction == "inbound" {
                    Direction::Inbound
                } else {
                    Direction::Outbound
                },
                last_at: r.last_at,
                unread: r.unread_count.max(0) as u64,
                opted_out: outs.contains_key(&r.contact_id),
                last_media_count: r.last_media_count,
                triage,
            })
        })
        .collect();
    Ok(InboxPage { items, total, next })
}
