//! Tracked links and the unregistered-number banner (issue 30 §1, §4).
//! - `tracked_link`: one short, unguessable code per (campaign or saved reply, contact, link).
//!   `/l/<code>` redirects to `url` and counts the click (first and last time, and how many).
//!   `scope` names what made it ("campaign:<id>" or "reply:<id>"), so that sending the same
//!   text again reuses the code; `url_hash` keeps that lookup's index short.
//! - `assistant_operation.track_links`: a campaign shortens and tracks its links (on by default).
//! - `phone_number.unregistered_at` and `unregistered_code`: the carrier refused a text from the
//!   number as unregistered 10DLC (30034); owners see a banner until a text from it is delivered.
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
                    .table("tracked_link")
                    .col(uuid("id").primary_key())
                    .col(uuid("organization_id"))
                    .col(string_len("code", 16).unique_key())
                    .col(string_len("scope", 64))
                    .col(uuid_null("operation_id"))
                    .col(uuid("contact_id"))
                    .col(string_len("url_hash", 32))
                    .col(text("url"))
                    .col(integer("clicks").default(0))
                    .col(timestamp_with_time_zone_null("first_click_at"))
                    .col(timestamp_with_time_zone_null("last_click_at"))
                    .col(timestamp_with_time_zone("created_at"))
                    .foreign_key(&mut fk(
                        "tracked_link",
                        "contact_id",
                        "contact",
                        ForeignKeyAction::Cascade,
                    ))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(index(
                "tracked_link",
                &["scope", "contact_id", "url_hash"],
                true,
            ))
            .await?;
        manager
            .create_index(index("tracked_link", &["operation_id", "clicks"], false))
            .await?;
        manager
            .create_index(index("tracked_link", &["contact_id", "clicks"], false))
            .await?;
        add_column(
            manager,
            "assistant_operation",
            boolean("track_links").default(true).to_owned(),
        )
        .await?;
        add_column(
            manager,
            "phone_number",
            timestamp_with_time_zone_null("unregistered_at"),
        )
        .await?;
        add_column(
            manager,
            "phone_number",
            string_len_null("unregistered_code", 8),
        )
        .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        crate::drop_column(manager, "phone_number", "unregistered_code").await?;
        crate::drop_column(manager, "phone_number", "unregistered_at").await?;
        crate::drop_column(manager, "assistant_operation", "track_links").await?;
        manager
            .drop_table(Table::drop().table("tracked_link").to_owned())
            .await
    }
}
