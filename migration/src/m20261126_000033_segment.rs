//! Segments and plan audiences. A `segment` is an organisation's saved, named contact filter
//! (its name unique per organisation, whatever its case). A `plan_audience` row is one contact
//! of a plan's resolved audience in one resolution (`generation`): a member (`excluded` empty)
//! or left out with the reason. The plan's members are counted, paged and compared between
//! resolutions in SQL, never written out in the plan's JSON.
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
                    .table("segment")
                    .col(uuid("id").primary_key())
                    .col(uuid("organization_id"))
                    .col(string("name"))
                    .col(string("name_key"))
                    .col(json("filter"))
                    .col(uuid_null("created_by"))
                    .col(timestamp_with_time_zone("created_at"))
                    .col(timestamp_with_time_zone("updated_at"))
                    .foreign_key(&mut fk(
                        "segment",
                        "organization_id",
                        "organization",
                        ForeignKeyAction::Cascade,
                    ))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(index("segment", &["organization_id", "name_key"], true))
            .await?;
        manager
            .create_table(
                Table::create()
                    .table("plan_audience")
                    .col(uuid("plan_id"))
                    .col(integer("generation"))
                    .col(uuid("contact_id"))
                    .col(string_null("excluded"))
                    .primary_key(
                        Index::create()
                            .col("plan_id")
                            .col("generation")
                            .col("contact_id"),
                    )
                    .foreign_key(&mut fk(
                        "plan_audience",
                        "plan_id",
                        "ai_agent_plan",
                        ForeignKeyAction::Cascade,
                    ))
                    .to_owned(),
            )
            .await?;
        // Exclusions grouped by reason, and a generation's members in contact order.
        manager
            .create_index(index(
                "plan_audience",
                &["plan_id", "generation", "excluded", "contact_id"],
                false,
            ))
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table("plan_audience").to_owned())
            .await?;
        manager
            .drop_table(Table::drop().table("segment").to_owned())
            .await
    }
}
