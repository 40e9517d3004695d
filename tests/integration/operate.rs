//! Running Herald (issue 32): `/readyz`, the admin CLI (check-config naming every problem,
//! migrate, create-owner, reset-password), all through the real server binary. Backups and
//! SIGTERM draining are in the modules below.
use crate::binary::{call, free_port, healthy, start};
use crate::helpers::*;
use crate::on_both_databases;
use sea_orm::{ConnectionTrait, Statement};
use serde_json::{json, Value};
use std::io::Write;
use std::process::{Command, Stdio};

mod backup_load;
mod drain;
mod scheduled_backups;

const FRONT_DESK: &str = "+14155550100";

/// `herald admin ARGS…` on `db`, with `stdin`; answers (exit code, stdout, stderr).
fn admin(db: &str, args: &[&str], stdin: &str) -> (i32, String, String) {
    admin_with(db, args, stdin, &[])
}

/// `herald admin ARGS…` with `env` on top.
fn admin_with(
    db: &str,
    args: &[&str],
    stdin: &str,
    env: &[(&str, String)],
) -> (i32, String, String) {
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
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
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

/// Text number `i` (SID `SMoperate…i`) from `from` to the front desk; answers whether it was
/// acknowledged.
async fn text(client: &reqwest::Client, base: &str, i: usize, from: &str) -> bool {
    let sid = sid(i);
    let params = sms_params(&sid, from, FRONT_DESK, "Hello");
    client
        .post(format!("{base}/webhooks/twilio/sms"))
        .form(&params)
        .send()
        .await
        .is_ok_and(|r| r.status().is_success())
}

fn sid(i: usize) -> String {
    format!("SMoperate{i:025}")
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

/// `PRAGMA integrity_check` on a database file, read-only.
async fn integrity(path: &std::path::Path) -> String {
    let db = sea_orm::Database::connect(format!("sqlite://{}?mode=ro", path.display()))
        .await
        .unwrap();
    let row = db
        .query_one_raw(Statement::from_string(
            db.get_database_backend(),
            "PRAGMA integrity_check",
        ))
        .await
        .unwrap()
        .unwrap();
    let verdict = row.try_get_by_index::<String>(0).unwrap();
    db.close().await.ok();
    verdict
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

/// Several bad settings at once: `check-config` names every one, and what start-up would refuse
/// beyond them (the model's settings, a restore in progress, a database that does not answer).
async fn check_config_names_every_problem(backend: Backend) {
    let Some((db, _guard)) = fresh_database(backend).await else {
        return;
    };
    let not_a_folder = std::env::temp_dir().join(format!(
        "herald-not-a-folder-{}",
        uuid::Uuid::new_v4().simple()
    ));
    std::fs::write(&not_a_folder, b"a file").unwrap();
    let bad = [
        ("SIGN_UP", "everyone".to_owned()),
        ("BACKUP_DIR", not_a_folder.display().to_string()),
        ("BACKUP_EVERY_HOURS", "0".into()),
        ("LLM_PROVIDER", "anthropic".into()),
        // A number out of its range is named, not silently replaced by its default.
        ("SEND_CONCURRENCY", "0".into()),
        ("THREAD_IDLE_DAYS", "soon".into()),
    ];
    let (code, out, err) = admin_with(&db, &["check-config"], "", &bad);
    assert_eq!(code, 2, "{out}{err}");
    for named in [
        "SIGN_UP must be invite or open",
        "is not a directory",
        "BACKUP_EVERY_HOURS must be",
        "LLM_MODEL is required",
        "SEND_CONCURRENCY must be a number from 1 to 10000, not \"0\"",
        "THREAD_IDLE_DAYS must be a number of days above 0",
    ] {
        assert!(err.contains(named), "{named} is named in: {err}");
    }
    if backend == Backend::Postgres {
        assert!(err.contains("back up with pg_dump"), "{err}");
    }
    // The server refuses to start with the same settings, naming them all too.
    let (code, err) = refused_start(&db, &bad);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("SIGN_UP") && err.contains("BACKUP_EVERY_HOURS"),
        "{err}"
    );
    // A database that does not answer.
    let nowhere = "postgres://postgres@127.0.0.1:1/herald";
    let (code, _, err) = admin_with(nowhere, &["check-config"], "", &[]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("does not answer"), "{err}");
    std::fs::remove_file(not_a_folder).unwrap();
    // A restore in progress holds the SQLite file's lock: start-up would be refused.
    if let Some(path) = herald::platform::sqlite_file::path_of(&db) {
        let restore = hold_restore_lock(&path);
        let (code, _, err) = admin(&db, &["check-config"], "");
        assert_eq!(code, 2, "{err}");
        assert!(err.contains("being restored"), "{err}");
        drop(restore);
        assert_eq!(admin(&db, &["check-config"], "").0, 0);
    }
}

/// The server binary with `env`, expected to refuse to start: (exit code, standard error).
fn refused_start(db: &str, env: &[(&str, String)]) -> (i32, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_herald"));
    for (k, _) in std::env::vars() {
        if k.starts_with("CARGO") || k.starts_with("DIOXUS") {
            cmd.env_remove(k);
        }
    }
    let out = cmd
        .env("DATABASE_URL", db)
        .env("IP", "127.0.0.1")
        .env("PORT", free_port().to_string())
        .env("RUST_LOG", "warn")
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The exclusive lock `herald admin restore` holds while it replaces the file.
fn hold_restore_lock(db: &std::path::Path) -> std::fs::File {
    use std::os::fd::AsRawFd;
    let mut path = db.as_os_str().to_owned();
    path.push(".lock");
    let file = std::fs::File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
        .unwrap();
    // SAFETY: flock on a descriptor this test owns.
    let locked = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
    assert_eq!(locked, 0, "no server holds the lock");
    file
}

on_both_databases!(readiness_and_the_cli, check_config_names_every_problem);
