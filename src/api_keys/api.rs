//! Server functions for the settings page's API keys: list, create and revoke (owners only); and
//! a person's own keys on their account page, which signing out everywhere may revoke too.
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

server_fn! {
    #[post("/api/auth/sessions/end_all")]
    /// Signs the caller out everywhere, this browser included; with `revoke_keys`, the API keys
    /// they made stop working too.
    pub async fn end_all_my_sessions(revoke_keys: Option<bool>) -> Result<u64, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        if revoke_keys == Some(true) {
            crate::api_keys::mine::revoke_all(&state, &m).await?;
        }
        crate::auth::account::end_everywhere(&state, &m).await
    }
}

server_fn! {
    #[get("/api/auth/api_keys")]
    /// The API keys in force that the caller made, in any organisation.
    pub async fn my_api_keys() -> Result<Vec<crate::auth::model::MyApiKey>, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::api_keys::mine::list(&state, &m).await
    }
}
