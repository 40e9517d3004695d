//! Scheduled backups of the SQLite database into `BACKUP_DIR`: every `BACKUP_EVERY_HOURS` (the
//! first shortly after start, unless a recent one is there), a consistent online copy
//! (`VACUUM INTO`) is written under a temporary name, checked (`PRAGMA integrity_check`, a Herald
//! database) and renamed to `herald-<UTC time from the injected clock>.db`; then the oldest of
//! Herald's own copies beyond `BACKUP_KEEP` are deleted. Files that do not match that name are
//! never touched. `/healthz` shows the status.
use crate::platform::backup_config::BackupConfig;
use crate::platform::AppState;
use chrono::{DateTime, Utc};
use std::path::{Path, PathBuf};
use std::time::Duration;

const PREFIX: &str = "herald-";
const SUFFIX: &str = ".db";
const TIME_FORMAT: &str = "%Y-%m-%dT%H-%M-%S%.3fZ";
/// The first backup after start, when none is recent: once start-up's own work is done.
const SOON: Duration = Duration::from_secs(60);
/// After a failed backup, the next try (or the period, if shorter).
const RETRY_AFTER: Duration = Duration::from_secs(600);

#[derive(Debug, thiserror::Error)]
pub enum BackupError {
    #[error("listing {dir}: {source}")]
    List { dir: String, source: std::io::Error },
    #[error("{0}")]
    Copy(String),
    #[error("the copy failed its check, so it was deleted: {0}")]
    Check(String),
    #[error("naming the copy {file}: {source}")]
    Rename {
        file: String,
        source: std::io::Error,
    },
}

/// The name of a backup taken at `at`.
pub fn file_name(at: DateTime<Utc>) -> String {
    format!("{PREFIX}{}{SUFFIX}", at.format(TIME_FORMAT))
}

/// When a file of this name was taken, if Herald named it.
pub fn taken_at(name: &str) -> Option<DateTime<Utc>> {
    let stamp = name.strip_prefix(PREFIX)?.strip_suffix(SUFFIX)?;
    let at = chrono::NaiveDateTime::parse_from_str(stamp, TIME_FORMAT)
        .ok()?
        .and_utc();
    (file_name(at) == name).then_some(at)
}

/// Herald's own backups in `dir`, oldest first.
pub fn own_backups(dir: &Path) -> Result<Vec<(DateTime<Utc>, PathBuf)>, BackupError> {
    let list = |source| BackupError::List {
        dir: dir.display().to_string(),
        source,
    };
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(list)? {
        let entry = entry.map_err(list)?;
        let name = entry.file_name();
        if let Some(at) = name.to_str().and_then(taken_at) {
            if entry.path().is_file() {
                found.push((at, entry.path()));
            }
        }
    }
    found.sort();
    Ok(found)
}

/// Deletes the oldest of Herald's backups beyond `keep`; answers how many went.
pub fn prune(dir: &Path, keep: usize) -> Result<usize, BackupError> {
    let own = own_backups(dir)?;
    let extra = own.len().saturating_sub(keep);
    let mut removed = 0;
    for (_, path) in own.into_iter().take(extra) {
        match std::fs::remove_file(&path) {
            Ok(()) => removed += 1,
            Err(e) => {
                tracing::warn!(file = %path.display(), error = %e, "could not delete an old backup")
            }
        }
    }
    Ok(removed)
}

/// One backup taken at `now`: written, checked, named, and the old ones pruned. Answers the file.
pub async fn backup_once(
    db: &sea_orm::DatabaseConnection,
    config: &BackupConfig,
    now: DateTime<Utc>,
) -> Result<PathBuf, BackupError> {
    let name = file_name(now);
    let file = config.dir.join(&name);
    let partial = config.dir.join(format!(".{name}.partial"));
    let _ = std::fs::remove_file(&partial);
    crate::platform::sqlite_file::backup(db, &partial)
        .await
        .map_err(BackupError::Copy)?;
    if let Err(e) = crate::platform::sqlite_file::check_file(&partial).await {
        let _ = std::fs::remove_file(&partial);
        return Err(BackupError::Check(e));
    }
    std::fs::rename(&partial, &file).map_err(|source| BackupError::Rename {
        file: name.clone(),
        source,
    })?;
    let pruned = prune(&config.dir, config.keep)?;
    tracing::info!(file = %name, pruned, keep = config.keep, "scheduled backup written");
    Ok(file)
}

