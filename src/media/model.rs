//! A text's media item as the conversation shows it.
use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// Statuses of a media item's copy.
pub mod status {
    /// Waiting for the copier (or for its next try).
    pub const PENDING: &str = "pending";
    pub const STORED: &str = "stored";
    /// Given up, with the reason in `error`.
    pub const FAILED: &str = "failed";
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MediaView {
    pub id: Uuid,
    pub content_type: String,
    pub status: String,
    /// Why the copy was given up (a failed item).
    pub error: Option<String>,
    /// A picture Herald made a thumbnail of (`/media/<id>/thumb`).
    pub has_thumb: bool,
}

impl MediaView {
    pub fn is_image(&self) -> bool {
        self.content_type.starts_with("image/")
    }
    /// The copy, for signed-in members of the organisation.
    pub fn url(&self) -> String {
        format!("/media/{}", self.id)
    }
    pub fn thumb_url(&self) -> String {
        format!("/media/{}/thumb", self.id)
    }
}

/// Pictures a person may send: what US carriers and Twilio take on an MMS.
pub const SENDABLE: [&str; 3] = ["image/jpeg", "image/png", "image/gif"];
/// Twilio's limit for a message's media, in bytes.
pub const MAX_SEND_BYTES: u64 = 5 * 1024 * 1024;
/// Pictures on one text, at most (Twilio takes ten).
pub const MAX_PER_TEXT: usize = 10;

/// A picture a member uploaded for a text, not sent yet.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct UploadView {
    pub id: Uuid,
    pub content_type: String,
    pub size_bytes: u64,
}
