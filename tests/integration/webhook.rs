//! The inbound webhook: signatures, idempotency, opt-out words, unknown numbers and bad bodies.
use crate::helpers::*;
use crate::on_both_databases;
use reqwest::StatusCode;
use serde_json::json;

/// Computed outside Herald (Python's hmac module) for the parameters below, the token
/// "test-auth-token-123" and the URL "https://herald.example/webhooks/twilio/sms".
const KNOWN_GOOD_SIGNATURE: &str = "xIRlMQLAquzRQfoZEsaRJjIOzbo=";
const SIGNED_SID: &str = "SM0123456789abcdef0123456789abcdef";

async fn org_with_number(app: &TestApp, number: &str) -> Org {
    let org = app.new_org("Webhook Co").await;
    app.add_number(&org, number).await;
    org
}

async fn signatures(backend: Backend) {
    let opts = Options {
        webhook_auth_token: Some("test-auth-token-123".into()),
        ..Default::default()
    };
    let Some(app) = spawn_app_with(backend, opts).await else {
        return;
    };
    org_with_number(&app, "+14155550100").await;
    let params = sms_params(SIGNED_SID, "+14155552671", "+14155550100", "Hello there");

    let missing = app.post_webhook(&params, None).await;
    assert_eq!(missing.status(), StatusCode::FORBIDDEN);
    let invalid = app
        .post_webhook(&params, Some("xIRlMQLAquzRQfoZEsaRJjIOzbO="))
        .await;
    assert_eq!(invalid.status(), StatusCode::FORBIDDEN);
    let mut tampered = params.clone();
    tampered[4] = ("Body", "Hello there!");
    assert_eq!(
        app.post_webhook(&tampered, Some(KNOWN_GOOD_SIGNATURE))
            .await
            .status(),
        StatusCode::FORBIDDEN
    );
    assert_eq!(
        app.count("message").await,
        0,
        "nothing is stored for a bad signature"
    );
    assert_eq!(app.count("contact").await, 0);

    let ok = app.post_webhook(&params, Some(KNOWN_GOOD_SIGNATURE)).await;
    assert_eq!(ok.status(), StatusCode::OK);
    assert_eq!(
        ok.text().await.unwrap(),
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Response></Response>"
    );
    assert_eq!(app.count("message").await, 1);
}

async fn duplicate_message_sid(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    org_with_number(&app, "+14155550100").await;
    let params = sms_params(
        "SMdup00000000000000000000000000001",
        "+14155552671",
        "+14155550100",
        "Same text",
    );
    let sends = (0..5).map(|_| app.post_webhook(&params, None));
    for res in futures::future::join_all(sends).await {
        assert_eq!(res.status(), StatusCode::OK);
    }
    app.settle().await;
    assert_eq!(
        app.count("message").await,
        1,
        "five deliveries make one row"
    );
    assert_eq!(
        app.count("contact").await,
        1,
        "the unknown sender became one contact"
    );
}

