//! A person's own API keys (issue 49 §9): the keys they made, in every organisation, listed with
//! their sessions; signing out everywhere offers to revoke them too, since a key keeps acting for
//! its maker after every session has ended. A person may revoke a key they made whatever their
//! role now; each revocation is audited in the key's organisation.
use crate::api_keys::entity::api_key;
use crate::audit::model::AuditAction;
use crate::audit::service::{record, Entry};
use crate::auth::entity::organization;
use crate::auth::model::MyApiKey;
use crate::auth::session::Member;
use crate::error::AppResult;
use crate::platform::AppState;
use sea_orm::sea_query::Expr;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QueryOrder};
use std::collections::HashMap;

/// The keys in force that this person made, newest first.
pub async fn list(state: &AppState, m: &Member) -> AppResult<Vec<MyApiKey>> {
    let keys = api_key::Entity::find()
        .filter(api_key::Column::CreatedBy.eq(m.user_id))
        .filter(api_key::Column::RevokedAt.is_null())
        .order_by_desc(api_key::Column::CreatedAt)
        .all(&state.db)
        .await?;
    let names: HashMap<uuid::Uuid, String> = organization::Entity::find()
        .filter(organization::Column::Id.is_in(keys.iter().map(|k| k.organization_id)))
        .all(&state.db)
        .await?
        .into_iter()
        .map(|o| (o.id, o.name))
        .collect();
    Ok(keys
        .into_iter()
        .map(|k| MyApiKey {
            organization_name: names.get(&k.organization_id).cloned().unwrap_or_default(),
            id: k.id,
            name: k.name,
            prefix: k.prefix,
            created_at: k.created_at,
            last_used_at: k.last_used_at,
        })
        .collect())
}

/// Revokes every key in force this person made; answers how many.
pub async fn revoke_all(state: &AppState, m: &Member) -> AppResult<u64> {
    let now = state.clock.now();
    let txn = crate::platform::db::begin_write(&state.db).await?;
    let keys = api_key::Entity::find()
        .filter(api_key::Column::CreatedBy.eq(m.user_id))
        .filter(api_key::Column::RevokedAt.is_null())
        .all(&txn)
        .await?;
    api_key::Entity::update_many()
        .col_expr(api_key::Column::RevokedAt, Expr::value(Some(now)))
        .filter(api_key::Column::Id.is_in(keys.iter().map(|k| k.id)))
        .exec(&txn)
        .await?;
    for k in &keys {
        record(
            &txn,
            Entry {
                organization_id: Some(k.organization_id),
                actor: Some(m.user_id),
                action: AuditAction::ApiKeyRevoked,
                target: &k.name,
                detail: Some("by its maker, signing out everywhere".into()),
            },
            now,
        )
        .await?;
    }
    txn.commit().await?;
    Ok(keys.len() as u64)
}
