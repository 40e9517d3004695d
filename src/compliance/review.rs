//! Possible opt-outs: a text the detector found ambiguous pauses every automated text to that
//! number (the gate refuses them) until a person confirms it (the number is suppressed, with one
//! confirmation if the text is under 5 minutes old) or dismisses it (the text goes on to its agent
//! as if it had just arrived). Both are recorded with who decided and when.
use crate::auth::session::Member;
use crate::compliance::entity::{opt_out_review, review_status};
use crate::compliance::gate::{CONFIRMATION_ORIGIN, CONFIRMATION_WITHIN};
use crate::compliance::model::{OptOutReviewPage, OptOutReviewView};
use crate::contacts::entity::contact;
use crate::contacts::opt_out::{self, Because, OptOutSource};
use crate::error::{AppError, AppResult};
use crate::live_event::LiveEvent;
use crate::messaging::entity as message;
use crate::platform::AppState;
use sea_orm::sea_query::Expr;
use sea_orm::{ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter, QueryOrder, QuerySelect};
use std::collections::HashMap;
use uuid::Uuid;

/// Items on one page of the list.
pub const PAGE: u64 = 50;

async fn views(
    state: &AppState,
    rows: Vec<opt_out_review::Model>,
) -> AppResult<Vec<OptOutReviewView>> {
    let ids: Vec<Uuid> = rows.iter().map(|r| r.contact_id).collect();
    let names: HashMap<Uuid, String> = contact::Entity::find()
        .select_only()
        .column(contact::Column::Id)
        .column(contact::Column::Name)
        .filter(contact::Column::Id.is_in(ids))
        .into_tuple()
        .all(&state.db)
        .await?
        .into_iter()
        .collect();
    Ok(rows
        .into_iter()
        .map(|r| OptOutReviewView {
            id: r.id,
            contact_id: r.contact_id,
            contact_name: names
                .get(&r.contact_id)
                .cloned()
                .unwrap_or_else(|| r.phone.clone()),
            phone: r.phone,
            body: r.body,
            matched: r.matched,
            created_at: r.created_at,
        })
        .collect())
}

fn open_in(org: Uuid) -> sea_orm::Select<opt_out_review::Entity> {
    opt_out_review::Entity::find()
        .filter(opt_out_review::Column::OrganizationId.eq(org))
        .filter(opt_out_review::Column::Status.eq(review_status::OPEN))
}

/// The organisation's open items, oldest first, a page at a time, with the exact total.
pub async fn list_open(state: &AppState, m: &Member, page: u64) -> AppResult<OptOutReviewPage> {
    let total = open_in(m.organization_id).count(&state.db).await?;
    let rows = open_in(m.organization_id)
        .order_by_asc(opt_out_review::Column::CreatedAt)
        .order_by_asc(opt_out_review::Column::Id)
        .offset(page * PAGE)
        .limit(PAGE)
        .all(&state.db)
        .await?;
    Ok(OptOutReviewPage {
        items: views(state, rows).await?,
        total,
    })
}

/// How many wait, for the navigation's counts.
pub async fn open_count(state: &AppState, org: Uuid) -> AppResult<u64> {
    Ok(open_in(org).count(&state.db).await?)
}

/// The open item for one contact, for the conversation page.
pub async fn open_for_contact(
    state: &AppState,
    org: Uuid,
    contact_id: Uuid,
) -> AppResult<Option<OptOutReviewView>> {
    let rows = open_in(org)
        .filter(opt_out_review::Column::ContactId.eq(contact_id))
        .order_by_asc(opt_out_review::Column::CreatedAt)
        .limit(1)
        .all(&state.db)
        .await?;
    Ok(views(state, rows).await?.into_iter().next())
}

/// Confirms (`opt_out`) or dismisses an open item of the member's organisation.
#[tracing::instrument(skip(state, m), fields(org = %m.organization_id))]
pub async fn decide(state: &AppState, m: &Member, id: Uuid, confirm: bool) -> AppResult<()> {
    let org = m.organization_id;
    let item = opt_out_review::Entity::find_by_id(id)
        .filter(opt_out_review::Column::OrganizationId.eq(org))
        .one(&state.db)
        .await?
        .ok_or_else(|| AppError::not_found("Possible opt-out"))?;
    let now = state.clock.now();
    let txn = crate::platform::db::begin_write(&state.db).await?;
    let decided = opt_out_review::Entity::update_many()
        .col_expr(
            opt_out_review::Column::Status,
            Expr::value(if confirm {
                review_status::CONFIRMED
            } else {
                review_status::DISMISSED
            }),
        )
        .col_expr(
            opt_out_review::Column::DecidedBy,
            Expr::value(Some(m.user_id)),
        )
        .col_expr(opt_out_review::Column::DecidedAt, Expr::value(Some(now)))
        .filter(opt_out_review::Column::Id.eq(id))
        .filter(opt_out_review::Column::Status.eq(review_status::OPEN))
        .exec(&txn)
        .await?;
    if decided.rows_affected == 0 {
        return Err(AppError::Conflict(
            "Someone has already decided this possible opt-out.".into(),
        ));
    }
    let msg = message::Entity::find_by_id(item.message_id)
        .one(&txn)
        .await?
        .ok_or_else(|| AppError::not_found("Message"))?;
    let mut queued = None;
    if confirm {
        let why = Because {
            actor_user_id: Some(m.user_id),
            reason: Some(format!("confirmed a possible opt-out: \"{}\"", item.body)),
            message_id: Some(item.message_id),
        };
        let fresh =
            opt_out::suppress(&txn, org, &item.phone, OptOutSource::Reviewed, &why, now).await?;
        // The one confirmation, only while the person's text is under 5 minutes old.
        if fresh && now - msg.created_at <= CONFIRMATION_WITHIN {
            let w = crate::compliance::wording::load(&txn, org).await?;
            queued = crate::compliance::inbound::queue(
                &txn,
                &msg,
                "confirm",
                w.opt_out_reply,
                CONFIRMATION_ORIGIN,
                &item.phone,
                now,
            )
            .await?;
        }
    } else {
        // Not an opt-out: the text goes to its agent now, as a plain text.
        message::Entity::update_many()
            .col_expr(
                message::Column::Keyword,
                Expr::value(Option::<String>::None),
            )
            .col_expr(
                message::Column::RoutedAt,
                Expr::value(Option::<chrono::DateTime<chrono::Utc>>::None),
            )
            .filter(message::Column::Id.eq(item.message_id))
            .exec(&txn)
            .await?;
    }
    txn.commit().await?;
    tracing::info!(confirm, review = %id, "possible opt-out decided");
    if let Some(id) = queued {
        crate::messaging::ledger::deliver(state, id).await?;
    }
    if !confirm {
        state.inbound().route(state, item.message_id).await;
    }
    state.live.publish(
        org,
        LiveEvent::ContactChanged {
            contact_id: item.contact_id,
        },
    );
    Ok(())
}
