//! Server functions for signing in and out and switching organisation (signing up makes an
//! organisation: `team::api`).
use crate::auth::model::{CurrentUser, SignInForm, SignInResult, SignUpState};
use crate::error::AppError;
use dioxus::prelude::*;
use uuid::Uuid;

server_fn! {
    #[post("/api/auth/sign_in")]
    /// Signs in. An account in several organisations names the one to open; without it, the
    /// answer lists them and no session starts (never "the oldest", issue 49 §2).
    pub async fn sign_in(form: SignInForm) -> Result<SignInResult, AppError> {
        use crate::auth::{service, session};
        let state = crate::platform::AppState::current()?;
        admit(
            &state,
            state.sign_in_limiter(),
            &form.email,
            "sign-in attempts",
        )
        .await?;
        // Wrong passwords from this address for this email make the next try wait.
        let address = session::client_address(&state);
        let limiter = crate::auth::rate_limit::wait_after_failures;
        if let Err(secs) = limiter(&state.db, state.clock.now(), &form.email, &address).await? {
            return Err(AppError::RateLimited(format!(
                "Too many wrong passwords from here. Wait {secs} seconds and try again."
            )));
        }
        let signed = service::authenticate(&state, &form.email, &form.password).await;
        let (user_id, choices) = match signed {
            Ok(s) => {
                crate::auth::rate_limit::succeeded(&state.db, &form.email, &address).await?;
                s
            }
            Err(e @ AppError::Validation(_)) => {
                let now = state.clock.now();
                crate::auth::rate_limit::failed(&state.db, now, &form.email, &address).await?;
                return Err(e);
            }
            Err(e) => return Err(e),
        };
        let Some(org_id) = service::chosen(&choices, form.organization_id)? else {
            return Ok(SignInResult::Choose(choices));
        };
        session::start_session(&state, user_id, org_id).await?;
        let member = session::member_for(&state, user_id, org_id).await?;
        Ok(SignInResult::SignedIn(service::current_user(&state, &member).await?))
    }
}

server_fn! {
    #[post("/api/auth/switch_organization")]
    /// Opens another organisation the signed-in account belongs to: this session ends (its open
    /// pages close) and one in that organisation starts.
    pub async fn switch_organization(organization_id: Uuid) -> Result<CurrentUser, AppError> {
        use crate::auth::{service, session};
        let (state, me) = session::require_member().await?;
        let choices = service::organizations_of(&state.db, me.user_id).await?;
        let Some(org_id) = service::chosen(&choices, Some(organization_id))? else {
            return Err(AppError::Internal("no organisation chosen".into()));
        };
        session::forget_session(&state).await?;
        session::start_session(&state, me.user_id, org_id).await?;
        let member = session::member_for(&state, me.user_id, org_id).await?;
        service::current_user(&state, &member).await
    }
}

/// Counts one attempt against `limiter` for this email and the caller's address, or refuses it.
#[cfg(feature = "server")]
pub(crate) async fn admit(
    state: &crate::platform::AppState,
    limiter: &crate::auth::rate_limit::SignInLimiter,
    email: &str,
    what: &str,
) -> Result<(), AppError> {
    let address = crate::auth::session::client_address(state);
    if let Err(secs) = limiter
        .check(&state.db, state.clock.now(), email, &address)
        .await?
    {
        tracing::warn!(%address, what, "rate limited");
        return Err(AppError::RateLimited(format!(
            "Too many {what}. Wait {secs} seconds and try again."
        )));
    }
    Ok(())
}

server_fn! {
    #[post("/api/auth/sign_out")]
    pub async fn sign_out() -> Result<(), AppError> {
        let state = crate::platform::AppState::current()?;
        crate::auth::session::end_session(&state).await
    }
}

server_fn! {
    #[get("/api/auth/me")]
    /// The signed-in user, or `None` when nobody is signed in.
    pub async fn current_user() -> Result<Option<CurrentUser>, AppError> {
        match crate::auth::session::require_member().await {
            Ok((state, member)) => Ok(Some(
                crate::auth::service::current_user(&state, &member).await?,
            )),
            Err(AppError::Unauthorized) => Ok(None),
            Err(e) => Err(e),
        }
    }
}

server_fn! {
    #[get("/api/auth/sign_up_state")]
    /// Whether this instance takes sign-ups: on its first run, or when `SIGN_UP=open`.
    pub async fn sign_up_state() -> Result<SignUpState, AppError> {
        let state = crate::platform::AppState::current()?;
        crate::auth::service::sign_up_state(&state).await
    }
}
