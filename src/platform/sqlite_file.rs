//! The SQLite database as a file: where it is, the lock a running server holds on it (so that a
//! restore can refuse), an online backup (`VACUUM INTO`, consistent while Herald writes) and a
//! restore that checks the copy first.
use std::fs::File;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};

/// The file behind a `sqlite:` URL; None for PostgreSQL or an in-memory database.
pub fn path_of(url: &str) -> Option<PathBuf> {
    let rest = url
        .strip_prefix("sqlite://")
        .or_else(|| url.strip_prefix("sqlite:"))?;
    let path = rest.split('?').next().unwrap_or_default();
    (!path.is_empty() && !path.contains(":memory:")).then(|| PathBuf::from(path))
}

fn lock_path(db: &Path) -> PathBuf {
    let mut p = db.as_os_str().to_owned();
    p.push(".lock");
    PathBuf::from(p)
}

fn flock(file: &File, how: libc::c_int) -> bool {
    // SAFETY: flock on a file descriptor this process owns; no memory is shared.
    unsafe { libc::flock(file.as_raw_fd(), how | libc::LOCK_NB) == 0 }
}

/// Held by a running server for its whole life (shared: several processes may serve one file);
/// the kernel lets go when the process ends, however it ends.
pub struct ServerLock(#[allow(dead_code)] File);

/// Takes the running-server lock on the database file, if it is one.
pub fn hold_server_lock(url: &str) -> Result<Option<ServerLock>, String> {
    let Some(db) = path_of(url) else {
        return Ok(None);
    };
    let file = File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(lock_path(&db))
        .map_err(|e| format!("lock file beside {}: {e}", db.display()))?;
    if !flock(&file, libc::LOCK_SH) {
        return Err(format!(
            "{} is being restored; start Herald again when the restore has finished",
            db.display()
        ));
    }
    Ok(Some(ServerLock(file)))
}

/// Whether any server holds the lock on this database now.
pub fn server_running(db: &Path) -> Result<bool, String> {
    let file = File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(lock_path(db))
        .map_err(|e| e.to_string())?;
    Ok(!flock(&file, libc::LOCK_EX))
}

/// A consistent copy of the live database at `to` (which must not exist).
pub async fn backup(db: &sea_orm::DatabaseConnection, to: &Path) -> Result<(), String> {
    use sea_orm::ConnectionTrait;
    if to.exists() {
        return Err(format!(
            "{} exists already; choose a new file",
            to.display()
        ));
    }
    let target = to.display().to_string().replace('\'', "''");
    db.execute_unprepared(&format!("VACUUM INTO '{target}'"))
        .await
        .map_err(|e| format!("backup: {e}"))?;
    Ok(())
}

/// `PRAGMA integrity_check` of a database file, and whether it is a Herald database at all.
pub async fn check_file(path: &Path) -> Result<(), String> {
    use sea_orm::{ConnectionTrait, Statement};
    if !path.is_file() {
        return Err(format!("{} is not a file", path.display()));
    }
    let url = format!("sqlite://{}?mode=ro", path.display());
    let db = sea_orm::Database::connect(&url)
        .await
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let backend = db.get_database_backend();
    let row = db
        .query_one_raw(Statement::from_string(backend, "PRAGMA integrity_check"))
        .await
        .map_err(|e| format!("{}: not an SQLite database ({e})", path.display()))?;
    let verdict: String = row
        .and_then(|r| r.try_get_by_index::<String>(0).ok())
        .unwrap_or_default();
    if verdict != "ok" {
        return Err(format!(
            "{} fails its integrity check: {verdict}",
            path.display()
        ));
    }
    let herald = db
        .query_one_raw(Statement::from_string(
            backend,
            "SELECT count(*) FROM sqlite_master WHERE name = 'seaql_migrations'",
        ))
        .await
        .ok()
        .flatten()
        .and_then(|r| r.try_get_by_index::<i64>(0).ok())
        .unwrap_or(0);
    db.close().await.ok();
    if herald == 0 {
        return Err(format!("{} is not a Herald database", path.display()));
    }
    Ok(())
}

/// Replaces the database at `db` with the checked copy at `from`, unless a server runs on it.
pub async fn restore(from: &Path, db: &Path) -> Result<(), String> {
    check_file(from).await?;
    let lock = File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(lock_path(db))
        .map_err(|e| e.to_string())?;
    if !flock(&lock, libc::LOCK_EX) {
        return Err(format!(
            "a Herald server is running on {}: stop it first, then restore",
            db.display()
        ));
    }
    let staged = db.with_extension("restoring");
    std::fs::copy(from, &staged).map_err(|e| format!("copying {}: {e}", from.display()))?;
    for suffix in ["-wal", "-shm"] {
        let mut p = db.as_os_str().to_owned();
        p.push(suffix);
        let _ = std::fs::remove_file(PathBuf::from(p));
    }
    std::fs::rename(&staged, db).map_err(|e| format!("replacing {}: {e}", db.display()))?;
    drop(lock);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::path_of;
    use std::path::PathBuf;

    #[test]
    fn the_file_behind_a_url() {
        assert_eq!(
            path_of("sqlite://data/herald.db?mode=rwc"),
            Some(PathBuf::from("data/herald.db"))
        );
        assert_eq!(
            path_of("sqlite:/tmp/x.db"),
            Some(PathBuf::from("/tmp/x.db"))
        );
        assert_eq!(path_of("sqlite::memory:"), None);
        assert_eq!(path_of("postgres://u@h/db"), None);
    }
}
