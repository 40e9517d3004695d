//! The contact page's read (issue 28 §5): the contact, their conversation, the numbers that texted
//! them, and the campaigns and plans that included them. Every read is by the contact's own
//! indexes, so its cost does not grow with the organisation.
use crate::auth::session::Member;
use crate::campaign::entity::{item, operation};
use crate::contacts::profile_model::{
    ContactProfile, ConversationSummary, NumberUse, Touch, TouchKind, TOUCHES_SHOWN,
};
use crate::error::AppResult;
use crate::links::entity as tracked_link;
use crate::messaging::entity as message;
use crate::messaging::entity::conversation;
use crate::phone_numbers::entity as phone_number;
use crate::plans::entity::plan;
use crate::platform::AppState;
use sea_orm::sea_query::{Alias, Expr, ExprTrait, Query};
use sea_orm::{
    ColumnTrait, ConnectionTrait, EntityTrait, FromQueryResult, PaginatorTrait, QueryFilter,
    QueryOrder, QuerySelect,
};
use std::collections::HashMap;
use uuid::Uuid;

pub use crate::contacts::merge_record::resolve;

/// The contact's page, as this member may see it: other members' private Assistants' plans and
/// campaigns are left out of its history.
pub async fn profile(state: &AppState, m: &Member, id: Uuid) -> AppResult<ContactProfile> {
    let org = m.organization_id;
    let id = resolve(&state.db, org, id).await?;
    let contact = crate::contacts::service::view(state, org, id).await?;
    let conversation = summary(&state.db, org, id).await?;
    let numbers = numbers(&state.db, org, id).await?;
    let (touches, touches_total) = touches(&state.db, m, id).await?;
    let merged = crate::records::merge::merged_count(&state.db, org, id).await?;
    let clicks = crate::links::service::contact_clicks(&state.db, id, None).await?;
    Ok(ContactProfile {
        link_clicks: std::cmp::max(clicks.clicks, 0) as u64,
        last_click_at: clicks.last_at,
        contact,
        conversation,
        numbers,
        touches,
        touches_total,
        merged,
    })
}

async fn summary<C: ConnectionTrait>(
    db: &C,
    org: Uuid,
    id: Uuid,
) -> AppResult<Option<ConversationSummary>> {
    let Some(c) = conversation::Entity::find_by_id(id)
        .filter(conversation::Column::OrganizationId.eq(org))
        .one(db)
        .await?
    else {
        return Ok(None);
    };
    let names =
        crate::messaging::conversation::assignee_names(db, org, c.assignee_id.into_iter()).await?;
    Ok(Some(ConversationSummary {
        state: c.state.as_str().to_owned(),
        assignee: c.assignee_id.and_then(|a| names.get(&a).cloned()),
        message_count: c.message_count,
        unread_count: c.unread_count,
        last_at: c.last_at,
        last_body: c.last_body,
    }))
}

#[derive(FromQueryResult)]
struct NumberRow {
    phone_number_id: Uuid,
    texts: i64,
    last_at: chrono::DateTime<chrono::Utc>,
}

/// The contact's texts grouped by business number: one contact's messages, by `(contact_id, seq)`.
async fn numbers<C: ConnectionTrait>(db: &C, org: Uuid, id: Uuid) -> AppResult<Vec<NumberUse>> {
    let rows = NumberRow::find_by_statement(
        db.get_database_backend().build(
            Query::select()
                .column(message::Column::PhoneNumberId)
                .expr_as(Expr::col(message::Column::Id).count(), Alias::new("texts"))
                .expr_as(
                    Expr::col(message::Column::CreatedAt).max(),
                    Alias::new("last_at"),
                )
                .from(message::Entity)
                .and_where(message::Column::OrganizationId.eq(org))
                .and_where(message::Column::ContactId.eq(id))
                .group_by_col(message::Column::PhoneNumberId),
        ),
    )
    .all(db)
    .await?;
    let names: HashMap<Uuid, phone_number::Model> = phone_number::Entity::find()
        .filter(phone_number::Column::OrganizationId.eq(org))
        .filter(phone_number::Column::Id.is_in(rows.iter().map(|r| r.phone_number_id)))
        .all(db)
        .await?
        .into_iter()
        .map(|p| (p.id, p))
        .collect();
    let mut out: Vec<NumberUse> = rows
        .into_iter()
        .map(|r| {
            let p = names.get(&r.phone_number_id);
            NumberUse {
                number: p.map(|p| p.number.to_string()).unwrap_or_default(),
                friendly_name: p.map(|p| p.friendly_name.clone()).unwrap_or_default(),
                texts: r.texts as u64,
                last_at: r.last_at,
            }
        })
        .collect();
    out.sort_by_key(|n| std::cmp::Reverse(n.last_at));
    Ok(out)
}

