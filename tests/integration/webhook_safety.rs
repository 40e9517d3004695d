//! Webhooks that fail closed: the server refuses to start reachable and unsigned, any sender's
//! text is kept (and never texted back when it is not a number), and a database error's words
//! stay in the log.
use crate::helpers::*;
use crate::on_both_databases;
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Runs the server binary with `env` and expects it to refuse to start: exit code 2 and a
/// message naming the fix.
fn refuses_to_start(env: &[(&str, &str)], expect: &str) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_herald"));
    for (k, _) in std::env::vars() {
        if k.starts_with("CARGO")
            || k.starts_with("DIOXUS")
            || k.starts_with("TWILIO")
            || k == "IP"
            || k == "PUBLIC_URL"
        {
            cmd.env_remove(k);
        }
    }
    let dir = std::env::temp_dir().join(format!("herald-refuse-{}", uuid::Uuid::new_v4()));
    cmd.env("PORT", crate::binary::free_port().to_string())
        .env("HERALD_DATA_DIR", &dir)
        .env("SEED_DEMO", "false");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the server binary");
    let started = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if started.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            panic!("the server started with {env:?}; it must refuse");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut stderr = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut stderr).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(status.code(), Some(2), "{env:?}: {stderr}");
    assert!(stderr.contains("Herald cannot start"), "{stderr}");
    assert!(stderr.contains(expect), "{env:?}: {stderr}");
}

#[test]
fn a_reachable_server_without_a_token_refuses_to_start() {
    refuses_to_start(&[("IP", "0.0.0.0")], "ALLOW_UNSIGNED_WEBHOOKS");
    refuses_to_start(
        &[
            ("IP", "127.0.0.1"),
            ("PUBLIC_URL", "https://crm.example.com"),
        ],
        "TWILIO_AUTH_TOKEN is not set",
    );
    refuses_to_start(
        &[
            ("IP", "127.0.0.1"),
            ("SMS_TRANSPORT", "twilio"),
            ("TWILIO_ACCOUNT_SID", "AC00000000000000000000000000000000"),
        ],
        "TWILIO_AUTH_TOKEN",
    );
}

/// Short codes, sender names and international numbers are all kept; only a number is ever
/// texted back, and no agent or suggester starts on a sender nobody can answer.
async fn any_sender_is_kept(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let org = app.new_org("Senders Co").await;
    let number = app.add_number(&org, "+14155550100").await;
    let senders = [
        ("SMsender000000000000000000000000001", "ACME", false),
        ("SMsender000000000000000000000000002", "262966", false),
        ("SMsender000000000000000000000000003", "+447700900123", true),
    ];
    for (sid, from, _) in senders {
        let res = app
            .post_webhook(&sms_params(sid, from, "+14155550100", "hello"), None)
            .await;
        assert_eq!(res.status(), StatusCode::OK, "{from}");
    }
    app.settle().await;
    assert_eq!(app.count("message").await, 3, "no text was lost");
    for (_, from, textable) in senders {
        let found: Value = app.search_contacts(&org.client, json!(from)).await;
        let contact = &found[0];
        assert_eq!(contact["phone"], from);
        let (status, reply) = app
            .call_as(
                &org.client,
                "/api/messages/send",
                json!({"request": {"contact_id": contact["id"], "phone_number_id": number, "body": "Thanks!"}}),
            )
            .await;
        if textable {
            assert!(status.is_success(), "{from}: {reply}");
        } else {
            assert_eq!(status, StatusCode::BAD_REQUEST, "{from}: {reply}");
            assert!(
                reply.to_string().contains("cannot be texted back"),
                "{reply}"
            );
        }
    }
    // One outbound text (to the international number), none to the senders nobody can answer.
    let outbound = app.count_where("message", "direction = 'outbound'").await;
    assert_eq!(outbound, 1);
}

/// A database failure answers 500 with nothing of the database's words; the log has them.
async fn database_errors_stay_in_the_log(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let org = app.new_org("Broken Co").await;
    app.add_number(&org, "+14155550100").await;
    use sea_orm::ConnectionTrait;
    app.state
        .db
        .execute_unprepared("DROP TABLE pending_status_callback")
        .await
        .unwrap();
    let url = app.url("/webhooks/twilio/status");
    let res = app
        .client
        .post(&url)
        .form(&[
            ("MessageSid", "SMunknown00000000000000000000000001"),
            ("MessageStatus", "delivered"),
        ])
        .send()
        .await
        .unwrap();
    let status = res.status();
    let body = res.text().await.unwrap();
    assert_eq!(status, StatusCode::INTERNAL_SERVER_ERROR, "{body}");
    assert_eq!(body, "server error; it has been logged");
}

on_both_databases!(any_sender_is_kept, database_errors_stay_in_the_log);
