//! Sending pictures (issue 28 §3): a member's upload is kept (`media_upload`) until a text takes
//! it; the text's `message_media` rows then point at the same copy, and each carries
//! `public_token`, the unguessable part of the expiring address Twilio fetches it from. A text
//! takes its uploads (their rows go); one no text took is removed after a day, by `created_at`.
use crate::{add_column, fk, index};
use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table("media_upload")
                    .col(uuid("id").primary_key())
                    .col(uuid("organization_id"))
                    .col(uuid_null("uploaded_by"))
                    .col(string_len("content_type", 128))
                    .col(big_integer("size_bytes"))
                    .col(string("storage_key"))
                    .col(string_null("thumb_key"))
                    .col(timestamp_with_time_zone("created_at"))
                    .foreign_key(&mut fk(
                        "media_upload",
                        "organization_id",
                        "organization",
                        ForeignKeyAction::Cascade,
                    ))
                    .to_owned(),
            )
            .await?;
        // Uploads no text took are removed after a day, oldest first.
        manager
            .create_index(index("media_upload", &["created_at"], false))
            .await?;
        add_column(
            manager,
            "message_media",
            string_len_null("public_token", 64),
        )
        .await?;
        manager
            .create_index(index("message_media", &["public_token"], true))
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_index(
                Index::drop()
                    .name("idx_message_media_public_token")
                    .table("message_media")
                    .to_owned(),
            )
            .await?;
        crate::drop_column(manager, "message_media", "public_token").await?;
        manager
            .drop_table(Table::drop().table("media_upload").to_owned())
            .await
    }
}
