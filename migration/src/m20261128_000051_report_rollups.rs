//! The Reports page's daily rollups (issue 30 §5), kept as data arrives instead of scanning the
//! message table on every read.
//! - `report_daily`: one counter per (organisation, day in its time zone, number, metric):
//!   texts in and out, segments, pictures, cost, and each final delivery outcome with its reason.
//! - `message.rolled_up`: the rollup has counted the text's arrival; `outcome_rolled`: its final
//!   delivery outcome. Texts stored before this migration start uncounted, so the first passes
//!   fill in the history. Two partial indexes hold only what is still to count: texts not yet
//!   rolled up, and texts whose status is final but whose outcome is not yet counted.
use sea_orm_migration::{prelude::*, schema::*};

/// A text whose final outcome is still to count: the index's condition, and the rollup's query's
/// word for word (SQLite uses a partial index only for a query that says what it says).
pub const OUTCOME_PENDING: &str =
    "outcome_rolled = false AND status IN ('delivered', 'undelivered', 'failed')";

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table("report_daily")
                    .col(uuid("organization_id"))
                    .col(string_len("day", 10))
                    .col(uuid("phone_number_id"))
                    .col(string_len("metric", 40))
                    .col(big_integer("value").default(0))
                    .primary_key(
                        Index::create()
                            .col("organization_id")
                            .col("day")
                            .col("phone_number_id")
                            .col("metric"),
                    )
                    .to_owned(),
            )
            .await?;
        crate::add_column(
            manager,
            "message",
            boolean("rolled_up").default(false).to_owned(),
        )
        .await?;
        manager
            .get_connection()
            .execute_unprepared(
                "CREATE INDEX idx_message_not_rolled_up ON message (seq) WHERE rolled_up = false",
            )
            .await?;
        crate::add_column(
            manager,
            "message",
            boolean("outcome_rolled").default(false).to_owned(),
        )
        .await?;
        manager
            .get_connection()
            .execute_unprepared(&format!(
                "CREATE INDEX idx_message_outcome_not_rolled ON message (seq) WHERE {OUTCOME_PENDING}"
            ))
            .await?;
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .get_connection()
            .execute_unprepared("DROP INDEX idx_message_not_rolled_up")
            .await?;
        manager
            .get_connection()
            .execute_unprepared("DROP INDEX idx_message_outcome_not_rolled")
            .await?;
        crate::drop_column(manager, "message", "outcome_rolled").await?;
        crate::drop_column(manager, "message", "rolled_up").await?;
        manager
            .drop_table(Table::drop().table("report_daily").to_owned())
            .await
    }
}