/// Campaign items for the contact, and plans whose audience held them without a campaign item for
/// them: the newest `TOUCHES_SHOWN` of both, and the exact count of both.
async fn touches<C: ConnectionTrait>(db: &C, m: &Member, id: Uuid) -> AppResult<(Vec<Touch>, u64)> {
    let org = m.organization_id;
    let seen_ops = Query::select()
        .column(operation::Column::Id)
        .from(operation::Entity)
        .cond_where(crate::campaign::review::visible_to(m))
        .to_owned();
    let items = item::Entity::find()
        .filter(item::Column::OrganizationId.eq(org))
        .filter(item::Column::ContactId.eq(id))
        .filter(item::Column::OperationId.in_subquery(seen_ops));
    let item_total = items.clone().count(db).await?;
    let items = items
        .order_by_desc(item::Column::CreatedAt)
        .limit(TOUCHES_SHOWN as u64)
        .all(db)
        .await?;
    let ops: HashMap<Uuid, operation::Model> = operation::Entity::find()
        .filter(operation::Column::OrganizationId.eq(org))
        .filter(operation::Column::Id.is_in(items.iter().map(|i| i.operation_id)))
        .all(db)
        .await?
        .into_iter()
        .map(|o| (o.id, o))
        .collect();
    let in_audience = Query::select()
        .distinct()
        .column(Alias::new("plan_id"))
        .from(Alias::new("plan_audience"))
        .and_where(Expr::col(Alias::new("contact_id")).eq(id))
        .to_owned();
    let ran_for_them = Query::select()
        .column((operation::Entity, operation::Column::PlanId))
        .from(operation::Entity)
        .inner_join(
            item::Entity,
            Expr::col((item::Entity, item::Column::OperationId))
                .equals((operation::Entity, operation::Column::Id)),
        )
        .and_where(Expr::col((item::Entity, item::Column::ContactId)).eq(id))
        .and_where(Expr::col((operation::Entity, operation::Column::PlanId)).is_not_null())
        .to_owned();
    let plans = plan::Entity::find()
        .filter(crate::plans::access::visible_to(m))
        .filter(plan::Column::Id.in_subquery(in_audience))
        .filter(plan::Column::Id.not_in_subquery(ran_for_them));
    let plan_total = plans.clone().count(db).await?;
    let plans = plans
        .order_by_desc(plan::Column::CreatedAt)
        .limit(TOUCHES_SHOWN as u64)
        .all(db)
        .await?;
    // Their clicks on each of these campaigns' links.
    let clicked: HashMap<Uuid, i64> = tracked_link::Entity::find()
        .select_only()
        .column(tracked_link::Column::OperationId)
        .column_as(tracked_link::Column::Clicks.sum(), "n")
        .filter(tracked_link::Column::ContactId.eq(id))
        .filter(tracked_link::Column::Clicks.gt(0))
        .filter(tracked_link::Column::OperationId.is_in(ops.keys().copied()))
        .group_by(tracked_link::Column::OperationId)
        .into_tuple::<(Option<Uuid>, Option<i64>)>()
        .all(db)
        .await?
        .into_iter()
        .filter_map(|(op, n)| Some((op?, n.unwrap_or(0))))
        .collect();
    let mut out: Vec<Touch> = items
        .into_iter()
        .filter_map(|i| {
            let o = ops.get(&i.operation_id)?;
            let clicks = match clicked.get(&o.id) {
                Some(1) => " · clicked once".to_owned(),
                Some(n) => format!(" · clicked {n} times"),
                None => String::new(),
            };
            Some(Touch {
                kind: TouchKind::Campaign,
                id: o.id,
                title: first_line(&o.message_concept),
                status: o.status.as_str().to_owned(),
                outcome: Some(match i.skip_reason {
                    Some(why) if !why.is_empty() => format!("{}: {why}{clicks}", i.status),
                    _ => format!("{}{clicks}", i.status),
                }),
                at: i.created_at,
            })
        })
        .chain(plans.into_iter().map(|p| Touch {
            kind: TouchKind::Plan,
            id: p.id,
            title: p.title,
            status: p.status.as_str().to_owned(),
            outcome: None,
            at: p.created_at,
        }))
        .collect();
    out.sort_by_key(|t| std::cmp::Reverse(t.at));
    out.truncate(TOUCHES_SHOWN);
    Ok((out, item_total + plan_total))
}

fn first_line(s: &str) -> String {
    let line = s.lines().next().unwrap_or_default();
    match line.char_indices().nth(80) {
        Some((i, _)) => format!("{}…", &line[..i]),
        None => line.to_owned(),
    }
}
