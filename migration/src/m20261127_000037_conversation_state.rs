//! The team inbox's conversation state (issue 28): open, closed, or snoozed until a time, and the
//! member it is assigned to, on the per-conversation row (migration 30), and until when a
//! person's hand-sent text pauses the autonomous agents there (the handoff). A new inbound text
//! reopens a closed or snoozed conversation, in the same statement that stores it (a trigger on
//! `message`, as migration 30 keeps the rest of the row). Views read the state through
//! `(organization_id, state, last_at)` and `(organization_id, assignee_id, last_at)` (their counts
//! through `(organization_id, assignee_id, state, snoozed_until)`); the waker
//! finds snoozes that are due through `(state, snoozed_until)`.
use crate::{add_column, drop_column, drop_indexes, index};
use sea_orm::DbBackend;
use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

const REOPEN: &str = "UPDATE conversation SET state = 'open', snoozed_until = NULL \
     WHERE contact_id = NEW.contact_id AND state <> 'open'";

const INDEXES: [(&str, &[&str]); 4] = [
    (
        "conversation",
        &["organization_id", "state", "last_at", "contact_id"],
    ),
    (
        "conversation",
        &["organization_id", "assignee_id", "last_at", "contact_id"],
    ),
    // Mine's and Unassigned's counts, from the index alone.
    (
        "conversation",
        &["organization_id", "assignee_id", "state", "snoozed_until"],
    ),
    ("conversation", &["state", "snoozed_until"]),
];

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        let db = manager.get_connection();
        add_column(
            manager,
            "conversation",
            string_len("state", 16).default("open").to_owned(),
        )
        .await?;
        add_column(
            manager,
            "conversation",
            timestamp_with_time_zone_null("snoozed_until"),
        )
        .await?;
        add_column(manager, "conversation", uuid_null("assignee_id")).await?;
        // The AI↔human handoff: a person's text by hand pauses the autonomous agents until then.
        add_column(
            manager,
            "conversation",
            timestamp_with_time_zone_null("ai_paused_until"),
        )
        .await?;
        add_column(manager, "conversation", uuid_null("ai_paused_by")).await?;
        // The content type of each picture or file a text carries (Twilio's MediaContentType).
        add_column(manager, "message", json_null("media_types")).await?;
        // How long a person's text pauses the agents, per organisation (default a day).
        add_column(
            manager,
            "organization",
            integer("ai_pause_minutes").default(1440).to_owned(),
        )
        .await?;
        for (table, cols) in INDEXES {
            manager.create_index(index(table, cols, false)).await?;
        }
        if db.get_database_backend() == DbBackend::Postgres {
            db.execute_unprepared(&format!(
                "CREATE FUNCTION conversation_reopen() RETURNS trigger LANGUAGE plpgsql AS \
                 $$ BEGIN {REOPEN}; RETURN NULL; END $$"
            ))
            .await?;
            // Named to sort after `message_conversation`: PostgreSQL fires triggers by name, so
            // the row exists by then.
            db.execute_unprepared(
                "CREATE TRIGGER message_conversation_reopen AFTER INSERT ON message \
                 FOR EACH ROW WHEN (NEW.direction = 'inbound') \
                 EXECUTE FUNCTION conversation_reopen()",
            )
            .await?;
        } else {
            db.execute_unprepared(&format!(
                "CREATE TRIGGER message_conversation_reopen AFTER INSERT ON message \
                 WHEN NEW.direction = 'inbound' BEGIN {REOPEN}; END"
            ))
            .await?;
        }
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        let db = manager.get_connection();
        if db.get_database_backend() == DbBackend::Postgres {
            db.execute_unprepared("DROP TRIGGER IF EXISTS message_conversation_reopen ON message")
                .await?;
            db.execute_unprepared("DROP FUNCTION IF EXISTS conversation_reopen()")
                .await?;
        } else {
            db.execute_unprepared("DROP TRIGGER IF EXISTS message_conversation_reopen")
                .await?;
        }
        drop_indexes(manager, &INDEXES).await?;
        drop_column(manager, "organization", "ai_pause_minutes").await?;
        drop_column(manager, "message", "media_types").await?;
        for col in [
            "ai_paused_by",
            "ai_paused_until",
            "assignee_id",
            "snoozed_until",
            "state",
        ] {
            drop_column(manager, "conversation", col).await?;
        }
        Ok(())
    }
}
