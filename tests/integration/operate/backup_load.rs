//! An online backup of SQLite under an open-loop load: after each of many senders has texted
//! once, texts leave at i/RATE seconds (300 a second) whatever the server does (bounded in count and time,
//! loopback only); `herald admin backup` runs in the middle. Restored into a fresh file, the copy passes `PRAGMA
//! integrity_check` and holds every text acknowledged before the backup began, exactly once; a
//! restore onto the running server's database is refused, and a fresh server serves the copy.
use super::{admin, integrity, setup, sid, text};
use crate::binary::{free_port, healthy, start};
use crate::helpers::*;
use sea_orm::{ConnectionTrait, Statement};
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Texts a second, leaving on schedule. The suite runs this beside other tests on two cores, and
/// the load's own client shares them: the rate is one both keep up with there.
const RATE: f64 = 300.0;
/// Seconds of load: `RATE * SECONDS` texts at most.
const SECONDS: f64 = 6.0;
/// Distinct senders.
const SENDERS: usize = 300;
/// The warm-up's texts are numbered from here.
const WARM_UP_FROM: usize = 1_000_000;
/// Texts acknowledged before the backup starts.
const ACKED_FIRST: usize = 100;
/// A text not sent within this long of its time is not sent (the load stays bounded in time).
const LATE_AT_MOST: Duration = Duration::from_secs(10);

/// What the load has done so far, shared with the test while it runs.
#[derive(Default)]
struct Progress {
    /// Texts that have left.
    sent: AtomicUsize,
    /// (text, when it was acknowledged).
    acked: Mutex<Vec<(usize, Instant)>>,
    failed: AtomicUsize,
}

struct Load {
    /// How late the last text left, against its schedule.
    lateness: Duration,
    elapsed: Duration,
}

