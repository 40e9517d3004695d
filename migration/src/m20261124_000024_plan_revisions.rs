//! Plan revisions: a re-plan is a new plan that names the plan it revises and its number in the
//! line (the first plan is revision 1), so the Plans page can show the revisions side by side
//! and the runtime can cap how many times one plan is re-planned. A plan also keeps the request
//! it answers, in the requester's words, which every revision carries on.
use crate::{add_column, drop_column, index};
use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        add_column(manager, "ai_agent_plan", uuid_null("revision_of")).await?;
        add_column(
            manager,
            "ai_agent_plan",
            integer("revision").default(1).to_owned(),
        )
        .await?;
        add_column(manager, "ai_agent_plan", text_null("request")).await?;
        manager
            .create_index(index("ai_agent_plan", &["revision_of"], true))
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_index(
                Index::drop()
                    .name("idx_ai_agent_plan_revision_of")
                    .table("ai_agent_plan")
                    .to_owned(),
            )
            .await?;
        drop_column(manager, "ai_agent_plan", "request").await?;
        drop_column(manager, "ai_agent_plan", "revision").await?;
        drop_column(manager, "ai_agent_plan", "revision_of").await
    }
}
