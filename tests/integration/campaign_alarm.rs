//! A campaign that pauses itself (issue 30 §3). The fake Twilio calls back every text of a
//! 400-text campaign, and every tenth is undelivered with 30007 (carrier filtered). The campaign
//! pauses once the filtered share of its last texts passes the organisation's 5 %, its owner is
//! told with the errors behind it, and nothing more is sent: the creates are counted. A resume
//! counts afresh; a cancel ends it. The organisation sets its thresholds on Settings → Sending,
//! which also counts each number's filtered texts.
use crate::campaign_support::*;
use crate::helpers::*;
use crate::on_both_databases;
use herald::campaign::drafter::FixedLatencyDrafter;
use herald::platform::config::TwilioConfig;
use herald::platform::sms::twilio::TwilioTransport;
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;

on_both_databases!(a_filtered_campaign_pauses_itself, thresholds_are_the_owners);

const TOKEN: &str = "token-of-the-alarm-test-0123456";
const CALLBACK: &str = "https://herald.example/webhooks/twilio/status";
const AUDIENCE: usize = 400;

async fn operation(app: &TestApp, org: &Org, op: &Value) -> Value {
    app.ok_as(&org.client, "/api/operations/get", json!({"id": op}))
        .await
}

/// Waits (up to a minute) until the campaign's card satisfies `done`.
async fn until(app: &TestApp, org: &Org, op: &Value, done: impl Fn(&Value) -> bool) -> Value {
    crate::helpers::eventually(60, "the campaign's state", || async {
        let v = operation(app, org, op).await;
        done(&v).then_some(v)
    })
    .await
}

/// Waits until no text of the campaign is between its claim and Twilio's answer, and answers
/// how many creates Twilio has had.
async fn creates_once_still(app: &TestApp, fake: &crate::fake_twilio::FakeTwilio) -> usize {
    let mut last = usize::MAX;
    for _ in 0..100 {
        let sending = app
            .count_where("assistant_operation_item", "status = 'sending'")
            .await;
        let n = fake.count();
        if sending == 0 && n == last {
            return n;
        }
        last = n;
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    panic!("the campaign kept sending");
}

async fn a_filtered_campaign_pauses_itself(backend: Backend) {
    let (base, fake) = crate::fake_twilio::start().await;
    let transport = TwilioTransport::new(TwilioConfig {
        account_sid: "ACalarm".into(),
        auth_token: TOKEN.into(),
        messaging_service_sid: None,
        status_callback_url: Some(CALLBACK.into()),
        api_base: base,
        timeout: Duration::from_secs(5),
    })
    .unwrap()
    .with_backoff(Duration::from_millis(5));
    let opts = Options {
        transport: Some(Arc::new(transport)),
        webhook_auth_token: Some(TOKEN.into()),
        drafter: Some(Arc::new(FixedLatencyDrafter(Duration::ZERO))),
        sends_per_second: 40.0,
        send_concurrency: 2,
        ..Default::default()
    };
    let Some(app) = spawn_app_with(backend, opts).await else {
        return;
    };
    *fake.callbacks.lock().unwrap() = Some(crate::fake_twilio::Callbacks {
        server: app.url(""),
        token: TOKEN.into(),
        filter_every: 10,
    });
    let org = crate::inbox_scale::seeded_org(&app, AUDIENCE).await;
    let ids = contact_ids(&app, org.org_id).await;
    assert_eq!(ids.len(), AUDIENCE);
    let agent = assistant_agent(&app, org.org_id).await;
    let plan = campaign_plan(&app, &agent, &include_all(&ids), "Spring offer").await;
    let op = approve_and_draft(&app, &org, &json!(plan.id)).await;
    until(&app, &org, &op, |o| o["status"] == "awaiting_approval").await;
    let _: Value = app
        .ok_as(
            &org.client,
            "/api/operations/approve",
            app.approve_body(&org.client, &op).await,
        )
        .await;

    // It pauses itself, says why, and nothing more leaves.
    let card = until(&app, &org, &op, |o| o["status"] == "paused").await;
    let why = card["paused_reason"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(
        why.contains("filtered by carriers") && why.contains("30007"),
        "{why}"
    );
    let at_pause = creates_once_still(&app, &fake).await;
    assert!(
        at_pause < AUDIENCE / 4,
        "paused near the threshold, not at the end: {at_pause} creates"
    );
    tokio::time::sleep(Duration::from_secs(1)).await;
    app.settle().await;
    assert_eq!(fake.count(), at_pause, "nothing is sent after the pause");
    let card = operation(&app, &org, &op).await;
    assert!(card["filtered"].as_i64().unwrap() >= 2, "{card}");
    assert_eq!(
        card["filtered"].as_i64().unwrap(),
        app.count_where("message_status_event", "error_code = '30007'")
            .await,
        "each filtered text counted once"
    );

    // The owner hears of it, with the errors behind it in plain words.
    let notes: Value = app
        .ok_as(&org.client, "/api/notifications", json!({}))
        .await;
    let note = notes["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| {
            n["title"]
                .as_str()
                .unwrap_or_default()
                .contains("paused itself")
        })
        .unwrap_or_else(|| panic!("no notice: {notes}"))
        .clone();
    let body = note["body"].as_str().unwrap();
    assert!(
        body.contains("× ") && body.contains("30007") && body.contains("spam"),
        "{body}"
    );

    // Settings → Sending counts the number's filtered texts.
    let page = org
        .client
        .get(app.url("/settings/sending"))
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), StatusCode::OK);
    let html = page.text().await.unwrap();
    let filtered = card["filtered"].as_i64().unwrap();
    assert!(
        html.contains(&format!("<td class=\"num\">{filtered}</td>")),
        "{html}"
    );

    // A resume counts afresh: the texts that paused it do not pause it again at once.
    let _: Value = app
        .ok_as(&org.client, "/api/operations/resume", json!({"id": op}))
        .await;
    until(&app, &org, &op, |o| o["status"] == "paused").await;
    let again = creates_once_still(&app, &fake).await;
    assert!(
        again >= at_pause + herald::campaign::delivery_alarm::MIN_OUTCOMES,
        "a fresh window: {at_pause} then {again}"
    );
    // A cancel ends it, and still nothing more is sent.
    let _: Value = app
        .ok_as(&org.client, "/api/operations/cancel", json!({"id": op}))
        .await;
    until(&app, &org, &op, |o| o["status"] == "cancelled").await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    app.settle().await;
    assert_eq!(fake.count(), again);
}

