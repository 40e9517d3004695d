//! `/healthz` and `/metrics`.
use crate::helpers::*;
use crate::on_both_databases;
use reqwest::StatusCode;

async fn health_and_metrics(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let org = app.new_org("Ops Co").await;
    app.add_number(&org, "+14155550100").await;
    let health = app.client.get(app.url("/healthz")).send().await.unwrap();
    assert_eq!(health.status(), StatusCode::OK);
    assert_eq!(
        health.json::<serde_json::Value>().await.unwrap()["database"],
        "ok"
    );
    app.post_webhook(
        &sms_params(
            "SMmetrics0000000000000000000000001",
            "+14155552671",
            "+14155550100",
            "hi",
        ),
        None,
    )
    .await;
    let text = app
        .client
        .get(app.url("/metrics"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(text.contains("herald_inbound_messages_total 1"), "{text}");
    assert!(text.contains("herald_http_requests_total{method=\"POST\",route=\"/webhooks/twilio/sms\",status=\"200\"} 1"), "{text}");
    assert!(
        text.contains("herald_http_request_duration_seconds_bucket"),
        "{text}"
    );
}

on_both_databases!(health_and_metrics);
