//! The rest of the Reports page (issue 30 §5): how fast the team answers, in business hours,
//! and the AI's share, agent by agent.
//! - `organization.business_days` (ISO weekdays, "12345" for Monday to Friday),
//!   `business_open` and `business_close` (minutes after local midnight): the hours a
//!   response time counts.
//! - `report_response`: one row per answered wait, keyed by the inbound text that began it: the
//!   day it began (in the organisation's zone), its number, who answered (an agent, or none for
//!   a person) and the business seconds it took. The page reads the median from it.
//! - `report_agent_daily`: one counter per (organisation, day, number, agent, metric): the
//!   suggestions offered, used as written or edited, autonomous replies, escalations and
//!   handoffs.
//! - `message.agent_id`: the agent that wrote an outbound text itself (an autonomous reply).
//! - `text_agent_suggestion.used_by` and `used_as`: the first text sent from a suggestion set,
//!   and whether as written or edited; `rolled_up` and `use_rolled`: the rollup has counted the
//!   set's offer, and its use. `notification.agent_id`: the agent that raised it;
//!   `rolled_up`: an escalation is counted. Partial indexes hold only what is still to count.
use sea_orm_migration::{prelude::*, schema::*};

/// Suggestion sets whose offer is still to count (the index's condition and the query's words).
pub const SETS_PENDING: &str = "rolled_up = false";
/// Suggestion sets whose use is still to count.
pub const USES_PENDING: &str = "use_rolled = false AND used_by IS NOT NULL";
/// Escalations still to count.
pub const ESCALATIONS_PENDING: &str = "rolled_up = false AND kind = 'escalation'";

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for col in [
            string_len("business_days", 7).default("12345").to_owned(),
            integer("business_open").default(540).to_owned(),
            integer("business_close").default(1020).to_owned(),
        ] {
            crate::add_column(manager, "organization", col).await?;
        }
        crate::add_column(manager, "message", uuid_null("agent_id").to_owned()).await?;
        for col in [
            uuid_null("used_by").to_owned(),
            string_len_null("used_as", 12).to_owned(),
            boolean("rolled_up").default(false).to_owned(),
            boolean("use_rolled").default(false).to_owned(),
        ] {
            crate::add_column(manager, "text_agent_suggestion", col).await?;
        }
        for col in [
            uuid_null("agent_id").to_owned(),
            boolean("rolled_up").default(false).to_owned(),
        ] {
            crate::add_column(manager, "notification", col).await?;
        }
        let db = manager.get_connection();
        for (name, table, cond) in [
            (
                "idx_suggestion_not_rolled",
                "text_agent_suggestion",
                SETS_PENDING,
            ),
            (
                "idx_suggestion_use_not_rolled",
                "text_agent_suggestion",
                USES_PENDING,
            ),
            (
                "idx_notification_escalation_not_rolled",
                "notification",
                ESCALATIONS_PENDING,
            ),
        ] {
            db.execute_unprepared(&format!(
                "CREATE INDEX {name} ON {table} (created_at) WHERE {cond}"
            ))
            .await?;
        }
        manager
            .create_table(
                Table::create()
                    .table("report_agent_daily")
                    .col(uuid("organization_id"))
                    .col(string_len("day", 10))
                    .col(uuid("phone_number_id"))
                    .col(uuid("agent_id"))
                    .col(string_len("metric", 40))
                    .col(big_integer("value").default(0))
                    .primary_key(
                        Index::create()
                            .col("organization_id")
                            .col("day")
                            .col("phone_number_id")
                            .col("agent_id")
                            .col("metric"),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table("report_response")
                    .col(uuid("inbound_message_id").primary_key())
                    .col(uuid("organization_id"))
                    .col(string_len("day", 10))
                    .col(uuid("phone_number_id"))
                    .col(uuid_null("agent_id"))
                    .col(big_integer("seconds"))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(crate::index(
                "report_response",
                &["organization_id", "day", "seconds"],
                false,
            ))
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for t in ["report_response", "report_agent_daily"] {
            manager
                .drop_table(Table::drop().table(t).to_owned())
                .await?;
        }
        let db = manager.get_connection();
        for name in [
            "idx_suggestion_not_rolled",
            "idx_suggestion_use_not_rolled",
            "idx_notification_escalation_not_rolled",
        ] {
            db.execute_unprepared(&format!("DROP INDEX {name}")).await?;
        }
        for c in ["rolled_up", "agent_id"] {
            crate::drop_column(manager, "notification", c).await?;
        }
        for c in ["use_rolled", "rolled_up", "used_as", "used_by"] {
            crate::drop_column(manager, "text_agent_suggestion", c).await?;
        }
        crate::drop_column(manager, "message", "agent_id").await?;
        for c in ["business_close", "business_open", "business_days"] {
            crate::drop_column(manager, "organization", c).await?;
        }
        Ok(())
    }
}
