//! The server function behind the navigation's counts.
use crate::attention::model::Attention;
use crate::error::AppError;
use dioxus::prelude::*;

server_fn! {
    #[get("/api/attention")]
    pub async fn attention() -> Result<Attention, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::attention::service::counts(&state, &m).await
    }
}
