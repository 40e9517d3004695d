//! Outbound webhooks (issue 31 §3). `webhook_subscription`: an owner's URL, the events it takes
//! (space-separated) and its signing secret (sealed with `HERALD_SECRET_KEY` when the server has
//! one). `webhook_delivery` is the outbox: one row per (event, subscription), written in the
//! transaction of the event itself, then claimed, signed and posted by any instance. `seq` keeps
//! a subscription's events in order; a delivery retries with backoff until `give_up_at`.
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
                    .table("webhook_subscription")
                    .col(uuid("id").primary_key())
                    .col(uuid("organization_id"))
                    .col(text("url"))
                    .col(string("events"))
                    .col(text("secret"))
                    .col(uuid("created_by"))
                    .col(timestamp_with_time_zone("created_at"))
                    .col(timestamp_with_time_zone_null("disabled_at"))
                    .foreign_key(&mut fk(
                        "webhook_subscription",
                        "organization_id",
                        "organization",
                        ForeignKeyAction::Cascade,
                    ))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(index(
                "webhook_subscription",
                &["organization_id", "created_at"],
                false,
            ))
            .await?;
        manager
            .create_table(
                Table::create()
                    .table("webhook_delivery")
                    .col(uuid("id").primary_key())
                    .col(uuid("organization_id"))
                    .col(uuid("subscription_id"))
                    .col(string("event_type"))
                    .col(text("payload"))
                    .col(big_integer("seq"))
                    .col(string("status"))
                    .col(integer("attempts").default(0))
                    .col(timestamp_with_time_zone("next_attempt_at"))
                    .col(timestamp_with_time_zone("give_up_at"))
                    .col(timestamp_with_time_zone_null("claimed_until"))
                    .col(string_null("claimed_by"))
                    .col(integer_null("last_status"))
                    .col(text_null("last_error"))
                    .col(timestamp_with_time_zone("created_at"))
                    .col(timestamp_with_time_zone_null("ended_at"))
                    .foreign_key(&mut fk(
                        "webhook_delivery",
                        "subscription_id",
                        "webhook_subscription",
                        ForeignKeyAction::Cascade,
                    ))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(index(
                "webhook_delivery",
                &["subscription_id", "status", "seq"],
                false,
            ))
            .await?;
        manager
            .create_index(index(
                "webhook_delivery",
                &["status", "next_attempt_at"],
                false,
            ))
            .await?;
        manager
            .create_index(index(
                "webhook_delivery",
                &["subscription_id", "created_at"],
                false,
            ))
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table("webhook_delivery").to_owned())
            .await?;
        manager
            .drop_table(Table::drop().table("webhook_subscription").to_owned())
            .await
    }
}
