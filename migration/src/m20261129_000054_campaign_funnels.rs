//! Campaign funnels kept as data arrives (issue 30 §5), not counted from the items when the
//! Reports page is read:
//! - `campaign_funnel`: a campaign's counters. `approved` is written when a person approves it;
//!   `delivered`, `replied`, `opted_out` and `clicked` grow with the report passes. (Its
//!   audience, drafts and sends are the operation row's own counts.)
//! - `assistant_operation_item.replied_at`, `opted_out_at`, `clicked_at`: when the item's contact
//!   first answered, opted out or clicked within the funnel's window, so each counts once.
//! - `suppression.funnel_rolled`, `tracked_link.funnel_rolled`: opt-outs and clicked links a pass
//!   has not yet counted, each behind a partial index of just those rows.
//!
//! Campaigns sent before this migration get their approvals, deliveries and replies counted
//! here; their opt-outs and clicks are counted by the first passes, as any new one is.
use crate::fk;
use sea_orm_migration::{prelude::*, schema::*};

/// A suppression still to count in the funnels.
pub const OPT_OUT_PENDING: &str = "funnel_rolled = false";
/// A clicked link still to count in the funnels.
pub const CLICK_PENDING: &str = "clicks > 0 AND funnel_rolled = false";

#[derive(DeriveMigrationName)]
pub struct Migration;

const ITEM: &str = "assistant_operation_item";

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table("campaign_funnel")
                    .col(pk_uuid("operation_id"))
                    .col(uuid("organization_id"))
                    .col(big_integer("approved").default(0))
                    .col(big_integer("delivered").default(0))
                    .col(big_integer("replied").default(0))
                    .col(big_integer("opted_out").default(0))
                    .col(big_integer("clicked").default(0))
                    .foreign_key(&mut fk(
                        "campaign_funnel",
                        "operation_id",
                        "assistant_operation",
                        ForeignKeyAction::Cascade,
                    ))
                    .to_owned(),
            )
            .await?;
        for col in ["replied_at", "opted_out_at", "clicked_at"] {
            crate::add_column(manager, ITEM, timestamp_with_time_zone_null(col).to_owned()).await?;
        }
        for table in ["suppression", "tracked_link"] {
            crate::add_column(
                manager,
                table,
                boolean("funnel_rolled").default(false).to_owned(),
            )
            .await?;
        }
        let db = manager.get_connection();
        db.execute_unprepared(&format!(
            "CREATE INDEX idx_suppression_funnel_pending ON suppression (created_at) WHERE {OPT_OUT_PENDING}"
        ))
        .await?;
        db.execute_unprepared(&format!(
            "CREATE INDEX idx_tracked_link_funnel_pending ON tracked_link (created_at) WHERE {CLICK_PENDING}"
        ))
        .await?;
        backfill(manager).await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        let db = manager.get_connection();
        db.execute_unprepared("DROP INDEX idx_suppression_funnel_pending")
            .await?;
        db.execute_unprepared("DROP INDEX idx_tracked_link_funnel_pending")
            .await?;
        for table in ["suppression", "tracked_link"] {
            crate::drop_column(manager, table, "funnel_rolled").await?;
        }
        for col in ["replied_at", "opted_out_at", "clicked_at"] {
            crate::drop_column(manager, ITEM, col).await?;
        }
        manager
            .drop_table(Table::drop().table("campaign_funnel").to_owned())
            .await
    }
}

/// Counts the campaigns already sent: what the Reports page used to count when read.
pub async fn backfill(manager: &SchemaManager<'_>) -> Result<(), DbErr> {
    let db = manager.get_connection();
    db.execute_unprepared(
        "INSERT INTO campaign_funnel (operation_id, organization_id, approved, delivered, replied, opted_out, clicked) \
         SELECT o.id, o.organization_id, \
           CASE WHEN o.status IN ('sending', 'done') OR o.paused_from = 'sending' OR o.status = 'cancelled' THEN \
             (SELECT COUNT(*) FROM assistant_operation_item i WHERE i.operation_id = o.id \
               AND (i.status IN ('sending', 'sent', 'unknown') \
                 OR (o.status IN ('sending', 'done') AND i.status = 'drafted') \
                 OR (i.status = 'failed' AND i.message_id IS NOT NULL))) \
           ELSE 0 END, \
           (SELECT COUNT(*) FROM assistant_operation_item i JOIN message m ON m.id = i.message_id \
             WHERE i.operation_id = o.id AND m.status = 'delivered'), \
           0, 0, 0 \
         FROM assistant_operation o",
    )
    .await?;
    // A reply is the contact's first text in (not a keyword) within 72 hours of theirs.
    let within = match manager.get_database_backend() {
        sea_orm::DbBackend::Postgres => {
            "m.created_at >= i.sent_at AND m.created_at <= i.sent_at + INTERVAL '72 hours'"
        }
        _ => "julianday(m.created_at) >= julianday(i.sent_at) AND julianday(m.created_at) <= julianday(i.sent_at) + 3",
    };
    db.execute_unprepared(&format!(
        "UPDATE {ITEM} SET replied_at = (SELECT MIN(m.created_at) FROM message m, {ITEM} i \
           WHERE i.id = {ITEM}.id AND m.contact_id = i.contact_id \
           AND m.organization_id = i.organization_id AND m.direction = 'inbound' \
           AND m.keyword IS NULL AND {within}) \
         WHERE status = 'sent' AND sent_at IS NOT NULL"
    ))
    .await?;
    db.execute_unprepared(&format!(
        "UPDATE campaign_funnel SET replied = (SELECT COUNT(*) FROM {ITEM} i \
           WHERE i.operation_id = campaign_funnel.operation_id AND i.replied_at IS NOT NULL)"
    ))
    .await?;
    Ok(())
}
