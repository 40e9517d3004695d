//! Bulk operations created by approved plans, and their per-contact items (drafts, skips, sends).
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
                    .table("assistant_operation")
                    .col(pk_uuid("id"))
                    .col(uuid("organization_id"))
                    .col(uuid("agent_id"))
                    .col(uuid_null("plan_id"))
                    .col(uuid_null("thread_id"))
                    .col(uuid_null("owner_user_id"))
                    .col(uuid("phone_number_id"))
                    .col(string_len("kind", 32))
                    .col(text("message_concept"))
                    .col(text("persona").default(""))
                    .col(string_len("status", 24).check(Expr::col("status").is_in([
                        "drafting",
                        "awaiting_approval",
                        "sending",
                        "done",
                        "cancelled",
                        "failed",
                    ])))
                    .col(integer("total").default(0))
                    .col(integer("drafted").default(0))
                    .col(integer("sent").default(0))
                    .col(integer("failed").default(0))
                    .col(integer("skipped").default(0))
                    .col(text_null("error"))
                    .col(timestamp_with_time_zone("created_at"))
                    .col(timestamp_with_time_zone("updated_at"))
                    .foreign_key(&mut fk(
                        "assistant_operation",
                        "organization_id",
                        "organization",
                        ForeignKeyAction::Cascade,
                    ))
                    .foreign_key(&mut fk(
                        "assistant_operation",
                        "agent_id",
                        "ai_agent",
                        ForeignKeyAction::Cascade,
                    ))
                    .foreign_key(&mut fk(
                        "assistant_operation",
                        "plan_id",
                        "ai_agent_plan",
                        ForeignKeyAction::SetNull,
                    ))
                    .foreign_key(&mut fk(
                        "assistant_operation",
                        "phone_number_id",
                        "phone_number",
                        ForeignKeyAction::Cascade,
                    ))
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table("assistant_operation_item")
                    .col(pk_uuid("id"))
                    .col(uuid("operation_id"))
                    .col(uuid("organization_id"))
                    .col(uuid("contact_id"))
                    .col(integer("position"))
                    .col(string_len("status", 16))
                    .col(text_null("skip_reason"))
                    .col(text_null("draft"))
                    .col(boolean("edited").default(false))
                    .col(string_len_null("claimed_by", 64))
                    .col(timestamp_with_time_zone_null("heartbeat_at"))
                    .col(integer("attempts").default(0))
                    .col(uuid("idempotency_key"))
                    .col(uuid_null("message_id"))
                    .col(text_null("error"))
                    .col(timestamp_with_time_zone_null("drafted_at"))
                    .col(timestamp_with_time_zone_null("sent_at"))
                    .col(timestamp_with_time_zone("created_at"))
                    .col(timestamp_with_time_zone("updated_at"))
                    .foreign_key(&mut fk(
                        "assistant_operation_item",
                        "operation_id",
                        "assistant_operation",
                        ForeignKeyAction::Cascade,
                    ))
                    .foreign_key(&mut fk(
                        "assistant_operation_item",
                        "contact_id",
                        "contact",
                        ForeignKeyAction::Cascade,
                    ))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(index(
                "assistant_operation_item",
                &["operation_id", "status"],
                false,
            ))
            .await?;
        manager
            .create_index(index(
                "assistant_operation_item",
                &["idempotency_key"],
                true,
            ))
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table("assistant_operation_item").to_owned())
            .await?;
        manager
            .drop_table(Table::drop().table("assistant_operation").to_owned())
            .await
    }
}