async fn thresholds_are_the_owners(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let owner = app.new_org("Bright Smiles").await;
    let dana = app.add_member(&owner, "Dana").await;
    let page = |c: &reqwest::Client| c.get(app.url("/settings/sending")).send();
    let html = page(&owner.client).await.unwrap().text().await.unwrap();
    assert!(
        html.contains("value=\"5\"") && html.contains("value=\"15\""),
        "the defaults: {html}"
    );
    let post = |c: &reqwest::Client, f: &str, u: &str| {
        c.post(app.url("/settings/sending"))
            .form(&[("filtered_pct", f), ("undelivered_pct", u)])
            .send()
    };
    // Bad input: a clear error, and what was typed is still there.
    let res = post(&owner.client, "2", "lots").await.unwrap();
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    let html = res.text().await.unwrap();
    assert!(
        html.contains("whole percent from 1 to 100") && html.contains("value=\"lots\""),
        "{html}"
    );
    // A member may read, not change.
    let res = post(&dana.client, "2", "10").await.unwrap();
    assert_eq!(res.status(), StatusCode::FORBIDDEN);
    let html = page(&dana.client).await.unwrap().text().await.unwrap();
    assert!(html.contains("Only an owner changes these."), "{html}");

    let res = post(&owner.client, "2", "10").await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    assert!(res.url().query().unwrap_or_default().contains("saved"));
    assert!(res.text().await.unwrap().contains("id=\"sending-saved\""));
    let t = herald::campaign::delivery_alarm::thresholds(&app.state, owner.org_id)
        .await
        .unwrap();
    assert_eq!((t.filtered_pct, t.undelivered_pct), (2, 10));
    // Another organisation's stay its own.
    let other = app.new_org("Other Co").await;
    let t = herald::campaign::delivery_alarm::thresholds(&app.state, other.org_id)
        .await
        .unwrap();
    assert_eq!((t.filtered_pct, t.undelivered_pct), (5, 15));
}
