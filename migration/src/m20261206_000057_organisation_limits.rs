//! Limits per organisation (issue 49 §6, §9): `organization.api_tat_ms` is the organisation's own
//! rate-limit cell (GCRA, epoch milliseconds) shared by all its API keys; `api_key.reads` counts a
//! key's reads (writes are audited, reads only counted); `organization.short_link_domains` lists
//! the domains a member's saved reply may turn into Herald short links, and
//! `saved_reply.links_by_owner` says an owner wrote the reply's words last (an owner's links are
//! shortened whatever their domain). Replies an owner created are marked so.
use crate::add_column;
use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        add_column(
            manager,
            "organization",
            big_integer("api_tat_ms").default(0).to_owned(),
        )
        .await?;
        add_column(manager, "organization", text_null("short_link_domains")).await?;
        add_column(
            manager,
            "api_key",
            big_integer("reads").default(0).to_owned(),
        )
        .await?;
        add_column(
            manager,
            "saved_reply",
            boolean("links_by_owner").default(false).to_owned(),
        )
        .await?;
        manager
            .get_connection()
            .execute_unprepared(
                "UPDATE saved_reply SET links_by_owner = TRUE WHERE EXISTS (SELECT 1 FROM membership m \
                 WHERE m.user_id = saved_reply.created_by \
                 AND m.organization_id = saved_reply.organization_id AND m.role = 'owner')",
            )
            .await?;
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for (table, col) in [
            ("saved_reply", "links_by_owner"),
            ("api_key", "reads"),
            ("organization", "short_link_domains"),
            ("organization", "api_tat_ms"),
        ] {
            crate::drop_column(manager, table, col).await?;
        }
        Ok(())
    }
}
