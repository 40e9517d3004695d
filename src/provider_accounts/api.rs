//! Server functions for the organisation's provider account (owners connect; everyone sees
//! whether one is connected, never its secrets).
use crate::error::AppError;
use crate::provider_accounts::model::{ProviderSettings, TwilioAccountInput};
use dioxus::prelude::*;

server_fn! {
    #[get("/api/provider")]
    pub async fn provider_settings() -> Result<ProviderSettings, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::provider_accounts::service::settings(&state, &m).await
    }
}

server_fn! {
    #[post("/api/provider/twilio")]
    /// Connects or replaces the organisation's Twilio account (owners only).
    pub async fn connect_twilio(input: TwilioAccountInput) -> Result<ProviderSettings, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::provider_accounts::service::connect(&state, &m, &input).await
    }
}
