//! Writing audit entries, inside the caller's transaction, so an act and its entry commit
//! together. (Reading them is `audit_log`, above the modules whose people and keys it names.)
use crate::audit::entity::audit_log;
use crate::audit::model::AuditAction;
use crate::error::AppResult;
use chrono::{DateTime, Utc};
use sea_orm::{ActiveModelTrait, ConnectionTrait, Set};
use uuid::Uuid;

/// One act of power, by whom, on what.
pub struct Entry<'a> {
    pub organization_id: Option<Uuid>,
    pub actor: Option<Uuid>,
    pub action: AuditAction,
    pub target: &'a str,
    pub detail: Option<String>,
}

pub async fn record<C: ConnectionTrait>(
    db: &C,
    entry: Entry<'_>,
    now: DateTime<Utc>,
) -> AppResult<()> {
    audit_log::ActiveModel {
        id: Set(Uuid::new_v4()),
        organization_id: Set(entry.organization_id),
        actor_user_id: Set(entry.actor),
        api_key_id: Set(None),
        action: Set(entry.action.as_str().to_owned()),
        target: Set(entry.target.chars().take(500).collect()),
        detail: Set(entry.detail),
        created_at: Set(now),
    }
    .insert(db)
    .await?;
    Ok(())
}

/// Who made a call with an API key: the key, its member, their organisation.
pub struct KeyCaller {
    pub organization_id: Uuid,
    pub user_id: Uuid,
    pub key_id: Uuid,
}

/// A call made with an API key: what it asked and how it was answered, by the key.
pub async fn record_api_call<C: ConnectionTrait>(
    db: &C,
    caller: KeyCaller,
    target: &str,
    status: u16,
    now: DateTime<Utc>,
) -> AppResult<()> {
    audit_log::ActiveModel {
        id: Set(Uuid::new_v4()),
        organization_id: Set(Some(caller.organization_id)),
        actor_user_id: Set(Some(caller.user_id)),
        api_key_id: Set(Some(caller.key_id)),
        action: Set(AuditAction::ApiCall.as_str().to_owned()),
        target: Set(target.chars().take(500).collect()),
        detail: Set(Some(format!("answered {status}"))),
        created_at: Set(now),
    }
    .insert(db)
    .await?;
    Ok(())
}
