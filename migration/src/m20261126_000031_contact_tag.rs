//! Each contact's tags as rows, `contact_tag` (organisation, tag, contact), kept from
//! `contact.tags` by triggers on every insert and every change of the tags: a tag filter or a
//! tag's count is an index range, at any number of contacts, on both databases.
use crate::{fk, index};
use sea_orm::DbBackend;
use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

/// The contact's tags (a JSON array of strings) as rows, lower-cased; anything else as none.
fn tags_of(pg: bool, row: &str) -> String {
    if pg {
        format!(
            "SELECT {row}.organization_id, lower(t), {row}.id FROM json_array_elements_text(\
             CASE WHEN json_typeof({row}.tags::json) = 'array' THEN {row}.tags::json \
             ELSE '[]'::json END) AS t WHERE length(t) > 0"
        )
    } else {
        format!(
            "SELECT {row}.organization_id, lower(j.value), {row}.id FROM json_each(\
             CASE WHEN json_type({row}.tags) = 'array' THEN {row}.tags ELSE '[]' END) AS j \
             WHERE j.type = 'text' AND length(j.value) > 0"
        )
    }
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        let db = manager.get_connection();
        let pg = db.get_database_backend() == DbBackend::Postgres;
        manager
            .create_table(
                Table::create()
                    .table("contact_tag")
                    .col(uuid("organization_id"))
                    .col(text("tag"))
                    .col(uuid("contact_id"))
                    .primary_key(Index::create().col("contact_id").col("tag"))
                    .foreign_key(&mut fk(
                        "contact_tag",
                        "contact_id",
                        "contact",
                        ForeignKeyAction::Cascade,
                    ))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(index(
                "contact_tag",
                &["organization_id", "tag", "contact_id"],
                false,
            ))
            .await?;
        // The contacts list's keyset (name order).
        manager
            .create_index(index("contact", &["organization_id", "name", "id"], false))
            .await?;
        let conflict = if pg { "ON CONFLICT DO NOTHING" } else { "" };
        let ignore = if pg { "" } else { "OR IGNORE " };
        db.execute_unprepared(&format!(
            "INSERT {ignore}INTO contact_tag (organization_id, tag, contact_id) {} {conflict}",
            tags_of(pg, "contact").replace("FROM json_", "FROM contact, json_")
        ))
        .await?;
        let fill = format!(
            "INSERT {ignore}INTO contact_tag (organization_id, tag, contact_id) {} {conflict}",
            tags_of(pg, "NEW")
        );
        if pg {
            db.execute_unprepared(&format!(
                "CREATE FUNCTION contact_tags_sync() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN \
                 IF TG_OP = 'UPDATE' THEN DELETE FROM contact_tag WHERE contact_id = NEW.id; END IF; \
                 {fill}; RETURN NULL; END $$"
            ))
            .await?;
            db.execute_unprepared(
                "CREATE TRIGGER contact_tags_insert AFTER INSERT ON contact \
                 FOR EACH ROW EXECUTE FUNCTION contact_tags_sync()",
            )
            .await?;
            db.execute_unprepared(
                "CREATE TRIGGER contact_tags_update AFTER UPDATE OF tags ON contact \
                 FOR EACH ROW WHEN (OLD.tags::text IS DISTINCT FROM NEW.tags::text) \
                 EXECUTE FUNCTION contact_tags_sync()",
            )
            .await?;
        } else {
            db.execute_unprepared(&format!(
                "CREATE TRIGGER contact_tags_insert AFTER INSERT ON contact BEGIN {fill}; END"
            ))
            .await?;
            db.execute_unprepared(&format!(
                "CREATE TRIGGER contact_tags_update AFTER UPDATE OF tags ON contact \
                 WHEN OLD.tags IS NOT NEW.tags BEGIN \
                 DELETE FROM contact_tag WHERE contact_id = NEW.id; {fill}; END"
            ))
            .await?;
        }
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        let db = manager.get_connection();
        if db.get_database_backend() == DbBackend::Postgres {
            for sql in [
                "DROP TRIGGER IF EXISTS contact_tags_insert ON contact",
                "DROP TRIGGER IF EXISTS contact_tags_update ON contact",
                "DROP FUNCTION IF EXISTS contact_tags_sync()",
            ] {
                db.execute_unprepared(sql).await?;
            }
        } else {
            for sql in [
                "DROP TRIGGER IF EXISTS contact_tags_insert",
                "DROP TRIGGER IF EXISTS contact_tags_update",
            ] {
                db.execute_unprepared(sql).await?;
            }
        }
        manager
            .drop_index(
                Index::drop()
                    .name("idx_contact_organization_id_name_id")
                    .table("contact")
                    .to_owned(),
            )
            .await?;
        manager
            .drop_table(Table::drop().table("contact_tag").to_owned())
            .await
    }
}
