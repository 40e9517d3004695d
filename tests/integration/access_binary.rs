//! The real server binary's sign-up modes and start-up refusals (issue 26).
use crate::binary::{free_port, healthy, start};
use crate::helpers::*;
use crate::on_both_databases;
use serde_json::{json, Value};
use std::process::{Command, Stdio};

async fn sign_up(base: &str, org: &str) -> (u16, Value) {
    let res = new_client()
        .post(format!("{base}/api/auth/sign_up"))
        .json(&json!({"form": {"organization_name": org, "name": "O", "email": format!("{}@{org}.test", uuid::Uuid::new_v4().simple()), "password": "correct horse battery"}}))
        .send()
        .await
        .unwrap();
    (
        res.status().as_u16(),
        res.json().await.unwrap_or(Value::Null),
    )
}

/// The default: the first visitor sets Herald up, then sign-up is refused; `SIGN_UP=open` takes
/// everyone.
async fn sign_up_modes_of_the_binary(backend: Backend) {
    let Some((db, _guard)) = fresh_database(backend).await else {
        return;
    };
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    let server = start(&db, port, &[("SIGN_UP", String::new())]);
    healthy(&base).await;
    assert_eq!(sign_up(&base, "first").await.0, 200);
    let (status, reply) = sign_up(&base, "second").await;
    assert_eq!(status, 403, "{reply}");
    assert!(reply.to_string().contains("by invitation"), "{reply}");
    drop(server);
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    let _open = start(&db, port, &[("SIGN_UP", "open".into())]);
    healthy(&base).await;
    assert_eq!(sign_up(&base, "third").await.0, 200);
}

/// `HERALD_ENV=production` refuses the demo owner at start, naming the setting; with the Twilio
/// transport too. Unset, production seeds nothing.
#[test]
fn production_refuses_the_demo_owner() {
    let run = |env: &[(&str, &str)]| {
        let dir = tempfile_dir();
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_herald"));
        cmd.env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("IP", "127.0.0.1")
            .env("PORT", "0")
            .env("HERALD_DATA_DIR", &dir)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (k, v) in env {
            cmd.env(k, v);
        }
        let out = cmd.output().expect("the binary runs");
        let _ = std::fs::remove_dir_all(&dir);
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, stderr) = run(&[("HERALD_ENV", "production"), ("SEED_DEMO", "true")]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("SEED_DEMO=true is refused when HERALD_ENV=production"),
        "{stderr}"
    );
    let (code, stderr) = run(&[
        ("SEED_DEMO", "true"),
        ("SMS_TRANSPORT", "twilio"),
        ("TWILIO_ACCOUNT_SID", "ACtest"),
        ("TWILIO_AUTH_TOKEN", "token"),
    ]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("SEED_DEMO=true is refused with SMS_TRANSPORT=twilio"),
        "{stderr}"
    );
    // A status callback address elsewhere than PUBLIC_URL: every callback would fail its
    // signature, so the server refuses to start, saying which address it must be (issue 49 §9).
    let (code, stderr) = run(&[
        ("PUBLIC_URL", "https://sms.example.com"),
        ("TWILIO_ACCOUNT_SID", "ACtest"),
        ("TWILIO_AUTH_TOKEN", "token"),
        (
            "TWILIO_STATUS_CALLBACK_URL",
            "https://old-host.example.com/webhooks/twilio/status",
        ),
    ]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("must be https://sms.example.com/webhooks/twilio/status"),
        "{stderr}"
    );
}

fn tempfile_dir() -> String {
    let dir = std::env::temp_dir().join(format!("herald-prod-{}", uuid::Uuid::new_v4().simple()));
    dir.display().to_string()
}

/// Production without SEED_DEMO starts with no demo owner: the set-up screen is open, and it
/// needs the one-time set-up token the server printed at start (issue 49 §5).
async fn production_starts_empty(backend: Backend) {
    let Some((db, _guard)) = fresh_database(backend).await else {
        return;
    };
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_herald"));
    for (k, _) in std::env::vars() {
        if k.starts_with("CARGO") || k.starts_with("DIOXUS") || k.starts_with("HERALD") {
            cmd.env_remove(k);
        }
    }
    let mut child = cmd
        .env("IP", "127.0.0.1")
        .env("PORT", port.to_string())
        .env("DATABASE_URL", &db)
        .env("HERALD_ENV", "production")
        .env("RUST_LOG", "warn")
        .env_remove("SEED_DEMO")
        .env_remove("SIGN_UP")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the binary starts");
    let stdout = child.stdout.take().unwrap();
    let _server = crate::binary::Server(child);
    // The server's stdout is read to its end (a closed pipe would fail its next line).
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        use std::io::BufRead;
        for line in std::io::BufReader::new(stdout).lines() {
            let line = line.unwrap_or_default();
            if let Some(rest) = line.split("one-time set-up token ").nth(1) {
                let _ = tx.send(rest.trim().to_owned());
            }
        }
    });
    let token = tokio::task::spawn_blocking(move || {
        rx.recv_timeout(std::time::Duration::from_secs(60))
            .expect("the set-up token is printed at start")
    })
    .await
    .unwrap();
    healthy(&base).await;
    let state: Value = new_client()
        .get(format!("{base}/api/auth/sign_up_state"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        state,
        json!({"mode": "invite", "first_run": true, "needs_setup_token": true})
    );
    let (status, reply) =
        crate::binary::sign_in_status(&base, "demo@herald.test", "herald-demo").await;
    assert_eq!(status, 400, "no demo owner: {reply}");
    let set_up = |token: Option<&str>| {
        let base = base.clone();
        let body = json!({"form": {"organization_name": "Prod", "name": "O",
            "email": "owner@prod.test", "password": "correct horse battery", "setup_token": token}});
        async move {
            let res = new_client()
                .post(format!("{base}/api/auth/sign_up"))
                .json(&body)
                .send()
                .await
                .unwrap();
            (res.status().as_u16(), res.text().await.unwrap())
        }
    };
    for wrong in [None, Some("not-the-token")] {
        let (status, reply) = set_up(wrong).await;
        assert_eq!(status, 403, "{reply}");
        assert!(reply.contains("one-time set-up token"), "{reply}");
    }
    let (status, reply) = set_up(Some(&token)).await;
    assert_eq!(status, 200, "{reply}");
}

on_both_databases!(sign_up_modes_of_the_binary, production_starts_empty);
