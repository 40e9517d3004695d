//! Server functions behind the contact's page: its whole record, and merging a duplicate into it.
use crate::contacts::profile_model::{ContactProfile, MergeReport};
use crate::error::AppError;
use dioxus::prelude::*;
use uuid::Uuid;

server_fn! {
    #[post("/api/contacts/profile")]
    /// The contact page: the contact (or the one a merged id went into), their conversation, the
    /// numbers that texted them, and the campaigns and plans that included them.
    pub async fn contact_profile(id: Uuid) -> Result<ContactProfile, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::records::profile::profile(&state, &m, id).await
    }
}

server_fn! {
    #[post("/api/contacts/merge")]
    /// Owner only: merges `duplicate` into `keep`; `apply` false previews what would move.
    pub async fn merge_contacts(
        keep: Uuid,
        duplicate: Uuid,
        apply: bool,
    ) -> Result<MergeReport, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::records::merge::merge(&state, &m, keep, duplicate, apply).await
    }
}
