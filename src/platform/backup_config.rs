//! The scheduled backup settings (`BACKUP_DIR`, `BACKUP_EVERY_HOURS`, `BACKUP_KEEP`), checked at
//! start-up: a folder Herald cannot write to, a period of 0 or PostgreSQL are refused with a
//! message naming the setting, because a server that silently makes no backups is worse.
use crate::platform::config::{check_test_only, var, Problems};
use chrono::{DateTime, Utc};
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Hours between backups when `BACKUP_DIR` is set and `BACKUP_EVERY_HOURS` is not.
pub const DEFAULT_EVERY_HOURS: f64 = 24.0;
/// Backups kept when `BACKUP_KEEP` is not set.
pub const DEFAULT_KEEP: usize = 7;
/// The longest period accepted: a year.
const MAX_EVERY_HOURS: f64 = 8760.0;

#[derive(Clone, Debug, PartialEq)]
pub struct BackupConfig {
    /// Where the copies go (`BACKUP_DIR`).
    pub dir: PathBuf,
    /// How often (`BACKUP_EVERY_HOURS`, or the test-only `HERALD_TEST_BACKUP_EVERY_SECS`).
    pub every: Duration,
    /// How many of its own copies Herald keeps (`BACKUP_KEEP`); older ones are deleted.
    pub keep: usize,
}

/// Reads the backup settings, adding every problem to `problems`.
pub(crate) fn read(
    database_url: &str,
    production: bool,
    ip: IpAddr,
    problems: &mut Problems,
) -> Option<BackupConfig> {
    let every_hours = var("BACKUP_EVERY_HOURS");
    let keep = var("BACKUP_KEEP");
    let test_secs = var("HERALD_TEST_BACKUP_EVERY_SECS");
    let Some(dir) = var("BACKUP_DIR") else {
        for (name, set) in [
            ("BACKUP_EVERY_HOURS", every_hours.is_some()),
            ("BACKUP_KEEP", keep.is_some()),
            ("HERALD_TEST_BACKUP_EVERY_SECS", test_secs.is_some()),
        ] {
            if set {
                problems.0.push(format!(
                    "{name} is set but BACKUP_DIR is not: set BACKUP_DIR to the folder the \
                     backups go to, or unset {name}"
                ));
            }
        }
        return None;
    };
    let dir = PathBuf::from(dir);
    let mut every = problems.or(
        every_hours
            .map_or(Ok(DEFAULT_EVERY_HOURS), |v| parse_hours(&v))
            .map(|h| Duration::from_secs_f64(h * 3600.0)),
        Duration::from_secs(24 * 3600),
    );
    if let Some(v) = test_secs {
        let read =
            check_test_only("HERALD_TEST_BACKUP_EVERY_SECS", production, ip).and_then(|()| {
                v.parse::<f64>()
                    .ok()
                    .and_then(|s| Duration::try_from_secs_f64(s).ok())
                    .filter(|d| !d.is_zero())
                    .ok_or_else(|| {
                        format!("HERALD_TEST_BACKUP_EVERY_SECS must be a positive number, not {v}")
                    })
            });
        every = problems.or(read, every);
    }
    let keep = problems.or(
        keep.map_or(Ok(DEFAULT_KEEP), |v| match v.trim().parse::<usize>() {
            Ok(n) if n >= 1 => Ok(n),
            _ => Err(format!(
                "BACKUP_KEEP must be a whole number of backups, 1 or more, not {v}"
            )),
        }),
        DEFAULT_KEEP,
    );
    if crate::platform::sqlite_file::path_of(database_url).is_none() {
        problems.0.push(
            "BACKUP_DIR is for SQLite, and DATABASE_URL is not an SQLite file: on PostgreSQL, \
             back up with pg_dump from a timer (pg_dump --format=custom --file=herald.dump \
             \"$DATABASE_URL\") and unset BACKUP_DIR"
                .into(),
        );
    }
    problems.or(writable(&dir), ());
    Some(BackupConfig { dir, every, keep })
}

fn parse_hours(v: &str) -> Result<f64, String> {
    match v.trim().parse::<f64>() {
        Ok(h) if h.is_finite() && h > 0.0 && h <= MAX_EVERY_HOURS => Ok(h),
        _ => Err(format!(
            "BACKUP_EVERY_HOURS must be a number of hours above 0 and at most {MAX_EVERY_HOURS}, \
             not {v}"
        )),
    }
}

/// The folder exists (it is created if it can be) and Herald can write a file in it.
fn writable(dir: &Path) -> Result<(), String> {
    if dir.exists() && !dir.is_dir() {
        return Err(format!("BACKUP_DIR {} is not a directory", dir.display()));
    }
    std::fs::create_dir_all(dir)
        .map_err(|e| format!("BACKUP_DIR {} cannot be created: {e}", dir.display()))?;
    let probe = dir.join(format!(".herald-write-check-{}", std::process::id()));
    std::fs::write(&probe, b"")
        .map_err(|e| format!("BACKUP_DIR {} is not writable: {e}", dir.display()))?;
    let _ = std::fs::remove_file(probe);
    Ok(())
}

/// What `/healthz` reports.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct Status {
    pub enabled: bool,
    pub last_backup_at: Option<DateTime<Utc>>,
    /// The file's name in `BACKUP_DIR`.
    pub last_file: Option<String>,
    pub last_error: Option<String>,
    pub last_error_at: Option<DateTime<Utc>>,
    pub next_due: Option<DateTime<Utc>>,
}

/// Shared between the backup task and `/healthz`.
#[derive(Clone, Default)]
pub struct BackupStatus(Arc<Mutex<Status>>);

impl BackupStatus {
    pub fn get(&self) -> Status {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
    pub(crate) fn update(&self, f: impl FnOnce(&mut Status)) {
        f(&mut self.0.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hours_must_be_positive_and_bounded() {
        assert_eq!(parse_hours("6"), Ok(6.0));
        assert_eq!(parse_hours("0.5"), Ok(0.5));
        for bad in ["0", "-1", "NaN", "inf", "a day", "9000"] {
            assert!(
                parse_hours(bad).unwrap_err().contains("BACKUP_EVERY_HOURS"),
                "{bad}"
            );
        }
    }

    #[test]
    fn a_file_is_not_a_backup_folder() {
        let file = std::env::temp_dir().join(format!("herald-not-a-dir-{}", std::process::id()));
        std::fs::write(&file, b"x").unwrap();
        assert!(writable(&file).unwrap_err().contains("not a directory"));
        std::fs::remove_file(file).unwrap();
    }
}
