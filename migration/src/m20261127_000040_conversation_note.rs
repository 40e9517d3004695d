//! Internal notes in a conversation (issue 28 §4): a member's words for the team, never sent.
//! A conversation's notes are read newest first through `(organization_id, contact_id,
//! created_at)`.
use crate::{fk, index};
use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table("conversation_note")
                    .col(uuid("id").primary_key())
                    .col(uuid("organization_id"))
                    .col(uuid("contact_id"))
                    .col(uuid_null("author_id"))
                    .col(text("body"))
                    // The names of the members it mentioned (and notified), as written then.
                    .col(json_null("mentioned"))
                    .col(timestamp_with_time_zone("created_at"))
                    .foreign_key(&mut fk(
                        "conversation_note",
                        "organization_id",
                        "organization",
                        ForeignKeyAction::Cascade,
                    ))
                    .foreign_key(&mut fk(
                        "conversation_note",
                        "contact_id",
                        "contact",
                        ForeignKeyAction::Cascade,
                    ))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(index(
                "conversation_note",
                &["organization_id", "contact_id", "created_at"],
                false,
            ))
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table("conversation_note").to_owned())
            .await
    }
}
