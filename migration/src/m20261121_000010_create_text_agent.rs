//! The legacy stateless suggester: text agents, their per-contact links, and suggestion rows
//! (which AI agents in suggest mode write too).
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
                    .table("text_agent")
                    .col(pk_uuid("id"))
                    .col(uuid("organization_id"))
                    .col(string("name"))
                    .col(text("instructions").default(""))
                    .col(boolean("auto_reply").default(false))
                    .col(double("confidence_threshold").default(0.9))
                    .col(timestamp_with_time_zone("created_at"))
                    .foreign_key(&mut fk(
                        "text_agent",
                        "organization_id",
                        "organization",
                        ForeignKeyAction::Cascade,
                    ))
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table("contact_text_agent")
                    .col(pk_uuid("id"))
                    .col(uuid("contact_id"))
                    .col(uuid("text_agent_id"))
                    .col(timestamp_with_time_zone("created_at"))
                    .foreign_key(&mut fk(
                        "contact_text_agent",
                        "contact_id",
                        "contact",
                        ForeignKeyAction::Cascade,
                    ))
                    .foreign_key(&mut fk(
                        "contact_text_agent",
                        "text_agent_id",
                        "text_agent",
                        ForeignKeyAction::Cascade,
                    ))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(index("contact_text_agent", &["contact_id"], true))
            .await?;
        manager
            .create_table(
                Table::create()
                    .table("text_agent_suggestion")
                    .col(pk_uuid("id"))
                    .col(uuid("organization_id"))
                    .col(uuid_null("text_agent_id"))
                    .col(uuid_null("ai_agent_id"))
                    .col(uuid("message_id"))
                    .col(json("suggestions"))
                    .col(timestamp_with_time_zone("created_at"))
                    .foreign_key(&mut fk(
                        "text_agent_suggestion",
                        "organization_id",
                        "organization",
                        ForeignKeyAction::Cascade,
                    ))
                    .foreign_key(&mut fk(
                        "text_agent_suggestion",
                        "text_agent_id",
                        "text_agent",
                        ForeignKeyAction::SetNull,
                    ))
                    .foreign_key(&mut fk(
                        "text_agent_suggestion",
                        "ai_agent_id",
                        "ai_agent",
                        ForeignKeyAction::SetNull,
                    ))
                    .foreign_key(&mut fk(
                        "text_agent_suggestion",
                        "message_id",
                        "message",
                        ForeignKeyAction::Cascade,
                    ))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(index("text_agent_suggestion", &["message_id"], false))
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for t in ["text_agent_suggestion", "contact_text_agent", "text_agent"] {
            manager
                .drop_table(Table::drop().table(t).to_owned())
                .await?;
        }
        Ok(())
    }
}
