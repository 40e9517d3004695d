//! The organisation's rules: instructions every agent of the organisation follows, read by the
//! org-rules tier of the system prompt and edited by the owner on the settings page.
use crate::{add_column, drop_column};
use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        add_column(manager, "organization", text_null("rules")).await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        drop_column(manager, "organization", "rules").await
    }
}
