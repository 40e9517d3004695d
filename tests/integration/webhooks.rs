//! Outbound webhooks (issue 31 §3–4): an owner subscribes a loopback receiver (allowed by
//! `WEBHOOK_ALLOW_PRIVATE`) on the Developers page; every event kind reaches it once, signed
//! (verified with the Standard Webhooks library), in order; a receiver that fails three times
//! gets the event on the fourth try; a delivery can be sent again; by default a private address
//! is refused.
use crate::helpers::*;
use crate::on_both_databases;
use crate::plan_support::{ask, crm, plans, ASK};
use crate::webhook_receiver::Receiver;
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::time::Duration;

on_both_databases!(
    events_arrive_signed_once_and_in_order,
    a_failing_receiver_gets_the_event_later,
    private_addresses_are_refused_by_default
);

fn quick() -> herald::webhooks::WebhookSettings {
    herald::webhooks::WebhookSettings {
        allow_private: true,
        retry_base: Duration::from_millis(40),
        poll_every: Duration::from_millis(50),
        ..Default::default()
    }
}

/// Subscribes `url` to `events` on the Developers page: the answer, and the secret it showed.
pub async fn subscribe(
    app: &TestApp,
    org: &Org,
    url: &str,
    events: &[&str],
) -> (StatusCode, String) {
    let mut form: Vec<(&str, &str)> = vec![("url", url)];
    form.extend(events.iter().map(|e| ("event", *e)));
    let res = org
        .client
        .post(app.url("/developers/webhooks"))
        .form(&form)
        .send()
        .await
        .unwrap();
    let status = res.status();
    let html = res.text().await.unwrap();
    let secret = html
        .split("id=\"webhook-secret-value\">")
        .nth(1)
        .and_then(|s| s.split('<').next())
        .unwrap_or_default()
        .to_owned();
    (status, if secret.is_empty() { html } else { secret })
}

