//! Connecting an organisation's provider account, and finding the credentials a send, a number
//! check or a webhook needs. Reads go through a short-lived cache (a webhook asks for every text).
use crate::audit::model::AuditAction;
use crate::audit::service::{record, Entry};
use crate::auth::session::Member;
use crate::error::{AppError, AppResult};
use crate::platform::config::TransportKind;
use crate::platform::sms::{ProviderAccount, TransportError};
use crate::platform::AppState;
use crate::provider_accounts::crypto::{open, seal};
use crate::provider_accounts::entity as provider_account;
use crate::provider_accounts::model::{
    masked, validate, ProviderAccountView, ProviderSettings, TwilioAccountInput,
};
use sea_orm::{ActiveModelTrait, ColumnTrait, EntityTrait, QueryFilter, Set};
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};
use uuid::Uuid;

/// How long a looked-up account is trusted (another instance's change shows within it).
const TTL: Duration = Duration::from_secs(2);

/// An organisation's opened credentials: for REST calls, and the token that signs its webhooks.
#[derive(Clone, Debug)]
pub struct Opened {
    pub rest: ProviderAccount,
    pub webhook_token: String,
}

type Cached = (Instant, Option<Opened>);

#[derive(Default)]
pub struct AccountCache(Mutex<HashMap<Uuid, Cached>>);

impl AccountCache {
    fn get(&self, org: Uuid) -> Option<Option<Opened>> {
        let map = self.0.lock().unwrap_or_else(|e| e.into_inner());
        map.get(&org)
            .filter(|(at, _)| at.elapsed() < TTL)
            .map(|(_, v)| v.clone())
    }
    fn put(&self, org: Uuid, v: Option<Opened>) {
        let mut map = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if map.len() > 10_000 {
            map.clear();
        }
        map.insert(org, (Instant::now(), v));
    }
    pub fn forget(&self, org: Uuid) {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&org);
    }
}

/// The organisation's own account, opened, if it connected one.
pub async fn opened(state: &AppState, org: Uuid) -> AppResult<Option<Opened>> {
    if let Some(hit) = state.accounts().get(org) {
        return Ok(hit);
    }
    let row = provider_account::Entity::find()
        .filter(provider_account::Column::OrganizationId.eq(org))
        .one(&state.db)
        .await?;
    let key = state.config.secret_key.as_ref();
    let opened = match row {
        None => None,
        Some(r) => {
            let token = open(key, org, &r.auth_token_sealed).map_err(|e| {
                tracing::error!(%org, error = %e, "provider credentials do not open");
                AppError::Internal(e.to_string())
            })?;
            let rest = match (&r.api_key_sid, &r.api_key_secret_sealed) {
                (Some(sid), Some(sealed)) => ProviderAccount {
                    account_sid: r.account_sid.clone(),
                    username: sid.clone(),
                    password: open(key, org, sealed)
                        .map_err(|e| AppError::Internal(e.to_string()))?,
                },
                _ => ProviderAccount {
                    account_sid: r.account_sid.clone(),
                    username: r.account_sid.clone(),
                    password: token.clone(),
                },
            };
            Some(Opened {
                rest,
                webhook_token: token,
            })
        }
    };
    state.accounts().put(org, opened.clone());
    Ok(opened)
}

/// The account a send or number check of this organisation uses: its own; else the server's from
/// the environment, only where the operator lends it (`SHARE_OPERATOR_ACCOUNT`: by default on a
/// developer's single-organisation install, off in production and on an open service).
pub async fn account_for(state: &AppState, org: Uuid) -> AppResult<Option<ProviderAccount>> {
    if let Some(o) = opened(state, org).await? {
        return Ok(Some(o.rest));
    }
    if state.config.transport == TransportKind::Twilio && !state.config.share_operator_account {
        return Err(AppError::Validation(
            "Connect your organisation's Twilio account first (Settings → Twilio account): on \
             this Herald each organisation texts through its own account."
                .into(),
        ));
    }
    Ok(None)
}

