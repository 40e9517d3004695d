//! Opt-outs per contact and channel, with where they came from.
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
                    .table("contact_channel_opt_out")
                    .col(pk_uuid("id"))
                    .col(uuid("contact_id"))
                    .col(string("channel").check(Expr::col("channel").is_in(["sms"])))
                    .col(
                        string("source")
                            .check(Expr::col("source").is_in(["keyword", "manual", "carrier"])),
                    )
                    .col(timestamp_with_time_zone("created_at"))
                    .foreign_key(&mut fk(
                        "contact_channel_opt_out",
                        "contact_id",
                        "contact",
                        ForeignKeyAction::Cascade,
                    ))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(index(
                "contact_channel_opt_out",
                &["contact_id", "channel"],
                true,
            ))
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table("contact_channel_opt_out").to_owned())
            .await
    }
}
