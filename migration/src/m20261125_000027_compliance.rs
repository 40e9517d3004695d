//! Lawful texting: each contact's consent on record, each text's purpose (a reply, outreach, or a
//! compliance answer such as an opt-out confirmation), the organisation's HELP and confirmation
//! wording, AI disclosure and extra opt-out phrases, and the "possible opt-out" items a person
//! decides.
use crate::{add_column, drop_column, fk, index};
use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        add_column(
            manager,
            "contact",
            string_len("consent_source", 24).default("none").to_owned(),
        )
        .await?;
        add_column(
            manager,
            "contact",
            timestamp_with_time_zone_null("consent_at"),
        )
        .await?;
        add_column(manager, "contact", text_null("consent_note")).await?;
        add_column(manager, "message", string_len_null("purpose", 16)).await?;
        add_column(manager, "organization", text_null("help_text")).await?;
        add_column(manager, "organization", text_null("opt_out_reply")).await?;
        add_column(
            manager,
            "organization",
            boolean("ai_disclosure").default(true).to_owned(),
        )
        .await?;
        add_column(manager, "organization", text_null("ai_disclosure_text")).await?;
        add_column(manager, "organization", text_null("opt_out_phrases")).await?;
        // Contacts who texted first gave consent to be answered (not to marketing).
        manager
            .get_connection()
            .execute_unprepared(
                "UPDATE contact SET consent_source = 'texted_first', consent_at = created_at \
                 WHERE id IN (SELECT contact_id FROM message WHERE direction = 'inbound')",
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table("opt_out_review")
                    .col(pk_uuid("id"))
                    .col(uuid("organization_id"))
                    .col(uuid("contact_id"))
                    .col(string_len("phone", 32))
                    .col(uuid("message_id"))
                    .col(text("body"))
                    .col(string("matched"))
                    .col(string_len("status", 16))
                    .col(uuid_null("decided_by"))
                    .col(timestamp_with_time_zone_null("decided_at"))
                    .col(timestamp_with_time_zone("created_at"))
                    .foreign_key(&mut fk(
                        "opt_out_review",
                        "organization_id",
                        "organization",
                        ForeignKeyAction::Cascade,
                    ))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(index("opt_out_review", &["message_id"], true))
            .await?;
        manager
            .create_index(index(
                "opt_out_review",
                &["organization_id", "status", "phone"],
                false,
            ))
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table("opt_out_review").to_owned())
            .await?;
        for col in [
            "opt_out_phrases",
            "ai_disclosure_text",
            "ai_disclosure",
            "opt_out_reply",
            "help_text",
        ] {
            drop_column(manager, "organization", col).await?;
        }
        drop_column(manager, "message", "purpose").await?;
        for col in ["consent_note", "consent_at", "consent_source"] {
            drop_column(manager, "contact", col).await?;
        }
        Ok(())
    }
}
