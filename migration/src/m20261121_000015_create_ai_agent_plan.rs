//! Agent plans and their audit trail: every decision and every edit, with who made it and why.
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
                    .table("ai_agent_plan")
                    .col(pk_uuid("id"))
                    .col(uuid("organization_id"))
                    .col(uuid("agent_id"))
                    .col(uuid_null("thread_id"))
                    .col(string_len("title", 255))
                    .col(text("summary"))
                    .col(string_len("action_type", 48))
                    .col(json("action_payload"))
                    .col(string_len("approval_policy", 24))
                    .col(string_len("status", 24))
                    .col(string_len_null("decision", 16))
                    .col(text_null("decision_reason"))
                    .col(uuid_null("created_by"))
                    .col(uuid_null("approved_by"))
                    .col(timestamp_with_time_zone_null("approved_at"))
                    .col(uuid_null("executed_ref"))
                    .col(text_null("error"))
                    .col(timestamp_with_time_zone("created_at"))
                    .col(timestamp_with_time_zone("updated_at"))
                    .foreign_key(&mut fk(
                        "ai_agent_plan",
                        "organization_id",
                        "organization",
                        ForeignKeyAction::Cascade,
                    ))
                    .foreign_key(&mut fk(
                        "ai_agent_plan",
                        "agent_id",
                        "ai_agent",
                        ForeignKeyAction::Cascade,
                    ))
                    .foreign_key(&mut fk(
                        "ai_agent_plan",
                        "thread_id",
                        "ai_thread",
                        ForeignKeyAction::SetNull,
                    ))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(index(
                "ai_agent_plan",
                &["organization_id", "status"],
                false,
            ))
            .await?;
        manager
            .create_table(
                Table::create()
                    .table("ai_agent_plan_audit")
                    .col(pk_uuid("id"))
                    .col(uuid("plan_id"))
                    .col(string_len("kind", 16))
                    .col(string_len("actor", 16))
                    .col(uuid_null("actor_user_id"))
                    .col(string_len_null("policy", 24))
                    .col(string_len_null("decision", 16))
                    .col(text_null("reason"))
                    .col(json_null("before"))
                    .col(json_null("after"))
                    .col(timestamp_with_time_zone("created_at"))
                    .foreign_key(&mut fk(
                        "ai_agent_plan_audit",
                        "plan_id",
                        "ai_agent_plan",
                        ForeignKeyAction::Cascade,
                    ))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(index(
                "ai_agent_plan_audit",
                &["plan_id", "created_at"],
                false,
            ))
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table("ai_agent_plan_audit").to_owned())
            .await?;
        manager
            .drop_table(Table::drop().table("ai_agent_plan").to_owned())
            .await
    }
}
