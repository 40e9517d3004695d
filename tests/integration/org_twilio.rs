//! Twilio accounts per organisation (issue 26): two organisations with their own accounts on a
//! fake Twilio that checks credentials per account. Each sends with its own credentials, a
//! webhook signed with the other's token is refused, a number on the other account cannot be
//! added, and the server's own account serves nobody on an open multi-organisation service.
//! A delivery receipt signed for one organisation changes none of another's texts.
use crate::helpers::*;
use crate::on_both_databases;
use herald::platform::config::TwilioConfig;
use herald::platform::sms::twilio::TwilioTransport;
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;

const A_SID: &str = "ACaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
const A_TOKEN: &str = "token-of-account-a-0123456789";
const B_SID: &str = "ACbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";
const B_TOKEN: &str = "token-of-account-b-0123456789";
const B_KEY: &str = "SKbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";
const B_KEY_SECRET: &str = "api-key-secret-of-b";
const ENV_TOKEN: &str = "the-servers-own-token";
const A_NUMBER: &str = "+14155550101";
const B_NUMBER: &str = "+14155550202";

fn connect(sid: &str, token: &str, key: &str, secret: &str) -> Value {
    json!({"input": {"account_sid": sid, "auth_token": token, "api_key_sid": key, "api_key_secret": secret}})
}

async fn inbound(app: &TestApp, to: &str, token: &str, sid: &str) -> StatusCode {
    let params: Vec<(String, String)> = sms_params(sid, "+14155552671", to, "Hello there")
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
    let url = "https://herald.example/webhooks/twilio/sms";
    let sig = herald::messaging::signature::compute_signature(token, url, &params);
    app.client
        .post(app.url("/webhooks/twilio/sms"))
        .header("X-Twilio-Signature", sig)
        .form(&params)
        .send()
        .await
        .unwrap()
        .status()
}

