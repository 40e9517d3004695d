//! Creating organisations, users and memberships, and checking credentials.
use crate::auth::entity::{membership, organization, user};
use crate::auth::model::{CurrentUser, MemberView, OrganizationChoice, Role, SignUpState};
use crate::auth::password::hash_password;
use crate::auth::session::Member;
use crate::error::{AppError, AppResult};
use crate::platform::AppState;
use chrono::Utc;
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder, Set,
};
use uuid::Uuid;

/// The organisation's name, for words on a page or in an email; empty should the read fail,
/// so that what shows it still goes out.
pub async fn organization_name(state: &AppState, id: Uuid) -> String {
    organization::Entity::find_by_id(id)
        .one(&state.db)
        .await
        .ok()
        .flatten()
        .map(|o| o.name)
        .unwrap_or_default()
}

pub fn normalize_email(email: &str) -> String {
    email.trim().to_lowercase()
}

/// Whether the instance has no organisation yet (its first visitor sets it up).
pub async fn first_run(state: &AppState) -> AppResult<bool> {
    Ok(organization::Entity::find().one(&state.db).await?.is_none())
}

pub async fn sign_up_state(state: &AppState) -> AppResult<SignUpState> {
    let first_run = first_run(state).await?;
    Ok(SignUpState {
        mode: state.config.sign_up.as_str().to_owned(),
        first_run,
        needs_setup_token: first_run && state.config.setup_token.is_some(),
    })
}

pub(crate) async fn insert_user<C: ConnectionTrait>(
    db: &C,
    name: &str,
    email: &str,
    hash: String,
    now: chrono::DateTime<Utc>,
) -> AppResult<Uuid> {
    let exists = user::Entity::find()
        .filter(user::Column::Email.eq(email))
        .one(db)
        .await?;
    if exists.is_some() {
        return Err(AppError::Conflict(
            "An account with that email already exists.".into(),
        ));
    }
    let id = Uuid::new_v4();
    let display = if name.trim().is_empty() {
        email.split('@').next().unwrap_or(email)
    } else {
        name.trim()
    };
    user::ActiveModel {
        id: Set(id),
        email: Set(email.to_owned()),
        name: Set(display.to_owned()),
        password_hash: Set(hash),
        created_at: Set(now),
        email_notifications: Set(false),
    }
    .insert(db)
    .await
    .map_err(|e| {
        if crate::platform::db::is_unique_violation(&e) {
            AppError::Conflict("An account with that email already exists.".into())
        } else {
            e.into()
        }
    })?;
    Ok(id)
}

pub(crate) async fn insert_membership<C: ConnectionTrait>(
    db: &C,
    user_id: Uuid,
    org_id: Uuid,
    role: Role,
    now: chrono::DateTime<Utc>,
) -> AppResult<()> {
    membership::ActiveModel {
        id: Set(Uuid::new_v4()),
        user_id: Set(user_id),
        organization_id: Set(org_id),
        role: Set(role.as_str().to_owned()),
        created_at: Set(now),
    }
    .insert(db)
    .await
    .map_err(|e| {
        if crate::platform::db::is_unique_violation(&e) {
            AppError::Conflict(
                "You are already a member of this organisation. Sign in instead.".into(),
            )
        } else {
            e.into()
        }
    })?;
    Ok(())
}

/// Checks the password; answers the user's id and the organisations the account belongs to
/// (oldest membership first), at least one.
pub async fn authenticate(
    state: &AppState,
    email: &str,
    password: &str,
) -> AppResult<(Uuid, Vec<OrganizationChoice>)> {
    let email = normalize_email(email);
    let wrong = || AppError::Validation("That email and password do not match an account.".into());
    let found = user::Entity::find()
        .filter(user::Column::Email.eq(&email))
        .one(&state.db)
        .await?;
    // One verification either way, so timing does not reveal which emails exist.
    let verified = state
        .hashing()
        .verify(password, hash_to_check(found.as_ref()))
        .await?;
    let Some(u) = found.filter(|_| verified) else {
        return Err(wrong());
    };
    let choices = organizations_of(&state.db, u.id).await?;
    if choices.is_empty() {
        return Err(AppError::Validation(
            "This account is no longer a member of any organisation. Ask an owner for an \
             invitation."
                .into(),
        ));
    }
    Ok((u.id, choices))
}

