//! Who may come in: invitation links, one-time password-reset links, each session's device and
//! last use (so a person can see and end their sessions), and the organisation's audit log, whose
//! entries the database itself refuses to change.
use crate::{add_column, drop_column, fk, index};
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
                    .table("invitation")
                    .col(pk_uuid("id"))
                    .col(uuid("organization_id"))
                    .col(string_len("role", 16))
                    .col(string_len_uniq("token_hash", 64))
                    .col(uuid("created_by"))
                    .col(timestamp_with_time_zone("created_at"))
                    .col(timestamp_with_time_zone("expires_at"))
                    .col(timestamp_with_time_zone_null("accepted_at"))
                    .col(uuid_null("accepted_by"))
                    .col(timestamp_with_time_zone_null("revoked_at"))
                    .foreign_key(&mut fk(
                        "invitation",
                        "organization_id",
                        "organization",
                        ForeignKeyAction::Cascade,
                    ))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(index(
                "invitation",
                &["organization_id", "created_at"],
                false,
            ))
            .await?;
        manager
            .create_table(
                Table::create()
                    .table("password_reset")
                    .col(pk_uuid("id"))
                    .col(uuid("user_id"))
                    .col(string_len_uniq("token_hash", 64))
                    .col(uuid_null("created_by"))
                    .col(timestamp_with_time_zone("created_at"))
                    .col(timestamp_with_time_zone("expires_at"))
                    .col(timestamp_with_time_zone_null("used_at"))
                    .foreign_key(&mut fk(
                        "password_reset",
                        "user_id",
                        "user",
                        ForeignKeyAction::Cascade,
                    ))
                    .to_owned(),
            )
            .await?;
        add_column(manager, "session", text_null("user_agent")).await?;
        add_column(
            manager,
            "session",
            timestamp_with_time_zone_null("last_seen_at"),
        )
        .await?;
        manager
            .create_table(
                Table::create()
                    .table("audit_log")
                    .col(pk_uuid("id"))
                    .col(uuid_null("organization_id"))
                    .col(uuid_null("actor_user_id"))
                    .col(string_len("action", 48))
                    .col(text("target"))
                    .col(text_null("detail"))
                    .col(timestamp_with_time_zone("created_at"))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(index(
                "audit_log",
                &["organization_id", "created_at"],
                false,
            ))
            .await?;
        let db = manager.get_connection();
        match db.get_database_backend() {
            DbBackend::Postgres => {
                db.execute_unprepared(
                    "CREATE FUNCTION audit_log_immutable() RETURNS trigger LANGUAGE plpgsql AS \
                     $$ BEGIN RAISE EXCEPTION 'audit entries cannot be edited'; END $$",
                )
                .await?;
                db.execute_unprepared(
                    "CREATE TRIGGER audit_log_no_edit BEFORE UPDATE OR DELETE ON audit_log \
                     FOR EACH ROW EXECUTE FUNCTION audit_log_immutable()",
                )
                .await?;
            }
            _ => {
                for (name, op) in [
                    ("audit_log_no_update", "UPDATE"),
                    ("audit_log_no_delete", "DELETE"),
                ] {
                    db.execute_unprepared(&format!(
                        "CREATE TRIGGER {name} BEFORE {op} ON audit_log \
                         BEGIN SELECT RAISE(ABORT, 'audit entries cannot be edited'); END"
                    ))
                    .await?;
                }
            }
        }
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        let db = manager.get_connection();
        manager
            .drop_table(Table::drop().table("audit_log").to_owned())
            .await?;
        if db.get_database_backend() == DbBackend::Postgres {
            db.execute_unprepared("DROP FUNCTION IF EXISTS audit_log_immutable()")
                .await?;
        }
        manager
            .drop_index(
                Index::drop()
                    .name("idx_session_user_id")
                    .table("session")
                    .to_owned(),
            )
            .await?;
        drop_column(manager, "session", "last_seen_at").await?;
        drop_column(manager, "session", "user_agent").await?;
        manager
            .drop_table(Table::drop().table("password_reset").to_owned())
            .await?;
        manager
            .drop_table(Table::drop().table("invitation").to_owned())
            .await
    }
}
