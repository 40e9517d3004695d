//! "Send later" (issue 53 §5): a scheduled text remembers the member who wrote it
//! (`scheduled_by`; none for an agent's or a plan's), so it leaves as a person's text.
use crate::add_column;
use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        add_column(manager, "scheduled_text", uuid_null("scheduled_by")).await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        crate::drop_column(manager, "scheduled_text", "scheduled_by").await
    }
}
