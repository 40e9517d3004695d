//! Signing up: a new organisation with its first user as owner, and their own agents, in one
//! transaction. It stands above `auth` (users and memberships) and `ai_agent` (the agents a new
//! member gets), so that neither imports the other upward.
use crate::auth::entity::organization;
use crate::auth::model::Role;
use crate::auth::service::{first_run, insert_membership, insert_user, normalize_email};
use crate::error::{AppError, AppResult};
use crate::platform::access_config::SignUpMode;
use crate::platform::AppState;
use chrono::Utc;
use sea_orm::{ActiveModelTrait, ConnectionTrait, EntityTrait, QuerySelect, Set};
use uuid::Uuid;

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
        holding_reply: Set(None),
    }
    .insert(txn)
    .await?;
    let user_id = insert_user(txn, name, &normalize_email(email), hash, now).await?;
    insert_membership(txn, user_id, org_id, Role::Owner, now).await?;
    crate::ai_agent::service::clone_platform_agents_for_member(txn, user_id, org_id, now).await?;
    crate::saved_replies::service::insert_starters(txn, org_id, user_id, now).await?;
    Ok((org_id, user_id))
}

const SETUP_LOCK: i64 = 0x4845_5241_4c44_5355; // "HERALDSU"

/// Compares a given set-up token with the expected one in constant time.
fn same_token(expected: &str, given: &str) -> bool {
    use subtle::ConstantTimeEq;
    expected.as_bytes().ct_eq(given.trim().as_bytes()).into()
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
