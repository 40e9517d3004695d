//! Server functions behind the Notifications page.
use crate::error::AppError;
use crate::notifications::model::{NotificationCursor, NotificationPage};
use dioxus::prelude::*;
use uuid::Uuid;

server_fn! {
    #[post("/api/notifications")]
    /// One page of the member's notifications, newest first, with how many there are.
    pub async fn list_notifications(
        after: Option<NotificationCursor>,
    ) -> Result<NotificationPage, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::notifications::service::list(&state, &m, after).await
    }
}

server_fn! {
    #[post("/api/notifications/read")]
    pub async fn mark_notification_read(id: Uuid) -> Result<(), AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::notifications::service::mark_read(&state, &m, id).await
    }
}
