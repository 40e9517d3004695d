//! Running Herald (issue 32): `/readyz`, the admin CLI (check-config, migrate, create-owner,
//! reset-password, an online backup under load and a restore that refuses while a server runs)
//! and SIGTERM draining, all through the real server binary.
use crate::binary::{call, free_port, healthy, start};
use crate::helpers::*;
use crate::on_both_databases;
use sea_orm::{ConnectionTrait, Statement};
use serde_json::{json, Value};
use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const FRONT_DESK: &str = "+14155550100";

/// `herald admin ARGS…` on `db`, with `stdin`; answers (exit code, stdout, stderr).
fn admin(db: &str, args: &[&str], stdin: &str) -> (i32, String, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_herald"));
    for (k, _) in std::env::vars() {
        if k.starts_with("CARGO") || k.starts_with("DIOXUS") {
            cmd.env_remove(k);
        }
    }
    let mut child = cmd
        .arg("admin")
        .args(args)
        .env("DATABASE_URL", db)
        .env("IP", "127.0.0.1")
        .env("PUBLIC_URL", "http://127.0.0.1:8080")
        .env("RUST_LOG", "warn")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

async fn setup(base: &str) -> reqwest::Client {
    let client = new_client();
    call(&client, base, "/api/auth/sign_up", json!({"form": {"organization_name": "Ops Co", "name": "Olga", "email": "olga@ops.test", "password": "correct horse battery"}})).await;
    call(
        &client,
        base,
        "/api/numbers/create",
        json!({"input": {"number": FRONT_DESK, "friendly_name": "Front desk", "provider_sid": ""}}),
    )
    .await;
    client
}

async fn text(client: &reqwest::Client, base: &str, i: usize) -> bool {
    let sid = format!("SMoperate{i:025}");
    let params = sms_params(&sid, "+14155552671", FRONT_DESK, "Hello");
    client
        .post(format!("{base}/webhooks/twilio/sms"))
        .form(&params)
        .send()
        .await
        .is_ok_and(|r| r.status().is_success())
}

async fn count(url: &str, sql: &str) -> i64 {
    let db = sea_orm::Database::connect(url).await.unwrap();
    let row = db
        .query_one_raw(Statement::from_string(db.get_database_backend(), sql))
        .await
        .unwrap()
        .unwrap();
    let n = row.try_get_by_index::<i64>(0).unwrap();
    db.close().await.ok();
    n
}

async fn readiness_and_the_cli(backend: Backend) {
    let Some((db, _guard)) = fresh_database(backend).await else {
        return;
    };
    // check-config names what is wrong, and passes what is right.
    let (code, out, _) = admin(&db, &["check-config"], "");
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("Configuration OK"), "{out}");
    let mut bad = Command::new(env!("CARGO_BIN_EXE_herald"));
    let out = bad
        .args(["admin", "check-config"])
        .env("DATABASE_URL", &db)
        .env("SIGN_UP", "everyone")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("SIGN_UP must be invite or open"));
    // migrate.
    let (code, out, err) = admin(&db, &["migrate"], "");
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("0 pending"), "{out}");
    // create-owner reads the password from standard input.
    let (code, out, err) = admin(
        &db,
        &["create-owner", "owner@cli.test", "Cleo", "CLI Co"],
        "owner's own password\n",
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("CLI Co"), "{out}");
    let (code, _, err) = admin(&db, &["create-owner", "x@cli.test", "X", "X Co"], "short\n");
    assert_eq!(code, 1);
    assert!(err.contains("at least 8"), "{err}");
    // reset-password prints a one-time link.
    let (code, out, _) = admin(&db, &["reset-password", "owner@cli.test"], "");
    assert_eq!(code, 0);
    assert!(
        out.trim().starts_with("http://127.0.0.1:8080/reset/"),
        "{out}"
    );
    let (code, _, err) = admin(&db, &["reset-password", "nobody@cli.test"], "");
    assert_eq!(code, 1);
    assert!(err.contains("nobody@cli.test"), "{err}");
    // The server starts on it, is ready, and the owner signs in.
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    let _server = start(&db, port, &[]);
    healthy(&base).await;
    let ready: Value = reqwest::get(format!("{base}/readyz"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(ready["status"], "ready", "{ready}");
    let (status, reply) =
        crate::binary::sign_in_status(&base, "owner@cli.test", "owner's own password").await;
    assert_eq!(status, 200, "{reply}");
    // On PostgreSQL, backup and restore name the tools to use.
    if backend == Backend::Postgres {
        let (code, out, _) = admin(&db, &["backup", "/tmp/herald.dump"], "");
        assert_eq!(code, 0);
        assert!(out.contains("pg_dump"), "{out}");
        let (code, out, _) = admin(&db, &["restore", "/tmp/herald.dump"], "");
        assert_eq!(code, 0);
        assert!(out.contains("pg_restore"), "{out}");
    }
}

/// An online backup of SQLite while texts arrive: every text acknowledged before the backup
/// began is in it; it passes its integrity check; a restore refuses while a server runs, and a
/// fresh server runs on the restored copy.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_online_backup_under_load_restores() {
    let (db, _guard) = fresh_database(Backend::Sqlite).await.unwrap();
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    let mut server = start(&db, port, &[]);
    healthy(&base).await;
    let client = setup(&base).await;
    // Texts arrive back to back from another task, as fast as the server acknowledges them.
    let acked = std::sync::Arc::new(std::sync::Mutex::new(Vec::<(usize, Instant)>::new()));
    let load = {
        let (acked, base) = (acked.clone(), base.clone());
        tokio::spawn(async move {
            let client = reqwest::Client::new();
            for i in 0..400 {
                if text(&client, &base, i).await {
                    acked.lock().unwrap().push((i, Instant::now()));
                }
            }
        })
    };
    tokio::time::sleep(Duration::from_millis(500)).await;
    let backup_file = std::env::temp_dir().join(format!(
        "herald-backup-{}.db",
        uuid::Uuid::new_v4().simple()
    ));
    let began = Instant::now();
    let (code, out, err) = admin(&db, &["backup", backup_file.to_str().unwrap()], "");
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("integrity check: ok"), "{out}");
    load.await.unwrap();
    let before: Vec<usize> = acked
        .lock()
        .unwrap()
        .iter()
        .filter(|(_, at)| *at < began)
        .map(|(i, _)| *i)
        .collect();
    assert!(
        before.len() > 10,
        "the backup ran under load ({} texts before it)",
        before.len()
    );
    // A restore onto the running server's database is refused.
    let (code, _, err) = admin(&db, &["restore", backup_file.to_str().unwrap()], "");
    assert_eq!(code, 1);
    assert!(err.contains("running"), "{err}");
    server.kill_nine();
    // Restored into a fresh file, a fresh server serves it, with every text acknowledged before.
    let (fresh_url, _fresh_guard) = fresh_database(Backend::Sqlite).await.unwrap();
    let (code, _, err) = admin(&fresh_url, &["restore", backup_file.to_str().unwrap()], "");
    assert_eq!(code, 0, "{err}");
    for i in &before {
        let sid = format!("SMoperate{i:025}");
        assert_eq!(
            count(
                &fresh_url,
                &format!("SELECT count(*) FROM message WHERE provider_sid = '{sid}'")
            )
            .await,
            1,
            "text {i}, acknowledged before the backup, is in it"
        );
    }
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    let _restored = start(&fresh_url, port, &[]);
    healthy(&base).await;
    let (status, _) =
        crate::binary::sign_in_status(&base, "olga@ops.test", "correct horse battery").await;
    assert_eq!(status, 200);
    let _ = client;
    let _ = std::fs::remove_file(backup_file);
}

