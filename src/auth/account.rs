//! A person's own account: changing their password (which ends their other sessions), seeing
//! their sessions and ending any of them, and choosing a new password from a one-time reset link.
use crate::auth::entity::{password_reset, session, user};
use crate::auth::model::{ResetLink, SessionView};
use crate::auth::session::Member;
use crate::auth::tokens::{hash_token, new_token};
use crate::error::{AppError, AppResult};
use crate::live_event::LiveEvent;
use crate::platform::events::DomainEvent;
use crate::platform::AppState;
use chrono::Duration;
use sea_orm::sea_query::Expr;
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder,
    QuerySelect, Set,
};
use uuid::Uuid;

/// A reset link works for a day.
pub const RESET_HOURS: i64 = 24;
/// Sessions listed; a person with more sees the newest and a note.
pub const SESSIONS_LISTED: u64 = 50;

/// Checks the current password, stores the new one, and ends every other session of this
/// person (in every organisation): whoever else held one is signed out.
pub async fn change_password(
    state: &AppState,
    member: &Member,
    current: &str,
    new: &str,
) -> AppResult<u64> {
    crate::auth::model::validate_password(new).map_err(AppError::Validation)?;
    let u = user::Entity::find_by_id(member.user_id)
        .one(&state.db)
        .await?
        .ok_or(AppError::Unauthorized)?;
    if !state.hashing().verify(current, &u.password_hash).await? {
        return Err(AppError::validation("The current password is not right."));
    }
    let hash = state.hashing().hash(new).await?;
    let keep = crate::auth::session::current_token_hash()?;
    let txn = crate::platform::db::begin_write(&state.db).await?;
    user::Entity::update_many()
        .col_expr(user::Column::PasswordHash, Expr::value(hash))
        .filter(user::Column::Id.eq(u.id))
        .exec(&txn)
        .await?;
    let mut others = session::Entity::delete_many().filter(session::Column::UserId.eq(u.id));
    if let Some(keep) = keep {
        others = others.filter(session::Column::TokenHash.ne(keep));
    }
    let ended = others.exec(&txn).await?.rows_affected;
    txn.commit().await?;
    state.live.publish(
        member.organization_id,
        LiveEvent::AccessEnded { user_id: u.id },
    );
    Ok(ended)
}

/// This person's sessions, most recently used first.
pub async fn sessions(state: &AppState, member: &Member) -> AppResult<Vec<SessionView>> {
    let current = crate::auth::session::current_token_hash()?;
    let rows = session::Entity::find()
        .filter(session::Column::UserId.eq(member.user_id))
        .filter(session::Column::ExpiresAt.gt(state.clock.now()))
        .order_by_desc(session::Column::LastSeenAt)
        .order_by_desc(session::Column::CreatedAt)
        .limit(SESSIONS_LISTED)
        .all(&state.db)
        .await?;
    Ok(rows
        .into_iter()
        .map(|s| SessionView {
            id: s.id,
            device: device_name(s.user_agent.as_deref()),
            created_at: s.created_at,
            last_seen_at: s.last_seen_at,
            current: current.as_deref() == Some(s.token_hash.as_str()),
        })
        .collect())
}

/// Ends one of this person's sessions (never someone else's).
pub async fn end_session(state: &AppState, member: &Member, id: Uuid) -> AppResult<()> {
    let res = session::Entity::delete_many()
        .filter(session::Column::Id.eq(id))
        .filter(session::Column::UserId.eq(member.user_id))
        .exec(&state.db)
        .await?;
    if res.rows_affected == 0 {
        return Err(AppError::not_found("That session"));
    }
    state.live.publish(
        member.organization_id,
        LiveEvent::AccessEnded {
            user_id: member.user_id,
        },
    );
    Ok(())
}

