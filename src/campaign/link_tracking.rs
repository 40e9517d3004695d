//! Whether a campaign's links go out as tracked short links (issue 30 §4): on by default, and
//! changed only while its drafts await review, under the same hold as a draft edit. The choice
//! is part of the review digest, so an approval covers the links its approver saw counted.
use crate::auth::session::Member;
use crate::campaign::entity::operation;
use crate::campaign::model::ReviewSheet;
use crate::campaign::review::{find_visible, sheet};
use crate::error::AppResult;
use crate::platform::AppState;
use sea_orm::sea_query::Expr;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use uuid::Uuid;

/// Turns the campaign's link shortening on or off; answers the sheet as it is now.
pub async fn set(
    state: &AppState,
    m: &Member,
    operation_id: Uuid,
    on: bool,
) -> AppResult<ReviewSheet> {
    find_visible(state, m, operation_id).await?;
    let txn = crate::platform::db::begin_write(&state.db).await?;
    crate::campaign::review_digest::hold_in_review(&txn, operation_id, state.clock.now()).await?;
    operation::Entity::update_many()
        .col_expr(operation::Column::TrackLinks, Expr::value(on))
        .filter(operation::Column::Id.eq(operation_id))
        .filter(operation::Column::OrganizationId.eq(m.organization_id))
        .exec(&txn)
        .await?;
    txn.commit().await?;
    tracing::info!(operation = %operation_id, on, by = %m.user_id, "campaign link tracking set");
    state.live.publish(
        m.organization_id,
        crate::messaging::model::LiveEvent::OperationUpdated { operation_id },
    );
    sheet(state, m, operation_id).await
}
