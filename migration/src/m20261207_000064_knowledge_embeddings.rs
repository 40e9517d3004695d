//! Knowledge passages' embeddings (issue 52 §2): one vector per passage, for the embedding model
//! that made it (`model`, its label; a change of model re-embeds), as little-endian `f32`s. Kept
//! beside the passage and gone with it; scoped by organisation like the passage.
use crate::{fk, index};
use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

const TABLE: &str = "knowledge_embedding";

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(TABLE)
                    .col(uuid("passage_id").primary_key())
                    .col(uuid("organization_id"))
                    .col(string_len("model", 255))
                    .col(blob("vector"))
                    .col(timestamp_with_time_zone("created_at"))
                    .foreign_key(&mut fk(
                        TABLE,
                        "passage_id",
                        "knowledge_passage",
                        ForeignKeyAction::Cascade,
                    ))
                    .foreign_key(&mut fk(
                        TABLE,
                        "organization_id",
                        "organization",
                        ForeignKeyAction::Cascade,
                    ))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(index(TABLE, &["organization_id", "model"], false))
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table(TABLE).to_owned())
            .await
    }
}
