//! API keys: an owner creates, lists and revokes them; the public API authenticates each call
//! with one, under the key's rate limit (a GCRA cell advanced by one conditional UPDATE, so every
//! instance shares the limit) and with the standing of the owner who made it.
use crate::api_keys::entity::api_key;
use crate::api_keys::model::{
    ApiKeyCreated, ApiKeyCursor, ApiKeyPage, ApiKeyView, KEY_PAGE, NAME_MAX, SCOPES,
};
use crate::audit::model::AuditAction;
use crate::audit::service::{record, Entry};
use crate::auth::session::Member;
use crate::auth::tokens::{hash_token, new_token};
use crate::error::{AppError, AppResult};
use crate::platform::AppState;
use chrono::{DateTime, Utc};
use sea_orm::sea_query::{CaseStatement, Expr};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter, QuerySelect, Set,
};
use uuid::Uuid;

/// What every key starts with, so that a leaked one is easy to recognise (and to scan for).
pub const KEY_PREFIX: &str = "herald_";

/// A key's rate limit: requests a second, and how many may come at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rate {
    pub per_second: u32,
    pub burst: u32,
}

impl Default for Rate {
    fn default() -> Self {
        Self {
            per_second: 10,
            burst: 50,
        }
    }
}

impl Rate {
    /// The default, or the owner's choice within bounds.
    pub fn chosen(per_second: Option<u32>, burst: Option<u32>) -> AppResult<Self> {
        let d = Self::default();
        let rate = Self {
            per_second: per_second.unwrap_or(d.per_second),
            burst: burst.unwrap_or(d.burst),
        };
        if !(1..=1000).contains(&rate.per_second) || !(1..=10_000).contains(&rate.burst) {
            return Err(AppError::validation(
                "A key's rate is 1 to 1,000 requests a second, with bursts of 1 to 10,000.",
            ));
        }
        Ok(rate)
    }

    /// Milliseconds between requests at the steady rate.
    fn interval_ms(self) -> i64 {
        (1000 / self.per_second.max(1) as i64).max(1)
    }

    /// How far ahead of now the cell may run before a request waits.
    fn tolerance_ms(self) -> i64 {
        self.interval_ms() * (self.burst.max(1) as i64 - 1)
    }
}

pub fn to_view(k: api_key::Model) -> ApiKeyView {
    ApiKeyView {
        id: k.id,
        name: k.name,
        scopes: k.scopes.split_whitespace().map(str::to_owned).collect(),
        prefix: k.prefix,
        created_at: k.created_at,
        last_used_at: k.last_used_at,
        revoked_at: k.revoked_at,
        rate_per_second: k.rate_per_second.max(0) as u32,
        burst: k.burst.max(0) as u32,
        reads: k.reads.max(0) as u64,
    }
}

/// The scopes as stored: known ones only, each once, in the catalogue's order.
pub fn clean_scopes(scopes: &[String]) -> AppResult<String> {
    if let Some(bad) = scopes.iter().find(|s| !SCOPES.contains(&s.trim())) {
        return Err(AppError::Validation(format!(
            "\"{bad}\" is not a scope. The scopes are: {}.",
            SCOPES.join(", ")
        )));
    }
    let chosen: Vec<&str> = SCOPES
        .into_iter()
        .filter(|s| scopes.iter().any(|c| c.trim() == *s))
        .collect();
    if chosen.is_empty() {
        return Err(AppError::validation(
            "Choose at least one scope for the key.",
        ));
    }
    Ok(chosen.join(" "))
}

pub async fn create(
    state: &AppState,
    owner: &Member,
    name: &str,
    scopes: &[String],
    rate: Rate,
) -> AppResult<ApiKeyCreated> {
    owner.require_owner()?;
    let name = name.trim();
    if name.is_empty() || name.chars().count() > NAME_MAX {
        return Err(AppError::Validation(format!(
            "A key needs a name of 1 to {NAME_MAX} characters, such as \"Zapier\"."
        )));
    }
    let scopes = clean_scopes(scopes)?;
    let held = api_key::Entity::find()
        .filter(api_key::Column::OrganizationId.eq(owner.organization_id))
        .filter(api_key::Column::RevokedAt.is_null())
        .count(&state.db)
        .await?;
    let limit = state.config.limits.api_keys;
    if held >= limit {
        return Err(AppError::Validation(format!(
            "An organisation holds at most {limit} API keys: revoke one it no longer uses first."
        )));
    }
    let (secret, _) = new_token();
    let token = format!("{KEY_PREFIX}{secret}");
    let now = state.clock.now();
    let row = api_key::ActiveModel {
        id: Set(Uuid::new_v4()),
        organization_id: Set(owner.organization_id),
        name: Set(name.to_owned()),
        scopes: Set(scopes.clone()),
        token_hash: Set(hash_token(&token)),
        prefix: Set(token.chars().take(KEY_PREFIX.len() + 6).collect()),
        created_by: Set(owner.user_id),
        created_at: Set(now),
        last_used_at: Set(None),
        revoked_at: Set(None),
        rate_per_second: Set(rate.per_second as i32),
        burst: Set(rate.burst as i32),
        tat_ms: Set(0),
        reads: Set(0),
    };
    let txn = crate::platform::db::begin_write(&state.db).await?;
    let row = row.insert(&txn).await?;
    record(
        &txn,
        Entry {
            organization_id: Some(owner.organization_id),
            actor: Some(owner.user_id),
            action: AuditAction::ApiKeyCreated,
            target: name,
            detail: Some(format!("scopes {scopes}")),
        },
        now,
    )
    .await?;
    txn.commit().await?;
    tracing::info!(org = %owner.organization_id, key = %row.id, "API key created");
    Ok(ApiKeyCreated {
        key: to_view(row),
        token,
    })
}

