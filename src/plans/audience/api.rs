//! Server functions for a plan's audience: its members a page at a time, searched.
use crate::contacts::model::ContactCursor;
use crate::error::AppError;
use crate::plans::audience::model::AudiencePage;
use dioxus::prelude::*;
use uuid::Uuid;

server_fn! {
    #[post("/api/plans/audience")]
    /// One page (name order) of a plan's resolved audience, those matching `search` if given,
    /// with the exact number matching.
    pub async fn plan_audience(
        plan_id: Uuid,
        search: Option<String>,
        after: Option<ContactCursor>,
    ) -> Result<AudiencePage, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        let p = crate::plans::access::find_visible(&state, &m, plan_id).await?;
        let resolve = crate::plans::audience::resolve::generation(&state.db, p.id).await?;
        let Some(gen) = resolve else {
            return Ok(AudiencePage::default());
        };
        crate::plans::audience::resolve::page(
            &state.db,
            p.organization_id,
            p.id,
            gen,
            search,
            after,
            state.clock.now(),
        )
        .await
    }
}
