//! The plan's webhook events, written to the outbox (`webhooks::emit`) in the transaction that
//! changes the plan.
use crate::error::AppResult;
use crate::plans::entity::plan;
use chrono::{DateTime, Utc};
use sea_orm::ConnectionTrait;
use serde_json::json;

/// A plan's event (`plan.awaiting_approval`, `plan.finished`) with the status it came to,
/// written in the transaction that changes the plan's status: both commit or neither does.
pub async fn plan_event<C: ConnectionTrait>(
    db: &C,
    p: &plan::Model,
    event: &str,
    status: &str,
    error: Option<&str>,
    now: DateTime<Utc>,
) -> AppResult<usize> {
    let data = json!({"plan_id": p.id, "agent_id": p.agent_id, "title": p.title,
        "status": status, "error": error});
    crate::webhooks::emit::emit(db, p.organization_id, event, data, now).await
}
