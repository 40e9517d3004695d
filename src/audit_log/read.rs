//! Reading the audit log a page at a time, with each entry's actor named: a member, a former
//! member, or an API key.
use crate::api_keys::entity::api_key;
use crate::audit::entity::audit_log;
use crate::audit::model::{AuditAction, AuditCursor, AuditEntryView, AuditPage, AUDIT_PAGE};
use crate::auth::entity::user;
use crate::auth::session::Member;
use crate::error::AppResult;
use crate::platform::AppState;
use sea_orm::{
    ColumnTrait, Condition, EntityTrait, PaginatorTrait, QueryFilter, QueryOrder, QuerySelect,
};
use std::collections::HashMap;
use uuid::Uuid;

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
