//! The Twilio REST transport against fakes on loopback: what it retries (only what surely never
//! reached Twilio), what it leaves in doubt for the ledger, and how the ledger reconciles a text
//! in doubt with the Messages list instead of resending it.
use crate::helpers::*;
use crate::on_both_databases;
use herald::platform::config::TwilioConfig;
use herald::platform::sms::twilio::TwilioTransport;
use herald::platform::sms::{Lookup, OutboundSms, SmsTransport, TransportError};
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;
use wiremock::matchers::{method, path, query_param};
use wiremock::{Mock, MockServer, ResponseTemplate};

const MESSAGES_PATH: &str = "/2010-04-01/Accounts/ACtest/Messages.json";

fn config(base: &str) -> TwilioConfig {
    TwilioConfig {
        account_sid: "ACtest".into(),
        auth_token: "secret".into(),
        messaging_service_sid: None,
        status_callback_url: Some("https://herald.example/webhooks/twilio/status".into()),
        api_base: base.into(),
        timeout: Duration::from_millis(800),
    }
}

fn sms(key: &str) -> OutboundSms {
    OutboundSms {
        from: crate::helpers::num("+14155550100"),
        to: crate::helpers::num("+14155552671"),
        body: "Hello".into(),
        idempotency_key: key.into(),
        account: None,
        media_urls: vec![],
    }
}

fn listing(messages: Value) -> ResponseTemplate {
    ResponseTemplate::new(200)
        .set_body_json(json!({"messages": messages, "page": 0, "page_size": 50}))
}

async fn posts(fake: &MockServer) -> usize {
    fake.received_requests()
        .await
        .unwrap()
        .iter()
        .filter(|r| r.method.as_str() == "POST")
        .count()
}

/// "Hello" sent to Ada through Herald's send path, from a new organisation's number.
struct Hello {
    app: TestApp,
    org: Org,
    contact: uuid::Uuid,
    sent: Value,
}

/// The account's numbers on a wiremock Twilio: it has the test organisation's number.
async fn own_number(fake: &MockServer) {
    Mock::given(method("GET"))
        .and(path("/2010-04-01/Accounts/ACtest/IncomingPhoneNumbers.json"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "incoming_phone_numbers": [{"sid": "PN0123456789abcdef0123456789abcdef", "phone_number": "+14155550100"}],
            "page": 0, "page_size": 50, "first_page_uri": "", "next_page_uri": null, "previous_page_uri": null, "uri": ""
        })))
        .mount(fake)
        .await;
}

async fn send_hello(backend: Backend, transport: Arc<TwilioTransport>) -> Option<Hello> {
    let app = spawn_app_sending_to(backend, transport).await?;
    let org = app.new_org("Twilio Co").await;
    let number = app.add_number(&org, "+14155550100").await;
    let contact = app.add_contact(&org, "Ada", "+14155552671").await;
    let sent = app
        .ok_as(
            &org.client,
            "/api/messages/send",
            json!({"request": {"contact_id": contact, "phone_number_id": number, "body": "Hello"}}),
        )
        .await;
    Some(Hello {
        app,
        org,
        contact,
        sent,
    })
}

impl Hello {
    /// The conversation after the ledger's sweep, with every text in doubt due for a lookup.
    async fn after_sweep(&self) -> Value {
        herald::messaging::ledger::sweep(&self.app.state, chrono::Duration::zero())
            .await
            .unwrap();
        self.app
            .ok_as(
                &self.org.client,
                "/api/conversations/get",
                json!({"contact_id": self.contact}),
            )
            .await
    }
}

