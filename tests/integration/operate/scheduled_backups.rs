//! Scheduled backups (`BACKUP_DIR`): on SQLite the real server binary writes a checked copy
//! named by its (injected) clock every period, keeps `BACKUP_KEEP` of its own and leaves other
//! files alone, and `/healthz` shows the last one; on PostgreSQL `BACKUP_DIR` is refused at
//! start with a message pointing to pg_dump.
use super::{refused_start, setup};
use crate::binary::{free_port, healthy, start};
use crate::helpers::*;
use crate::on_both_databases;
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

/// The test clock's start: backups are named from it, not from the machine's time.
const CLOCK_START: &str = "2030-01-02T03:04:05Z";
const NAMED_FROM_CLOCK: &str = "herald-2030-01-02T03-";

async fn health(base: &str) -> (u16, Value) {
    let res = reqwest::get(format!("{base}/healthz")).await.unwrap();
    (res.status().as_u16(), res.json().await.unwrap())
}

/// The names in `dir` that are Herald's backups.
fn own(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(NAMED_FROM_CLOCK) && n.ends_with(".db"))
        .collect();
    names.sort();
    names
}

async fn scheduled_backups(backend: Backend) {
    let Some((db, _guard)) = fresh_database(backend).await else {
        return;
    };
    let dir =
        std::env::temp_dir().join(format!("herald-backups-{}", uuid::Uuid::new_v4().simple()));
    std::fs::create_dir_all(&dir).unwrap();
    let env = [
        ("BACKUP_DIR", dir.display().to_string()),
        ("BACKUP_KEEP", "1".into()),
        ("HERALD_TEST_BACKUP_EVERY_SECS", "1.5".into()),
        ("HERALD_TEST_CLOCK_START", CLOCK_START.into()),
        ("SHUTDOWN_GRACE_SECS", "2".into()),
    ];
    if backend == Backend::Postgres {
        let (code, err) = refused_start(&db, &env);
        assert_eq!(code, 2, "{err}");
        assert!(err.contains("BACKUP_DIR is for SQLite"), "{err}");
        assert!(err.contains("pg_dump"), "{err}");
        std::fs::remove_dir_all(dir).unwrap();
        return;
    }
    // Files Herald did not make, one of them named much like a backup.
    for other in ["herald-manual.db", "notes.txt"] {
        std::fs::write(dir.join(other), b"not Herald's").unwrap();
    }
    // The test-only period is refused in production.
    let mut production = env.to_vec();
    production.push(("HERALD_ENV", "production".into()));
    let (code, err) = refused_start(&db, &production);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("HERALD_TEST_BACKUP_EVERY_SECS"), "{err}");
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    let mut server = start(&db, port, &env);
    healthy(&base).await;
    let (status, first) = health(&base).await;
    assert_eq!(status, 200);
    assert_eq!(first["backup"]["enabled"], true, "{first}");
    assert!(first["backup"]["next_due"].is_string(), "{first}");
    let _client = setup(&base).await;
    // Two backups taken after the organisation was made, each shown by /healthz.
    let mut seen = BTreeSet::new();
    let t0 = Instant::now();
    while seen.len() < 2 {
        assert!(
            t0.elapsed() < Duration::from_secs(30),
            "two backups: {seen:?}"
        );
        let (status, h) = health(&base).await;
        assert_eq!(status, 200, "{h}");
        let b = &h["backup"];
        assert!(b["last_error"].is_null(), "{h}");
        if let Some(file) = b["last_file"].as_str() {
            assert!(
                file.starts_with(NAMED_FROM_CLOCK),
                "named from the clock: {file}"
            );
            let at = b["last_backup_at"].as_str().unwrap();
            assert!(at.starts_with("2030-01-02T03:"), "{at}");
            assert!(b["next_due"].as_str().unwrap() > at, "{h}");
            seen.insert(file.to_owned());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let last = seen.last().cloned().unwrap();
    stop(&mut server).await;
    // One of its own is kept (the newest), and nothing else was touched.
    let kept = own(&dir);
    assert_eq!(kept.len(), 1, "BACKUP_KEEP=1: {kept:?}");
    assert!(
        kept[0] >= last,
        "{kept:?} is the newest, not older than {last}"
    );
    for other in ["herald-manual.db", "notes.txt"] {
        assert!(
            dir.join(other).exists(),
            "{other} is not Herald's to delete"
        );
    }
    let copy = dir.join(&kept[0]);
    assert_eq!(super::integrity(&copy).await, "ok");
    herald::platform::sqlite_file::check_file(&copy)
        .await
        .unwrap();
    let copy_url = format!("sqlite://{}?mode=ro", copy.display());
    assert_eq!(
        super::count(
            &copy_url,
            "SELECT count(*) FROM organization WHERE name = 'Ops Co'"
        )
        .await,
        1,
        "the copy holds what was there before it"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// SIGTERM, and the exit.
async fn stop(server: &mut crate::binary::Server) {
    Command::new("kill")
        .args(["-TERM", &server.0.id().to_string()])
        .status()
        .unwrap();
    let t0 = Instant::now();
    while server.0.try_wait().unwrap().is_none() {
        assert!(t0.elapsed() < Duration::from_secs(10), "the server stops");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

on_both_databases!(scheduled_backups);
