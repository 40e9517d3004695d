//! Imports that map any export (issue 51 §4). `contact_field`: an organisation's custom fields
//! with their types (text, number, date, yes/no), so that a date is read as a date later.
//! `contact_import`: an import under way, a chunk at a time; each chunk commits with its progress,
//! so a stopped import resumes at the next row and a chunk sent twice counts once. The refused
//! rows are kept, with their reasons, as the CSV a person downloads.
use crate::fk;
use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table("contact_field")
                    .col(uuid("organization_id"))
                    .col(string_len("name", 64))
                    .col(string_len("kind", 16))
                    .col(timestamp_with_time_zone("created_at"))
                    .primary_key(Index::create().col("organization_id").col("name"))
                    .foreign_key(&mut fk(
                        "contact_field",
                        "organization_id",
                        "organization",
                        ForeignKeyAction::Cascade,
                    ))
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table("contact_import")
                    .col(uuid("id").primary_key())
                    .col(uuid("organization_id"))
                    .col(uuid_null("created_by"))
                    .col(string_len("fingerprint", 32))
                    .col(string_len("file_name", 255))
                    .col(json("mapping"))
                    .col(text("header"))
                    .col(integer("total_rows"))
                    .col(integer("rows_done"))
                    .col(integer("imported"))
                    .col(integer("refused"))
                    .col(json("problems"))
                    .col(text("refused_csv"))
                    .col(boolean("done"))
                    .col(timestamp_with_time_zone("created_at"))
                    .col(timestamp_with_time_zone("updated_at"))
                    .foreign_key(&mut fk(
                        "contact_import",
                        "organization_id",
                        "organization",
                        ForeignKeyAction::Cascade,
                    ))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_contact_import_org_fingerprint")
                    .table("contact_import")
                    .col("organization_id")
                    .col("fingerprint")
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table("contact_import").to_owned())
            .await?;
        manager
            .drop_table(Table::drop().table("contact_field").to_owned())
            .await
    }
}
