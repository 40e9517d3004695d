//! The campaign's webhook event, written to the outbox (`webhooks::emit`) in the transaction that
//! ends it.
use crate::campaign::entity::operation;
use crate::error::AppResult;
use chrono::{DateTime, Utc};
use sea_orm::{ConnectionTrait, EntityTrait};
use serde_json::json;
use uuid::Uuid;

/// A campaign's end (`campaign.finished`: done, cancelled or failed) with its figures, written in
/// the transaction that ends it.
pub async fn campaign_finished<C: ConnectionTrait>(
    db: &C,
    op_id: Uuid,
    now: DateTime<Utc>,
) -> AppResult<usize> {
    let Some(op) = operation::Entity::find_by_id(op_id).one(db).await? else {
        return Ok(0);
    };
    let data = json!({"campaign_id": op.id, "status": op.status, "plan_id": op.plan_id,
        "total": op.total, "sent": op.sent, "failed": op.failed, "skipped": op.skipped,
        "error": op.error});
    crate::webhooks::emit::emit(db, op.organization_id, "campaign.finished", data, now).await
}
