//! Copies of the pictures and files texted in (issue 28 §3): one row per media item of an inbound
//! text, written in the same transaction as the text (status `pending`), then filled by the
//! copier: the provider's URL is fetched with the organisation's credentials, checked, stored,
//! and thumbnailed (`stored`), or given up with the reason (`failed`). Pending rows are claimed
//! by `(status, next_try_at)` with a lease, so any instance copies each once; a conversation's
//! page reads its texts' media by `message_id`.
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
                    .table("message_media")
                    .col(uuid("id").primary_key())
                    .col(uuid("organization_id"))
                    .col(uuid("message_id"))
                    .col(integer("idx"))
                    .col(text("provider_url"))
                    // As the provider declared it, then as the bytes showed it to be.
                    .col(string_len("content_type", 128))
                    .col(big_integer_null("size_bytes"))
                    .col(string_null("storage_key"))
                    .col(string_null("thumb_key"))
                    .col(string_len("status", 16))
                    .col(text_null("error"))
                    .col(integer("attempts").default(0))
                    .col(timestamp_with_time_zone("next_try_at"))
                    .col(string_len_null("lease_owner", 64))
                    .col(timestamp_with_time_zone_null("lease_until"))
                    .col(timestamp_with_time_zone("created_at"))
                    .foreign_key(&mut fk(
                        "message_media",
                        "organization_id",
                        "organization",
                        ForeignKeyAction::Cascade,
                    ))
                    .foreign_key(&mut fk(
                        "message_media",
                        "message_id",
                        "message",
                        ForeignKeyAction::Cascade,
                    ))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(index("message_media", &["message_id", "idx"], true))
            .await?;
        manager
            .create_index(index("message_media", &["status", "next_try_at"], false))
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table("message_media").to_owned())
            .await
    }
}
