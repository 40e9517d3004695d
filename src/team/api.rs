//! Server functions for the team: signing up (a new organisation), invitations, members, roles
//! and reset links.
use crate::auth::model::{
    CurrentUser, InvitationCreated, InvitationInfo, InvitationView, MemberRemoved, MemberView,
    ResetLink, Role, SignUpForm,
};
use crate::error::AppError;
use dioxus::prelude::*;
use uuid::Uuid;

server_fn! {
    #[post("/api/auth/sign_up")]
    pub async fn sign_up(form: SignUpForm) -> Result<CurrentUser, AppError> {
        use crate::auth::{service, session};
        use crate::team::sign_up::create_organization_with_owner;
        crate::auth::model::validate_credentials(&form.email, &form.password)
            .map_err(AppError::Validation)?;
        let state = crate::platform::AppState::current()?;
        crate::auth::api::admit(&state, state.sign_up_limiter(), &form.email, "sign-ups").await?;
        let (org_id, user_id) = create_organization_with_owner(
            &state,
            &form.organization_name,
            &form.name,
            &form.email,
            &form.password,
            form.setup_token.as_deref(),
        )
        .await?;
        session::start_session(&state, user_id, org_id).await?;
        let member = session::Member {
            user_id,
            organization_id: org_id,
            role: crate::auth::model::Role::Owner,
        };
        service::current_user(&state, &member).await
    }
}

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
    pub async fn create_invitation(
        role: Role,
        email: Option<String>,
    ) -> Result<InvitationCreated, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::team::invitations::create(&state, &m, role, email.as_deref()).await
    }
}

server_fn! {
    #[get("/api/invitations")]
    /// The organisation's invitations, newest first, and how many there are in all.
    pub async fn list_invitations() -> Result<(Vec<InvitationView>, u64), AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::team::invitations::list(&state, &m).await
    }
}

server_fn! {
    #[post("/api/invitations/revoke")]
    pub async fn revoke_invitation(id: Uuid) -> Result<(), AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::team::invitations::revoke(&state, &m, id).await
    }
}

server_fn! {
    #[post("/api/invitations/info")]
    /// What an invitation link is for, before it is accepted (no sign-in needed).
    pub async fn invitation_info(token: String) -> Result<InvitationInfo, AppError> {
        let state = crate::platform::AppState::current()?;
        crate::team::invitations::info(&state, &token).await
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
        let (org_id, user_id) = crate::team::invitations::accept(
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
        crate::team::members::remove(&state, &m, user_id).await
    }
}

server_fn! {
    #[post("/api/members/role")]
    pub async fn set_member_role(user_id: Uuid, role: Role) -> Result<(), AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::team::members::set_role(&state, &m, user_id, role).await
    }
}

server_fn! {
    #[post("/api/members/reset_link")]
    /// A one-time link for a member to choose a new password (owners only).
    pub async fn member_reset_link(user_id: Uuid) -> Result<ResetLink, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::team::members::issue_reset(&state, &m, user_id).await
    }
}
