//! Server functions behind the Notifications page.
use crate::error::AppError;
use crate::notifications::model::NotificationView;
use dioxus::prelude::*;
use uuid::Uuid;

server_fn! {
    #[get("/api/notifications")]
    pub async fn list_notifications() -> Result<Vec<NotificationView>, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::notifications::service::list(&state, &m).await
    }
}

server_fn! {
    #[post("/api/notifications/read")]
    pub async fn mark_notification_read(id: Uuid) -> Result<(), AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::notifications::service::mark_read(&state, &m, id).await
    }
}
