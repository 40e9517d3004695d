//! Grounded replies (issue 52 §3): `message.cites` records the knowledge a reply used (its
//! sources, shown as "From: …"), and `organization.holding_reply` is what an agent says when the
//! knowledge does not answer (empty: Herald's own words).
use crate::add_column;
use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        add_column(manager, "message", json_null("cites")).await?;
        add_column(manager, "organization", text_null("holding_reply")).await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        crate::drop_column(manager, "organization", "holding_reply").await?;
        crate::drop_column(manager, "message", "cites").await
    }
}
