//! Contacts whose number cannot receive texts (issue 30 §1). A carrier's 30003, 30005, 30006 or
//! 21614 (`carrier_errors::CarrierAction::Unreachable`) marks the contact unreachable with the
//! reason in words; campaigns leave them out, saying so; the contact page shows it and any member
//! clears it (`POST /contacts/{id}/reachable`, from the page's button). A new number clears it
//! too (`service::update`).
// A handler's early exit is a whole response; boxing it would only move the size elsewhere.
#![allow(clippy::result_large_err)]
use crate::auth::session::Member;
use crate::contacts::entity::contact;
use crate::error::AppResult;
use crate::platform::carrier_errors::{action, explain, CarrierAction};
use crate::platform::events::{DomainEvent, Listener};
use crate::platform::AppState;
use crate::server_page::{error_page, Poster};
use axum::extract::{Path, State};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::post;
use axum::Router;
use sea_orm::sea_query::Expr;
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter};
use uuid::Uuid;

/// How a campaign's item skipped for this reads (its skip reason, grouped on the card).
pub const SKIP_REASON: &str = "can't receive texts (the carrier said so)";

/// Marks the contact unreachable for `reason` (the carrier's code in words), unless it already is.
pub async fn mark<C: ConnectionTrait>(
    db: &C,
    contact_id: Uuid,
    reason: &str,
    now: chrono::DateTime<chrono::Utc>,
) -> AppResult<bool> {
    let res = contact::Entity::update_many()
        .col_expr(
            contact::Column::UnreachableReason,
            Expr::value(Some(reason.to_owned())),
        )
        .col_expr(contact::Column::UnreachableAt, Expr::value(Some(now)))
        .filter(contact::Column::Id.eq(contact_id))
        .filter(contact::Column::UnreachableAt.is_null())
        .exec(db)
        .await?;
    Ok(res.rows_affected == 1)
}

/// Hears delivery statuses (`DomainEvent::MessageStatus`): a code that says the number cannot
/// receive texts marks the contact, so campaigns leave them out until someone clears it.
pub struct CarrierUnreachable;

#[async_trait::async_trait]
impl Listener for CarrierUnreachable {
    async fn on(&self, state: &AppState, event: &DomainEvent) -> AppResult<()> {
        let DomainEvent::MessageStatus {
            contact_id,
            error_code: Some(code),
            ..
        } = event
        else {
            return Ok(());
        };
        if action(code) == CarrierAction::Unreachable {
            mark(&state.db, *contact_id, &explain(code), state.clock.now()).await?;
        }
        Ok(())
    }
}

/// A person clears it: the contact is texted again, campaigns included.
pub async fn clear(state: &AppState, m: &Member, contact_id: Uuid) -> AppResult<()> {
    let c = crate::contacts::service::find_in_org(&state.db, m.organization_id, contact_id).await?;
    contact::Entity::update_many()
        .col_expr(
            contact::Column::UnreachableReason,
            Expr::value(None::<String>),
        )
        .col_expr(
            contact::Column::UnreachableAt,
            Expr::value(None::<chrono::DateTime<chrono::Utc>>),
        )
        .filter(contact::Column::Id.eq(c.id))
        .filter(contact::Column::OrganizationId.eq(m.organization_id))
        .exec(&state.db)
        .await?;
    tracing::info!(contact = %c.id, by = %m.user_id, "contact marked reachable again");
    Ok(())
}

pub fn routes(state: AppState) -> Router {
    Router::new()
        .route("/contacts/{id}/reachable", post(cleared))
        .with_state(state)
}

async fn cleared(
    State(state): State<AppState>,
    Poster(m): Poster,
    Path(id): Path<Uuid>,
) -> Response {
    match clear(&state, &m, id).await {
        Ok(()) => Redirect::to(&format!("/contacts/{id}")).into_response(),
        Err(e) => error_page(&state, "A contact", ("/contacts", "Contacts"), &e),
    }
}
