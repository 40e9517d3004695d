//! Issue 49 §9's smaller points, each against a running server: a request for a host that is not
//! this Herald's is refused (a DNS-rebound page would be this origin to a browser); a sender ID a
//! spreadsheet would run as a formula is refused at the webhook; and the CSV export guards the
//! phone column like every other, leaving numbers as they are.
use crate::helpers::*;
use crate::on_both_databases;
use reqwest::StatusCode;

async fn status_for_host(app: &TestApp, host: &str, path: &str) -> StatusCode {
    // Connect to the test server, naming another host.
    let client = reqwest::Client::builder()
        .resolve(
            host,
            app.base.trim_start_matches("http://").parse().unwrap(),
        )
        .build()
        .unwrap();
    let port = app.base.rsplit(':').next().unwrap();
    client
        .get(format!("http://{host}:{port}{path}"))
        .send()
        .await
        .unwrap()
        .status()
}

async fn requests_for_other_hosts_and_formula_senders_are_refused(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    // PUBLIC_URL is https://herald.example; the test connects to 127.0.0.1.
    assert_eq!(
        status_for_host(&app, "evil.example", "/api/auth/sign_up_state").await,
        StatusCode::MISDIRECTED_REQUEST
    );
    assert_eq!(
        status_for_host(&app, "herald.example", "/api/auth/sign_up_state").await,
        StatusCode::OK
    );
    assert_eq!(
        status_for_host(&app, "localhost", "/api/auth/sign_up_state").await,
        StatusCode::OK
    );
    // A load balancer's health check by address is answered.
    assert_eq!(
        status_for_host(&app, "evil.example", "/healthz").await,
        StatusCode::OK
    );

    let org = app.new_org("Formula Co").await;
    app.add_number(&org, "+14155550100").await;
    for (i, sender) in [
        "=cmd|' /C calc'!A0",
        "@SUM(A1)",
        "-2+3",
        "+HYPERLINK(\"x\")",
    ]
    .iter()
    .enumerate()
    {
        let sid = format!("SMformula{i:025}");
        let res = app
            .post_webhook(&sms_params(&sid, sender, "+14155550100", "hi"), None)
            .await;
        assert_eq!(res.status(), StatusCode::BAD_REQUEST, "{sender}");
    }
    // A real number and a plain sender ID still arrive.
    for (sid, sender) in [
        ("SMformula000000000000000000000000a", "+14155552671"),
        ("SMformula000000000000000000000000b", "ACME"),
    ] {
        let res = app
            .post_webhook(&sms_params(sid, sender, "+14155550100", "hi"), None)
            .await;
        assert_eq!(res.status(), StatusCode::OK, "{sender}");
    }
    app.settle().await;
    assert_eq!(app.count("contact").await, 2);
    let csv = org
        .client
        .get(app.url("/api/contacts/export.csv?filter=%7B%7D"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(csv.contains(",+14155552671,"), "{csv}");
    assert!(csv.contains(",ACME,"), "{csv}");
}

/// Issue 49 §7: every route has a time limit and a body limit. A server function that waits on a
/// model that never answers is cut off with 408 at the limit; a body over 8 MB is refused with 413
/// before it is read.
async fn every_route_has_a_time_and_a_body_limit(backend: Backend) {
    use herald::ai_agent::learning::entity::learning;
    use sea_orm::{ActiveModelTrait, Set};
    let gate = std::sync::Arc::new(tokio::sync::Notify::new());
    let opts = Options {
        model: Some(std::sync::Arc::new(crate::slow_suggester::HeldModel(gate))),
        request_timeout: Some(std::time::Duration::from_secs(1)),
        ..Default::default()
    };
    let Some(app) = spawn_app_with(backend, opts).await else {
        return;
    };
    let org = app.new_org("Limits Co").await;
    let agent: uuid::Uuid = app.own_agent(&org).await["id"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    // Three drafts cut by half: the review asks the (held) model to word a lesson.
    for _ in 0..3 {
        learning::ActiveModel {
            id: Set(uuid::Uuid::new_v4()),
            organization_id: Set(org.org_id),
            agent_id: Set(agent),
            kind: Set("draft_edit".into()),
            subject_kind: Set("item".into()),
            subject_id: Set(uuid::Uuid::new_v4()),
            detail: Set(serde_json::json!({"before": "x".repeat(100), "after": "x".repeat(40)})),
            actor_user_id: Set(None),
            created_at: Set(app.state.clock.now()),
        }
        .insert(&app.state.db)
        .await
        .unwrap();
    }
    let started = std::time::Instant::now();
    let (status, _) = app
        .call_as(
            &org.client,
            "/api/lessons/review",
            serde_json::json!({"agent_id": agent}),
        )
        .await;
    assert_eq!(status, StatusCode::REQUEST_TIMEOUT);
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
    // A body over 8 MB, announced: refused before a byte of it is read.
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut tcp = tokio::net::TcpStream::connect(app.base.trim_start_matches("http://"))
        .await
        .unwrap();
    let head = format!(
        "POST /api/contacts/import HTTP/1.1\r\nHost: 127.0.0.1\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        9 * 1024 * 1024
    );
    tcp.write_all(head.as_bytes()).await.unwrap();
    let mut answer = vec![0u8; 64];
    let n = tcp.read(&mut answer).await.unwrap();
    let line = String::from_utf8_lossy(&answer[..n]).to_string();
    assert!(line.starts_with("HTTP/1.1 413"), "{line}");
}

on_both_databases!(
    requests_for_other_hosts_and_formula_senders_are_refused,
    every_route_has_a_time_and_a_body_limit,
);
