//! Sender profiles (issue 30 §2): carriers set throughput per 10DLC campaign and brand, per
//! toll-free number or short code, not per Herald number.
//! - `sender_profile`: an organisation's profile, its `kind` ("unregistered", "10dlc",
//!   "toll_free", "short_code"), its rate (`rate` texts per `rate_unit`, "second" or "minute"),
//!   and for 10DLC the brand's T-Mobile daily cap (`daily_cap`, texts a Pacific day).
//!   `next_send_us` is the profile's next send slot in microseconds (a rate such as 4,500 a
//!   minute is no whole number of milliseconds apart), shared by every instance as
//!   `phone_number.next_send_ms` is a lone number's; `cap_day` (a Pacific date) and `cap_used`
//!   count that day's sends against the cap.
//! - `phone_number.sender_profile_id`: the profile a number belongs to; none is the default
//!   (an unregistered long code, paced on its own as before).
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
                    .table("sender_profile")
                    .col(pk_uuid("id"))
                    .col(uuid("organization_id"))
                    .col(string_len("name", 80))
                    .col(string_len("kind", 16))
                    .col(big_integer("rate"))
                    .col(string_len("rate_unit", 8))
                    .col(big_integer_null("daily_cap"))
                    .col(big_integer_null("next_send_us"))
                    .col(string_len_null("cap_day", 10))
                    .col(big_integer("cap_used").default(0))
                    .col(timestamp_with_time_zone("created_at"))
                    .col(timestamp_with_time_zone("updated_at"))
                    .foreign_key(&mut fk(
                        "sender_profile",
                        "organization_id",
                        "organization",
                        ForeignKeyAction::Cascade,
                    ))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(index("sender_profile", &["organization_id", "name"], true))
            .await?;
        crate::add_column(
            manager,
            "phone_number",
            uuid_null("sender_profile_id").to_owned(),
        )
        .await?;
        manager
            .create_index(index("phone_number", &["sender_profile_id"], false))
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        crate::drop_indexes(manager, &[("phone_number", &["sender_profile_id"])]).await?;
        crate::drop_column(manager, "phone_number", "sender_profile_id").await?;
        manager
            .drop_table(Table::drop().table("sender_profile").to_owned())
            .await
    }
}
