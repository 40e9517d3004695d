//! An organisation's owners: the people told of what only owners can fix, and how many there are.
use crate::auth::entity::membership;
use crate::auth::model::Role;
use crate::error::AppResult;
use sea_orm::{
    ColumnTrait, ConnectionTrait, EntityTrait, PaginatorTrait, QueryFilter, QuerySelect,
};
use uuid::Uuid;

/// The organisation's owners' user ids (the people told of what only owners can fix).
pub async fn owner_ids<C: ConnectionTrait>(db: &C, org: Uuid) -> AppResult<Vec<Uuid>> {
    Ok(membership::Entity::find()
        .select_only()
        .column(membership::Column::UserId)
        .filter(membership::Column::OrganizationId.eq(org))
        .filter(membership::Column::Role.eq(Role::Owner.as_str()))
        .into_tuple()
        .all(db)
        .await?)
}

/// How many owners the organisation has (the last one stays an owner).
pub async fn owners<C: ConnectionTrait>(db: &C, org: Uuid) -> AppResult<u64> {
    Ok(membership::Entity::find()
        .filter(membership::Column::OrganizationId.eq(org))
        .filter(membership::Column::Role.eq(Role::Owner.as_str()))
        .count(db)
        .await?)
}