pub async fn list(
    state: &AppState,
    owner: &Member,
    before: Option<ApiKeyCursor>,
) -> AppResult<ApiKeyPage> {
    owner.require_owner()?;
    let scope = api_key::Column::OrganizationId.eq(owner.organization_id);
    let total = api_key::Entity::find()
        .filter(scope.clone())
        .count(&state.db)
        .await?;
    let q = api_key::Entity::find().filter(scope);
    let order = (api_key::Column::CreatedAt, api_key::Column::Id);
    let after = before.map(|c| (c.at, c.id));
    let page = crate::platform::keyset::newest_first(&state.db, q, order, after, KEY_PAGE).await?;
    let next = page.next(|r| ApiKeyCursor {
        at: r.created_at,
        id: r.id,
    });
    Ok(ApiKeyPage {
        keys: page.rows.into_iter().map(to_view).collect(),
        total,
        next,
    })
}

pub async fn revoke(state: &AppState, owner: &Member, id: Uuid) -> AppResult<ApiKeyView> {
    owner.require_owner()?;
    let now = state.clock.now();
    let txn = crate::platform::db::begin_write(&state.db).await?;
    let row = api_key::Entity::find_by_id(id)
        .filter(api_key::Column::OrganizationId.eq(owner.organization_id))
        .one(&txn)
        .await?
        .ok_or_else(|| AppError::not_found("That API key"))?;
    if row.revoked_at.is_some() {
        return Ok(to_view(row));
    }
    let name = row.name.clone();
    let mut active: api_key::ActiveModel = row.into();
    active.revoked_at = Set(Some(now));
    let row = active.update(&txn).await?;
    record(
        &txn,
        Entry {
            organization_id: Some(owner.organization_id),
            actor: Some(owner.user_id),
            action: AuditAction::ApiKeyRevoked,
            target: &name,
            detail: None,
        },
        now,
    )
    .await?;
    txn.commit().await?;
    Ok(to_view(row))
}

/// A call's key, and the member it acts as.
#[derive(Clone, Debug)]
pub struct Caller {
    pub key_id: Uuid,
    pub key_name: String,
    pub scopes: Vec<String>,
    pub member: Member,
}

impl Caller {
    pub fn has(&self, scope: &str) -> bool {
        self.scopes.iter().any(|s| s == scope)
    }
}

/// Why a key was not let in. Neither says more than its status.
#[derive(Debug, PartialEq, Eq)]
pub enum Refusal {
    /// No such key, revoked, or its owner is no longer a member.
    Unknown,
    /// Over the key's rate: try again after this many seconds.
    Limited(u64),
}

/// The key in `token`, if it may make a call now; the call is counted against its rate and
/// becomes its last use. A read (`read`) is counted on the key in the same write; writes are
/// audited one by one by the caller (issue 49 §6).
pub async fn authenticate(
    state: &AppState,
    token: &str,
    read: bool,
) -> AppResult<Result<Caller, Refusal>> {
    let token = token.trim();
    if !token.starts_with(KEY_PREFIX) {
        return Ok(Err(Refusal::Unknown));
    }
    let Some(key) = api_key::Entity::find()
        .filter(api_key::Column::TokenHash.eq(hash_token(token)))
        .one(&state.db)
        .await?
    else {
        return Ok(Err(Refusal::Unknown));
    };
    if key.revoked_at.is_some() {
        return Ok(Err(Refusal::Unknown));
    }
    let member =
        match crate::auth::session::member_for(state, key.created_by, key.organization_id).await {
            Ok(m) => m,
            Err(AppError::Unauthorized) => return Ok(Err(Refusal::Unknown)),
            Err(e) => return Err(e),
        };
    if let Err(wait) = take_turn(state, &key, state.clock.now(), read).await? {
        return Ok(Err(wait));
    }
    // The organisation's own limit, across all its keys.
    if let Err(wait) = take_org_turn(state, key.organization_id, state.clock.now()).await? {
        return Ok(Err(wait));
    }
    Ok(Ok(Caller {
        key_id: key.id,
        key_name: key.name,
        scopes: key.scopes.split_whitespace().map(str::to_owned).collect(),
        member,
    }))
}

