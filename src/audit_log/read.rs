//! Reading the audit log a page at a time, with each entry's actor named: a member, a former
//! member, or an API key.
use crate::api_keys::entity::api_key;
use crate::audit::entity::audit_log;
use crate::audit::model::{AuditAction, AuditCursor, AuditEntryView, AuditPage, AUDIT_PAGE};
use crate::auth::entity::user;
use crate::auth::session::Member;
use crate::error::AppResult;
use crate::platform::keyset::newest_first;
use crate::platform::AppState;
use sea_orm::{ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter};
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
    let q = audit_log::Entity::find().filter(scope);
    let order = (audit_log::Column::CreatedAt, audit_log::Column::Id);
    let after = before.map(|c| (c.at, c.id));
    let page = newest_first(&state.db, q, order, after, AUDIT_PAGE).await?;
    let next = page.next(|r| AuditCursor {
        at: r.created_at,
        id: r.id,
    });
    let rows = page.rows;
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