/// A 5xx after the create: Twilio may have the text. Nothing is resent until the list says
/// whether it does: here it does, so its SID is recorded and no second create is made.
async fn a_server_error_is_reconciled_not_resent(backend: Backend) {
    let fake = MockServer::start().await;
    own_number(&fake).await;
    Mock::given(method("POST"))
        .and(path(MESSAGES_PATH))
        .respond_with(ResponseTemplate::new(503))
        .mount(&fake)
        .await;
    Mock::given(method("GET"))
        .and(path(MESSAGES_PATH))
        .and(query_param("To", "+14155552671"))
        .and(query_param("From", "+14155550100"))
        .respond_with(listing(
            json!([{"sid": "SMaccepted0001", "status": "sent", "body": "Hello",
            "to": "+14155552671", "from": "+14155550100", "date_created": null}]),
        ))
        .mount(&fake)
        .await;
    let transport = Arc::new(
        TwilioTransport::new(config(&fake.uri()))
            .unwrap()
            .with_backoff(Duration::from_millis(10)),
    );
    let Some(hello) = send_hello(backend, transport).await else {
        return;
    };
    assert_eq!(
        hello.sent["send_state"], "sending",
        "in doubt, not failed: {}",
        hello.sent
    );
    assert_eq!(posts(&fake).await, 1);
    let conv = hello.after_sweep().await;
    let m = &conv["messages"][0];
    assert_eq!(m["send_state"], "sent", "{m}");
    assert_eq!(posts(&fake).await, 1, "found in the list: never sent twice");
    let lists = fake
        .received_requests()
        .await
        .unwrap()
        .into_iter()
        .filter(|r| r.method.as_str() == "GET" && r.url.path() == MESSAGES_PATH)
        .collect::<Vec<_>>();
    assert!(
        lists[0].url.query().unwrap_or("").contains("DateSent%3E="),
        "the spec's DateSent> filter: {}",
        lists[0].url
    );
}

/// A lost answer, and the list shows nothing: Twilio surely does not have it, so it is sent
/// again (once).
async fn a_text_twilio_never_got_is_sent_again(backend: Backend) {
    let fake = MockServer::start().await;
    own_number(&fake).await;
    Mock::given(method("POST"))
        .and(path(MESSAGES_PATH))
        .respond_with(ResponseTemplate::new(502))
        .up_to_n_times(1)
        .mount(&fake)
        .await;
    Mock::given(method("POST"))
        .and(path(MESSAGES_PATH))
        .respond_with(
            ResponseTemplate::new(201)
                .set_body_json(json!({"sid": "SMsecond0001", "status": "queued"})),
        )
        .mount(&fake)
        .await;
    Mock::given(method("GET"))
        .and(path(MESSAGES_PATH))
        .respond_with(listing(json!([])))
        .mount(&fake)
        .await;
    let transport = Arc::new(TwilioTransport::new(config(&fake.uri())).unwrap());
    let Some(hello) = send_hello(backend, transport).await else {
        return;
    };
    let conv = hello.after_sweep().await;
    assert_eq!(posts(&fake).await, 2, "the first create, then one more");
    assert_eq!(conv["messages"][0]["send_state"], "sent");
    assert_eq!(conv["messages"].as_array().unwrap().len(), 1, "one row");
}

#[tokio::test]
async fn a_4xx_is_not_retried_and_says_why_in_plain_words() {
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
    let err = t.send(&sms("k1")).await.unwrap_err();
    assert_eq!(
        err,
        TransportError::Rejected(
            "The number is not a valid phone number (error 21211). Check the contact's number \
             for a missing or extra digit."
                .into()
        )
    );
    assert_eq!(fake.received_requests().await.unwrap().len(), 1);
}

#[tokio::test]
async fn a_429_is_retried_because_twilio_did_not_take_it() {
    let fake = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(429))
        .up_to_n_times(2)
        .mount(&fake)
        .await;
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(201).set_body_json(json!({"sid": "SMok", "status": "queued"})),
        )
        .mount(&fake)
        .await;
    let t = TwilioTransport::new(config(&fake.uri()))
        .unwrap()
        .with_backoff(Duration::from_millis(1));
    assert_eq!(t.send(&sms("k2")).await.unwrap().provider_sid, "SMok");
    assert_eq!(fake.received_requests().await.unwrap().len(), 3);
}

