//! Auto-assignment per number (issue 28 §1): a number may hand each new inbound conversation to
//! the next member online in the last 15 minutes, in turn. `auto_assign` switches it on;
//! `assigned_last` is the member the turn last went to, so the next text goes to whoever follows
//! them. The inbox's filter by number reads `(organization_id, last_phone_number_id, last_at)`;
//! who is online, `session (organization_id, last_seen_at)`.
use crate::{add_column, drop_column, drop_indexes, index};
use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

const INDEXES: [(&str, &[&str]); 2] = [
    (
        "conversation",
        &[
            "organization_id",
            "last_phone_number_id",
            "last_at",
            "contact_id",
        ],
    ),
    // Who is online: the organisation's sessions used in the last 15 minutes.
    ("session", &["organization_id", "last_seen_at"]),
];

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        add_column(
            manager,
            "phone_number",
            boolean("auto_assign").default(false).to_owned(),
        )
        .await?;
        add_column(manager, "phone_number", uuid_null("assigned_last")).await?;
        for (table, cols) in INDEXES {
            manager.create_index(index(table, cols, false)).await?;
        }
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        drop_indexes(manager, &INDEXES).await?;
        drop_column(manager, "phone_number", "assigned_last").await?;
        drop_column(manager, "phone_number", "auto_assign").await?;
        Ok(())
    }
}
