//! The record of merges (`contact_merge`, migration 41): which contact a merged id went into, so
//! old links still find the person.
use crate::error::AppResult;
use chrono::{DateTime, Utc};
use sea_orm::sea_query::Expr;
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, PaginatorTrait, QueryFilter, Set,
};
use uuid::Uuid;

/// The contact a merged contact's id went into, if it was merged.
pub async fn merged_into<C: ConnectionTrait>(
    db: &C,
    org: Uuid,
    id: Uuid,
) -> AppResult<Option<Uuid>> {
    Ok(merge_row::Entity::find_by_id(id)
        .filter(merge_row::Column::OrganizationId.eq(org))
        .one(db)
        .await?
        .map(|r| r.into_id))
}

/// How many contacts were merged into this one.
pub async fn merged_count<C: ConnectionTrait>(db: &C, org: Uuid, id: Uuid) -> AppResult<u64> {
    Ok(merge_row::Entity::find()
        .filter(merge_row::Column::OrganizationId.eq(org))
        .filter(merge_row::Column::IntoId.eq(id))
        .count(db)
        .await?)
}

/// Records the merge, and points earlier merges into the duplicate at the kept contact (they
/// would otherwise go with the duplicate's row).
pub(crate) async fn remember<C: ConnectionTrait>(
    db: &C,
    org: Uuid,
    dup: Uuid,
    keep: Uuid,
    by: Uuid,
    now: DateTime<Utc>,
) -> AppResult<()> {
    merge_row::Entity::update_many()
        .col_expr(merge_row::Column::IntoId, Expr::value(keep))
        .filter(merge_row::Column::OrganizationId.eq(org))
        .filter(merge_row::Column::IntoId.eq(dup))
        .exec(db)
        .await?;
    merge_row::ActiveModel {
        merged_id: Set(dup),
        organization_id: Set(org),
        into_id: Set(keep),
        merged_by: Set(Some(by)),
        merged_at: Set(now),
    }
    .insert(db)
    .await?;
    Ok(())
}

/// The `contact_merge` table (migration 41).
pub mod merge_row {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
    #[sea_orm(table_name = "contact_merge")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub merged_id: Uuid,
        pub organization_id: Uuid,
        pub into_id: Uuid,
        pub merged_by: Option<Uuid>,
        pub merged_at: DateTimeUtc,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

/// A merged contact's id leads to the contact it went into (a chain, if that one was merged in
/// turn); this many steps at most.
const MERGE_HOPS: usize = 8;

/// The contact with this id, or the one it was merged into; NotFound when neither is the
/// organisation's.
pub async fn resolve<C: ConnectionTrait>(db: &C, org: Uuid, id: Uuid) -> AppResult<Uuid> {
    let mut at = id;
    for _ in 0..MERGE_HOPS {
        if crate::contacts::service::find_in_org(db, org, at)
            .await
            .is_ok()
        {
            return Ok(at);
        }
        match merged_into(db, org, at).await? {
            Some(next) => at = next,
            None => break,
        }
    }
    Err(crate::error::AppError::not_found("Contact"))
}