/// The organisations `user_id` belongs to, with their names and the role in each, oldest first.
pub async fn organizations_of(
    db: &sea_orm::DatabaseConnection,
    user_id: Uuid,
) -> AppResult<Vec<OrganizationChoice>> {
    let rows = membership::Entity::find()
        .filter(membership::Column::UserId.eq(user_id))
        .order_by_asc(membership::Column::CreatedAt)
        .all(db)
        .await?;
    let names: std::collections::HashMap<Uuid, String> = organization::Entity::find()
        .filter(organization::Column::Id.is_in(rows.iter().map(|m| m.organization_id)))
        .all(db)
        .await?
        .into_iter()
        .map(|o| (o.id, o.name))
        .collect();
    Ok(rows
        .into_iter()
        .filter_map(|m| {
            Some(OrganizationChoice {
                id: m.organization_id,
                name: names.get(&m.organization_id)?.clone(),
                role: Role::parse(&m.role).unwrap_or(Role::Member),
            })
        })
        .collect())
}

/// The organisation a sign-in opens: the one named (it must be one of the account's), or the
/// only one. None: the account belongs to several and none was named; the person chooses.
pub fn chosen(choices: &[OrganizationChoice], named: Option<Uuid>) -> AppResult<Option<Uuid>> {
    match (named, choices) {
        (Some(id), _) if choices.iter().any(|c| c.id == id) => Ok(Some(id)),
        (Some(_), _) => Err(AppError::Validation(
            "This account is not a member of that organisation.".into(),
        )),
        (None, [only]) => Ok(Some(only.id)),
        (None, _) => Ok(None),
    }
}

static DUMMY_HASH: std::sync::LazyLock<String> =
    std::sync::LazyLock::new(|| hash_password("not a real password"));

/// The hash a sign-in is checked against: the account's, or for an unknown email the fixed
/// dummy (made with the same Argon2 parameters), so both cost one verification.
fn hash_to_check(account: Option<&user::Model>) -> &str {
    account.map_or(DUMMY_HASH.as_str(), |u| u.password_hash.as_str())
}

pub async fn current_user(state: &AppState, member: &Member) -> AppResult<CurrentUser> {
    let u = user::Entity::find_by_id(member.user_id)
        .one(&state.db)
        .await?
        .ok_or(AppError::Unauthorized)?;
    let org = organization::Entity::find_by_id(member.organization_id)
        .one(&state.db)
        .await?
        .ok_or(AppError::Unauthorized)?;
    Ok(CurrentUser {
        user_id: u.id,
        name: u.name,
        email: u.email,
        organization_id: org.id,
        organization_name: org.name,
        role: member.role,
        simulator_enabled: state.config.simulator_enabled,
        organizations: organizations_of(&state.db, member.user_id).await?,
    })
}

pub async fn list_members(state: &AppState, member: &Member) -> AppResult<Vec<MemberView>> {
    let rows = membership::Entity::find()
        .filter(membership::Column::OrganizationId.eq(member.organization_id))
        .order_by_asc(membership::Column::CreatedAt)
        .all(&state.db)
        .await?;
    let mut out = Vec::with_capacity(rows.len());
    for m in rows {
        if let Some(u) = user::Entity::find_by_id(m.user_id).one(&state.db).await? {
            out.push(MemberView {
                user_id: u.id,
                name: u.name,
                email: u.email,
                role: Role::parse(&m.role).unwrap_or(Role::Member),
            });
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use argon2::password_hash::PasswordHash;

    fn account(hash: String) -> user::Model {
        user::Model {
            id: Uuid::new_v4(),
            email: "ann@example.test".into(),
            name: "Ann".into(),
            password_hash: hash,
            created_at: Utc::now(),
            email_notifications: false,
        }
    }

    #[test]
    fn an_unknown_email_is_checked_against_the_fixed_dummy_hash() {
        let real = hash_password("ann's password");
        let ann = account(real.clone());
        assert_eq!(hash_to_check(Some(&ann)), real);
        // Unknown: the same dummy every time, not an empty or malformed hash that fails fast.
        assert_eq!(hash_to_check(None), DUMMY_HASH.as_str());
        assert!(std::ptr::eq(hash_to_check(None), hash_to_check(None)));
        let dummy = PasswordHash::new(hash_to_check(None)).expect("a real Argon2 hash");
        let parsed = PasswordHash::new(&real).unwrap();
        assert_eq!(
            dummy.algorithm, parsed.algorithm,
            "argon2id, like a real one"
        );
        assert_eq!(dummy.version, parsed.version);
        assert_eq!(
            dummy.params, parsed.params,
            "same memory, time and lanes: the same cost"
        );
        assert!(!crate::auth::password::verify_password(
            "ann's password",
            hash_to_check(None)
        ));
    }
}
