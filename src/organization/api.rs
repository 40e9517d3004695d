//! Server functions for the organisation settings page.
use crate::error::AppError;
use crate::organization::model::OrgSettings;
use dioxus::prelude::*;

server_fn! {
    #[get("/api/organization")]
    /// The caller's organisation's settings; any member may read them.
    pub async fn org_settings() -> Result<OrgSettings, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::organization::service::get(&state, &m).await
    }
}

server_fn! {
    #[post("/api/organization/update")]
    /// Changes the organisation's settings; only the owner may.
    pub async fn update_org_settings(settings: OrgSettings) -> Result<OrgSettings, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::organization::service::update(&state, &m, &settings).await
    }
}

server_fn! {
    #[get("/api/time_zones")]
    /// The time zones an organisation may be in, for the settings' list: the IANA database's
    /// places ("America/Los_Angeles") and UTC, sorted.
    pub async fn time_zones() -> Result<Vec<String>, AppError> {
        crate::auth::session::require_member().await?;
        Ok(crate::organization::service::time_zones())
    }
}
