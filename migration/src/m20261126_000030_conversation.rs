//! Per-conversation state kept as messages arrive (as Intercom's and Chatwoot's conversation
//! tables do): the last message, the last inbound and outbound times, the unread count and the
//! message count, one row per contact. The inbox, its paging and the navigation's counts read
//! this row instead of grouping the message table.
//!
//! Every message also gets `seq`, a number the database assigns in insertion order: a
//! conversation's history is ordered and paged by it, never by a clock (a text and the answer
//! queued with it share their timestamp).
//!
//! A trigger on `message` keeps both, in the inserting statement's own transaction, on every path
//! that stores a text (the inbound group commit, the send ledger, compliance answers).
use crate::{fk, index};
use sea_orm::DbBackend;
use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

/// The upsert both databases' triggers run for each new message (`NEW` is the message).
const UPSERT: &str = "INSERT INTO conversation (contact_id, organization_id, last_message_id, \
     last_body, last_direction, last_media_count, last_phone_number_id, last_at, \
     last_inbound_at, last_outbound_at, unread_count, message_count) \
     VALUES (NEW.contact_id, NEW.organization_id, NEW.id, substr(NEW.body, 1, 200), \
     NEW.direction, NEW.media_count, NEW.phone_number_id, NEW.created_at, \
     CASE WHEN NEW.direction = 'inbound' THEN NEW.created_at END, \
     CASE WHEN NEW.direction = 'outbound' THEN NEW.created_at END, \
     CASE WHEN NEW.direction = 'inbound' AND NEW.read_at IS NULL THEN 1 ELSE 0 END, 1) \
     ON CONFLICT (contact_id) DO UPDATE SET \
     last_message_id = CASE WHEN excluded.last_at >= conversation.last_at \
       THEN excluded.last_message_id ELSE conversation.last_message_id END, \
     last_body = CASE WHEN excluded.last_at >= conversation.last_at \
       THEN excluded.last_body ELSE conversation.last_body END, \
     last_direction = CASE WHEN excluded.last_at >= conversation.last_at \
       THEN excluded.last_direction ELSE conversation.last_direction END, \
     last_media_count = CASE WHEN excluded.last_at >= conversation.last_at \
       THEN excluded.last_media_count ELSE conversation.last_media_count END, \
     last_phone_number_id = CASE WHEN excluded.last_at >= conversation.last_at \
       THEN excluded.last_phone_number_id ELSE conversation.last_phone_number_id END, \
     last_at = CASE WHEN excluded.last_at >= conversation.last_at \
       THEN excluded.last_at ELSE conversation.last_at END, \
     last_inbound_at = CASE WHEN conversation.last_inbound_at IS NULL \
       OR excluded.last_inbound_at > conversation.last_inbound_at \
       THEN excluded.last_inbound_at ELSE conversation.last_inbound_at END, \
     last_outbound_at = CASE WHEN conversation.last_outbound_at IS NULL \
       OR excluded.last_outbound_at > conversation.last_outbound_at \
       THEN excluded.last_outbound_at ELSE conversation.last_outbound_at END, \
     unread_count = conversation.unread_count + excluded.unread_count, \
     message_count = conversation.message_count + 1";

