//! Server functions for saved replies: list (by the start of a name, paged), save, delete, and
//! fill one in for a contact. All scoped to the caller's organisation.
use crate::error::AppError;
use crate::saved_replies::model::{SavedReplyInput, SavedReplyPage, SavedReplyView};
use dioxus::prelude::*;
use uuid::Uuid;

server_fn! {
    #[post("/api/saved_replies")]
    /// The saved replies whose name starts with `query` (any case), in name order, after `after`.
    pub async fn list_saved_replies(
        query: String,
        after: Option<String>,
    ) -> Result<SavedReplyPage, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::saved_replies::service::list(&state.db, m.organization_id, &query, after).await
    }
}

server_fn! {
    #[post("/api/saved_replies/save")]
    /// Adds a saved reply, or changes the one with `id`.
    pub async fn save_saved_reply(
        id: Option<Uuid>,
        input: SavedReplyInput,
    ) -> Result<SavedReplyView, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::saved_replies::service::save(&state, &m, id, &input).await
    }
}

server_fn! {
    #[post("/api/saved_replies/delete")]
    pub async fn delete_saved_reply(id: Uuid) -> Result<(), AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::saved_replies::service::delete(&state, &m, id).await
    }
}

server_fn! {
    #[post("/api/saved_replies/fill")]
    /// The saved reply's text for this contact, from the caller: every merge field filled or
    /// its fallback; a field nothing fills is refused by name.
    pub async fn fill_saved_reply(id: Uuid, contact_id: Uuid) -> Result<String, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::saved_replies::service::fill(&state, &m, id, contact_id).await
    }
}
