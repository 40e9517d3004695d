//! Saved-reply types shared by the composer, the Settings page and the server.
use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// Saved replies one page of the picker or the Settings list shows.
pub const SAVED_REPLY_PAGE: u64 = 20;
pub const SAVED_REPLY_NAME_MAX: usize = 80;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SavedReplyView {
    pub id: Uuid,
    pub name: String,
    pub body: String,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SavedReplyInput {
    pub name: String,
    pub body: String,
}

/// One page of saved replies in name order, how many match, and where the next page starts
/// (the last name shown, in lower case).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SavedReplyPage {
    pub items: Vec<SavedReplyView>,
    pub total: u64,
    pub next: Option<String>,
}
