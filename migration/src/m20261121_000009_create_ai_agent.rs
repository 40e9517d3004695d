//! AI agents: platform agents (no organisation or user) and the per-member clones that act.
use crate::fk;
use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table("ai_agent")
                    .col(pk_uuid("id"))
                    .col(uuid_null("organization_id"))
                    .col(uuid_null("user_id"))
                    .col(uuid_null("system_source_id"))
                    .col(string("name"))
                    .col(text("persona").default(""))
                    .col(text("goals").default(""))
                    .col(
                        string("send_mode")
                            .default("autonomous")
                            .check(Expr::col("send_mode").is_in(["autonomous", "suggest"])),
                    )
                    .col(boolean("attach_domain_tools").default(true))
                    .col(json("tools_allowlist"))
                    .col(json("config_payload"))
                    .col(timestamp_with_time_zone("created_at"))
                    .foreign_key(&mut fk(
                        "ai_agent",
                        "organization_id",
                        "organization",
                        ForeignKeyAction::Cascade,
                    ))
                    .foreign_key(&mut fk(
                        "ai_agent",
                        "user_id",
                        "user",
                        ForeignKeyAction::SetNull,
                    ))
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table("ai_agent").to_owned())
            .await
    }
}
