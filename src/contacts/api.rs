//! Server functions behind the contacts page.
use crate::contacts::model::{
    ContactCursor, ContactFilter, ContactInput, ContactPage, ContactView, ImportReport,
};
use crate::error::AppError;
use dioxus::prelude::*;
use uuid::Uuid;

server_fn! {
    #[post("/api/contacts/search")]
    /// The first page of contacts whose name, e-mail, tag or phone matches, with the exact total.
    pub async fn search_contacts(query: String) -> Result<ContactPage, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        let filter = ContactFilter {
            search: Some(query),
            ..Default::default()
        };
        crate::contacts::list::page(&state.db, m.organization_id, &filter, state.clock.now(), None)
            .await
    }
}

server_fn! {
    #[post("/api/contacts/list")]
    /// One page (name order) of the contacts a filter matches, after `after`, with the total.
    pub async fn list_contacts(
        filter: ContactFilter,
        after: Option<ContactCursor>,
    ) -> Result<ContactPage, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::contacts::list::page(&state.db, m.organization_id, &filter, state.clock.now(), after)
            .await
    }
}

server_fn! {
    #[post("/api/contacts/get")]
    pub async fn get_contact(id: Uuid) -> Result<ContactView, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::contacts::service::view(&state, m.organization_id, id).await
    }
}

server_fn! {
    #[post("/api/contacts/create")]
    pub async fn create_contact(input: ContactInput) -> Result<ContactView, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::contacts::service::create(&state, m.organization_id, &input).await
    }
}

server_fn! {
    #[post("/api/contacts/update")]
    pub async fn update_contact(id: Uuid, input: ContactInput) -> Result<ContactView, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::contacts::service::update(&state, m.organization_id, id, &input).await
    }
}

server_fn! {
    #[post("/api/contacts/opt_out")]
    pub async fn set_contact_opt_out(
        id: Uuid,
        opted_out: bool,
        reason: Option<String>,
    ) -> Result<ContactView, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::contacts::service::set_opted_out(&state, &m, id, opted_out, reason).await
    }
}

server_fn! {
    #[post("/api/contacts/import")]
    pub async fn import_contacts_csv(csv: String) -> Result<ImportReport, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::contacts::import::import_csv(&state, m.organization_id, &csv).await
    }
}

server_fn! {
    #[post("/api/segments")]
    /// The organisation's saved segments, in name order, with how many there are.
    pub async fn list_segments() -> Result<crate::contacts::model::SegmentList, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::contacts::segments::list(&state.db, m.organization_id).await
    }
}

server_fn! {
    #[post("/api/segments/save")]
    /// Saves a filter as a named segment.
    pub async fn save_segment(
        name: String,
        filter: ContactFilter,
    ) -> Result<crate::contacts::model::SegmentView, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::contacts::segments::save(&state, &m, &name, &filter).await
    }
}

server_fn! {
    #[post("/api/segments/delete")]
    pub async fn delete_segment(id: Uuid) -> Result<(), AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::contacts::segments::delete(&state, &m, id).await
    }
}
