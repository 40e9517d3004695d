//! Server functions for the settings page's API keys: list, create and revoke (owners only).
use crate::api_keys::model::{ApiKeyCreated, ApiKeyCursor, ApiKeyPage, ApiKeyView};
use crate::error::AppError;
use dioxus::prelude::*;
use uuid::Uuid;

server_fn! {
    #[post("/api/api_keys")]
    /// One page of the organisation's keys, newest first, after `before`.
    pub async fn list_api_keys(before: Option<ApiKeyCursor>) -> Result<ApiKeyPage, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::api_keys::service::list(&state, &m, before).await
    }
}

server_fn! {
    #[post("/api/api_keys/create")]
    /// A new key with `name` and `scopes`, and a rate limit other than 10 requests a second
    /// with bursts of 50 if given; its secret is in the answer, and only there.
    pub async fn create_api_key(
        name: String,
        scopes: Vec<String>,
        rate_per_second: Option<u32>,
        burst: Option<u32>,
    ) -> Result<ApiKeyCreated, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        let rate = crate::api_keys::service::Rate::chosen(rate_per_second, burst)?;
        crate::api_keys::service::create(&state, &m, &name, &scopes, rate).await
    }
}

server_fn! {
    #[post("/api/api_keys/revoke")]
    /// Revokes a key: its next call answers 401.
    pub async fn revoke_api_key(id: Uuid) -> Result<ApiKeyView, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::api_keys::service::revoke(&state, &m, id).await
    }
}
