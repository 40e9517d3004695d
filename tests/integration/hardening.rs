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

on_both_databases!(requests_for_other_hosts_and_formula_senders_are_refused);