async fn opt_out_words(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let org = org_with_number(&app, "+14155550100").await;
    let words = [
        "STOP",
        "unsubscribe",
        "End",
        "quit",
        "STOPALL",
        "revoke",
        "optout",
        "Cancel",
    ];
    for (i, word) in words.iter().enumerate() {
        let from = format!("+1415555{:04}", 3000 + i);
        let sid = format!("SMoptout{i:026}");
        assert_eq!(
            app.post_webhook(&sms_params(&sid, &from, "+14155550100", word), None)
                .await
                .status(),
            StatusCode::OK
        );
        let contacts: serde_json::Value = app
            .search_contacts(&org.client, json!(from[2..].to_string()))
            .await;
        assert_eq!(contacts[0]["opted_out"], true, "{word} opts out");
        assert_eq!(contacts[0]["opt_out_source"], "keyword");
        // START opts back in.
        let sid2 = format!("SMoptin{i:027}");
        app.post_webhook(&sms_params(&sid2, &from, "+14155550100", "start"), None)
            .await;
        let contacts: serde_json::Value = app
            .search_contacts(&org.client, json!(from[2..].to_string()))
            .await;
        assert_eq!(
            contacts[0]["opted_out"], false,
            "START after {word} opts back in"
        );
    }
    for (i, word) in ["YES", "unstop"].iter().enumerate() {
        let from = "+14155553999";
        app.post_webhook(
            &sms_params(&format!("SMstopagain{i:023}"), from, "+14155550100", "STOP"),
            None,
        )
        .await;
        app.post_webhook(
            &sms_params(&format!("SMoptinword{i:023}"), from, "+14155550100", word),
            None,
        )
        .await;
        let c: serde_json::Value = app.search_contacts(&org.client, json!("4155553999")).await;
        assert_eq!(c[0]["opted_out"], false, "{word} opts back in");
    }
    // "stop please" is an opt-out in any words now; "the bus stop" is an ordinary message, and
    // HELP is answered but changes nothing.
    for (sid, from, body) in [
        (
            "SMstopplease000000000000000000001",
            "+14155554001",
            "stop please",
        ),
        (
            "SMbusstop0000000000000000000000001",
            "+14155554000",
            "I'm at the bus stop",
        ),
        ("SMhelp0000000000000000000000000001", "+14155554000", "HELP"),
    ] {
        app.post_webhook(&sms_params(sid, from, "+14155550100", body), None)
            .await;
    }
    app.settle().await;
    let search = |q: &'static str| {
        let app = &app;
        let client = org.client.clone();
        async move { app.search_contacts(&client, json!(q)).await }
    };
    assert_eq!(search("4155554001").await[0]["opted_out"], true);
    let c = search("4155554000").await;
    assert_eq!(c[0]["opted_out"], false);
    let conv: serde_json::Value = app
        .ok_as(
            &org.client,
            "/api/conversations/get",
            json!({"contact_id": c[0]["id"]}),
        )
        .await;
    let msgs = conv["messages"].as_array().unwrap();
    assert_eq!(msgs.len(), 3, "{msgs:?}");
    assert_eq!(msgs[0]["keyword"], serde_json::Value::Null);
    assert_eq!(msgs[1]["keyword"], "help");
    assert_eq!(msgs[2]["direction"], "outbound", "the HELP answer");
}

async fn unknown_to_number(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    org_with_number(&app, "+14155550100").await;
    let res = app
        .post_webhook(
            &sms_params(
                "SMunknown000000000000000000000001",
                "+14155552671",
                "+14155559999",
                "hi",
            ),
            None,
        )
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    assert!(res.text().await.unwrap().contains("<Response></Response>"));
    assert_eq!(app.count("message").await, 0);
    assert_eq!(app.count("contact").await, 0);
}

async fn malformed_and_oversized_bodies(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    org_with_number(&app, "+14155550100").await;
    let url = app.url("/webhooks/twilio/sms");
    let post = |body: Vec<u8>| {
        app.client
            .post(&url)
            .header("content-type", "application/x-www-form-urlencoded")
            .body(body)
            .send()
    };
    let cases: Vec<(&str, Vec<u8>)> = vec![
        (
            "missing MessageSid",
            b"From=%2B14155552671&To=%2B14155550100&Body=hi".to_vec(),
        ),
        (
            "missing From",
            b"MessageSid=SM1&To=%2B14155550100&Body=hi".to_vec(),
        ),
        (
            "From with control characters",
            b"MessageSid=SM2&From=a%07b&To=%2B14155550100&Body=hi".to_vec(),
        ),
        (
            "bad NumMedia",
            b"MessageSid=SM3&From=%2B14155552671&To=%2B14155550100&NumMedia=lots".to_vec(),
        ),
        ("not UTF-8", vec![0xff, 0xfe, 0x3d, 0xff]),
        (
            "malformed sid",
            b"MessageSid=SM%3Cscript%3E&From=%2B14155552671&To=%2B14155550100".to_vec(),
        ),
    ];
    for (what, body) in cases {
        let res = post(body).await.unwrap();
        assert_eq!(res.status(), StatusCode::BAD_REQUEST, "{what}");
    }
    let huge = format!(
        "MessageSid=SM4&From=%2B14155552671&To=%2B14155550100&Body={}",
        "a".repeat(70 * 1024)
    );
    assert_eq!(
        post(huge.into_bytes()).await.unwrap().status(),
        StatusCode::BAD_REQUEST,
        "oversized"
    );
    assert_eq!(app.count("message").await, 0);
    assert_eq!(app.count("contact").await, 0);
}

async fn media_only_and_unknown_sender(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let org = org_with_number(&app, "+14155550100").await;
    let params = vec![
        ("MessageSid", "SMmedia00000000000000000000000001"),
        ("From", "+14155552680"),
        ("To", "+14155550100"),
        ("Body", ""),
        ("NumMedia", "1"),
        ("MediaUrl0", "https://api.twilio.com/media/ME1"),
    ];
    assert_eq!(
        app.post_webhook(&params, None).await.status(),
        StatusCode::OK
    );
    let c: serde_json::Value = app.search_contacts(&org.client, json!("4155552680")).await;
    assert_eq!(c[0]["phone"], "+14155552680");
    assert_eq!(
        c[0]["name"], "+14155552680",
        "an unknown sender is named by their number"
    );
    let conv: serde_json::Value = app
        .ok_as(
            &org.client,
            "/api/conversations/get",
            json!({"contact_id": c[0]["id"]}),
        )
        .await;
    assert_eq!(conv["messages"][0]["media_count"], 1);
    assert_eq!(
        conv["messages"][0]["media_urls"][0],
        "https://api.twilio.com/media/ME1"
    );
}