/// Ends every session of this person, this one included.
pub async fn end_everywhere(state: &AppState, member: &Member) -> AppResult<u64> {
    let ended = session::Entity::delete_many()
        .filter(session::Column::UserId.eq(member.user_id))
        .exec(&state.db)
        .await?
        .rows_affected;
    crate::auth::session::clear_cookie(state);
    state.live.publish(
        member.organization_id,
        LiveEvent::AccessEnded {
            user_id: member.user_id,
        },
    );
    Ok(ended)
}

/// A short name for a User-Agent: the browser and the system, as a person would say them.
pub fn device_name(ua: Option<&str>) -> String {
    let Some(ua) = ua.filter(|u| !u.trim().is_empty()) else {
        return "Unknown device".into();
    };
    let browser = [
        ("Edg/", "Edge"),
        ("Firefox/", "Firefox"),
        ("Chrome/", "Chrome"),
        ("Safari/", "Safari"),
        ("curl/", "curl"),
    ]
    .into_iter()
    .find(|(k, _)| ua.contains(k))
    .map(|(_, v)| v);
    let system = [
        ("iPhone", "iPhone"),
        ("iPad", "iPad"),
        ("Android", "Android"),
        ("Windows", "Windows"),
        ("Mac OS X", "macOS"),
        ("Linux", "Linux"),
    ]
    .into_iter()
    .find(|(k, _)| ua.contains(k))
    .map(|(_, v)| v);
    match (browser, system) {
        (Some(b), Some(s)) => format!("{b} on {s}"),
        (Some(b), None) => b.to_owned(),
        (None, Some(s)) => s.to_owned(),
        (None, None) => ua.chars().take(60).collect(),
    }
}

/// Stores a new reset link for `user_id` (inside the caller's transaction).
pub async fn new_reset<C: ConnectionTrait>(
    db: &C,
    public_url: &str,
    now: chrono::DateTime<chrono::Utc>,
    user_id: Uuid,
    created_by: Option<Uuid>,
) -> AppResult<ResetLink> {
    let (token, token_hash) = new_token();
    let expires_at = now + Duration::hours(RESET_HOURS);
    password_reset::ActiveModel {
        id: Set(Uuid::new_v4()),
        user_id: Set(user_id),
        token_hash: Set(token_hash),
        created_by: Set(created_by),
        created_at: Set(now),
        expires_at: Set(expires_at),
        used_at: Set(None),
    }
    .insert(db)
    .await?;
    Ok(ResetLink {
        url: format!("{}/reset/{token}", public_url.trim_end_matches('/')),
        expires_at,
    })
}

/// The operator's reset link for an account by email (`herald admin reset-password EMAIL`).
pub async fn reset_link_for_email(
    db: &sea_orm::DatabaseConnection,
    public_url: &str,
    email: &str,
) -> AppResult<ResetLink> {
    let email = crate::auth::service::normalize_email(email);
    let u = user::Entity::find()
        .filter(user::Column::Email.eq(&email))
        .one(db)
        .await?
        .ok_or_else(|| AppError::not_found(format!("An account with the email {email}")))?;
    let now = chrono::Utc::now();
    let txn = crate::platform::db::begin_write(db).await?;
    let link = new_reset(&txn, public_url, now, u.id, None).await?;
    // Issued by the operator: each of the account's organisations has it in its log.
    let orgs = organizations_of(&txn, u.id).await?;
    for org in orgs {
        crate::audit::service::record(
            &txn,
            crate::audit::service::Entry {
                organization_id: Some(org),
                actor: None,
                action: crate::audit::model::AuditAction::PasswordResetIssued,
                target: &format!("{} <{}>", u.name, u.email),
                detail: Some("by the server's operator (herald admin reset-password)".into()),
            },
            now,
        )
        .await?;
    }
    txn.commit().await?;
    Ok(link)
}

