//! Pictures in campaigns (issue 28 §3). A campaign's pictures are the member's uploads attached
//! to it (`media_upload.operation_id`); every one of its texts carries them, as one MMS, through
//! the same ledger and gate as any text. They change only while the drafts await review, under
//! the same hold as a draft edit, and they are part of the review digest: an approval covers the
//! pictures its approver saw.
use crate::auth::session::Member;
use crate::campaign::model::{OperationStatus, ReviewSheet};
use crate::campaign::review::{find_visible, sheet};
use crate::error::{AppError, AppResult};
use crate::media::entity::upload;
use crate::media::model::{MAX_PER_TEXT, MAX_SEND_BYTES};
use crate::platform::AppState;
use sea_orm::sea_query::Expr;
use sea_orm::{ColumnTrait, Condition, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder};
use uuid::Uuid;

/// The campaign's pictures, in the order they were added.
pub async fn of<C: ConnectionTrait>(db: &C, operation_id: Uuid) -> AppResult<Vec<upload::Model>> {
    Ok(upload::Entity::find()
        .filter(upload::Column::OperationId.eq(operation_id))
        .order_by_asc(upload::Column::CreatedAt)
        .order_by_asc(upload::Column::Id)
        .all(db)
        .await?)
}

/// Makes `upload_ids` (the organisation's uploads, none taken by a text or another campaign)
/// the campaign's pictures; an empty list removes them. Answers the sheet as it is now.
pub async fn set(
    state: &AppState,
    m: &Member,
    operation_id: Uuid,
    upload_ids: &[Uuid],
) -> AppResult<ReviewSheet> {
    let op = find_visible(state, m, operation_id).await?;
    if op.status != OperationStatus::AwaitingApproval {
        return Err(AppError::Conflict(
            "Pictures can change only while the drafts await review.".into(),
        ));
    }
    let mut ids: Vec<Uuid> = Vec::new();
    for id in upload_ids {
        if !ids.contains(id) {
            ids.push(*id);
        }
    }
    if ids.len() > MAX_PER_TEXT {
        return Err(AppError::Validation(format!(
            "A text may carry at most {MAX_PER_TEXT} pictures."
        )));
    }
    let free = Condition::any()
        .add(upload::Column::OperationId.is_null())
        .add(upload::Column::OperationId.eq(operation_id));
    let found = upload::Entity::find()
        .filter(upload::Column::OrganizationId.eq(m.organization_id))
        .filter(upload::Column::Id.is_in(ids.iter().copied()))
        .filter(free.clone())
        .all(&state.db)
        .await?;
    if found.len() != ids.len() {
        return Err(AppError::not_found("Picture"));
    }
    let total: i64 = found.iter().map(|u| u.size_bytes).sum();
    if total as u64 > MAX_SEND_BYTES {
        return Err(AppError::validation(
            "The pictures come to more than 5 MB, the carriers' limit for one text.",
        ));
    }
    let now = state.clock.now();
    let txn = crate::platform::db::begin_write(&state.db).await?;
    crate::campaign::review_digest::hold_in_review(&txn, operation_id, now).await?;
    // Pictures taken off go back to being unsent uploads, which the hourly sweep removes.
    upload::Entity::update_many()
        .col_expr(upload::Column::OperationId, Expr::value(None::<Uuid>))
        .filter(upload::Column::OperationId.eq(operation_id))
        .filter(upload::Column::Id.is_not_in(ids.iter().copied()))
        .exec(&txn)
        .await?;
    // Re-stamped in the order given, so the texts carry them in that order.
    for (i, id) in ids.iter().enumerate() {
        let res = upload::Entity::update_many()
            .col_expr(upload::Column::OperationId, Expr::value(Some(operation_id)))
            .col_expr(
                upload::Column::CreatedAt,
                Expr::value(now + chrono::Duration::milliseconds(i as i64)),
            )
            .filter(upload::Column::Id.eq(*id))
            .filter(upload::Column::OrganizationId.eq(m.organization_id))
            .filter(free.clone())
            .exec(&txn)
            .await?;
        if res.rows_affected != 1 {
            // A text or another campaign took it meanwhile.
            return Err(AppError::not_found("Picture"));
        }
    }
    txn.commit().await?;
    tracing::info!(operation = %operation_id, pictures = ids.len(), "campaign pictures set");
    state.live.publish(
        m.organization_id,
        crate::messaging::model::LiveEvent::OperationUpdated { operation_id },
    );
    sheet(state, m, operation_id).await
}