/// SIGTERM: the server stops taking requests, finishes what it acknowledged, and exits 0 within
/// the grace period; nothing is lost or left running.
async fn sigterm_drains(backend: Backend) {
    let Some((db, _guard)) = fresh_database(backend).await else {
        return;
    };
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    let mut server = start(&db, port, &[("SHUTDOWN_GRACE_SECS", "10".into())]);
    healthy(&base).await;
    let _client = setup(&base).await;
    let plain = reqwest::Client::new();
    let mut acked = 0;
    for i in 0..30 {
        if text(&plain, &base, i).await {
            acked += 1;
        }
    }
    assert_eq!(acked, 30);
    let t0 = Instant::now();
    Command::new("kill")
        .args(["-TERM", &server.0.id().to_string()])
        .status()
        .unwrap();
    let status = loop {
        if let Some(s) = server.0.try_wait().unwrap() {
            break s;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(25),
            "exited within the grace period"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(status.code(), Some(0), "a drained server exits 0");
    assert_eq!(
        count(
            &db,
            "SELECT count(*) FROM message WHERE direction = 'inbound'"
        )
        .await,
        30
    );
    assert_eq!(
        count(
            &db,
            "SELECT count(*) FROM ai_thread WHERE state = 'running'"
        )
        .await,
        0,
        "no thread left running"
    );
}

on_both_databases!(readiness_and_the_cli, sigterm_drains);