/// Sets a new password from a reset link, once; every session of the account ends.
pub async fn reset_password(state: &AppState, token: &str, new: &str) -> AppResult<()> {
    crate::auth::model::validate_password(new).map_err(AppError::Validation)?;
    let now = state.clock.now();
    let r = password_reset::Entity::find()
        .filter(password_reset::Column::TokenHash.eq(hash_token(token)))
        .one(&state.db)
        .await?
        .ok_or_else(|| AppError::not_found("That reset link"))?;
    if r.used_at.is_some() || r.expires_at <= now {
        return Err(AppError::Conflict(
            "This reset link was already used or has expired. Ask an owner for a new one.".into(),
        ));
    }
    let hash = state.hashing().hash(new).await?;
    let txn = crate::platform::db::begin_write(&state.db).await?;
    let claimed = password_reset::Entity::update_many()
        .col_expr(password_reset::Column::UsedAt, Expr::value(now))
        .filter(password_reset::Column::Id.eq(r.id))
        .filter(password_reset::Column::UsedAt.is_null())
        .exec(&txn)
        .await?;
    if claimed.rows_affected == 0 {
        return Err(AppError::Conflict(
            "This reset link was already used.".into(),
        ));
    }
    user::Entity::update_many()
        .col_expr(user::Column::PasswordHash, Expr::value(hash))
        .filter(user::Column::Id.eq(r.user_id))
        .exec(&txn)
        .await?;
    session::Entity::delete_many()
        .filter(session::Column::UserId.eq(r.user_id))
        .exec(&txn)
        .await?;
    let orgs = record_reset(&txn, &r, now).await?;
    txn.commit().await?;
    // The person hears of it in each organisation they belong to (`notifications` listens).
    crate::platform::events::publish(
        state,
        DomainEvent::PasswordResetByLink {
            user_id: r.user_id,
            organization_ids: orgs,
            issued_by: issued_by(state, r.created_by).await?,
        },
    )
    .await
}

/// Audits a reset in every organisation the account belongs to; answers those organisations.
async fn record_reset<C: ConnectionTrait>(
    db: &C,
    r: &password_reset::Model,
    now: chrono::DateTime<chrono::Utc>,
) -> AppResult<Vec<Uuid>> {
    let u = user::Entity::find_by_id(r.user_id)
        .one(db)
        .await?
        .ok_or_else(|| AppError::not_found("That account"))?;
    let orgs = organizations_of(db, r.user_id).await?;
    let by = match r.created_by {
        Some(_) => "a link an owner issued",
        None => "a link the server's operator issued",
    };
    for org in &orgs {
        crate::audit::service::record(
            db,
            crate::audit::service::Entry {
                organization_id: Some(*org),
                actor: Some(r.user_id),
                action: crate::audit::model::AuditAction::PasswordReset,
                target: &format!("{} <{}>", u.name, u.email),
                detail: Some(by.into()),
            },
            now,
        )
        .await?;
    }
    Ok(orgs)
}

/// The organisations an account belongs to.
pub async fn organizations_of<C: ConnectionTrait>(db: &C, user_id: Uuid) -> AppResult<Vec<Uuid>> {
    use crate::auth::entity::membership;
    Ok(membership::Entity::find()
        .select_only()
        .column(membership::Column::OrganizationId)
        .filter(membership::Column::UserId.eq(user_id))
        .into_tuple()
        .all(db)
        .await?)
}

/// Who issued a reset link, as the person reads it.
async fn issued_by(state: &AppState, created_by: Option<Uuid>) -> AppResult<String> {
    let Some(id) = created_by else {
        return Ok("by the server's operator".into());
    };
    Ok(match user::Entity::find_by_id(id).one(&state.db).await? {
        Some(u) => format!("by {}", u.name),
        None => "by an owner".into(),
    })
}

#[cfg(test)]
mod tests {
    use super::device_name;

    #[test]
    fn devices_are_named_as_people_say_them() {
        let chrome_mac = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36";
        assert_eq!(device_name(Some(chrome_mac)), "Chrome on macOS");
        let iphone = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1";
        assert_eq!(device_name(Some(iphone)), "Safari on iPhone");
        assert_eq!(device_name(None), "Unknown device");
        assert_eq!(device_name(Some("reqwest")), "reqwest");
    }
}
