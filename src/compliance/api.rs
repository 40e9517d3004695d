//! Server functions behind the possible opt-outs: the list and a person's decision.
use crate::compliance::model::OptOutReviewPage;
use crate::error::AppError;
use dioxus::prelude::*;
use uuid::Uuid;

server_fn! {
    #[post("/api/compliance/possible_opt_outs")]
    pub async fn list_possible_opt_outs(page: u64) -> Result<OptOutReviewPage, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::compliance::review::list_open(&state, &m, page).await
    }
}

server_fn! {
    #[post("/api/compliance/possible_opt_outs/decide")]
    pub async fn decide_possible_opt_out(id: Uuid, opt_out: bool) -> Result<(), AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::compliance::review::decide(&state, &m, id, opt_out).await
    }
}

server_fn! {
    #[get("/api/compliance/settings")]
    /// The texting-law settings and their defaults; any member may read them.
    pub async fn compliance_settings() -> Result<crate::compliance::model::ComplianceSettingsView, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::compliance::wording::settings(&state, m.organization_id).await
    }
}

server_fn! {
    #[post("/api/compliance/settings/update")]
    /// Changes them; owners only.
    pub async fn update_compliance_settings(
        settings: crate::compliance::model::ComplianceSettings,
    ) -> Result<crate::compliance::model::ComplianceSettingsView, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::compliance::wording::update(&state, &m, &settings).await
    }
}