/// Fills `conversation` from the messages already stored (after `seq` is numbered).
const BACKFILL: &str = "INSERT INTO conversation (contact_id, organization_id, last_message_id, \
     last_body, last_direction, last_media_count, last_phone_number_id, last_at, \
     last_inbound_at, last_outbound_at, unread_count, message_count) \
     SELECT m.contact_id, m.organization_id, m.id, substr(m.body, 1, 200), m.direction, \
     m.media_count, m.phone_number_id, m.created_at, \
     (SELECT max(i.created_at) FROM message i WHERE i.organization_id = m.organization_id \
       AND i.contact_id = m.contact_id \
       AND i.direction = 'inbound'), \
     (SELECT max(o.created_at) FROM message o WHERE o.organization_id = m.organization_id \
       AND o.contact_id = m.contact_id \
       AND o.direction = 'outbound'), \
     (SELECT count(*) FROM message u WHERE u.organization_id = m.organization_id \
       AND u.contact_id = m.contact_id \
       AND u.direction = 'inbound' AND u.read_at IS NULL), \
     (SELECT count(*) FROM message c WHERE c.organization_id = m.organization_id \
       AND c.contact_id = m.contact_id) \
     FROM message m \
     WHERE m.seq = (SELECT max(l.seq) FROM message l WHERE l.contact_id = m.contact_id)";

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        let db = manager.get_connection();
        let pg = db.get_database_backend() == DbBackend::Postgres;
        // `seq`: numbered in time order for the messages already stored, then by the database.
        if pg {
            for sql in [
                "ALTER TABLE message ADD COLUMN seq BIGINT",
                "CREATE SEQUENCE message_seq_seq OWNED BY message.seq",
                "UPDATE message SET seq = r.n FROM (SELECT id, row_number() OVER \
                 (ORDER BY created_at, id) AS n FROM message) r WHERE message.id = r.id",
                "SELECT setval('message_seq_seq', COALESCE((SELECT max(seq) FROM message), 0) + 1, false)",
                "ALTER TABLE message ALTER COLUMN seq SET DEFAULT nextval('message_seq_seq')",
                "ALTER TABLE message ALTER COLUMN seq SET NOT NULL",
            ] {
                db.execute_unprepared(sql).await?;
            }
        } else {
            for sql in [
                "ALTER TABLE message ADD COLUMN seq INTEGER",
                "UPDATE message SET seq = r.n FROM (SELECT id, row_number() OVER \
                 (ORDER BY created_at, id) AS n FROM message) AS r WHERE message.id = r.id",
            ] {
                db.execute_unprepared(sql).await?;
            }
        }
        manager
            .create_index(index("message", &["contact_id", "seq"], true))
            .await?;
        manager
            .create_table(
                Table::create()
                    .table("conversation")
                    .col(pk_uuid("contact_id"))
                    .col(uuid("organization_id"))
                    .col(uuid("last_message_id"))
                    .col(text("last_body"))
                    .col(string_len("last_direction", 8))
                    .col(integer("last_media_count").default(0))
                    .col(uuid("last_phone_number_id"))
                    .col(timestamp_with_time_zone("last_at"))
                    .col(timestamp_with_time_zone_null("last_inbound_at"))
                    .col(timestamp_with_time_zone_null("last_outbound_at"))
                    .col(integer("unread_count").default(0))
                    .col(big_integer("message_count").default(0))
                    .foreign_key(&mut fk(
                        "conversation",
                        "organization_id",
                        "organization",
                        ForeignKeyAction::Cascade,
                    ))
                    .foreign_key(&mut fk(
                        "conversation",
                        "contact_id",
                        "contact",
                        ForeignKeyAction::Cascade,
                    ))
                    .to_owned(),
            )
            .await?;
        // The inbox's keyset (newest first) and the unread views and counts.
        manager
            .create_index(index(
                "conversation",
                &["organization_id", "last_at", "contact_id"],
                false,
            ))
            .await?;
        manager
            .create_index(index(
                "conversation",
                &["organization_id", "unread_count", "last_at"],
                false,
            ))
            .await?;
        db.execute_unprepared(BACKFILL).await?;
        if pg {
            db.execute_unprepared(&format!(
                "CREATE FUNCTION conversation_on_message() RETURNS trigger LANGUAGE plpgsql AS \
                 $$ BEGIN {UPSERT}; RETURN NULL; END $$"
            ))
            .await?;
            db.execute_unprepared(
                "CREATE TRIGGER message_conversation AFTER INSERT ON message \
                 FOR EACH ROW EXECUTE FUNCTION conversation_on_message()",
            )
            .await?;
        } else {
            // SQLite cannot add a column with a default from a sequence: a new row's rowid is
            // past every row's before it, and past every number the backfill gave.
            db.execute_unprepared(&format!(
                "CREATE TRIGGER message_conversation AFTER INSERT ON message BEGIN \
                 UPDATE message SET seq = NEW.rowid WHERE rowid = NEW.rowid; {UPSERT}; END"
            ))
            .await?;
        }
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        let db = manager.get_connection();
        if db.get_database_backend() == DbBackend::Postgres {
            db.execute_unprepared("DROP TRIGGER IF EXISTS message_conversation ON message")
                .await?;
            db.execute_unprepared("DROP FUNCTION IF EXISTS conversation_on_message()")
                .await?;
        } else {
            db.execute_unprepared("DROP TRIGGER IF EXISTS message_conversation")
                .await?;
        }
        manager
            .drop_table(Table::drop().table("conversation").to_owned())
            .await?;
        manager
            .drop_index(
                Index::drop()
                    .name("idx_message_contact_id_seq")
                    .table("message")
                    .to_owned(),
            )
            .await?;
        crate::drop_column(manager, "message", "seq").await
    }
}