async fn each_organisation_texts_through_its_own_account(backend: Backend) {
    let (base, fake) = crate::fake_twilio::start().await;
    fake.add_account(A_SID, &[(A_SID, A_TOKEN)], &[A_NUMBER]);
    fake.add_account(
        B_SID,
        &[(B_SID, B_TOKEN), (B_KEY, B_KEY_SECRET)],
        &[B_NUMBER],
    );
    // The server's own account holds both numbers: on an open service it must serve nobody.
    fake.add_account("ACenv", &[("ACenv", ENV_TOKEN)], &[A_NUMBER, B_NUMBER]);
    let transport = TwilioTransport::new(TwilioConfig {
        account_sid: "ACenv".into(),
        auth_token: ENV_TOKEN.into(),
        messaging_service_sid: None,
        status_callback_url: None,
        api_base: base,
        timeout: Duration::from_secs(5),
    })
    .unwrap()
    .with_backoff(Duration::from_millis(5));
    let opts = Options {
        transport: Some(Arc::new(transport)),
        twilio: true,
        secret_key: Some("a long random key for the test server".into()),
        webhook_auth_token: Some(ENV_TOKEN.into()),
        ..Default::default()
    };
    let Some(app) = spawn_app_with(backend, opts).await else {
        return;
    };
    let a = app.new_org("Alpha").await;
    let b = app.new_org("Bravo").await;
    let number =
        |n: &str| json!({"input": {"number": n, "friendly_name": "Main", "provider_sid": ""}});

    // No account of its own: the server's account does not lend its numbers.
    let (status, reply) = app
        .call_as(&a.client, "/api/numbers/create", number(A_NUMBER))
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{reply}");
    assert!(
        reply
            .to_string()
            .contains("Connect your organisation's Twilio account"),
        "{reply}"
    );

    // Wrong credentials are refused by Twilio; a member cannot connect at all.
    let (status, reply) = app
        .call_as(
            &a.client,
            "/api/provider/twilio",
            connect(A_SID, B_TOKEN, "", ""),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{reply}");
    assert!(reply.to_string().contains("Not connected"), "{reply}");
    let mo = app.add_member(&a, "Mo").await;
    let (status, _) = app
        .call_as(
            &mo.client,
            "/api/provider/twilio",
            connect(A_SID, A_TOKEN, "", ""),
        )
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let view: Value = app
        .ok_as(
            &a.client,
            "/api/provider/twilio",
            connect(A_SID, A_TOKEN, "", ""),
        )
        .await;
    assert_eq!(view["connected"]["account"], "AC…aaaa");
    assert!(
        !view.to_string().contains(A_TOKEN),
        "never shown back: {view}"
    );
    let _: Value = app
        .ok_as(
            &b.client,
            "/api/provider/twilio",
            connect(B_SID, B_TOKEN, B_KEY, B_KEY_SECRET),
        )
        .await;
    // Sealed at rest: the token is nowhere in the database's row.
    assert_eq!(
        app.count_where(
            "provider_account",
            &format!("auth_token_sealed LIKE '%{A_TOKEN}%'")
        )
        .await,
        0
    );

    // A number only from the organisation's own account.
    let (status, reply) = app
        .call_as(&a.client, "/api/numbers/create", number(B_NUMBER))
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{reply}");
    assert!(
        reply.to_string().contains("not a number of this"),
        "{reply}"
    );
    let a_number = app.add_number(&a, A_NUMBER).await;
    let b_number = app.add_number(&b, B_NUMBER).await;

    // Each sends with its own credentials, on its own account.
    for (org, num, body) in [(&a, a_number, "From Alpha"), (&b, b_number, "From Bravo")] {
        let contact = app.add_contact(org, "Kim", "+14155552671").await;
        let _: Value = app
            .ok_as(
                &org.client,
                "/api/messages/send",
                json!({"request": {"contact_id": contact, "phone_number_id": num, "body": body}}),
            )
            .await;
    }
    app.settle().await;
    let sent = fake.sent.lock().unwrap().clone();
    let on = |body: &str| {
        sent.iter()
            .find(|s| s.body.contains(body))
            .map(|s| s.account.clone())
    };
    assert_eq!(on("From Alpha").as_deref(), Some(A_SID), "{sent:?}");
    assert_eq!(on("From Bravo").as_deref(), Some(B_SID), "{sent:?}");

    // Webhooks about a number are verified with its organisation's token, and only that.
    assert_eq!(
        inbound(&app, A_NUMBER, B_TOKEN, "SMorgtwilio000000000000000000001").await,
        StatusCode::FORBIDDEN
    );
    assert_eq!(
        inbound(
            &app,
            A_NUMBER,
            ENV_TOKEN,
            "SMorgtwilio000000000000000000002"
        )
        .await,
        StatusCode::FORBIDDEN
    );
    assert_eq!(
        inbound(&app, A_NUMBER, A_TOKEN, "SMorgtwilio000000000000000000003").await,
        StatusCode::OK
    );
    assert_eq!(
        inbound(&app, B_NUMBER, B_TOKEN, "SMorgtwilio000000000000000000004").await,
        StatusCode::OK
    );
    // Delivery receipts too: about A's number (their `From`), only A's token is accepted.
    let a_sid = fake
        .sent
        .lock()
        .unwrap()
        .iter()
        .find(|s| s.body.contains("From Alpha"))
        .unwrap()
        .sid
        .clone();
    for (token, expected) in [
        (B_TOKEN, StatusCode::FORBIDDEN),
        (A_TOKEN, StatusCode::NO_CONTENT),
    ] {
        let params: Vec<(String, String)> = [
            ("MessageSid", a_sid.as_str()),
            ("MessageStatus", "delivered"),
            ("From", A_NUMBER),
            ("To", "+14155552671"),
            ("AccountSid", A_SID),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        let url = "https://herald.example/webhooks/twilio/status";
        let sig = herald::messaging::signature::compute_signature(token, url, &params);
        let res = app
            .client
            .post(app.url("/webhooks/twilio/status"))
            .header("X-Twilio-Signature", sig)
            .form(&params)
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), expected);
    }
    app.settle().await;
    assert_eq!(
        app.count_where("message", "direction = 'inbound'").await,
        2,
        "only the two rightly signed texts were stored"
    );

    // Replacing the credentials is audited; the view never shows a secret.
    let _: Value = app
        .ok_as(
            &a.client,
            "/api/provider/twilio",
            connect(A_SID, A_TOKEN, "", ""),
        )
        .await;
    let audit: Value = app
        .ok_as(&a.client, "/api/audit", json!({"before": null}))
        .await;
    let connected: Vec<&Value> = audit["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["action"] == "credentials_connected")
        .collect();
    assert_eq!(connected.len(), 2, "{audit}");
    assert_eq!(connected[0]["detail"], "replaced");
    let seen: Value = app.ok_as(&mo.client, "/api/provider", Value::Null).await;
    assert_eq!(seen["connected"]["account"], "AC…aaaa");
    assert!(!seen.to_string().contains(A_TOKEN));
}

/// Posts a delivery receipt signed with `token` (none: unsigned, without `From`).
async fn receipt(app: &TestApp, token: Option<&str>, sid: &str, from: &str) -> StatusCode {
    let mut params: Vec<(String, String)> = [
        ("MessageSid", sid),
        ("MessageStatus", "undelivered"),
        ("ErrorCode", "21610"),
        ("To", "+14155552671"),
    ]
    .iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    let mut req = app.client.post(app.url("/webhooks/twilio/status"));
    if let Some(token) = token {
        params.push(("From".into(), from.into()));
        let url = "https://herald.example/webhooks/twilio/status";
        let sig = herald::messaging::signature::compute_signature(token, url, &params);
        req = req.header("X-Twilio-Signature", sig);
    }
    req.form(&params).send().await.unwrap().status()
}

async fn a_receipt_changes_only_its_own_organisations_texts(backend: Backend) {
    let (base, fake) = crate::fake_twilio::start().await;
    fake.add_account(A_SID, &[(A_SID, A_TOKEN)], &[A_NUMBER]);
    fake.add_account(B_SID, &[(B_SID, B_TOKEN)], &[B_NUMBER]);
    let transport = TwilioTransport::new(TwilioConfig {
        account_sid: "ACenv".into(),
        auth_token: ENV_TOKEN.into(),
        messaging_service_sid: None,
        status_callback_url: None,
        api_base: base,
        timeout: Duration::from_secs(5),
    })
    .unwrap();
    let opts = Options {
        transport: Some(Arc::new(transport)),
        twilio: true,
        secret_key: Some("a long random key for the test server".into()),
        ..Default::default()
    };
    let Some(app) = spawn_app_with(backend, opts).await else {
        return;
    };
    let (a, b) = (app.new_org("Alpha").await, app.new_org("Bravo").await);
    for (org, sid, token) in [(&a, A_SID, A_TOKEN), (&b, B_SID, B_TOKEN)] {
        let _: Value = app
            .ok_as(
                &org.client,
                "/api/provider/twilio",
                connect(sid, token, "", ""),
            )
            .await;
    }
    let a_number = app.add_number(&a, A_NUMBER).await;
    app.add_number(&b, B_NUMBER).await;
    let kim = app.add_contact(&a, "Kim", "+14155552671").await;
    let send = |body: &str| {
        app.ok_as::<Value>(
            &a.client,
            "/api/messages/send",
            json!({"request": {"contact_id": kim, "phone_number_id": a_number, "body": body}}),
        )
    };
    let sent = send("From Alpha").await;
    app.settle().await;
    let row = |id: &Value| {
        let id: uuid::Uuid = id.as_str().unwrap().parse().unwrap();
        let db = app.state.db.clone();
        async move {
            use sea_orm::EntityTrait;
            herald::messaging::entity::Entity::find_by_id(id)
                .one(&db)
                .await
                .unwrap()
                .unwrap()
        }
    };
    let before = row(&sent["id"]).await;
    let a_sid = before.provider_sid.clone().expect("sent");
    let opted_out = || async {
        let c: Value = app
            .ok_as(&a.client, "/api/contacts/get", json!({"id": kim}))
            .await;
        c["opted_out"] == true
    };

    // B signs a receipt naming A's text, from B's own number; and one unsigned, without From.
    assert_eq!(
        receipt(&app, Some(B_TOKEN), &a_sid, B_NUMBER).await,
        StatusCode::NO_CONTENT
    );
    assert_eq!(
        receipt(&app, None, &a_sid, "").await,
        StatusCode::NO_CONTENT
    );
    let after = row(&sent["id"]).await;
    assert_eq!((after.status, after.error), (before.status, before.error));
    assert!(!opted_out().await, "no carrier opt-out from B's receipt");

    // Kept for a SID not recorded yet, B's receipt is not applied to A's text that gets it.
    let future = "SMforgedinadvance000000000000001";
    assert_eq!(
        receipt(&app, Some(B_TOKEN), future, B_NUMBER).await,
        StatusCode::NO_CONTENT
    );
    let later = send("Later from Alpha").await;
    app.settle().await;
    use sea_orm::ConnectionTrait;
    app.state
        .db
        .execute_unprepared(
            "UPDATE message SET send_state = 'sending', provider_sid = NULL, status = 'queued', \
             attempt_key = 'k-later' WHERE body = 'Later from Alpha'",
        )
        .await
        .unwrap();
    let later_id = later["id"].as_str().unwrap().parse().unwrap();
    herald::messaging::ledger::record_sent(&app.state, later_id, "k-later", future, "queued")
        .await
        .unwrap();
    assert_eq!(row(&later["id"]).await.status, "queued");
    assert!(!opted_out().await);

    // A's own receipt, signed with A's token from A's number, is applied.
    assert_eq!(
        receipt(&app, Some(A_TOKEN), &a_sid, A_NUMBER).await,
        StatusCode::NO_CONTENT
    );
    assert_eq!(row(&sent["id"]).await.status, "undelivered");
    assert!(opted_out().await, "A's carrier says Kim opted out");
}

on_both_databases!(
    each_organisation_texts_through_its_own_account,
    a_receipt_changes_only_its_own_organisations_texts,
);
