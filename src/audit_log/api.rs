//! The audit log's server function (owners only).
use crate::audit::model::{AuditCursor, AuditPage};
use crate::error::AppError;
use dioxus::prelude::*;

server_fn! {
    #[post("/api/audit")]
    /// One page of the organisation's audit log, newest first.
    pub async fn audit_log(before: Option<AuditCursor>) -> Result<AuditPage, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::audit_log::read::page(&state, &m, before).await
    }
}
