//! Email for a person's own account (issue 51 §5): their choice to have notifications emailed
//! too, and a reset link sent to the address of an account that forgot its password. Without
//! email set up (`SMTP_URL`) neither is offered, and the pages say so.
use crate::auth::entity::user;
use crate::auth::model::EmailPreference;
use crate::auth::session::Member;
use crate::error::{AppError, AppResult};
use crate::platform::AppState;
use sea_orm::sea_query::Expr;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};

/// What a person who asks for a reset link is told, whether or not an account uses the address
/// (the answer tells nobody which addresses have accounts).
pub const RESET_SENT: &str =
    "If an account uses that address, a link to choose a new password is on its way. It works once, for a day.";
/// Said where email would be used and is not set up.
pub const NOT_SET_UP: &str =
    "Email is not set up on this server (SMTP_URL), so ask an owner of your organisation for a reset link.";

pub async fn preference(state: &AppState, m: &Member) -> AppResult<EmailPreference> {
    let u = user::Entity::find_by_id(m.user_id)
        .one(&state.db)
        .await?
        .ok_or_else(|| AppError::not_found("Your account"))?;
    Ok(EmailPreference {
        email: u.email,
        notifications: u.email_notifications,
        email_set_up: state.mailer().is_some(),
    })
}

/// Turns emailed notifications on or off for the caller.
pub async fn set_notifications(
    state: &AppState,
    m: &Member,
    on: bool,
) -> AppResult<EmailPreference> {
    if on && state.mailer().is_none() {
        return Err(AppError::validation(
            "Email is not set up on this server (SMTP_URL), so notifications cannot be emailed.",
        ));
    }
    user::Entity::update_many()
        .col_expr(user::Column::EmailNotifications, Expr::value(on))
        .filter(user::Column::Id.eq(m.user_id))
        .exec(&state.db)
        .await?;
    preference(state, m).await
}

/// Emails a reset link to the account that uses `email`, if one does. Answers the same either
/// way; refused when email is not set up.
#[tracing::instrument(skip(state, email))]
pub async fn request_reset(state: &AppState, email: &str) -> AppResult<()> {
    let Some(mailer) = state.mailer() else {
        return Err(AppError::validation(NOT_SET_UP));
    };
    let email = crate::auth::service::normalize_email(email);
    if email.parse::<lettre::Address>().is_err() {
        return Err(AppError::validation(format!(
            "{email} is not an email address."
        )));
    }
    let Some(u) = user::Entity::find()
        .filter(user::Column::Email.eq(&email))
        .one(&state.db)
        .await?
    else {
        tracing::info!("a reset link was asked for an address no account uses");
        return Ok(());
    };
    let now = state.clock.now();
    let txn = crate::platform::db::begin_write(&state.db).await?;
    let link =
        crate::auth::account::new_reset(&txn, &state.config.public_url, now, u.id, None).await?;
    for org in crate::auth::account::organizations_of(&txn, u.id).await? {
        crate::audit::service::record(
            &txn,
            crate::audit::service::Entry {
                organization_id: Some(org),
                actor: Some(u.id),
                action: crate::audit::model::AuditAction::PasswordResetIssued,
                target: &format!("{} <{}>", u.name, u.email),
                detail: Some("asked for by email, on the sign-in page".into()),
            },
            now,
        )
        .await?;
    }
    txn.commit().await?;
    let body = format!(
        "Someone (we hope you) asked for a new Herald password for {}.\n\nOpen this link to choose \
         one; it works once, for a day:\n\n{}\n\nIf it was not you, ignore this email: your \
         password stays as it is.\n",
        u.email, link.url
    );
    if let Err(e) = mailer
        .send(&u.email, "Choose a new Herald password", body)
        .await
    {
        tracing::warn!(error = %e, "the reset link could not be emailed");
        return Err(AppError::Internal(format!(
            "the reset link could not be emailed: {e}"
        )));
    }
    Ok(())
}
