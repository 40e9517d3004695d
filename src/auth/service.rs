//! Creating organisations, users and memberships, and checking credentials.
use crate::auth::entity::{membership, organization, user};
use crate::auth::model::{CurrentUser, MemberView, OrganizationChoice, Role, SignUpState};
use crate::auth::password::hash_password;
use crate::auth::session::Member;
use crate::error::{AppError, AppResult};
use crate::platform::access_config::SignUpMode;
use crate::platform::AppState;
use chrono::Utc;
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder,
    QuerySelect, Set,
};
use uuid::Uuid;

pub fn normalize_email(email: &str) -> String {
    email.trim().to_lowercase()
}

/// Creates an organisation with its first user as owner, in one transaction.
#[tracing::instrument(skip(state, password))]
pub async fn create_organization_with_owner(
    state: &AppState,
    organization_name: &str,
    name: &str,
    email: &str,
    password: &str,
    setup_token: Option<&str>,
) -> AppResult<(Uuid, Uuid)> {
    let email = normalize_email(email);
    let org_name = organization_name.trim();
    if org_name.is_empty() {
        return Err(AppError::validation("Give the organisation a name."));
    }
    if let Some(expected) = &state.config.setup_token {
        if first_run(state).await? && !same_token(expected, setup_token.unwrap_or_default()) {
            return Err(AppError::NotPermitted(
                "Setting up this Herald needs its one-time set-up token: it is printed in the \
                 server's log at start-up (or set as HERALD_SETUP_TOKEN). The operator can also \
                 create the owner with `herald admin create-owner`."
                    .into(),
            ));
        }
    }
    let invite_only = state.config.sign_up == SignUpMode::Invite;
    if invite_only && !first_run(state).await? {
        return Err(refuse_sign_up(state, &email).await);
    }
    let hash = state.hashing().hash(password).await?;
    let txn = crate::platform::db::begin_write(&state.db).await?;
    if invite_only {
        // Two first visitors at once: one sets Herald up, the other is refused.
        crate::platform::db::advisory_xact_lock(&txn, SETUP_LOCK).await?;
        if organization::Entity::find().one(&txn).await?.is_some() {
            drop(txn);
            return Err(refuse_sign_up(state, &email).await);
        }
    }
    let (org_id, user_id) =
        insert_organization_with_owner(&txn, org_name, name, &email, hash, state.clock.now())
            .await?;
    txn.commit().await?;
    Ok((org_id, user_id))
}

/// A new organisation with its first user as owner (and their own agents), in the caller's
/// transaction; `hash` is the password's Argon2 hash. Answers (organisation, user).
pub async fn insert_organization_with_owner<C: ConnectionTrait>(
    txn: &C,
    organization_name: &str,
    name: &str,
    email: &str,
    hash: String,
    now: chrono::DateTime<Utc>,
) -> AppResult<(Uuid, Uuid)> {
    let org_name = organization_name.trim();
    if org_name.is_empty() {
        return Err(AppError::validation("Give the organisation a name."));
    }
    let org_id = Uuid::new_v4();
    use organization as defaults;
    organization::ActiveModel {
        id: Set(org_id),
        name: Set(org_name.to_owned()),
        time_zone: Set("UTC".into()),
        created_at: Set(now),
        rules: Set(None),
        help_text: Set(None),
        opt_out_reply: Set(None),
        ai_disclosure: Set(true),
        ai_disclosure_text: Set(None),
        opt_out_phrases: Set(None),
        ai_pause_minutes: Set(defaults::AI_PAUSE_MINUTES_DEFAULT),
        pause_filtered_pct: Set(defaults::FILTERED_PCT_DEFAULT),
        pause_undelivered_pct: Set(defaults::UNDELIVERED_PCT_DEFAULT),
        business_days: Set(defaults::DAYS_DEFAULT.into()),
        business_open: Set(defaults::OPEN_DEFAULT),
        business_close: Set(defaults::CLOSE_DEFAULT),
        api_tat_ms: Set(0),
        short_link_domains: Set(None),
    }
    .insert(txn)
    .await?;
    let user_id = insert_user(txn, name, &normalize_email(email), hash, now).await?;
    insert_membership(txn, user_id, org_id, Role::Owner, now).await?;
    crate::ai_agent::service::clone_platform_agents_for_member(txn, user_id, org_id, now).await?;
    Ok((org_id, user_id))
}

const SETUP_LOCK: i64 = 0x4845_5241_4c44_5355; // "HERALDSU"

/// Compares a given set-up token with the expected one in constant time.
fn same_token(expected: &str, given: &str) -> bool {
    use subtle::ConstantTimeEq;
    expected.as_bytes().ct_eq(given.trim().as_bytes()).into()
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

/// The refusal an invite-only instance gives a sign-up. It goes in an organisation's audit log
/// only when the instance has exactly that one organisation (its owners are the operators);
/// with several, it belongs to none of them: kept as the server's own entry, which no
/// organisation's log shows, and written to the server's log.
async fn refuse_sign_up(state: &AppState, email: &str) -> AppError {
    let orgs = organization::Entity::find()
        .limit(2)
        .all(&state.db)
        .await
        .unwrap_or_default();
    let sole = match orgs.as_slice() {
        [only] => Some(only.id),
        _ => None,
    };
    if sole.is_none() {
        tracing::warn!(
            email,
            from = %crate::auth::session::client_address(state),
            "sign-up refused (invitation only)"
        );
    }
    let entry = crate::audit::service::Entry {
        organization_id: sole,
        actor: None,
        action: crate::audit::model::AuditAction::SignUpRefused,
        target: email,
        detail: Some(format!(
            "from {}",
            crate::auth::session::client_address(state)
        )),
    };
    if let Err(e) = crate::audit::service::record(&state.db, entry, state.clock.now()).await {
        tracing::warn!(error = %e, "refused sign-up not audited");
    }
    AppError::NotPermitted(
        "Sign-up is by invitation on this Herald. Ask an owner of your organisation for an \
         invitation link."
            .into(),
    )
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
