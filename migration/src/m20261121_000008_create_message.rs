//! Messages in and out; `provider_sid` makes inbound delivery idempotent.
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
                    .table("message")
                    .col(pk_uuid("id"))
                    .col(uuid("organization_id"))
                    .col(uuid("contact_id"))
                    .col(uuid("phone_number_id"))
                    .col(
                        string("direction")
                            .check(Expr::col("direction").is_in(["inbound", "outbound"])),
                    )
                    .col(text("body"))
                    .col(integer("media_count").default(0))
                    .col(json("media_urls"))
                    .col(string_null("provider_sid").unique_key())
                    .col(string("status"))
                    .col(string_null("ai_origin"))
                    .col(string_null("keyword"))
                    .col(text_null("error"))
                    .col(string_null("idempotency_key").unique_key())
                    .col(timestamp_with_time_zone_null("read_at"))
                    .col(timestamp_with_time_zone("created_at"))
                    .foreign_key(&mut fk(
                        "message",
                        "organization_id",
                        "organization",
                        ForeignKeyAction::Cascade,
                    ))
                    .foreign_key(&mut fk(
                        "message",
                        "contact_id",
                        "contact",
                        ForeignKeyAction::Cascade,
                    ))
                    .foreign_key(&mut fk(
                        "message",
                        "phone_number_id",
                        "phone_number",
                        ForeignKeyAction::Cascade,
                    ))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(index(
                "message",
                &["organization_id", "contact_id", "created_at"],
                false,
            ))
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table("message").to_owned())
            .await
    }
}
