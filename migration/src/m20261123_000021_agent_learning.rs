//! The learning loop: `ai_agent_learning` holds the raw signals both approval gates produce
//! (audience edits, concept rewrites, approvals and rejections, draft edits), each linked to its
//! plan or item; `ai_agent_lesson` the evergreen lessons distilled from them, versioned, each
//! with the signals it came from. One lesson per (agent, rule): a deleted one stays as a
//! tombstone so that distilling again never brings it back.
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
                    .table("ai_agent_learning")
                    .col(pk_uuid("id"))
                    .col(uuid("organization_id"))
                    .col(uuid("agent_id"))
                    .col(string_len("kind", 32))
                    .col(string_len("subject_kind", 16))
                    .col(uuid("subject_id"))
                    .col(json("detail"))
                    .col(uuid_null("actor_user_id"))
                    .col(timestamp_with_time_zone("created_at"))
                    .foreign_key(&mut fk(
                        "ai_agent_learning",
                        "organization_id",
                        "organization",
                        ForeignKeyAction::Cascade,
                    ))
                    .foreign_key(&mut fk(
                        "ai_agent_learning",
                        "agent_id",
                        "ai_agent",
                        ForeignKeyAction::Cascade,
                    ))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(index(
                "ai_agent_learning",
                &["agent_id", "created_at"],
                false,
            ))
            .await?;
        manager
            .create_table(
                Table::create()
                    .table("ai_agent_lesson")
                    .col(pk_uuid("id"))
                    .col(uuid("organization_id"))
                    .col(uuid("agent_id"))
                    .col(string_len("rule_key", 160))
                    .col(text("text"))
                    .col(boolean("enabled").default(true))
                    .col(integer("version").default(1))
                    .col(json("sources"))
                    .col(json("history"))
                    .col(timestamp_with_time_zone_null("deleted_at"))
                    .col(timestamp_with_time_zone("created_at"))
                    .col(timestamp_with_time_zone("updated_at"))
                    .foreign_key(&mut fk(
                        "ai_agent_lesson",
                        "organization_id",
                        "organization",
                        ForeignKeyAction::Cascade,
                    ))
                    .foreign_key(&mut fk(
                        "ai_agent_lesson",
                        "agent_id",
                        "ai_agent",
                        ForeignKeyAction::Cascade,
                    ))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(index("ai_agent_lesson", &["agent_id", "rule_key"], true))
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for t in ["ai_agent_lesson", "ai_agent_learning"] {
            manager
                .drop_table(Table::drop().table(t).to_owned())
                .await?;
        }
        Ok(())
    }
}
