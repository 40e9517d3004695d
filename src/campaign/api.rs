//! Server functions behind the operation card, the Operations page and the draft review sheet.
use crate::campaign::model::{
    AudienceSummary, OperationView, OperationsPage, ReviewSheet, SampleText, WrittenAudience,
    WrittenCampaign,
};
use crate::error::AppError;
use dioxus::prelude::*;
use uuid::Uuid;

server_fn! {
    #[post("/api/operations")]
    /// A page of operations, newest first: those older than `before` (None: the newest).
    pub async fn list_operations(before: Option<Uuid>) -> Result<OperationsPage, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::campaign::review::list(&state, &m, before).await
    }
}

server_fn! {
    #[post("/api/operations/get")]
    pub async fn get_operation(id: Uuid) -> Result<OperationView, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        let op = crate::campaign::review::find_visible(&state, &m, id).await?;
        crate::campaign::review::view(&state, op).await
    }
}

server_fn! {
    #[post("/api/operations/sheet")]
    /// The sheet with the page of drafts after position `after` (None: the first page).
    pub async fn get_review_sheet(id: Uuid, after: Option<i32>) -> Result<ReviewSheet, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::campaign::review::sheet_page(&state, &m, id, after).await
    }
}

server_fn! {
    #[post("/api/operations/items/edit")]
    pub async fn edit_draft(item_id: Uuid, text: String) -> Result<ReviewSheet, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::campaign::review::edit_draft(&state, &m, item_id, &text).await
    }
}

server_fn! {
    #[post("/api/operations/items/skip")]
    pub async fn skip_draft(item_id: Uuid) -> Result<ReviewSheet, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::campaign::review::skip_item(&state, &m, item_id).await
    }
}

server_fn! {
    #[post("/api/operations/items/regenerate")]
    pub async fn regenerate_draft(item_id: Uuid) -> Result<ReviewSheet, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::campaign::review::regenerate_item(&state, &m, item_id).await
    }
}

server_fn! {
    #[post("/api/operations/approve")]
    /// Approves the drafts whose digest the approver's sheet showed.
    pub async fn approve_operation(id: Uuid, digest: String) -> Result<ReviewSheet, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::campaign::review::approve_all(&state, &m, id, &digest).await
    }
}

server_fn! {
    #[post("/api/operations/cancel")]
    pub async fn cancel_operation(id: Uuid) -> Result<ReviewSheet, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::campaign::review::cancel(&state, &m, id).await
    }
}

server_fn! {
    #[post("/api/operations/items/resolve")]
    /// A person's decision on a campaign text in doubt.
    pub async fn resolve_item(
        item_id: Uuid,
        resolution: crate::messaging::model::Resolution,
    ) -> Result<ReviewSheet, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::campaign::review::resolve_item(&state, &m, item_id, resolution).await
    }
}

server_fn! {
    #[post("/api/operations/pictures")]
    /// Sets the pictures every text of a campaign in review carries (none: plain texts).
    pub async fn set_operation_pictures(
        id: Uuid,
        upload_ids: Vec<Uuid>,
    ) -> Result<ReviewSheet, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::campaign::pictures::set(&state, &m, id, &upload_ids).await
    }
}

server_fn! {
    #[post("/api/operations/track_links")]
    /// Turns a campaign's tracked short links on or off while its drafts await review.
    pub async fn set_operation_track_links(id: Uuid, on: bool) -> Result<ReviewSheet, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::campaign::link_tracking::set(&state, &m, id, on).await
    }
}

server_fn! {
    #[post("/api/operations/resume")]
    /// Resumes a campaign its stopped plan paused (an owner): it goes back to what it was doing.
    pub async fn resume_operation(id: Uuid) -> Result<OperationView, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::campaign::resume::resume(&state, &m, id).await
    }
}

server_fn! {
    #[post("/api/campaigns/audience")]
    /// Who a person's campaign would reach, exactly, who it leaves out and why, and the
    /// campaigns within a day of `send_at_local` (at the business; None: now) that text some
    /// of the same contacts.
    pub async fn written_audience(
        audience: WrittenAudience,
        send_at_local: Option<chrono::NaiveDateTime>,
    ) -> Result<AudienceSummary, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::campaign::written::summary(&state, &m, &audience, send_at_local).await
    }
}

server_fn! {
    #[post("/api/campaigns/preview")]
    /// The first texts as they will go, filled in for the first contacts reached.
    pub async fn written_preview(
        audience: WrittenAudience,
        body: String,
    ) -> Result<Vec<SampleText>, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::campaign::written::samples(&state, &m, &audience, &body).await
    }
}

server_fn! {
    #[post("/api/campaigns/create")]
    /// Creates a person's campaign, its texts filled in and awaiting review; answers its id
    /// (the review sheet is `/operations/{id}`).
    pub async fn create_written_campaign(campaign: WrittenCampaign) -> Result<Uuid, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::campaign::written::create(&state, &m, &campaign).await
    }
}
