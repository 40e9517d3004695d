//! Joining by invitation: an owner makes a single-use link with a role that expires after seven
//! days; the person who opens it chooses their own name, email and password (or gives the
//! password of the account they already have), and is signed in.
use crate::audit::model::AuditAction;
use crate::audit::service::{record, Entry};
use crate::auth::entity::{invitation, organization, user};
use crate::auth::model::{InvitationCreated, InvitationInfo, InvitationView, Role};
use crate::auth::service::{insert_membership, insert_user, normalize_email};
use crate::auth::session::Member;
use crate::auth::tokens::{hash_token, new_token};
use crate::error::{AppError, AppResult};
use crate::platform::AppState;
use chrono::Duration;
use sea_orm::sea_query::Expr;
use sea_orm::{
    ActiveModelTrait, ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter, QueryOrder,
    QuerySelect, Set,
};
use std::collections::HashMap;
use uuid::Uuid;

pub const INVITATION_DAYS: i64 = 7;
/// Invitations the team page lists (newest first); the page says when there are more.
pub const LISTED: u64 = 50;

/// The link an invitation token opens.
pub fn invitation_url(state: &AppState, token: &str) -> String {
    format!(
        "{}/join/{token}",
        state.config.public_url.trim_end_matches('/')
    )
}

/// An invitation as `role`, for `email` when given: the link is emailed there when email is set
/// up (`SMTP_URL`), and shown to copy either way.
#[tracing::instrument(skip(state))]
pub async fn create(
    state: &AppState,
    owner: &Member,
    role: Role,
    email: Option<&str>,
) -> AppResult<InvitationCreated> {
    owner.require_owner()?;
    let email = match email.map(str::trim).filter(|e| !e.is_empty()) {
        Some(e) => {
            let e = normalize_email(e);
            if e.parse::<lettre::Address>().is_err() {
                return Err(AppError::validation(format!(
                    "{e} is not an email address."
                )));
            }
            Some(e)
        }
        None => None,
    };
    let now = state.clock.now();
    let open = invitation::Entity::find()
        .filter(invitation::Column::OrganizationId.eq(owner.organization_id))
        .filter(invitation::Column::AcceptedAt.is_null())
        .filter(invitation::Column::RevokedAt.is_null())
        .filter(invitation::Column::ExpiresAt.gt(now))
        .count(&state.db)
        .await?;
    let limit = state.config.limits.open_invitations;
    if open >= limit {
        return Err(AppError::Validation(format!(
            "An organisation may have {limit} open invitations at once: revoke one that is no \
             longer needed first."
        )));
    }
    let (token, token_hash) = new_token();
    let expires_at = now + Duration::days(INVITATION_DAYS);
    let id = Uuid::new_v4();
    let txn = crate::platform::db::begin_write(&state.db).await?;
    invitation::ActiveModel {
        id: Set(id),
        organization_id: Set(owner.organization_id),
        role: Set(role.as_str().to_owned()),
        token_hash: Set(token_hash),
        created_by: Set(owner.user_id),
        created_at: Set(now),
        expires_at: Set(expires_at),
        accepted_at: Set(None),
        accepted_by: Set(None),
        revoked_at: Set(None),
        email: Set(email.clone()),
    }
    .insert(&txn)
    .await?;
    record(
        &txn,
        Entry {
            organization_id: Some(owner.organization_id),
            actor: Some(owner.user_id),
            action: AuditAction::MemberInvited,
            target: &format!("an invitation as {}", role.as_str()),
            detail: Some(format!(
                "expires {}",
                expires_at.format("%Y-%m-%d %H:%M UTC")
            )),
        },
        now,
    )
    .await?;
    txn.commit().await?;
    let url = invitation_url(state, &token);
    let emailed = match (&email, state.mailer()) {
        (Some(to), Some(mailer)) => send_invitation(state, mailer, owner, to, &url, role).await,
        _ => false,
    };
    Ok(InvitationCreated {
        id,
        url,
        token,
        expires_at,
        email,
        emailed,
        email_set_up: state.mailer().is_some(),
    })
}

