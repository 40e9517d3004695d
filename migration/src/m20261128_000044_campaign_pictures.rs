//! Pictures in campaigns (issue 28 §3): an upload attached to a campaign (`operation_id`) is the
//! picture every one of its texts carries. It stays with the campaign (the unsent-upload sweep
//! leaves it), and no composer can take it.
use crate::{add_column, index};
use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        add_column(manager, "media_upload", uuid_null("operation_id")).await?;
        manager
            .create_index(index("media_upload", &["operation_id"], false))
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_index(
                Index::drop()
                    .name("idx_media_upload_operation_id")
                    .table("media_upload")
                    .to_owned(),
            )
            .await?;
        crate::drop_column(manager, "media_upload", "operation_id").await
    }
}
