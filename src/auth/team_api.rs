//! Server functions for the team and for a person's own account: invitations, members, roles,
//! reset links, password changes and sessions.
use crate::auth::model::{
    CurrentUser, InvitationCreated, InvitationInfo, InvitationView, MemberRemoved, MemberView,
    ResetLink, Role, SessionView,
};
use crate::error::AppError;
use dioxus::prelude::*;
use uuid::Uuid;

server_fn! {
    #[get("/api/members")]
    pub async fn list_members() -> Result<Vec<MemberView>, AppError> {
        let (state, member) = crate::auth::session::require_member().await?;
        crate::auth::service::list_members(&state, &member).await
    }
}

server_fn! {
    #[post("/api/invitations/create")]
    /// An invitation link with this role (owners only); the link is shown once.
    pub async fn create_invitation(role: Role) -> Result<InvitationCreated, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::auth::invitations::create(&state, &m, role).await
    }
}

server_fn! {
    #[get("/api/invitations")]
    /// The organisation's invitations, newest first, and how many there are in all.
    pub async fn list_invitations() -> Result<(Vec<InvitationView>, u64), AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::auth::invitations::list(&state, &m).await
    }
}

server_fn! {
    #[post("/api/invitations/revoke")]
    pub async fn revoke_invitation(id: Uuid) -> Result<(), AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::auth::invitations::revoke(&state, &m, id).await
    }
}

server_fn! {
    #[post("/api/invitations/info")]
    /// What an invitation link is for, before it is accepted (no sign-in needed).
    pub async fn invitation_info(token: String) -> Result<InvitationInfo, AppError> {
        let state = crate::platform::AppState::current()?;
        crate::auth::invitations::info(&state, &token).await
    }
}

server_fn! {
    #[post("/api/invitations/accept")]
    /// Joins the organisation with a new account, and signs the new member in.
    pub async fn accept_invitation(
        token: String,
        name: String,
        email: String,
        password: String,
    ) -> Result<CurrentUser, AppError> {
        use crate::auth::{service, session};
        let form = crate::auth::model::AcceptInvitationForm { token, name, email, password };
        crate::auth::model::validate_credentials(&form.email, &form.password)
            .map_err(AppError::Validation)?;
        let state = crate::platform::AppState::current()?;
        crate::auth::api::admit(&state, state.sign_up_limiter(), &form.email, "sign-ups").await?;
        let (org_id, user_id) = crate::auth::invitations::accept(
            &state,
            &form.token,
            &form.name,
            &form.email,
            &form.password,
        )
        .await?;
        session::start_session(&state, user_id, org_id).await?;
        let member = session::member_for(&state, user_id, org_id).await?;
        service::current_user(&state, &member).await
    }
}

server_fn! {
    #[post("/api/members/remove")]
    /// Removes a member (owners only): their sessions end at once.
    pub async fn remove_member(user_id: Uuid) -> Result<MemberRemoved, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::auth::members::remove(&state, &m, user_id).await
    }
}

server_fn! {
    #[post("/api/members/role")]
    pub async fn set_member_role(user_id: Uuid, role: Role) -> Result<(), AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::auth::members::set_role(&state, &m, user_id, role).await
    }
}

server_fn! {
    #[post("/api/members/reset_link")]
    /// A one-time link for a member to choose a new password (owners only).
    pub async fn member_reset_link(user_id: Uuid) -> Result<ResetLink, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::auth::members::issue_reset(&state, &m, user_id).await
    }
}

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