/// `at` plus `d`, or the end of time.
fn after(at: DateTime<Utc>, d: Duration) -> DateTime<Utc> {
    chrono::Duration::from_std(d)
        .ok()
        .and_then(|d| at.checked_add_signed(d))
        .unwrap_or(DateTime::<Utc>::MAX_UTC)
}

/// When the first backup is due: a period after the newest one there, or soon.
fn first_due(config: &BackupConfig, now: DateTime<Utc>) -> DateTime<Utc> {
    let soon = after(now, SOON.min(config.every));
    let newest = own_backups(&config.dir)
        .ok()
        .and_then(|b| b.last().map(|(at, _)| *at));
    match newest.map(|at| after(at, config.every)) {
        Some(due) if due > soon => due.min(after(now, config.every)),
        _ => soon,
    }
}

/// Starts the backup schedule when `BACKUP_DIR` is set (SQLite only: configuration refuses it
/// on PostgreSQL); ends at shutdown.
pub fn start(state: &AppState) {
    let Some(config) = state.config.backup.clone() else {
        return;
    };
    if crate::platform::sqlite_file::path_of(&state.config.database_url).is_none() {
        tracing::error!("BACKUP_DIR is set but the database is not an SQLite file: no backups");
        return;
    }
    let bg = state.clone();
    let mut due = first_due(&config, bg.clock.now());
    bg.backups.update(|s| {
        s.enabled = true;
        s.next_due = Some(due);
    });
    state.loops.spawn(async move {
        loop {
            let wait = (due - bg.clock.now()).to_std().unwrap_or_default();
            tokio::select! {
                _ = bg.shutdown.cancelled() => return,
                _ = bg.clock.sleep(wait) => {}
            }
            let now = bg.clock.now();
            let next = match backup_once(&bg.db, &config, now).await {
                Ok(file) => {
                    let name = file.file_name().map(|n| n.to_string_lossy().into_owned());
                    bg.backups.update(|s| {
                        s.last_backup_at = Some(now);
                        s.last_file = name;
                        s.last_error = None;
                    });
                    config.every
                }
                Err(e) => {
                    tracing::error!(error = %e, dir = %config.dir.display(), "scheduled backup failed");
                    bg.backups.update(|s| {
                        s.last_error = Some(e.to_string());
                        s.last_error_at = Some(now);
                    });
                    config.every.min(RETRY_AFTER)
                }
            };
            due = after(now, next);
            bg.backups.update(|s| s.next_due = Some(due));
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_names_herald_made_are_its_own() {
        let at = DateTime::parse_from_rfc3339("2030-01-02T03:04:05.678Z")
            .unwrap()
            .with_timezone(&Utc);
        let name = file_name(at);
        assert_eq!(name, "herald-2030-01-02T03-04-05.678Z.db");
        assert_eq!(taken_at(&name), Some(at));
        for other in [
            "herald.db",
            "herald-manual.db",
            "herald-2030-01-02T03-04-05Z.db",
            ".herald-2030-01-02T03-04-05.678Z.db.partial",
            "herald-2030-01-02T03-04-05.678Z.db.bak",
        ] {
            assert_eq!(taken_at(other), None, "{other}");
        }
    }

    #[test]
    fn the_first_backup_waits_for_a_period_after_the_newest() {
        let dir = std::env::temp_dir().join(format!("herald-due-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir).unwrap();
        let config = BackupConfig {
            dir: dir.clone(),
            every: Duration::from_secs(3600),
            keep: 2,
        };
        // Names keep milliseconds.
        let now = chrono::SubsecRound::trunc_subsecs(Utc::now(), 3);
        assert_eq!(first_due(&config, now), now + chrono::Duration::seconds(60));
        let recent = now - chrono::Duration::minutes(10);
        std::fs::write(dir.join(file_name(recent)), b"").unwrap();
        assert_eq!(first_due(&config, now), recent + chrono::Duration::hours(1));
        for m in [120, 180] {
            std::fs::write(dir.join(file_name(now - chrono::Duration::minutes(m))), b"").unwrap();
        }
        std::fs::write(dir.join("herald-manual.db"), b"").unwrap();
        assert_eq!(prune(&dir, 2).unwrap(), 1);
        assert_eq!(own_backups(&dir).unwrap().len(), 2);
        assert!(dir.join("herald-manual.db").exists());
        std::fs::remove_dir_all(dir).unwrap();
    }
}