/// Sends `RATE * SECONDS` texts, text i at `i / RATE` s after the start, each on a task of its
/// own so that a slow answer delays no later text.
async fn open_loop(base: String, progress: Arc<Progress>) -> Load {
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(30))
        .build()
        .unwrap();
    let total = (RATE * SECONDS) as usize;
    let t0 = tokio::time::Instant::now();
    let mut tasks = Vec::with_capacity(total);
    let mut lateness = Duration::ZERO;
    for i in 0..total {
        let at = t0 + Duration::from_secs_f64(i as f64 / RATE);
        tokio::time::sleep_until(at).await;
        lateness = tokio::time::Instant::now() - at;
        if lateness > LATE_AT_MOST {
            break;
        }
        let (client, base, progress) = (client.clone(), base.clone(), progress.clone());
        progress.sent.fetch_add(1, Ordering::SeqCst);
        tasks.push(tokio::spawn(async move {
            let from = format!("+1415557{:04}", i % SENDERS);
            if text(&client, &base, i, &from).await {
                progress.acked.lock().unwrap().push((i, Instant::now()));
            } else {
                progress.failed.fetch_add(1, Ordering::SeqCst);
            }
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
    Load {
        lateness,
        elapsed: t0.elapsed(),
    }
}

/// One text from each sender (SIDs from `WARM_UP_FROM`), a few at a time; answers the texts.
async fn warm_up(base: &str) -> Vec<usize> {
    use futures::StreamExt;
    let client = reqwest::Client::new();
    let acked: Vec<usize> = futures::stream::iter(0..SENDERS)
        .map(|s| {
            let client = client.clone();
            async move {
                let from = format!("+1415557{s:04}");
                let i = WARM_UP_FROM + s;
                text(&client, base, i, &from).await.then_some(i)
            }
        })
        .buffer_unordered(16)
        .filter_map(|i| async move { i })
        .collect()
        .await;
    assert_eq!(
        acked.len(),
        SENDERS,
        "every sender's first text was acknowledged"
    );
    acked
}

/// How many times each of the load's SIDs is in the database.
async fn sids_in(url: &str) -> HashMap<String, i64> {
    let db = sea_orm::Database::connect(url).await.unwrap();
    let rows = db
        .query_all_raw(Statement::from_string(
            db.get_database_backend(),
            "SELECT provider_sid, count(*) FROM message WHERE provider_sid LIKE 'SMoperate%' \
             GROUP BY provider_sid",
        ))
        .await
        .unwrap();
    db.close().await.ok();
    rows.iter()
        .map(|r| {
            (
                r.try_get_by_index::<String>(0).unwrap(),
                r.try_get_by_index::<i64>(1).unwrap(),
            )
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_online_backup_under_load_restores() {
    let (db, _guard) = fresh_database(Backend::Sqlite).await.unwrap();
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    let mut server = start(&db, port, &[]);
    healthy(&base).await;
    let _client = setup(&base).await;
    // Every sender texts once first: the load is texts from known contacts, in the steady state.
    let warm = warm_up(&base).await;
    let progress = Arc::new(Progress::default());
    let load = tokio::spawn(open_loop(base.clone(), progress.clone()));
    // The backup starts in the middle: half the texts' time gone and `ACKED_FIRST` answered.
    let t0 = Instant::now();
    while t0.elapsed().as_secs_f64() < SECONDS / 2.0
        || progress.acked.lock().unwrap().len() < ACKED_FIRST
    {
        assert!(
            !load.is_finished(),
            "{ACKED_FIRST} texts acknowledged while the load lasted"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let backup_file = std::env::temp_dir().join(format!(
        "herald-backup-{}.db",
        uuid::Uuid::new_v4().simple()
    ));
    let target = backup_file.display().to_string();
    let began = Instant::now();
    let sent_before = progress.sent.load(Ordering::SeqCst);
    // The admin command blocks: off the runtime, so that the texts keep leaving on time.
    let (db2, target2) = (db.clone(), target.clone());
    let (code, out, err) =
        tokio::task::spawn_blocking(move || admin(&db2, &["backup", &target2], ""))
            .await
            .unwrap();
    let backup_took = began.elapsed();
    let sent_during = progress.sent.load(Ordering::SeqCst) - sent_before;
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("integrity check: ok"), "{out}");
    let load = load.await.unwrap();
    let acked = std::mem::take(&mut *progress.acked.lock().unwrap());
    let sent = progress.sent.load(Ordering::SeqCst);
    let before: Vec<usize> = acked
        .iter()
        .filter(|(_, at)| *at < began)
        .map(|(i, _)| *i)
        .chain(warm)
        .collect();
    println!(
        "backup under load: {sent} texts sent in {:.1} s (the last {} ms late), {} acknowledged, \
         {} failed; the backup began after {sent_before} had left and {} were acknowledged, took \
         {} ms, and {sent_during} left meanwhile",
        load.elapsed.as_secs_f64(),
        load.lateness.as_millis(),
        acked.len(),
        progress.failed.load(Ordering::SeqCst),
        before.len(),
        backup_took.as_millis()
    );
    // The claim is the backup's: it ran while texts were still leaving (how punctually the
    // load's client kept its schedule on a busy machine is printed above, not asserted).
    assert!(
        sent_before < sent,
        "the backup began while texts were still leaving"
    );
    // A restore onto the running server's database is refused.
    let (code, _, err) = admin(&db, &["restore", &target], "");
    assert_eq!(code, 1);
    assert!(err.contains("running"), "{err}");
    server.kill_nine();
    // Restored into a fresh file: intact, and every text acknowledged before is in it once.
    let (fresh_url, _fresh_guard) = fresh_database(Backend::Sqlite).await.unwrap();
    let (code, _, err) = admin(&fresh_url, &["restore", &target], "");
    assert_eq!(code, 0, "{err}");
    let restored = herald::platform::sqlite_file::path_of(&fresh_url).unwrap();
    assert_eq!(integrity(&restored).await, "ok");
    let present = sids_in(&fresh_url).await;
    for i in &before {
        assert_eq!(
            present.get(&sid(*i)).copied(),
            Some(1),
            "text {i}, acknowledged before the backup, is in it exactly once"
        );
    }
    assert!(present.values().all(|n| *n == 1), "no text is in it twice");
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    let _restored = start(&fresh_url, port, &[]);
    healthy(&base).await;
    let (status, _) =
        crate::binary::sign_in_status(&base, "olga@ops.test", "correct horse battery").await;
    assert_eq!(status, 200);
    let _ = std::fs::remove_file(backup_file);
}
