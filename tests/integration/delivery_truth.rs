//! Delivery truth per text (issue 30 §1): a text's timeline from the ledger and its callbacks,
//! with the carrier's code in plain words; a number that cannot receive texts marks its contact
//! unreachable, campaigns leave them out saying why, and a person clears it. A number carriers
//! refuse as unregistered (30034) raises a banner for owners until a text from it is delivered.
use crate::campaign_support::*;
use crate::helpers::*;
use crate::on_both_databases;
use herald::contacts::reachability::SKIP_REASON;
use reqwest::StatusCode;
use serde_json::{json, Value};

on_both_databases!(
    a_texts_timeline_and_an_unreachable_number,
    an_unregistered_number_raises_a_banner_for_owners
);

async fn a_texts_timeline_and_an_unreachable_number(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let c = crm(&app).await;
    let number = app.add_number(&c.org, "+14155550177").await;
    let kim = app.add_contact(&c.org, "Kim", "+14155552671").await;
    let sent: Value = app
        .ok_as(
            &c.org.client,
            "/api/messages/send",
            json!({"request": {"contact_id": kim, "phone_number_id": number, "body": "Your table is ready"}}),
        )
        .await;
    app.settle().await;
    let id: uuid::Uuid = sent["id"].as_str().unwrap().parse().unwrap();
    let sid = {
        use sea_orm::EntityTrait;
        herald::messaging::entity::Entity::find_by_id(id)
            .one(&app.state.db)
            .await
            .unwrap()
            .unwrap()
            .provider_sid
            .expect("sent")
    };
    // The local outbox answers a create with `sent`; the carrier then says more.
    app.status_callback(&sid, "undelivered", Some("30003"))
        .await;
    // A late, older status changes nothing and adds nothing.
    app.status_callback(&sid, "sent", None).await;
    app.status_callback(&sid, "sending", None).await;

    let path = format!("/messages/{id}/timeline");
    let page = c.org.client.get(app.url(&path)).send().await.unwrap();
    assert_eq!(page.status(), StatusCode::OK);
    let html = page.text().await.unwrap();
    let words = herald::platform::carrier_errors::lookup("30003")
        .unwrap()
        .words;
    let order = [
        "Queued in Herald",
        "Handed to the provider",
        &format!("Accepted by the provider as {sid}"),
        "Not delivered",
        words,
    ];
    let mut from = 0;
    for step in order {
        let at = html[from..]
            .find(step)
            .unwrap_or_else(|| panic!("{step} after {from}: {html}"));
        from += at + step.len();
    }
    assert_eq!(html.matches("<li>").count(), 4, "{html}");
    // Another organisation's text is not found.
    let other = app.new_org("Other Co").await;
    let res = other.client.get(app.url(&path)).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::NOT_FOUND);

    // The number cannot receive texts: Kim is unreachable, with the reason in words.
    let v: Value = app
        .ok_as(&c.org.client, "/api/contacts/get", json!({"id": kim}))
        .await;
    let why = v["unreachable"].as_str().unwrap_or_default();
    assert!(why.contains(words) && why.contains("30003"), "{v}");

    // A campaign leaves them out, saying why; Katherine goes in.
    let agent = assistant_agent(&app, c.org.org_id).await;
    let op = operation_for(&app, &agent, &include_all(&[kim, c.katherine]), "Dinner").await;
    let card: Value = app
        .ok_as(&c.org.client, "/api/operations/get", json!({"id": op}))
        .await;
    assert_eq!(card["skipped"], 1, "{card}");
    assert_eq!(card["skip_reasons"], json!([[SKIP_REASON, 1]]), "{card}");

    // Another organisation cannot clear it; a member of theirs can.
    let clear = format!("/contacts/{kim}/reachable");
    let res = other.client.post(app.url(&clear)).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::NOT_FOUND);
    let dana = app.add_member(&c.org, "Dana").await;
    let res = dana.client.post(app.url(&clear)).send().await.unwrap();
    assert!(res.status().is_success(), "{}", res.status());
    assert_eq!(res.url().path(), format!("/contacts/{kim}"));
    let v: Value = app
        .ok_as(&c.org.client, "/api/contacts/get", json!({"id": kim}))
        .await;
    assert!(v["unreachable"].is_null(), "{v}");
}

/// Sends a text from `number` to `contact` and answers its provider SID.
async fn send(app: &TestApp, org: &Org, number: uuid::Uuid, contact: uuid::Uuid) -> String {
    let sent: Value = app
        .ok_as(
            &org.client,
            "/api/messages/send",
            json!({"request": {"contact_id": contact, "phone_number_id": number, "body": "Your order shipped"}}),
        )
        .await;
    app.settle().await;
    let id: uuid::Uuid = sent["id"].as_str().unwrap().parse().unwrap();
    use sea_orm::EntityTrait;
    herald::messaging::entity::Entity::find_by_id(id)
        .one(&app.state.db)
        .await
        .unwrap()
        .unwrap()
        .provider_sid
        .expect("sent")
}

async fn banners(app: &TestApp, org: &Org) -> Vec<String> {
    let v: Value = app.ok_as(&org.client, "/api/attention", Value::Null).await;
    serde_json::from_value(v["banners"].clone()).unwrap()
}

async fn an_unregistered_number_raises_a_banner_for_owners(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let c = crm(&app).await;
    let number = app.add_number(&c.org, "+14155550188").await;
    let dana = app.add_member(&c.org, "Dana").await;
    assert!(banners(&app, &c.org).await.is_empty());

    let sid = send(&app, &c.org, number, c.katherine).await;
    app.status_callback(&sid, "undelivered", Some("30034"))
        .await;
    let shown = banners(&app, &c.org).await;
    assert_eq!(shown.len(), 1, "{shown:?}");
    assert!(
        shown[0].contains("+14155550188")
            && shown[0].contains("10DLC")
            && shown[0].contains("30034"),
        "{shown:?}"
    );
    assert!(banners(&app, &dana).await.is_empty(), "owners only");
    let other = app.new_org("Other Co").await;
    assert!(banners(&app, &other).await.is_empty());
    // The owner is told once, however many texts the carriers refuse.
    let sid2 = send(&app, &c.org, number, c.linus).await;
    app.status_callback(&sid2, "undelivered", Some("30034"))
        .await;
    let told = app
        .count_where(
            "notification",
            "kind = 'number' AND title LIKE '%+14155550188%'",
        )
        .await;
    assert_eq!(told, 1);
    assert_eq!(banners(&app, &c.org).await.len(), 1);

    // A text from it delivered: its registration works, and the banner goes.
    let sid3 = send(&app, &c.org, number, c.katherine).await;
    app.status_callback(&sid3, "delivered", None).await;
    assert!(banners(&app, &c.org).await.is_empty());
}