async fn events_arrive_signed_once_and_in_order(backend: Backend) {
    let Some(app) = spawn_app_with(
        backend,
        Options {
            webhooks: Some(quick()),
            ..Options::default()
        },
    )
    .await
    else {
        return;
    };
    let rx = Receiver::start().await;
    let c = crm(&app).await;
    let (status, secret) = subscribe(&app, &c.org, &rx.url, &herald::webhooks::EVENTS).await;
    assert_eq!(status, StatusCode::CREATED, "{secret}");
    assert!(secret.starts_with("whsec_"), "{secret}");
    rx.set_secret(&secret);

    // contact.created, five in a row: they arrive in the order they were made.
    for i in 0..5 {
        app.add_contact(&c.org, &format!("Order {i}"), &format!("+1415555300{i}"))
            .await;
    }
    rx.wait_for(5).await;
    // message.received (and contact.created for a new number), then contact.opted_out.
    app.post_webhook(
        &sms_params(
            "SMhook0000000000000000000000000001",
            "+14155553100",
            "+14155550100",
            "Hi there",
        ),
        None,
    )
    .await;
    app.settle().await;
    rx.wait_for(7).await;
    app.post_webhook(
        &sms_params(
            "SMhook0000000000000000000000000002",
            "+14155553100",
            "+14155550100",
            "STOP",
        ),
        None,
    )
    .await;
    app.settle().await;
    // message.status: a text to Ada, then its carrier's delivery callback.
    let numbers: Value = app.ok_as(&c.org.client, "/api/numbers", Value::Null).await;
    let sent: Value = app
        .ok_as(&c.org.client, "/api/messages/send",
            json!({"request": {"contact_id": c.ada, "phone_number_id": numbers[0]["id"], "body": "See you Tuesday."}}))
        .await;
    app.settle().await;
    let id: uuid::Uuid = sent["id"].as_str().unwrap().parse().unwrap();
    use sea_orm::EntityTrait;
    let row = herald::messaging::entity::Entity::find_by_id(id)
        .one(&app.state.db)
        .await
        .unwrap()
        .unwrap();
    let sid = row.provider_sid.expect("the text went out with a SID");
    let res = app
        .client
        .post(app.url("/webhooks/twilio/status"))
        .form(&[
            ("MessageSid", sid.as_str()),
            ("MessageStatus", "delivered"),
            ("AccountSid", "AC00000000000000000000000000000000"),
        ])
        .send()
        .await
        .unwrap();
    assert!(res.status().is_success(), "{}", res.status());
    // conversation.assigned.
    let me: Value = app.ok_as(&c.org.client, "/api/auth/me", Value::Null).await;
    let _: Value = app
        .ok_as(
            &c.org.client,
            "/api/conversations/assign",
            json!({"contact_id": c.ada, "assignee": me["user_id"]}),
        )
        .await;
    // plan.awaiting_approval, then plan.finished once it is approved and has run.
    ask(&app, &c.org, ASK, true).await;
    let plan = plans(&app, &c.org).await[0]["id"].clone();
    let _: Value = app
        .ok_as(&c.org.client, "/api/plans/approve", json!({"id": plan}))
        .await;
    app.settle().await;

    let want = [
        "message.status",
        "contact.opted_out",
        "conversation.assigned",
        "plan.awaiting_approval",
        "plan.finished",
    ];
    for _ in 0..200 {
        let got = rx.types();
        if want.iter().all(|w| got.iter().any(|g| g == w)) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let got = rx.types();
    let names: Vec<String> = rx.seen.lock().unwrap().events[..5]
        .iter()
        .map(|(_, b)| b["data"]["name"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(
        names,
        (0..5).map(|i| format!("Order {i}")).collect::<Vec<_>>(),
        "in order"
    );
    for kind in [
        "contact.created",
        "message.received",
        "message.status",
        "contact.opted_out",
        "conversation.assigned",
        "plan.awaiting_approval",
        "plan.finished",
    ] {
        assert_eq!(
            got.iter().filter(|g| *g == kind).count(),
            if kind == "contact.created" { 6 } else { 1 },
            "{kind} in {got:?}"
        );
    }
    let pos = |k: &str| got.iter().position(|g| g == k).unwrap();
    assert!(pos("message.received") < pos("contact.opted_out"));
    assert!(pos("plan.awaiting_approval") < pos("plan.finished"));
    let seen = rx.snapshot();
    assert_eq!(seen.forged, 0, "every delivery verified");
    let received = &seen
        .events
        .iter()
        .find(|(_, b)| b["type"] == "message.received")
        .unwrap()
        .1;
    assert_eq!(received["data"]["body"], "Hi there");

    // The page lists the deliveries; one can be sent again, under the same webhook-id.
    let html = c
        .org
        .client
        .get(app.url("/developers"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        html.contains("delivered") && html.contains("plan.finished"),
        "{html}"
    );
    assert!(!html.contains(&secret), "the secret is shown once");
}

async fn a_failing_receiver_gets_the_event_later(backend: Backend) {
    let Some(app) = spawn_app_with(
        backend,
        Options {
            webhooks: Some(quick()),
            ..Options::default()
        },
    )
    .await
    else {
        return;
    };
    let rx = Receiver::start().await;
    rx.fail_first.store(3, std::sync::atomic::Ordering::SeqCst);
    let owner = app.new_org("Bright Smiles").await;
    let (_, secret) = subscribe(&app, &owner, &rx.url, &["contact.created"]).await;
    rx.set_secret(&secret);
    let ada = app
        .add_contact(&owner, "Ada Lovelace", "+14155552671")
        .await;
    app.add_contact(&owner, "Grace Hopper", "+14155552672")
        .await;
    rx.wait_for(2).await;
    let seen = rx.snapshot();
    assert_eq!(seen.requests, 5, "three 500s, then each event once");
    assert_eq!(
        seen.events[0].1["data"]["id"],
        ada.to_string(),
        "the failed one first"
    );
    let rows = app
        .count_where("webhook_delivery", "status = 'delivered' AND attempts = 4")
        .await;
    assert_eq!(rows, 1);

    // "Redeliver" from the page sends it again under its webhook-id: the receiver keeps one.
    let html = owner
        .client
        .get(app.url("/developers"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let action = html
        .split("action=\"/developers/deliveries/")
        .nth(1)
        .and_then(|s| s.split('"').next())
        .expect("a redeliver button")
        .to_owned();
    let res = owner
        .client
        .post(app.url(&format!("/developers/deliveries/{action}")))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    for _ in 0..100 {
        if rx.seen.lock().unwrap().requests >= 6 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let seen = rx.snapshot();
    assert_eq!(
        (seen.requests, seen.events.len()),
        (6, 2),
        "delivered again, one logical event"
    );

    // A test event goes to that subscription alone.
    let test = html
        .split("action=\"/developers/webhooks/")
        .nth(1)
        .and_then(|s| s.split('"').next())
        .unwrap()
        .to_owned();
    assert!(test.ends_with("/test"), "{test}");
    owner
        .client
        .post(app.url(&format!("/developers/webhooks/{test}")))
        .send()
        .await
        .unwrap();
    rx.wait_for(3).await;
    assert_eq!(rx.types()[2], "webhook.test");
}

async fn private_addresses_are_refused_by_default(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let owner = app.new_org("Bright Smiles").await;
    for url in [
        "http://127.0.0.1:9/hooks",
        "http://[::1]:9/hooks",
        "http://169.254.169.254/latest",
        "ftp://example.com/x",
    ] {
        let (status, html) = subscribe(&app, &owner, url, &["contact.created"]).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{url}");
        assert!(
            html.contains("id=\"webhook-error\""),
            "{url}: the reason is shown"
        );
    }
    assert!(subscribe(
        &app,
        &owner,
        "http://127.0.0.1:9/hooks",
        &["contact.created"]
    )
    .await
    .1
    .contains("private address"));
    assert_eq!(app.count("webhook_subscription").await, 0);
    let dana = app.add_member(&owner, "Dana").await;
    let (status, _) = subscribe(
        &app,
        &dana,
        "https://example.com/hooks",
        &["contact.created"],
    )
    .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
}

on_both_databases!(a_finished_campaign_is_announced);

/// `campaign.finished` and its plan's `plan.finished`, once the owner approved the drafts and
/// every text went.
async fn a_finished_campaign_is_announced(backend: Backend) {
    let Some(app) = spawn_app_with(
        backend,
        Options {
            webhooks: Some(quick()),
            ..Options::default()
        },
    )
    .await
    else {
        return;
    };
    let rx = Receiver::start().await;
    let c = crate::campaign_support::crm(&app).await;
    let (_, secret) = subscribe(
        &app,
        &c.org,
        &rx.url,
        &["campaign.finished", "plan.finished"],
    )
    .await;
    rx.set_secret(&secret);
    let thread = crate::step_plan_support::assistant_thread(&app, &c.org).await;
    let (plan_id, op) = crate::campaign_plan_outcome::started(&app, &c, thread).await;
    app.settle().await;
    let _: Value = app
        .ok_as(
            &c.org.client,
            "/api/operations/approve",
            app.approve_body(&c.org.client, &op).await,
        )
        .await;
    rx.wait_for(2).await;
    let seen = rx.snapshot();
    let campaign = &seen
        .events
        .iter()
        .find(|(_, b)| b["type"] == "campaign.finished")
        .expect("campaign.finished")
        .1;
    assert_eq!(campaign["data"]["campaign_id"], op);
    assert_eq!(campaign["data"]["sent"], 3, "{campaign}");
    let plan = &seen
        .events
        .iter()
        .find(|(_, b)| b["type"] == "plan.finished")
        .expect("plan.finished")
        .1;
    assert_eq!(plan["data"]["plan_id"], plan_id.to_string());
    assert_eq!(plan["data"]["status"], "done");
    assert_eq!(seen.events.len(), 2, "each once");

    // A cancelled campaign is finished too, and its plan stopped: each said once.
    let (plan_id, op) = crate::campaign_plan_outcome::started(&app, &c, thread).await;
    app.settle().await;
    let _: Value = app
        .ok_as(&c.org.client, "/api/operations/cancel", json!({"id": op}))
        .await;
    rx.wait_for(4).await;
    let seen = rx.snapshot();
    let last: Vec<(&Value, &Value)> = seen.events[2..]
        .iter()
        .map(|(_, b)| (&b["type"], &b["data"]["status"]))
        .collect();
    assert!(
        last.contains(&(&json!("campaign.finished"), &json!("cancelled")))
            && last.contains(&(&json!("plan.finished"), &json!("stopped"))),
        "{last:?}"
    );
    assert!(seen.events[2..]
        .iter()
        .any(|(_, b)| b["data"]["plan_id"] == plan_id.to_string()));
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(rx.snapshot().events.len(), 4, "each once");
}

on_both_databases!(a_key_manages_webhooks_through_the_api);

/// `/v1/webhooks` with `webhooks:manage`: subscribe (the secret in that answer), list, and
/// remove; a private address is refused there too unless allowed.
async fn a_key_manages_webhooks_through_the_api(backend: Backend) {
    use crate::api_client::{new_key, Api};
    let Some(app) = spawn_app_with(
        backend,
        Options {
            webhooks: Some(quick()),
            ..Options::default()
        },
    )
    .await
    else {
        return;
    };
    let rx = Receiver::start().await;
    let owner = app.new_org("Bright Smiles").await;
    let (token, _) = new_key(&app, &owner, "Make", &["webhooks:manage"], None).await;
    let api = Api::new(&app, &token).await;
    let bad = api
        .post(
            "/webhooks",
            json!({"url": rx.url, "events": ["contact.updated"]}),
        )
        .await;
    assert_eq!(bad.status, StatusCode::BAD_REQUEST, "{}", bad.body);
    let made = api
        .post(
            "/webhooks",
            json!({"url": rx.url, "events": ["contact.created"]}),
        )
        .await;
    assert_eq!(made.status, StatusCode::CREATED, "{}", made.body);
    rx.set_secret(made.body["secret"].as_str().unwrap());
    app.add_contact(&owner, "Ada Lovelace", "+14155552671")
        .await;
    rx.wait_for(1).await;
    let list = api.get("/webhooks").await;
    assert_eq!(list.body["total"], 1);
    assert!(
        !list.body.to_string().contains("whsec_"),
        "the secret is not listed"
    );
    let id = made.body["webhook"]["id"].as_str().unwrap();
    let gone = api
        .call(
            reqwest::Method::DELETE,
            &format!("/webhooks/{id}"),
            None,
            &[],
        )
        .await;
    assert_eq!(gone.status, StatusCode::NO_CONTENT);
    assert_eq!(api.get("/webhooks").await.body["total"], 0);
    app.add_contact(&owner, "Grace Hopper", "+14155552672")
        .await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(
        rx.seen.lock().unwrap().events.len(),
        1,
        "nothing after removal"
    );
}

on_both_databases!(a_dead_lettered_event_lets_the_next_go);

/// A receiver that keeps failing past the retry window: the event is set aside as dead (shown so
/// on the page, with the last answer), and the subscription's next event goes.
async fn a_dead_lettered_event_lets_the_next_go(backend: Backend) {
    let settings = herald::webhooks::WebhookSettings {
        give_up_after: Duration::from_millis(400),
        ..quick()
    };
    let Some(app) = spawn_app_with(
        backend,
        Options {
            webhooks: Some(settings),
            ..Options::default()
        },
    )
    .await
    else {
        return;
    };
    let rx = Receiver::start().await;
    rx.fail_first
        .store(usize::MAX, std::sync::atomic::Ordering::SeqCst);
    let owner = app.new_org("Bright Smiles").await;
    let (_, secret) = subscribe(&app, &owner, &rx.url, &["contact.created"]).await;
    rx.set_secret(&secret);
    app.add_contact(&owner, "Ada Lovelace", "+14155552671")
        .await;
    for _ in 0..200 {
        if app.count_where("webhook_delivery", "status = 'dead'").await == 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(
        app.count_where("webhook_delivery", "status = 'dead' AND last_status = 500")
            .await,
        1
    );
    assert!(
        rx.snapshot().requests >= 2,
        "it was tried again before it was set aside"
    );
    rx.fail_first.store(0, std::sync::atomic::Ordering::SeqCst);
    app.add_contact(&owner, "Grace Hopper", "+14155552672")
        .await;
    rx.wait_for(1).await;
    assert_eq!(rx.snapshot().events[0].1["data"]["name"], "Grace Hopper");
    // The receiver has the event before the worker records its answer: wait for the record.
    for _ in 0..200 {
        if app
            .count_where("webhook_delivery", "status = 'delivered'")
            .await
            == 1
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let html = owner
        .client
        .get(app.url("/developers"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        html.contains("data-status=\"dead\"") && html.contains("data-status=\"delivered\""),
        "{html}"
    );
}
