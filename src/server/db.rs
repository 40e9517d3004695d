//! Connecting to SQLite or PostgreSQL and bringing the schema up to date.
use migration::{Migrator, MigratorTrait};
use sea_orm::{ConnectOptions, Database, DatabaseConnection, DbBackend, DbErr};
use std::time::Duration;

/// Connections kept for the webhook's acknowledgements (`AppState::ack_db`). SQLite takes one
/// writer at a time, so a few connections do; PostgreSQL runs the acknowledgements side by side,
/// and a carrier's burst must not queue for a connection.
pub fn ack_pool_size(url: &str) -> u32 {
    if url.starts_with("sqlite:") {
        4
    } else {
        8
    }
}

/// Connects, tunes SQLite for concurrent use, and runs every pending migration.
#[tracing::instrument(skip_all, fields(backend))]
pub async fn connect_and_migrate(url: &str) -> Result<DatabaseConnection, DbErr> {
    let size = if url.starts_with("sqlite:") { 8 } else { 20 };
    let db = connect(url, size).await?;
    tracing::Span::current().record("backend", format!("{:?}", db.get_database_backend()));
    migrate(&db).await?;
    Ok(db)
}

/// A pool of `size` connections, SQLite tuned for concurrent use.
pub async fn connect(url: &str, size: u32) -> Result<DatabaseConnection, DbErr> {
    let mut opts = ConnectOptions::new(url.to_owned());
    opts.max_connections(size)
        .connect_timeout(Duration::from_secs(10))
        .sqlx_logging(false);
    // WAL with synchronous=NORMAL: a commit survives a process crash (SIGKILL); only a power
    // loss can undo the very last ones. Every connection is set, and waits for the writer.
    opts.map_sqlx_sqlite_opts(|o| {
        o.journal_mode(sea_orm::sqlx::sqlite::SqliteJournalMode::Wal)
            .synchronous(sea_orm::sqlx::sqlite::SqliteSynchronous::Normal)
            .busy_timeout(Duration::from_secs(10))
    });
    Database::connect(opts).await
}

/// Any number for the migration lock, the same in every instance.
const MIGRATION_LOCK: i64 = 0x4845_5241_4c44; // "HERALD"

/// Runs pending migrations. On PostgreSQL several instances may start at once: they take turns
/// under an advisory lock, held on one connection for the whole run.
async fn migrate(db: &DatabaseConnection) -> Result<(), DbErr> {
    if db.get_database_backend() != DbBackend::Postgres {
        return Migrator::up(db, None).await;
    }
    let pool = db.get_postgres_connection_pool();
    let mut lock = pool
        .acquire()
        .await
        .map_err(|e| DbErr::Custom(format!("migration lock connection: {e}")))?;
    sea_orm::sqlx::query("SELECT pg_advisory_lock($1)")
        .bind(MIGRATION_LOCK)
        .execute(&mut *lock)
        .await
        .map_err(|e| DbErr::Custom(format!("migration lock: {e}")))?;
    let outcome = Migrator::up(db, None).await;
    let _ = sea_orm::sqlx::query("SELECT pg_advisory_unlock($1)")
        .bind(MIGRATION_LOCK)
        .execute(&mut *lock)
        .await;
    outcome
}

/// Whether a database error is a unique-constraint violation, on either backend.
pub fn is_unique_violation(err: &DbErr) -> bool {
    matches!(
        err.sql_err(),
        Some(sea_orm::SqlErr::UniqueConstraintViolation(_))
    )
}
