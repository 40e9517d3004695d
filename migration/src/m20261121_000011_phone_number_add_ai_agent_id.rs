//! Which agent answers a number: `ai_agent_id` (ON DELETE SET NULL falls back to the legacy
//! suggester) and the legacy `text_agent_id`.
use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        let sqlite = manager.get_database_backend() == sea_orm::DbBackend::Sqlite;
        for (col, table) in [("ai_agent_id", "ai_agent"), ("text_agent_id", "text_agent")] {
            if sqlite {
                // SQLite can neither add a constraint to a table nor drop a column a foreign key
                // uses, so ON DELETE SET NULL is a trigger there: the same behaviour, reversible.
                let conn = manager.get_connection();
                conn.execute_unprepared(&format!(
                    "ALTER TABLE phone_number ADD COLUMN {col} uuid_text NULL"
                ))
                .await?;
                conn.execute_unprepared(&format!(
                    "CREATE TRIGGER phone_number_{col}_set_null AFTER DELETE ON {table} \
                     BEGIN UPDATE phone_number SET {col} = NULL WHERE {col} = OLD.id; END"
                ))
                .await?;
            } else {
                manager
                    .alter_table(
                        Table::alter()
                            .table("phone_number")
                            .add_column(uuid_null(col))
                            .add_foreign_key(
                                TableForeignKey::new()
                                    .name(format!("fk_phone_number_{col}"))
                                    .from_tbl("phone_number")
                                    .from_col(col)
                                    .to_tbl(table)
                                    .to_col("id")
                                    .on_delete(ForeignKeyAction::SetNull),
                            )
                            .to_owned(),
                    )
                    .await?;
            }
        }
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        let sqlite = manager.get_database_backend() == sea_orm::DbBackend::Sqlite;
        for col in ["ai_agent_id", "text_agent_id"] {
            if sqlite {
                let sql = format!("DROP TRIGGER IF EXISTS phone_number_{col}_set_null");
                manager.get_connection().execute_unprepared(&sql).await?;
            } else {
                manager
                    .alter_table(
                        Table::alter()
                            .table("phone_number")
                            .drop_foreign_key(format!("fk_phone_number_{col}"))
                            .to_owned(),
                    )
                    .await?;
            }
            manager
                .alter_table(
                    Table::alter()
                        .table("phone_number")
                        .drop_column(col)
                        .to_owned(),
                )
                .await?;
        }
        Ok(())
    }
}
