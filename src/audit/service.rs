//! Writing audit entries (inside the caller's transaction, so an act and its entry commit
//! together) and reading them a page at a time.
use crate::api_keys::entity::api_key;
use crate::audit::entity::audit_log;
use crate::audit::model::{AuditAction, AuditCursor, AuditEntryView, AuditPage, AUDIT_PAGE};
use crate::auth::entity::user;
use crate::auth::session::Member;
use crate::error::AppResult;
use crate::platform::AppState;
use chrono::{DateTime, Utc};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, Condition, ConnectionTrait, EntityTrait, PaginatorTrait,
    QueryFilter, QueryOrder, QuerySelect, Set,
};
use std::collections::HashMap;
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

/// A call made with an API key: what it asked and how it was answered, by the key.
pub async fn record_api_call<C: ConnectionTrait>(
    db: &C,
    caller: &crate::api_keys::service::Caller,
    target: &str,
    status: u16,
    now: DateTime<Utc>,
) -> AppResult<()> {
    audit_log::ActiveModel {
        id: Set(Uuid::new_v4()),
        organization_id: Set(Some(caller.member.organization_id)),
        actor_user_id: Set(Some(caller.member.user_id)),
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

/// The organisation's log, newest first, for owners: its own entries only. The server's own
/// entries (refused sign-ups on an instance of several organisations) show to nobody.
pub async fn page(
    state: &AppState,
    member: &Member,
    before: Option<AuditCursor>,
) -> AppResult<AuditPage> {
    member.require_owner()?;
    let scope = audit_log::Column::OrganizationId.eq(member.organization_id);
    let total = audit_log::Entity::find()
        .filter(scope.clone())
        .count(&state.db)
        .await?;
    let mut q = audit_log::Entity::find().filter(scope);
    if let Some(c) = &before {
        q = q.filter(
            Condition::any()
                .add(audit_log::Column::CreatedAt.lt(c.at))
                .add(
                    Condition::all()
                        .add(audit_log::Column::CreatedAt.eq(c.at))
                        .add(audit_log::Column::Id.lt(c.id)),
                ),
        );
    }
    let mut rows = q
        .order_by_desc(audit_log::Column::CreatedAt)
        .order_by_desc(audit_log::Column::Id)
        .limit(AUDIT_PAGE + 1)
        .all(&state.db)
        .await?;
    let more = rows.len() as u64 > AUDIT_PAGE;
    rows.truncate(AUDIT_PAGE as usize);
    let actors: Vec<Uuid> = rows.iter().filter_map(|r| r.actor_user_id).collect();
    let key_ids: Vec<Uuid> = rows.iter().filter_map(|r| r.api_key_id).collect();
    let keys: HashMap<Uuid, String> = if key_ids.is_empty() {
        HashMap::new()
    } else {
        api_key::Entity::find()
            .filter(api_key::Column::Id.is_in(key_ids))
            .all(&state.db)
            .await?
            .into_iter()
            .map(|k| (k.id, k.name))
            .collect()
    };
    let names: HashMap<Uuid, String> = user::Entity::find()
        .filter(user::Column::Id.is_in(actors))
        .all(&state.db)
        .await?
        .into_iter()
        .map(|u| (u.id, u.name))
        .collect();
    let next = more
        .then(|| {
            rows.last().map(|r| AuditCursor {
                at: r.created_at,
                id: r.id,
            })
        })
        .flatten();
    let entries = rows
        .into_iter()
        .map(|r| AuditEntryView {
            id: r.id,
            at: r.created_at,
            actor: match r.api_key_id {
                Some(k) => Some(format!(
                    "API key \"{}\"",
                    keys.get(&k).map(String::as_str).unwrap_or("deleted")
                )),
                None => r.actor_user_id.map(|a| {
                    names
                        .get(&a)
                        .cloned()
                        .unwrap_or_else(|| "A former member".into())
                }),
            },
            label: AuditAction::parse(&r.action)
                .map(|a| a.label().to_owned())
                .unwrap_or_else(|| r.action.clone()),
            action: r.action,
            target: r.target,
            detail: r.detail,
        })
        .collect();
    Ok(AuditPage {
        entries,
        total,
        next,
    })
}
