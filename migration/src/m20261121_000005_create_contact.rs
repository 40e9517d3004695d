//! Contacts: the people an organisation texts; one contact per E.164 phone within an organisation.
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
                    .table("contact")
                    .col(pk_uuid("id"))
                    .col(uuid("organization_id"))
                    .col(string("name"))
                    .col(string_null("phone"))
                    .col(string_null("email"))
                    .col(json("tags"))
                    .col(json("custom_fields"))
                    .col(text("notes").default(""))
                    .col(string_null("time_zone"))
                    .col(timestamp_with_time_zone("created_at"))
                    .col(timestamp_with_time_zone("updated_at"))
                    .foreign_key(&mut fk(
                        "contact",
                        "organization_id",
                        "organization",
                        ForeignKeyAction::Cascade,
                    ))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(index("contact", &["organization_id", "phone"], true))
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table("contact").to_owned())
            .await
    }
}
