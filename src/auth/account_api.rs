//! Server functions for a person's own account: their password, reset links and sessions.
use crate::auth::model::{EmailPreference, SessionView};
use crate::error::AppError;
use dioxus::prelude::*;
use uuid::Uuid;

server_fn! {
    #[post("/api/auth/password")]
    /// Changes the caller's password; answers how many other sessions were ended.
    pub async fn change_password(current: String, new: String) -> Result<u64, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::auth::account::change_password(&state, &m, &current, &new).await
    }
}

server_fn! {
    #[post("/api/auth/reset")]
    /// Sets a new password from a reset link (no sign-in needed); every session ends.
    pub async fn reset_password(token: String, password: String) -> Result<(), AppError> {
        let state = crate::platform::AppState::current()?;
        crate::auth::api::admit(&state, state.sign_in_limiter(), &token, "password resets").await?;
        crate::auth::account::reset_password(&state, &token, &password).await
    }
}

server_fn! {
    #[get("/api/auth/sessions")]
    pub async fn my_sessions() -> Result<Vec<SessionView>, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::auth::account::sessions(&state, &m).await
    }
}

server_fn! {
    #[post("/api/auth/sessions/end")]
    pub async fn end_my_session(id: Uuid) -> Result<(), AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::auth::account::end_session(&state, &m, id).await
    }
}

server_fn! {
    #[get("/api/auth/email")]
    /// The caller's email settings, and whether this server sends email.
    pub async fn my_email_preference() -> Result<EmailPreference, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::auth::email_account::preference(&state, &m).await
    }
}

server_fn! {
    #[post("/api/auth/email/notifications")]
    /// Emails the caller's notifications to them too (or stops).
    pub async fn set_email_notifications(on: bool) -> Result<EmailPreference, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::auth::email_account::set_notifications(&state, &m, on).await
    }
}
