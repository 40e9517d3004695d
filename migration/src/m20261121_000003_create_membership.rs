//! Membership: which user belongs to which organisation, as `owner` or `member`.
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
                    .table("membership")
                    .col(pk_uuid("id"))
                    .col(uuid("user_id"))
                    .col(uuid("organization_id"))
                    .col(string("role").check(Expr::col("role").is_in(["owner", "member"])))
                    .col(timestamp_with_time_zone("created_at"))
                    .foreign_key(&mut fk(
                        "membership",
                        "user_id",
                        "user",
                        ForeignKeyAction::Cascade,
                    ))
                    .foreign_key(&mut fk(
                        "membership",
                        "organization_id",
                        "organization",
                        ForeignKeyAction::Cascade,
                    ))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(index("membership", &["user_id", "organization_id"], true))
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table("membership").to_owned())
            .await
    }
}
