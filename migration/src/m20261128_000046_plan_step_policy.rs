//! The policy a step plan's steps run under (issue 29 §2, "policies mean what they say"). A plan
//! that texts is always approved by a person (`approval_policy` says HumanReview), but its other
//! steps follow the policy that was chosen for it: under Auto a tag or a note runs without a
//! confirmation, while texts and campaigns still wait. Null on older plans: their steps follow
//! `approval_policy`, as before.
use crate::add_column;
use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        add_column(manager, "ai_agent_plan", string_len_null("step_policy", 32)).await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        crate::drop_column(manager, "ai_agent_plan", "step_policy").await
    }
}
