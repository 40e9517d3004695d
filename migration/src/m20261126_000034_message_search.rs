//! Full-text search over texts. SQLite: an FTS5 index (`message_fts`, contentless, keyed by the
//! message's `seq`) kept by triggers on `message`. PostgreSQL: a stored `tsvector` column
//! (`body_tsv`, the 'simple' configuration: no stemming, any language) with a GIN index, and an
//! index on (organisation, seq); SQLite one on seq. Results come newest first, a page at a time.
use crate::index;
use sea_orm::DbBackend;
use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        let db = manager.get_connection();
        if db.get_database_backend() == DbBackend::Postgres {
            manager
                .create_index(index("message", &["organization_id", "seq"], false))
                .await?;
            for sql in [
                "ALTER TABLE message ADD COLUMN body_tsv tsvector \
                 GENERATED ALWAYS AS (to_tsvector('simple', coalesce(body, ''))) STORED",
                "CREATE INDEX idx_message_body_tsv ON message USING GIN (body_tsv)",
            ] {
                db.execute_unprepared(sql).await?;
            }
        } else {
            // Search looks each match up by seq (its FTS rowid). Not (organization_id, seq): with
            // it, SQLite walks the organisation's texts in seq order to find one contact's
            // history (2.3 s at a million texts) instead of using (contact_id, seq).
            manager
                .create_index(index("message", &["seq"], false))
                .await?;
            // A new message's seq is its rowid (migration 30's trigger sets it in the same
            // statement), so the index can key it by rowid at insert time.
            for sql in [
                "CREATE VIRTUAL TABLE message_fts USING fts5(body, content='', contentless_delete=1)",
                "INSERT INTO message_fts (rowid, body) SELECT seq, body FROM message",
                "CREATE TRIGGER message_fts_insert AFTER INSERT ON message BEGIN \
                 INSERT INTO message_fts (rowid, body) VALUES (NEW.rowid, NEW.body); END",
                "CREATE TRIGGER message_fts_delete AFTER DELETE ON message BEGIN \
                 DELETE FROM message_fts WHERE rowid = OLD.seq; END",
                "CREATE TRIGGER message_fts_update AFTER UPDATE OF body ON message BEGIN \
                 DELETE FROM message_fts WHERE rowid = OLD.seq; \
                 INSERT INTO message_fts (rowid, body) VALUES (NEW.seq, NEW.body); END",
            ] {
                db.execute_unprepared(sql).await?;
            }
        }
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        let db = manager.get_connection();
        if db.get_database_backend() == DbBackend::Postgres {
            db.execute_unprepared("DROP INDEX IF EXISTS idx_message_body_tsv")
                .await?;
            db.execute_unprepared("ALTER TABLE message DROP COLUMN body_tsv")
                .await?;
        } else {
            for t in [
                "message_fts_insert",
                "message_fts_delete",
                "message_fts_update",
            ] {
                db.execute_unprepared(&format!("DROP TRIGGER IF EXISTS {t}"))
                    .await?;
            }
            db.execute_unprepared("DROP TABLE IF EXISTS message_fts")
                .await?;
        }
        let name = if db.get_database_backend() == DbBackend::Postgres {
            "idx_message_organization_id_seq"
        } else {
            "idx_message_seq"
        };
        manager
            .drop_index(Index::drop().name(name).table("message").to_owned())
            .await
    }
}