/// Advances the key's cell if a request is allowed now (GCRA: the theoretical arrival time may run
/// at most the burst's tolerance ahead of now), in one statement every instance shares.
async fn take_turn(
    state: &AppState,
    key: &api_key::Model,
    now: DateTime<Utc>,
    read: bool,
) -> AppResult<Result<(), Refusal>> {
    let rate = Rate {
        per_second: Ord::max(key.rate_per_second, 1) as u32,
        burst: Ord::max(key.burst, 1) as u32,
    };
    let now_ms = now.timestamp_millis();
    use sea_orm::sea_query::ExprTrait;
    // The cell as it stands now: its arrival time, or now if that has passed.
    let start = || -> Expr {
        CaseStatement::new()
            .case(
                api_key::Column::TatMs.gt(now_ms),
                Expr::col(api_key::Column::TatMs),
            )
            .finally(Expr::val(now_ms))
            .into()
    };
    let txn = crate::platform::db::begin_write(&state.db).await?;
    let done = api_key::Entity::update_many()
        .col_expr(api_key::Column::TatMs, start().add(rate.interval_ms()))
        .col_expr(api_key::Column::LastUsedAt, Expr::value(now))
        .col_expr(
            api_key::Column::Reads,
            Expr::col(api_key::Column::Reads).add(i64::from(read)),
        )
        .filter(api_key::Column::Id.eq(key.id))
        .filter(api_key::Column::RevokedAt.is_null())
        .filter(start().sub(now_ms).lte(rate.tolerance_ms()))
        .exec(&txn)
        .await?;
    txn.commit().await?;
    if done.rows_affected == 1 {
        return Ok(Ok(()));
    }
    let Some(row) = api_key::Entity::find_by_id(key.id).one(&state.db).await? else {
        return Ok(Err(Refusal::Unknown));
    };
    if row.revoked_at.is_some() {
        return Ok(Err(Refusal::Unknown));
    }
    let ahead = Ord::max(row.tat_ms, now_ms) - now_ms - rate.tolerance_ms();
    Ok(Err(Refusal::Limited(
        (Ord::max(ahead, 1) as u64).div_ceil(1000),
    )))
}

/// Advances the organisation's cell (`organization.api_tat_ms`) if its keys together may make a
/// request now, as `take_turn` does for one key.
async fn take_org_turn(
    state: &AppState,
    org: Uuid,
    now: DateTime<Utc>,
) -> AppResult<Result<(), Refusal>> {
    use crate::auth::entity::organization;
    use sea_orm::sea_query::ExprTrait;
    let limits = &state.config.limits;
    let rate = Rate {
        per_second: Ord::max(limits.api_rate_per_second, 1),
        burst: Ord::max(limits.api_burst, 1),
    };
    let now_ms = now.timestamp_millis();
    let start = || -> Expr {
        CaseStatement::new()
            .case(
                organization::Column::ApiTatMs.gt(now_ms),
                Expr::col(organization::Column::ApiTatMs),
            )
            .finally(Expr::val(now_ms))
            .into()
    };
    let done = organization::Entity::update_many()
        .col_expr(
            organization::Column::ApiTatMs,
            start().add(rate.interval_ms()),
        )
        .filter(organization::Column::Id.eq(org))
        .filter(start().sub(now_ms).lte(rate.tolerance_ms()))
        .exec(&state.db)
        .await?;
    if done.rows_affected == 1 {
        return Ok(Ok(()));
    }
    let tat: Option<i64> = organization::Entity::find_by_id(org)
        .select_only()
        .column(organization::Column::ApiTatMs)
        .into_tuple()
        .one(&state.db)
        .await?;
    let ahead = Ord::max(tat.unwrap_or(now_ms), now_ms) - now_ms - rate.tolerance_ms();
    Ok(Err(Refusal::Limited(
        (Ord::max(ahead, 1) as u64).div_ceil(1000),
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scopes_are_known_once_and_in_order() {
        let s = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            clean_scopes(&s(&["messages:send", "contacts:read", "messages:send"])).unwrap(),
            "contacts:read messages:send"
        );
        assert!(clean_scopes(&s(&["admin"])).is_err());
        assert!(clean_scopes(&[]).is_err());
    }

    #[test]
    fn the_default_rate_is_ten_a_second_with_bursts_of_fifty() {
        let r = Rate::default();
        assert_eq!((r.interval_ms(), r.tolerance_ms()), (100, 4900));
        assert!(Rate::chosen(Some(0), None).is_err());
        assert!(Rate::chosen(None, Some(10_001)).is_err());
        assert_eq!(Rate::chosen(Some(2), Some(3)).unwrap().tolerance_ms(), 1000);
    }
}
