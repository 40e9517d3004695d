//! Indexes for the segment tests "replied within N days" and "texted within N days": a range of
//! `(organization_id, last_inbound_at)` or `(organization_id, last_outbound_at)` on the
//! per-conversation rows, so a filter with no tag to narrow it reads only the recent
//! conversations instead of every conversation of the organisation.
use crate::index;
use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

const COLUMNS: [&str; 2] = ["last_inbound_at", "last_outbound_at"];

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for column in COLUMNS {
            manager
                .create_index(index("conversation", &["organization_id", column], false))
                .await?;
        }
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for column in COLUMNS {
            manager
                .drop_index(
                    Index::drop()
                        .name(format!("idx_conversation_organization_id_{column}"))
                        .table("conversation")
                        .to_owned(),
                )
                .await?;
        }
        Ok(())
    }
}