/// Emails the link; a mail server that refuses is logged and the link is shown to copy instead.
async fn send_invitation(
    state: &AppState,
    mailer: &crate::platform::email::Mailer,
    owner: &Member,
    to: &str,
    url: &str,
    role: Role,
) -> bool {
    let org = crate::auth::service::organization_name(state, owner.organization_id).await;
    let inviter = user::Entity::find_by_id(owner.user_id)
        .one(&state.db)
        .await
        .ok()
        .flatten()
        .map(|u| u.name)
        .unwrap_or_default();
    let body =
        format!(
        "{inviter} invited you to join {org} on Herald as {}.\n\nOpen this link to choose your \
         name and password (it works once, for {INVITATION_DAYS} days):\n\n{url}\n",
        if role == Role::Owner { "an owner" } else { "a member" }
    );
    match mailer
        .send(to, &format!("Join {org} on Herald"), body)
        .await
    {
        Ok(()) => true,
        Err(e) => {
            tracing::warn!(error = %e, "the invitation could not be emailed");
            false
        }
    }
}

/// The organisation's invitations, newest first (at most `LISTED`), with the exact total.
pub async fn list(state: &AppState, owner: &Member) -> AppResult<(Vec<InvitationView>, u64)> {
    use sea_orm::PaginatorTrait;
    owner.require_owner()?;
    let scope = invitation::Column::OrganizationId.eq(owner.organization_id);
    let total = invitation::Entity::find()
        .filter(scope.clone())
        .count(&state.db)
        .await?;
    let rows = invitation::Entity::find()
        .filter(scope)
        .order_by_desc(invitation::Column::CreatedAt)
        .limit(LISTED)
        .all(&state.db)
        .await?;
    let people: Vec<Uuid> = rows
        .iter()
        .flat_map(|r| [Some(r.created_by), r.accepted_by])
        .flatten()
        .collect();
    let names: HashMap<Uuid, String> = user::Entity::find()
        .filter(user::Column::Id.is_in(people))
        .all(&state.db)
        .await?
        .into_iter()
        .map(|u| (u.id, u.name))
        .collect();
    let now = state.clock.now();
    let views = rows
        .into_iter()
        .map(|r| InvitationView {
            id: r.id,
            role: Role::parse(&r.role).unwrap_or(Role::Member),
            invited_by: names.get(&r.created_by).cloned().unwrap_or_default(),
            created_at: r.created_at,
            expires_at: r.expires_at,
            status: status(&r, now).to_owned(),
            accepted_by: r.accepted_by.and_then(|u| names.get(&u).cloned()),
            email: r.email,
        })
        .collect();
    Ok((views, total))
}

fn status(r: &invitation::Model, now: chrono::DateTime<chrono::Utc>) -> &'static str {
    if r.accepted_at.is_some() {
        "accepted"
    } else if r.revoked_at.is_some() {
        "revoked"
    } else if r.expires_at <= now {
        "expired"
    } else {
        "pending"
    }
}

pub async fn revoke(state: &AppState, owner: &Member, id: Uuid) -> AppResult<()> {
    owner.require_owner()?;
    invitation::Entity::find_by_id(id)
        .filter(invitation::Column::OrganizationId.eq(owner.organization_id))
        .one(&state.db)
        .await?
        .ok_or_else(|| AppError::not_found("That invitation"))?;
    let now = state.clock.now();
    let txn = crate::platform::db::begin_write(&state.db).await?;
    let res = invitation::Entity::update_many()
        .col_expr(invitation::Column::RevokedAt, Expr::value(now))
        .filter(invitation::Column::Id.eq(id))
        .filter(invitation::Column::OrganizationId.eq(owner.organization_id))
        .filter(invitation::Column::AcceptedAt.is_null())
        .filter(invitation::Column::RevokedAt.is_null())
        .exec(&txn)
        .await?;
    if res.rows_affected == 0 {
        return Err(AppError::Conflict(
            "That invitation was already used or revoked.".into(),
        ));
    }
    record(
        &txn,
        Entry {
            organization_id: Some(owner.organization_id),
            actor: Some(owner.user_id),
            action: AuditAction::InvitationRevoked,
            target: "an invitation",
            detail: None,
        },
        now,
    )
    .await?;
    txn.commit().await?;
    Ok(())
}

/// The invitation a token opens, while it can still be accepted.
async fn open_invitation(state: &AppState, token: &str) -> AppResult<invitation::Model> {
    let inv = invitation::Entity::find()
        .filter(invitation::Column::TokenHash.eq(hash_token(token)))
        .one(&state.db)
        .await?
        .ok_or_else(|| AppError::not_found("That invitation link"))?;
    match status(&inv, state.clock.now()) {
        "pending" => Ok(inv),
        "accepted" => Err(AppError::Conflict(
            "This invitation was already used. Sign in instead, or ask an owner for a new link."
                .into(),
        )),
        "revoked" => Err(AppError::Conflict(
            "This invitation was revoked. Ask an owner for a new link.".into(),
        )),
        _ => Err(AppError::Conflict(
            "This invitation has expired. Ask an owner for a new link.".into(),
        )),
    }
}

