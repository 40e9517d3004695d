//! Suppression belongs to the number: an opt-out is keyed by (organisation, E.164 phone), not by
//! the contact row, so editing, deleting, re-importing or re-creating a contact never clears it.
//! Every change is kept in `suppression_audit`. Existing per-contact opt-outs move across.
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
                    .table("suppression")
                    .col(pk_uuid("id"))
                    .col(uuid("organization_id"))
                    .col(string_len("phone", 32))
                    .col(string_len("source", 16))
                    .col(text_null("reason"))
                    .col(uuid_null("message_id"))
                    .col(timestamp_with_time_zone("created_at"))
                    .foreign_key(&mut fk(
                        "suppression",
                        "organization_id",
                        "organization",
                        ForeignKeyAction::Cascade,
                    ))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(index("suppression", &["organization_id", "phone"], true))
            .await?;
        manager
            .create_table(
                Table::create()
                    .table("suppression_audit")
                    .col(pk_uuid("id"))
                    .col(uuid("organization_id"))
                    .col(string_len("phone", 32))
                    .col(string_len("action", 16))
                    .col(string_len("source", 16))
                    .col(uuid_null("actor_user_id"))
                    .col(text_null("reason"))
                    .col(uuid_null("message_id"))
                    .col(timestamp_with_time_zone("created_at"))
                    .foreign_key(&mut fk(
                        "suppression_audit",
                        "organization_id",
                        "organization",
                        ForeignKeyAction::Cascade,
                    ))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(index(
                "suppression_audit",
                &["organization_id", "phone", "created_at"],
                false,
            ))
            .await?;
        // The old per-contact rows move to their number. A number belongs to one contact of an
        // organisation (a unique index), so no two rows meet; no ON CONFLICT, which SQLite
        // refused intermittently at start-up ("does not match any UNIQUE constraint").
        let db = manager.get_connection();
        db.execute_unprepared(
            "INSERT INTO suppression (id, organization_id, phone, source, reason, message_id, created_at) \
             SELECT o.id, c.organization_id, c.phone, o.source, NULL, NULL, o.created_at \
             FROM contact_channel_opt_out o JOIN contact c ON c.id = o.contact_id \
             WHERE o.channel = 'sms' AND c.phone IS NOT NULL",
        )
        .await?;
        db.execute_unprepared(
            "INSERT INTO suppression_audit (id, organization_id, phone, action, source, actor_user_id, reason, message_id, created_at) \
             SELECT s.id, s.organization_id, s.phone, 'opted_out', s.source, NULL, 'moved from the contact to the number', NULL, s.created_at \
             FROM suppression s",
        )
        .await?;
        manager
            .drop_table(Table::drop().table("contact_channel_opt_out").to_owned())
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table("contact_channel_opt_out")
                    .col(pk_uuid("id"))
                    .col(uuid("contact_id"))
                    .col(string("channel"))
                    .col(string("source"))
                    .col(timestamp_with_time_zone("created_at"))
                    .to_owned(),
            )
            .await?;
        manager
            .get_connection()
            .execute_unprepared(
                "INSERT INTO contact_channel_opt_out (id, contact_id, channel, source, created_at) \
                 SELECT s.id, c.id, 'sms', s.source, s.created_at FROM suppression s \
                 JOIN contact c ON c.organization_id = s.organization_id AND c.phone = s.phone",
            )
            .await?;
        manager
            .drop_table(Table::drop().table("suppression_audit").to_owned())
            .await?;
        manager
            .drop_table(Table::drop().table("suppression").to_owned())
            .await
    }
}
