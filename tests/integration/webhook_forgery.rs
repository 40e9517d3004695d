//! Issue 49 §1: an owner whose organisation has its own Twilio account cannot forge texts or
//! receipts into another organisation. The form used to be read twice: the token chosen by the
//! first `To` (or `From`), the text routed by the last, and a number written otherwise than in
//! E.164 could choose the server's token. Now a repeated key is refused with 400, the form is read
//! once, and the token is chosen by the normalised number the text is routed by.
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
const A_NUMBER: &str = "+14155550101";
const B_NUMBER: &str = "+14155550202";
const URL_SMS: &str = "https://herald.example/webhooks/twilio/sms";
const URL_STATUS: &str = "https://herald.example/webhooks/twilio/status";

/// Posts `pairs` as a form, in that order and with any repeats, signed with `token` over `url`.
async fn post_signed(
    app: &TestApp,
    path: &str,
    url: &str,
    token: &str,
    pairs: &[(&str, &str)],
) -> (StatusCode, String) {
    let owned: Vec<(String, String)> = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let sig = herald::messaging::signature::compute_signature(token, url, &owned);
    let body = serde_urlencoded::to_string(&owned).unwrap();
    let res = app
        .client
        .post(app.url(path))
        .header("X-Twilio-Signature", sig)
        .header("Content-Type", "application/x-www-form-urlencoded")
        .body(body)
        .send()
        .await
        .unwrap();
    (res.status(), res.text().await.unwrap())
}

async fn two_organisations(backend: Backend) -> Option<(TestApp, Org, Org)> {
    let (base, fake) = crate::fake_twilio::start().await;
    fake.add_account(A_SID, &[(A_SID, A_TOKEN)], &[A_NUMBER]);
    fake.add_account(B_SID, &[(B_SID, B_TOKEN)], &[B_NUMBER]);
    let transport = TwilioTransport::new(TwilioConfig {
        account_sid: "ACenv".into(),
        auth_token: "the-servers-own-token".into(),
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
    let app = spawn_app_with(backend, opts).await?;
    let (a, b) = (app.new_org("Alpha").await, app.new_org("Bravo").await);
    for (org, sid, token) in [(&a, A_SID, A_TOKEN), (&b, B_SID, B_TOKEN)] {
        let input = json!({"input": {"account_sid": sid, "auth_token": token,
            "api_key_sid": "", "api_key_secret": ""}});
        let _: Value = app.ok_as(&org.client, "/api/provider/twilio", input).await;
    }
    app.add_number(&a, A_NUMBER).await;
    app.add_number(&b, B_NUMBER).await;
    Some((app, a, b))
}

async fn a_forged_text_into_another_organisation_is_refused(backend: Backend) {
    let Some((app, _a, b)) = two_organisations(backend).await else {
        return;
    };
    // Bravo has a contact whose STOP a forger would like to plant, and START to clear.
    app.add_contact(&b, "Kim", "+14155552671").await;
    app.settle().await;
    let before = app.snapshot().await;
    let sms = |sid, to1, to2, body| {
        vec![
            ("MessageSid", sid),
            ("From", "+14155552671"),
            ("To", to1),
            ("Body", body),
            ("To", to2),
        ]
    };
    // Alpha's owner signs with Alpha's own token: To = its own number, then Bravo's.
    for (sid, body) in [
        ("SMforged00000000000000000000000001", "STOP"),
        (
            "SMforged00000000000000000000000002",
            "Text me at +15550000000",
        ),
    ] {
        let (status, text) = post_signed(
            &app,
            "/webhooks/twilio/sms",
            URL_SMS,
            A_TOKEN,
            &sms(sid, A_NUMBER, B_NUMBER, body),
        )
        .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{text}");
        assert!(text.contains("\"To\" is repeated"), "{text}");
        // Reordered: Bravo's number first.
        let (status, _) = post_signed(
            &app,
            "/webhooks/twilio/sms",
            URL_SMS,
            A_TOKEN,
            &sms(sid, B_NUMBER, A_NUMBER, body),
        )
        .await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
    }
    // Bravo's number written otherwise than Twilio writes it: the token is Bravo's, still.
    for written in ["(415) 555-0202", "14155550202", " +1 415 555 0202 "] {
        let pairs = [
            ("MessageSid", "SMforged00000000000000000000000003"),
            ("From", "+14155552671"),
            ("To", written),
            ("Body", "STOP"),
        ];
        let (status, text) =
            post_signed(&app, "/webhooks/twilio/sms", URL_SMS, A_TOKEN, &pairs).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{written}: {text}");
    }
    // A status callback repeating From is refused too, as is one naming Bravo's number
    // otherwise written.
    let receipt = [
        ("MessageSid", "SMreceipt0000000000000000000000001"),
        ("MessageStatus", "undelivered"),
        ("ErrorCode", "21610"),
        ("From", A_NUMBER),
        ("From", B_NUMBER),
    ];
    let (status, text) = post_signed(
        &app,
        "/webhooks/twilio/status",
        URL_STATUS,
        A_TOKEN,
        &receipt,
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{text}");
    assert!(text.contains("\"From\" is repeated"), "{text}");
    let receipt = [
        ("MessageSid", "SMreceipt0000000000000000000000002"),
        ("MessageStatus", "undelivered"),
        ("From", "4155550202"),
    ];
    let (status, _) = post_signed(
        &app,
        "/webhooks/twilio/status",
        URL_STATUS,
        A_TOKEN,
        &receipt,
    )
    .await;
    assert_eq!(status, StatusCode::FORBIDDEN);

    app.settle().await;
    assert!(
        before == app.snapshot().await,
        "nothing is stored in either organisation"
    );

    // Bravo's real text, signed with Bravo's token, still arrives (and Alpha's with Alpha's).
    for (token, to, sid) in [
        (B_TOKEN, B_NUMBER, "SMgenuine0000000000000000000000001"),
        (A_TOKEN, A_NUMBER, "SMgenuine0000000000000000000000002"),
    ] {
        let pairs = [
            ("MessageSid", sid),
            ("From", "+14155552671"),
            ("To", to),
            ("Body", "Hello"),
        ];
        let (status, text) =
            post_signed(&app, "/webhooks/twilio/sms", URL_SMS, token, &pairs).await;
        assert_eq!(status, StatusCode::OK, "{text}");
    }
    app.settle().await;
    assert_eq!(
        app.count_where("message", "body = 'Hello'").await,
        2,
        "one genuine text in each organisation"
    );
}

on_both_databases!(a_forged_text_into_another_organisation_is_refused);