pub async fn info(state: &AppState, token: &str) -> AppResult<InvitationInfo> {
    let inv = open_invitation(state, token).await?;
    let org = organization::Entity::find_by_id(inv.organization_id)
        .one(&state.db)
        .await?
        .ok_or_else(|| AppError::not_found("That organisation"))?;
    let by = user::Entity::find_by_id(inv.created_by)
        .one(&state.db)
        .await?
        .map(|u| u.name)
        .unwrap_or_default();
    Ok(InvitationInfo {
        organization_name: org.name,
        role: Role::parse(&inv.role).unwrap_or(Role::Member),
        invited_by: by,
    })
}

/// Accepts the invitation: a new account and its membership, once, however many people race
/// for the same link. An email that already has an account (a member who was removed, or
/// someone from another organisation) joins with that account, but only with its password:
/// an invitation never takes over someone else's account. Answers (organisation, user).
#[tracing::instrument(skip(state, token, password))]
pub async fn accept(
    state: &AppState,
    token: &str,
    name: &str,
    email: &str,
    password: &str,
) -> AppResult<(Uuid, Uuid)> {
    let inv = open_invitation(state, token).await?;
    let email = normalize_email(email);
    let existing = user::Entity::find()
        .filter(user::Column::Email.eq(&email))
        .one(&state.db)
        .await?;
    let joiner = match existing {
        Some(u) if !state.hashing().verify(password, &u.password_hash).await? => {
            return Err(AppError::Validation(
                "An account with this email already exists, and that is not its password. \
                 Enter the account's password to join with it, or use another email."
                    .into(),
            ));
        }
        Some(u) => Joiner::Existing(u),
        None => Joiner::New(state.hashing().hash(password).await?),
    };
    let now = state.clock.now();
    let role = Role::parse(&inv.role).unwrap_or(Role::Member);
    let txn = crate::platform::db::begin_write(&state.db).await?;
    let (user_id, display) = match &joiner {
        Joiner::Existing(u) => {
            already_member(&txn, u.id, inv.organization_id).await?;
            (u.id, u.name.clone())
        }
        Joiner::New(hash) => {
            let id = insert_user(&txn, name, &email, hash.clone(), now).await?;
            (id, name.trim().to_owned())
        }
    };
    // Single use: only the first acceptance finds it still open.
    let claimed = invitation::Entity::update_many()
        .col_expr(invitation::Column::AcceptedAt, Expr::value(now))
        .col_expr(invitation::Column::AcceptedBy, Expr::value(user_id))
        .filter(invitation::Column::Id.eq(inv.id))
        .filter(invitation::Column::AcceptedAt.is_null())
        .filter(invitation::Column::RevokedAt.is_null())
        .filter(invitation::Column::ExpiresAt.gt(now))
        .exec(&txn)
        .await?;
    if claimed.rows_affected == 0 {
        return Err(AppError::Conflict(
            "This invitation was already used. Ask an owner for a new link.".into(),
        ));
    }
    insert_membership(&txn, user_id, inv.organization_id, role, now).await?;
    crate::ai_agent::service::clone_platform_agents_for_member(
        &txn,
        user_id,
        inv.organization_id,
        now,
    )
    .await?;
    record(
        &txn,
        Entry {
            organization_id: Some(inv.organization_id),
            actor: Some(user_id),
            action: AuditAction::MemberJoined,
            target: &format!("{display} <{email}> as {}", role.as_str()),
            detail: matches!(joiner, Joiner::Existing(_))
                .then(|| "with the account they already had".to_owned()),
        },
        now,
    )
    .await?;
    txn.commit().await?;
    Ok((inv.organization_id, user_id))
}

/// Who accepts: an account that proved its password, or a new one with this password hash.
enum Joiner {
    Existing(user::Model),
    New(String),
}

/// Refuses an account that is already a member of the organisation (the link stays unused).
async fn already_member<C: sea_orm::ConnectionTrait>(
    db: &C,
    user_id: Uuid,
    org: Uuid,
) -> AppResult<()> {
    use crate::auth::entity::membership;
    let found = membership::Entity::find()
        .filter(membership::Column::UserId.eq(user_id))
        .filter(membership::Column::OrganizationId.eq(org))
        .one(db)
        .await?;
    match found {
        Some(_) => Err(AppError::Conflict(
            "You are already a member of this organisation. Sign in instead.".into(),
        )),
        None => Ok(()),
    }
}
