//! Knowledge (issue 52): `knowledge_source` (an FAQ entry, a fact, later a document or a web
//! page, with its reading state) and `knowledge_passage` (its passages, each with its search
//! terms). Full text over the terms: on SQLite a contentless FTS5 index (`knowledge_fts`) keyed
//! by the passage's `fts_key` and kept by triggers, with the organisation as an indexed `scope`
//! token ('o' and its id in hex) so a search is scoped inside the index; on PostgreSQL a stored `tsvector` (`terms_tsv`,
//! the 'simple' configuration: the terms are already stemmed) with a GIN index.
use crate::{fk, index};
use sea_orm::DbBackend;
use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table("knowledge_source")
                    .col(uuid("id").primary_key())
                    .col(uuid("organization_id"))
                    .col(string_len("kind", 16))
                    .col(string_len("title", 255))
                    .col(text("body"))
                    .col(text("alternatives"))
                    .col(string_len("status", 16))
                    .col(text_null("error"))
                    .col(integer("passage_count"))
                    .col(timestamp_with_time_zone_null("last_read_at"))
                    .col(uuid_null("added_by"))
                    .col(timestamp_with_time_zone("created_at"))
                    .col(timestamp_with_time_zone("updated_at"))
                    .foreign_key(&mut fk(
                        "knowledge_source",
                        "organization_id",
                        "organization",
                        ForeignKeyAction::Cascade,
                    ))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(index(
                "knowledge_source",
                &["organization_id", "created_at"],
                false,
            ))
            .await?;
        manager
            .create_table(
                Table::create()
                    .table("knowledge_passage")
                    .col(uuid("id").primary_key())
                    .col(uuid("organization_id"))
                    .col(uuid("source_id"))
                    .col(integer("ordinal"))
                    .col(text("text"))
                    .col(text("terms"))
                    .col(big_integer("fts_key"))
                    .col(timestamp_with_time_zone("created_at"))
                    .foreign_key(&mut fk(
                        "knowledge_passage",
                        "organization_id",
                        "organization",
                        ForeignKeyAction::Cascade,
                    ))
                    .foreign_key(&mut fk(
                        "knowledge_passage",
                        "source_id",
                        "knowledge_source",
                        ForeignKeyAction::Cascade,
                    ))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(index("knowledge_passage", &["source_id", "ordinal"], false))
            .await?;
        manager
            .create_index(index("knowledge_passage", &["fts_key"], true))
            .await?;
        let db = manager.get_connection();
        let sql: &[&str] = if db.get_database_backend() == DbBackend::Postgres {
            &[
                "ALTER TABLE knowledge_passage ADD COLUMN terms_tsv tsvector \
                 GENERATED ALWAYS AS (to_tsvector('simple', terms)) STORED",
                "CREATE INDEX idx_knowledge_passage_terms_tsv ON knowledge_passage USING GIN (terms_tsv)",
                "CREATE INDEX idx_knowledge_passage_organization_id ON knowledge_passage (organization_id)",
            ]
        } else {
            &[
                "CREATE VIRTUAL TABLE knowledge_fts USING fts5(terms, scope, content='', contentless_delete=1)",
                "CREATE TRIGGER knowledge_fts_insert AFTER INSERT ON knowledge_passage BEGIN \
                 INSERT INTO knowledge_fts (rowid, terms, scope) \
                 VALUES (NEW.fts_key, NEW.terms, 'o' || hex(NEW.organization_id)); END",
                "CREATE TRIGGER knowledge_fts_delete AFTER DELETE ON knowledge_passage BEGIN \
                 DELETE FROM knowledge_fts WHERE rowid = OLD.fts_key; END",
            ]
        };
        for s in sql {
            db.execute_unprepared(s).await?;
        }
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        let db = manager.get_connection();
        if db.get_database_backend() != DbBackend::Postgres {
            for s in [
                "DROP TRIGGER IF EXISTS knowledge_fts_insert",
                "DROP TRIGGER IF EXISTS knowledge_fts_delete",
                "DROP TABLE IF EXISTS knowledge_fts",
            ] {
                db.execute_unprepared(s).await?;
            }
        }
        manager
            .drop_table(Table::drop().table("knowledge_passage").to_owned())
            .await?;
        manager
            .drop_table(Table::drop().table("knowledge_source").to_owned())
            .await
    }
}
