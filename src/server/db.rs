//! Connecting to SQLite or PostgreSQL and bringing the schema up to date.
use migration::{Migrator, MigratorTrait};
use sea_orm::{ConnectOptions, ConnectionTrait, Database, DatabaseConnection, DbBackend, DbErr};
use std::time::Duration;

/// Connects, tunes SQLite for concurrent use, and runs every pending migration.
#[tracing::instrument(skip_all, fields(backend))]
pub async fn connect_and_migrate(url: &str) -> Result<DatabaseConnection, DbErr> {
    let is_sqlite = url.starts_with("sqlite:");
    let mut opts = ConnectOptions::new(url.to_owned());
    opts.max_connections(if is_sqlite { 8 } else { 20 })
        .connect_timeout(Duration::from_secs(10))
        .sqlx_logging(false);
    let db = Database::connect(opts).await?;
    if db.get_database_backend() == DbBackend::Sqlite {
        db.execute_unprepared("PRAGMA journal_mode=WAL;").await?;
    }
    tracing::Span::current().record("backend", format!("{:?}", db.get_database_backend()));
    Migrator::up(&db, None).await?;
    Ok(db)
}

/// Whether a database error is a unique-constraint violation, on either backend.
pub fn is_unique_violation(err: &DbErr) -> bool {
    matches!(
        err.sql_err(),
        Some(sea_orm::SqlErr::UniqueConstraintViolation(_))
    )
}
