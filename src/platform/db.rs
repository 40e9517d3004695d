//! Connecting to SQLite or PostgreSQL and bringing the schema up to date.
use crate::platform::sqlite_busy::Wait;
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

/// Connections for everything else: pages, agent turns, engines. Fewer is faster here: measured
/// under 500 texts a second to agents (issue 15), 4 SQLite connections instead of 8 halved the
/// acknowledgement's p99 (6.7 ms against 13.9 ms; each writer more is one more waiting for the
/// lock) and ran more turns; on PostgreSQL 8 instead of 20 did the same (9.6 ms against 28.5 ms:
/// fewer server processes competing for the CPU). On SQLite 2 instead of 4 took it further
/// (p99 7.4, 9.8 and 8.0 ms against 9.8, 11.1 and 11.8 ms, same machine and hour, turns per
/// second unchanged): every SQLite connection is a thread of its own, and on two cores each
/// busy one more is CPU the acknowledgement waits for; the turns wait on the one writer anyway.
pub fn background_pool_size(url: &str) -> u32 {
    if url.starts_with("sqlite:") {
        2
    } else {
        8
    }
}

/// Connects, tunes SQLite for concurrent use, and runs every pending migration.
#[tracing::instrument(skip_all, fields(backend))]
pub async fn connect_and_migrate(url: &str) -> Result<DatabaseConnection, DbErr> {
    let db = connect(url, background_pool_size(url), Role::Background).await?;
    tracing::Span::current().record("backend", format!("{:?}", db.get_database_backend()));
    migrate(&db).await?;
    Ok(db)
}

/// Which work a pool serves: on SQLite, the acknowledgement's pool waits for the writer's lock in
/// shorter steps, so it goes first when both wait, and the checkpointer gives up quickly, since
/// no one may write while it waits (`sqlite_busy`, `sqlite_wal`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Acknowledgement,
    Background,
    Checkpoint,
}

impl Role {
    fn wait(self) -> Wait {
        match self {
            Role::Acknowledgement => Wait::polling(Duration::from_micros(20)),
            Role::Background => Wait::polling(Duration::from_micros(100)),
            Role::Checkpoint => crate::platform::sqlite_wal::CHECKPOINT_WAIT,
        }
    }
}

/// SQLite's page cache per connection, in KiB (a negative `cache_size` is KiB): 32 MiB.
const SQLITE_CACHE_KIB: i64 = -32 * 1024;
/// How much of the database file SQLite maps for reads: 1 GiB (of address space, not memory).
const SQLITE_MMAP_BYTES: i64 = 1 << 30;

/// A pool of `size` connections, SQLite tuned for concurrent use.
pub async fn connect(url: &str, size: u32, role: Role) -> Result<DatabaseConnection, DbErr> {
    let mut opts = ConnectOptions::new(url.to_owned());
    opts.max_connections(size)
        .connect_timeout(Duration::from_secs(10))
        .sqlx_logging(false);
    // WAL with synchronous=NORMAL: a commit survives a process crash (SIGKILL); only a power
    // loss can undo the very last ones. Every connection is set, and waits for the writer.
    opts.map_sqlx_sqlite_opts(|o| {
        o.journal_mode(sea_orm::sqlx::sqlite::SqliteJournalMode::Wal)
            .synchronous(sea_orm::sqlx::sqlite::SqliteSynchronous::Normal)
            .busy_timeout(crate::platform::sqlite_busy::BUSY_TIMEOUT)
            // A log started over (`sqlite_wal`) is cut back to this size.
            .pragma(
                "journal_size_limit",
                crate::platform::sqlite_wal::LOG_LIMIT_BYTES.to_string(),
            )
            // SQLite's own page cache is 2 MB a connection by default: at a million texts the
            // database is about a gigabyte, and reads of a large organisation went to the
            // operating system for every page. 32 MB a connection, grown only as pages are read,
            // and the file mapped (shared between connections) for reads.
            .pragma("cache_size", SQLITE_CACHE_KIB.to_string())
            .pragma("mmap_size", SQLITE_MMAP_BYTES.to_string())
    });
    let wait = role.wait();
    opts.map_sqlx_sqlite_pool_opts(move |pool| {
        pool.after_connect(move |conn, _| crate::platform::sqlite_busy::install(conn, wait))
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
    crate::error::DbFault::of(err) == crate::error::DbFault::Unique
}

/// Serialises changes to one organisation's memberships (so two owners demoting each other at
/// once cannot leave it with none): a no-op UPDATE of the organisation's row, which takes its row
/// lock on PostgreSQL and the write lock on SQLite, until the transaction ends.
pub async fn lock_organization<C: sea_orm::ConnectionTrait>(
    txn: &C,
    organization_id: uuid::Uuid,
) -> Result<(), DbErr> {
    use sea_orm::sea_query::{Alias, Expr, ExprTrait, Query};
    // Named, not through `auth`'s entity: the base imports no domain.
    let name = || Alias::new("name");
    let update = Query::update()
        .table(Alias::new("organization"))
        .value(name(), Expr::col(name()))
        .and_where(Expr::col(Alias::new("id")).eq(organization_id))
        .to_owned();
    txn.execute(&update).await?;
    Ok(())
}

/// A transaction-scoped advisory lock on PostgreSQL; on SQLite a transaction's first write
/// already excludes every other writer, so nothing is needed.
pub async fn advisory_xact_lock<C: sea_orm::ConnectionTrait>(
    txn: &C,
    key: i64,
) -> Result<(), DbErr> {
    if txn.get_database_backend() == sea_orm::DbBackend::Postgres {
        txn.execute_raw(sea_orm::Statement::from_sql_and_values(
            sea_orm::DbBackend::Postgres,
            "SELECT pg_advisory_xact_lock($1)",
            [key.into()],
        ))
        .await?;
    }
    Ok(())
}

/// Begins a transaction that writes: on SQLite `BEGIN IMMEDIATE`, which takes the writer's lock
/// at once (waiting for it through the busy handler); on PostgreSQL a plain `BEGIN`.
///
/// Why: SQLite's default `BEGIN` is deferred. Its first statement may find a write lock or a
/// newer commit and answer "database is locked" at once, without waiting (SQLITE_BUSY or
/// SQLITE_BUSY_SNAPSHOT). Three copies of an inbound STOP at once failed that way, one in eight
/// runs on a busy machine; a transaction that locks up front waits its turn instead.
pub async fn begin_write<C: sea_orm::TransactionTrait>(db: &C) -> Result<C::Transaction, DbErr> {
    db.begin_with_options(sea_orm::TransactionOptions {
        sqlite_transaction_mode: Some(sea_orm::SqliteTransactionMode::Immediate),
        ..Default::default()
    })
    .await
}

/// How many rows the query `q` answers, counted in the database (`SELECT count(1) FROM (q)`):
/// a `LIMIT` in `q` bounds the count.
pub async fn count_rows<C: sea_orm::ConnectionTrait>(
    db: &C,
    q: sea_orm::sea_query::SelectStatement,
) -> crate::error::AppResult<u64> {
    use sea_orm::sea_query::{Alias, Expr, Func, Query};
    let q = Query::select()
        .expr_as(Func::count(Expr::val(1)), Alias::new("n"))
        .from_subquery(q, Alias::new("q"))
        .to_owned();
    let row = db
        .query_one_raw(db.get_database_backend().build(&q))
        .await?
        .ok_or_else(|| crate::error::AppError::Internal("a count answered nothing".into()))?;
    Ok(row.try_get::<i64>("", "n")? as u64)
}