#[tokio::test]
async fn a_refused_connection_is_retried_then_not_sent() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let t = TwilioTransport::new(config(&format!("http://127.0.0.1:{port}")))
        .unwrap()
        .with_backoff(Duration::from_millis(1));
    assert!(matches!(
        t.send(&sms("k3")).await,
        Err(TransportError::NotSent(_))
    ));
}

#[tokio::test]
async fn a_timeout_or_a_server_error_is_in_doubt_and_never_retried_blindly() {
    let fake = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(201).set_delay(Duration::from_secs(3)))
        .mount(&fake)
        .await;
    let t = TwilioTransport::new(config(&fake.uri())).unwrap();
    assert!(matches!(
        t.send(&sms("k4")).await,
        Err(TransportError::Ambiguous(_))
    ));
    assert_eq!(fake.received_requests().await.unwrap().len(), 1);
    let fake = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(500))
        .mount(&fake)
        .await;
    let t = TwilioTransport::new(config(&fake.uri())).unwrap();
    assert!(matches!(
        t.send(&sms("k5")).await,
        Err(TransportError::Ambiguous(_))
    ));
    assert_eq!(fake.received_requests().await.unwrap().len(), 1);
}

#[tokio::test]
async fn find_reads_the_list_with_the_specs_filters() {
    let (base, fake) = crate::fake_twilio::start().await;
    let t = TwilioTransport::new(TwilioConfig {
        account_sid: "ACtest".into(),
        ..config(&base)
    })
    .unwrap();
    t.send(&sms("k6")).await.unwrap();
    t.send(&OutboundSms {
        body: "Something else".into(),
        ..sms("k7")
    })
    .await
    .unwrap();
    let found = t
        .find(&Lookup {
            to: crate::helpers::num("+14155552671"),
            from: crate::helpers::num("+14155550100"),
            body: "Hello".into(),
            since: chrono::Utc::now() - chrono::Duration::minutes(1),
            account: None,
        })
        .await
        .unwrap();
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].provider_sid, fake.sent.lock().unwrap()[0].sid);
}

on_both_databases!(
    a_server_error_is_reconciled_not_resent,
    a_text_twilio_never_got_is_sent_again,
);

/// With Twilio, a number can be added only when the account's IncomingPhoneNumbers list has
/// it exactly (the list's filter also matches partial numbers); its PN sid comes from Twilio.
async fn only_numbers_the_account_has(backend: Backend) {
    let (base, fake) = crate::fake_twilio::start().await;
    *fake.owned.lock().unwrap() = Some(vec!["+14155550100".into(), "+141555501009".into()]);
    let transport = Arc::new(TwilioTransport::new(config(&base)).unwrap());
    let Some(app) = spawn_app_sending_to(backend, transport).await else {
        return;
    };
    let org = app.new_org("Owned Co").await;
    let added: serde_json::Value = app
        .ok_as(
            &org.client,
            "/api/numbers/create",
            serde_json::json!({"input": {"number": "+1 415 555 0100", "friendly_name": "Front", "provider_sid": ""}}),
        )
        .await;
    assert!(added["provider_sid"].as_str().unwrap().starts_with("PN"));
    let (status, reply) = app
        .call_as(
            &org.client,
            "/api/numbers/create",
            serde_json::json!({"input": {"number": "+1 415 555 0101", "friendly_name": "Not ours", "provider_sid": ""}}),
        )
        .await;
    assert_eq!(status, reqwest::StatusCode::BAD_REQUEST, "{reply}");
    assert!(
        reply
            .to_string()
            .contains("not a number of this twilio account"),
        "{reply}"
    );
    let provider: serde_json::Value = app
        .ok_as(
            &org.client,
            "/api/numbers/provider",
            serde_json::Value::Null,
        )
        .await;
    assert_eq!(provider["checks_ownership"], true);
    assert_eq!(app.count("phone_number").await, 1);
}

on_both_databases!(only_numbers_the_account_has);
