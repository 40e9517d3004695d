//! Email (issue 51 §5): `invitation.email` says whom a link was for (and where it was emailed);
//! `user.email_notifications` is each person's choice to have their notifications emailed too.
use crate::add_column;
use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        add_column(manager, "invitation", text_null("email")).await?;
        add_column(
            manager,
            "user",
            boolean("email_notifications").default(false).to_owned(),
        )
        .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        crate::drop_column(manager, "user", "email_notifications").await?;
        crate::drop_column(manager, "invitation", "email").await
    }
}
