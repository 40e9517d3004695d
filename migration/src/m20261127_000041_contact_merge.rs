//! Merging duplicate contacts (issue 28 §5). `contact_merge` remembers each merged contact's id
//! and the contact it went into, so an old link (a notification, a bookmark) still finds the
//! person. The contact page lists the campaigns and plans that touched a contact, and a merge
//! moves their rows: both read campaign items and plan audiences by contact, hence the indexes.
use crate::{drop_indexes, fk, index};
use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

const INDEXES: [(&str, &[&str]); 3] = [
    ("assistant_operation_item", &["contact_id", "created_at"]),
    ("plan_audience", &["contact_id"]),
    ("opt_out_review", &["contact_id"]),
];

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table("contact_merge")
                    // The merged (removed) contact's id: it is never reused.
                    .col(uuid("merged_id").primary_key())
                    .col(uuid("organization_id"))
                    .col(uuid("into_id"))
                    .col(uuid_null("merged_by"))
                    .col(timestamp_with_time_zone("merged_at"))
                    .foreign_key(&mut fk(
                        "contact_merge",
                        "organization_id",
                        "organization",
                        ForeignKeyAction::Cascade,
                    ))
                    .foreign_key(&mut fk(
                        "contact_merge",
                        "into_id",
                        "contact",
                        ForeignKeyAction::Cascade,
                    ))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(index("contact_merge", &["into_id"], false))
            .await?;
        for (table, cols) in INDEXES {
            manager.create_index(index(table, cols, false)).await?;
        }
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        drop_indexes(manager, &INDEXES).await?;
        manager
            .drop_table(Table::drop().table("contact_merge").to_owned())
            .await
    }
}