async fn provider_sid_of(app: &TestApp, id: &str) -> String {
    use sea_orm::EntityTrait;
    herald::messaging::entity::Entity::find_by_id(id.parse::<uuid::Uuid>().unwrap())
        .one(&app.state.db)
        .await
        .unwrap()
        .unwrap()
        .provider_sid
        .unwrap()
}

async fn post_status(app: &TestApp, sid: &str, status: &str) -> StatusCode {
    app.client
        .post(app.url("/webhooks/twilio/status"))
        .form(&[("MessageSid", sid), ("MessageStatus", status)])
        .send()
        .await
        .unwrap()
        .status()
}

/// Statuses only move forward, even when many callbacks race; a callback that arrives before
/// Herald knows its SID is kept and applied when the SID is recorded.
async fn status_callbacks(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let org = app.new_org("Status Co").await;
    let number = app.add_number(&org, "+14155550100").await;
    let contact = app.add_contact(&org, "Ada", "+14155552671").await;
    let send = |body: &'static str| {
        app.ok_as::<serde_json::Value>(
            &org.client,
            "/api/messages/send",
            json!({"request": {"contact_id": contact, "phone_number_id": number, "body": body}}),
        )
    };
    let sent = send("Hi Ada").await;
    let sid = provider_sid_of(&app, sent["id"].as_str().unwrap()).await;
    assert_eq!(
        post_status(&app, &sid, "delivered").await,
        StatusCode::NO_CONTENT
    );
    assert_eq!(
        post_status(&app, &sid, "sent").await,
        StatusCode::NO_CONTENT,
        "a late 'sent' is accepted but ignored"
    );
    let status_of = |id: serde_json::Value| {
        let app = &app;
        let org = &org;
        async move {
            let conv: serde_json::Value = app
                .ok_as(
                    &org.client,
                    "/api/conversations/get",
                    json!({"contact_id": contact}),
                )
                .await;
            conv["messages"]
                .as_array()
                .unwrap()
                .iter()
                .find(|m| m["id"] == id)
                .unwrap()["status"]
                .clone()
        }
    };
    assert_eq!(status_of(sent["id"].clone()).await, "delivered");
    assert_eq!(
        post_status(&app, &sid, "bogus").await,
        StatusCode::BAD_REQUEST
    );

    // Twenty callbacks at once, in every order: the furthest status wins.
    let racing = send("Racing").await;
    let sid = provider_sid_of(&app, racing["id"].as_str().unwrap()).await;
    let statuses = ["queued", "sending", "sent", "delivered"];
    let posts = (0..20).map(|i| post_status(&app, &sid, statuses[(i * 7) % 4]));
    for status in futures::future::join_all(posts).await {
        assert_eq!(status, StatusCode::NO_CONTENT);
    }
    assert_eq!(status_of(racing["id"].clone()).await, "delivered");

    // A callback before the SID: kept, then applied when the SID is recorded.
    assert_eq!(
        post_status(&app, "SMnotyet0001", "delivered").await,
        StatusCode::NO_CONTENT
    );
    assert_eq!(app.count("pending_status_callback").await, 1);
    let late = send("Late answer").await;
    let id: uuid::Uuid = late["id"].as_str().unwrap().parse().unwrap();
    use sea_orm::ConnectionTrait;
    app.state
        .db
        .execute_unprepared(
            "UPDATE message SET send_state = 'sending', provider_sid = NULL, attempt_key = 'k-late' WHERE body = 'Late answer'",
        )
        .await
        .unwrap();
    herald::messaging::ledger::record_sent(&app.state, id, "k-late", "SMnotyet0001", "queued")
        .await
        .unwrap();
    assert_eq!(status_of(late["id"].clone()).await, "delivered");
    assert_eq!(app.count("pending_status_callback").await, 0);
}

on_both_databases!(
    signatures,
    duplicate_message_sid,
    opt_out_words,
    unknown_to_number,
    malformed_and_oversized_bodies,
    media_only_and_unknown_sender,
    status_callbacks,
);
