//! Delivery truth and the campaign that pauses itself (issue 30 §1, §3).
//! - `message_status_event`: each status a text's callbacks brought, with its time and the
//!   carrier's error code: the text's timeline, and the count of carrier-filtered texts (30007)
//!   per number.
//! - `organization.pause_filtered_pct` and `pause_undelivered_pct`: the shares of a campaign's
//!   last 100 texts, filtered by carriers or undelivered, past which it pauses itself.
//! - `assistant_operation.paused_reason`: why a campaign is paused, in words; `alarm_from`: the
//!   alarm counts texts sent from then on (a resume starts it afresh).
//! - `contact.unreachable_reason` and `unreachable_at`: the carrier said the number cannot
//!   receive texts (30003, 30005, 30006, 21614); campaigns leave the contact out until a person
//!   clears it or the number changes.
//! - Indexes over a campaign's items by the time they were sent (the alarm's window) and by
//!   their text (a callback finds its campaign).
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
                    .table("message_status_event")
                    .col(uuid("id").primary_key())
                    .col(uuid("organization_id"))
                    .col(uuid("message_id"))
                    .col(uuid("phone_number_id"))
                    .col(string_len("status", 16))
                    .col(string_len_null("error_code", 8))
                    .col(timestamp_with_time_zone("at"))
                    .foreign_key(&mut fk(
                        "message_status_event",
                        "message_id",
                        "message",
                        ForeignKeyAction::Cascade,
                    ))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(index("message_status_event", &["message_id", "at"], false))
            .await?;
        manager
            .create_index(index(
                "message_status_event",
                &["phone_number_id", "error_code"],
                false,
            ))
            .await?;
        add_column(
            manager,
            "organization",
            integer("pause_filtered_pct").default(5).to_owned(),
        )
        .await?;
        add_column(
            manager,
            "organization",
            integer("pause_undelivered_pct").default(15).to_owned(),
        )
        .await?;
        add_column(manager, "assistant_operation", text_null("paused_reason")).await?;
        add_column(manager, "contact", text_null("unreachable_reason")).await?;
        add_column(
            manager,
            "contact",
            timestamp_with_time_zone_null("unreachable_at"),
        )
        .await?;
        add_column(
            manager,
            "assistant_operation",
            timestamp_with_time_zone_null("alarm_from"),
        )
        .await?;
        manager
            .create_index(index(
                "assistant_operation_item",
                &["operation_id", "sent_at"],
                false,
            ))
            .await?;
        manager
            .create_index(index("assistant_operation_item", &["message_id"], false))
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        crate::drop_indexes(
            manager,
            &[
                ("assistant_operation_item", &["operation_id", "sent_at"]),
                ("assistant_operation_item", &["message_id"]),
            ],
        )
        .await?;
        crate::drop_column(manager, "contact", "unreachable_at").await?;
        crate::drop_column(manager, "contact", "unreachable_reason").await?;
        crate::drop_column(manager, "assistant_operation", "alarm_from").await?;
        crate::drop_column(manager, "assistant_operation", "paused_reason").await?;
        crate::drop_column(manager, "organization", "pause_undelivered_pct").await?;
        crate::drop_column(manager, "organization", "pause_filtered_pct").await?;
        manager
            .drop_table(Table::drop().table("message_status_event").to_owned())
            .await
    }
}