pub async fn settings(state: &AppState, m: &Member) -> AppResult<ProviderSettings> {
    let row = provider_account::Entity::find()
        .filter(provider_account::Column::OrganizationId.eq(m.organization_id))
        .one(&state.db)
        .await?;
    let connected = match row {
        None => None,
        Some(r) => {
            let by = crate::auth::entity::user::Entity::find_by_id(r.connected_by)
                .one(&state.db)
                .await?
                .map(|u| u.name)
                .unwrap_or_else(|| "A former member".into());
            Some(ProviderAccountView {
                account: masked(&r.account_sid),
                rest_auth: match &r.api_key_sid {
                    Some(k) => format!("API key {}", masked(k)),
                    None => "Auth Token".into(),
                },
                connected_by: by,
                updated_at: r.updated_at,
            })
        }
    };
    Ok(ProviderSettings {
        transport: match state.config.transport {
            TransportKind::Twilio => "twilio".into(),
            TransportKind::Outbox => "outbox".into(),
        },
        connected,
        can_connect: state.config.secret_key.is_some(),
    })
}

/// Connects (or replaces) the organisation's Twilio account, after Twilio accepts it.
#[tracing::instrument(skip(state, input))]
pub async fn connect(
    state: &AppState,
    owner: &Member,
    input: &TwilioAccountInput,
) -> AppResult<ProviderSettings> {
    owner.require_owner()?;
    validate(input).map_err(AppError::Validation)?;
    let key = state.config.secret_key.as_ref().ok_or_else(|| {
        AppError::Validation(
            "This server cannot store credentials: its operator must set HERALD_SECRET_KEY.".into(),
        )
    })?;
    let org = owner.organization_id;
    let account_sid = input.account_sid.trim().to_owned();
    let api_key = Some(input.api_key_sid.trim()).filter(|k| !k.is_empty());
    let rest = ProviderAccount {
        account_sid: account_sid.clone(),
        username: api_key.unwrap_or(&account_sid).to_owned(),
        password: match api_key {
            Some(_) => input.api_key_secret.trim().to_owned(),
            None => input.auth_token.trim().to_owned(),
        },
    };
    state
        .transport
        .check_account(&rest)
        .await
        .map_err(|e| match e {
            TransportError::Rejected(m) => AppError::Validation(format!("Not connected: {m}.")),
            other => AppError::Validation(format!("Could not reach Twilio to check: {other}")),
        })?;
    let seal_err =
        |e: crate::provider_accounts::crypto::SealError| AppError::Internal(e.to_string());
    let token = seal(Some(key), org, input.auth_token.trim()).map_err(seal_err)?;
    let secret = match api_key {
        Some(_) => Some(seal(Some(key), org, input.api_key_secret.trim()).map_err(seal_err)?),
        None => None,
    };
    let now = state.clock.now();
    let txn = crate::platform::db::begin_write(&state.db).await?;
    let existing = provider_account::Entity::find()
        .filter(provider_account::Column::OrganizationId.eq(org))
        .one(&txn)
        .await?;
    let replaced = existing.is_some();
    let fill = |mut am: provider_account::ActiveModel| {
        am.account_sid = Set(account_sid.clone());
        am.auth_token_sealed = Set(token.clone());
        am.api_key_sid = Set(api_key.map(str::to_owned));
        am.api_key_secret_sealed = Set(secret.clone());
        am.connected_by = Set(owner.user_id);
        am.updated_at = Set(now);
        am
    };
    match existing {
        Some(row) => {
            fill(row.into()).update(&txn).await?;
        }
        None => {
            fill(provider_account::ActiveModel {
                id: Set(Uuid::new_v4()),
                organization_id: Set(org),
                provider: Set("twilio".into()),
                created_at: Set(now),
                ..Default::default()
            })
            .insert(&txn)
            .await?;
        }
    }
    record(
        &txn,
        Entry {
            organization_id: Some(org),
            actor: Some(owner.user_id),
            action: AuditAction::CredentialsConnected,
            target: &format!("Twilio account {}", masked(&account_sid)),
            detail: Some(if replaced { "replaced" } else { "connected" }.into()),
        },
        now,
    )
    .await?;
    txn.commit().await?;
    state.accounts().forget(org);
    settings(state, owner).await
}

impl crate::platform::AppState {
    /// Organisations' provider accounts, opened.
    pub fn accounts(&self) -> &AccountCache {
        self.part::<std::sync::Arc<AccountCache>>()
    }
}
