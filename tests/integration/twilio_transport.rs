//! The Twilio REST transport against a fake Twilio on loopback.
use crate::helpers::*;
use crate::on_both_databases;
use herald::messaging::transport::twilio::{TwilioTransport, IDEMPOTENCY_HEADER};
use herald::messaging::transport::{OutboundSms, SmsTransport, TransportError};
use herald::server::config::TwilioConfig;
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;
use wiremock::matchers::{header_exists, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

const MESSAGES_PATH: &str = "/2010-04-01/Accounts/ACtest/Messages.json";

fn config(base: &str) -> TwilioConfig {
    TwilioConfig {
        account_sid: "ACtest".into(),
        auth_token: "secret".into(),
        messaging_service_sid: None,
        status_callback_url: Some("https://herald.example/webhooks/twilio/status".into()),
        api_base: base.into(),
    }
}

/// A 5xx first, then success: one idempotency token on both tries, so one message.
async fn server_error_then_retry_sends_once(backend: Backend) {
    let fake = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path(MESSAGES_PATH))
        .respond_with(ResponseTemplate::new(503))
        .up_to_n_times(1)
        .mount(&fake)
        .await;
    Mock::given(method("POST"))
        .and(path(MESSAGES_PATH))
        .and(header_exists(IDEMPOTENCY_HEADER))
        .respond_with(
            ResponseTemplate::new(201)
                .set_body_json(json!({"sid": "SMfake0001", "status": "queued"})),
        )
        .mount(&fake)
        .await;
    let transport = Arc::new(
        TwilioTransport::new(config(&fake.uri()))
            .unwrap()
            .with_backoff(Duration::from_millis(10)),
    );
    let opts = Options {
        transport: Some(transport),
        ..Default::default()
    };
    let Some(app) = spawn_app_with(backend, opts).await else {
        return;
    };
    let org = app.new_org("Twilio Co").await;
    let number = app.add_number(&org, "+14155550100").await;
    let contact = app.add_contact(&org, "Ada", "+14155552671").await;
    let sent: Value = app
        .ok_as(
            &org.client,
            "/api/messages/send",
            json!({"request": {"contact_id": contact, "phone_number_id": number, "body": "Hello"}}),
        )
        .await;
    assert_eq!(sent["status"], "queued");

    let requests = fake.received_requests().await.unwrap();
    assert_eq!(requests.len(), 2, "one failure, one retry");
    let tokens: Vec<&str> = requests
        .iter()
        .map(|r| r.headers.get(IDEMPOTENCY_HEADER).unwrap().to_str().unwrap())
        .collect();
    assert_eq!(
        tokens[0], tokens[1],
        "the retry reuses the token, so Twilio sends one message"
    );
    let form: Vec<(String, String)> = serde_urlencoded::from_bytes(&requests[1].body).unwrap();
    assert!(form.contains(&("From".into(), "+14155550100".into())));
    assert!(form.contains(&("To".into(), "+14155552671".into())));
    assert!(form.iter().any(|(k, _)| k == "StatusCallback"));
    let auth = requests[1]
        .headers
        .get("authorization")
        .unwrap()
        .to_str()
        .unwrap();
    assert!(auth.starts_with("Basic "));
    let conv: Value = app
        .ok_as(
            &org.client,
            "/api/conversations/get",
            json!({"contact_id": contact}),
        )
        .await;
    assert_eq!(
        conv["messages"].as_array().unwrap().len(),
        1,
        "one row for one message"
    );
}

#[tokio::test]
async fn a_4xx_is_not_retried_and_says_why() {
    let fake = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path(MESSAGES_PATH))
        .respond_with(
            ResponseTemplate::new(400)
                .set_body_json(json!({"code": 21211, "message": "The 'To' number is not valid."})),
        )
        .mount(&fake)
        .await;
    let t = TwilioTransport::new(config(&fake.uri()))
        .unwrap()
        .with_backoff(Duration::from_millis(1));
    let sms = OutboundSms {
        from: "+14155550100".into(),
        to: "+1".into(),
        body: "x".into(),
        idempotency_key: "k1".into(),
    };
    let err = t.send(&sms).await.unwrap_err();
    assert_eq!(
        err,
        TransportError::Rejected("The 'To' number is not valid. (code 21211)".into())
    );
    assert_eq!(fake.received_requests().await.unwrap().len(), 1);
}

#[tokio::test]
async fn persistent_outage_gives_up_after_bounded_attempts() {
    let fake = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(500))
        .mount(&fake)
        .await;
    let t = TwilioTransport::new(config(&fake.uri()))
        .unwrap()
        .with_backoff(Duration::from_millis(1));
    let sms = OutboundSms {
        from: "+14155550100".into(),
        to: "+14155552671".into(),
        body: "x".into(),
        idempotency_key: "k2".into(),
    };
    assert!(matches!(
        t.send(&sms).await,
        Err(TransportError::Unavailable { attempts: 4, .. })
    ));
    let reqs = fake.received_requests().await.unwrap();
    assert_eq!(reqs.len(), 4);
    assert!(reqs
        .iter()
        .all(|r| r.headers.get(IDEMPOTENCY_HEADER).unwrap() == "k2"));
}

on_both_databases!(server_error_then_retry_sends_once);
