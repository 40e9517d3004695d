//! The notification as the Notifications page shows it.
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NotificationView {
    pub id: Uuid,
    pub kind: String,
    pub title: String,
    pub body: String,
    pub link: Option<String>,
    pub read: bool,
    pub created_at: DateTime<Utc>,
}

/// Where the next page of notifications starts: after this one, newest first.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NotificationCursor {
    pub created_at: DateTime<Utc>,
    pub id: Uuid,
}

/// One page of a member's notifications, newest first, with how many there are.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct NotificationPage {
    pub items: Vec<NotificationView>,
    pub total: u64,
    pub next: Option<NotificationCursor>,
}
