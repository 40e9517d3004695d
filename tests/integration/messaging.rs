//! The inbox, the composer's send path, opt-out refusals, live updates and the phone simulator.
use crate::helpers::*;
use crate::live_socket::{next_event, open_live};
use crate::on_both_databases;
use herald::platform::sms::outbox::OutboxTransport;
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;

async fn compose_and_send_from_the_texted_number(backend: Backend) {
    let outbox = Arc::new(OutboxTransport::default());
    let opts = Options {
        transport: Some(outbox.clone()),
        ..Default::default()
    };
    let Some(app) = spawn_app_with(backend, opts).await else {
        return;
    };
    let org = app.new_org("Send Co").await;
    let first = app.add_number(&org, "+14155550100").await;
    let second = app.add_number(&org, "+14155550101").await;
    // The contact texts the second number, so the composer defaults to it.
    app.post_webhook(
        &sms_params(
            "SMtexted00000000000000000000000001",
            "+14155552671",
            "+14155550101",
            "Do you have openings?",
        ),
        None,
    )
    .await;
    let list: Value = app.inbox(&org.client).await;
    let contact = list[0]["contact_id"].clone();
    let conv: Value = app
        .ok_as(
            &org.client,
            "/api/conversations/get",
            json!({"contact_id": contact}),
        )
        .await;
    assert_eq!(conv["default_number_id"], second.to_string());
    assert_ne!(conv["default_number_id"], first.to_string());

    let sent: Value = app
        .ok_as(&org.client, "/api/messages/send", json!({"request": {"contact_id": contact, "phone_number_id": second, "body": "Yes, Tuesday at 3?"}}))
        .await;
    assert_eq!(sent["status"], "sent");
    assert_eq!(sent["direction"], "outbound");
    let out = outbox.sent();
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].from, "+14155550101");
    assert_eq!(out[0].to, "+14155552671");
    assert_eq!(out[0].body, "Yes, Tuesday at 3?");

    let (status, body) = app
        .call_as(
            &org.client,
            "/api/messages/send",
            json!({"request": {"contact_id": contact, "phone_number_id": second, "body": "   "}}),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
}

async fn opted_out_contacts_are_never_texted(backend: Backend) {
    let outbox = Arc::new(OutboxTransport::default());
    let opts = Options {
        transport: Some(outbox.clone()),
        ..Default::default()
    };
    let Some(app) = spawn_app_with(backend, opts).await else {
        return;
    };
    let org = app.new_org("Stop Co").await;
    let number = app.add_number(&org, "+14155550100").await;
    app.post_webhook(
        &sms_params(
            "SMstop000000000000000000000000001",
            "+14155552671",
            "+14155550100",
            "STOP",
        ),
        None,
    )
    .await;
    let list: Value = app.inbox(&org.client).await;
    assert_eq!(list[0]["opted_out"], true);
    let (status, body) = app
        .call_as(&org.client, "/api/messages/send", json!({"request": {"contact_id": list[0]["contact_id"], "phone_number_id": number, "body": "Please come back"}}))
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .contains("has opted out of texts"),
        "{body}"
    );
    app.settle().await;
    // The opt-out's one confirmation, and nothing else.
    let sent = outbox.sent();
    assert_eq!(sent.len(), 1, "{sent:?}");
    assert!(sent[0].body.contains("unsubscribed"));
    let conv: Value = app
        .ok_as(
            &org.client,
            "/api/conversations/get",
            json!({"contact_id": list[0]["contact_id"]}),
        )
        .await;
    assert_eq!(
        conv["messages"].as_array().unwrap().len(),
        2,
        "the STOP and its confirmation: no outbound row for a refused send"
    );
}

async fn inbox_order_and_unread(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let org = app.new_org("Inbox Co").await;
    app.add_number(&org, "+14155550100").await;
    app.post_webhook(
        &sms_params(
            "SMfirst00000000000000000000000001",
            "+14155552671",
            "+14155550100",
            "first",
        ),
        None,
    )
    .await;
    tokio::time::sleep(Duration::from_millis(20)).await;
    app.post_webhook(
        &sms_params(
            "SMsecond0000000000000000000000001",
            "+14155552672",
            "+14155550100",
            "second",
        ),
        None,
    )
    .await;
    app.post_webhook(
        &sms_params(
            "SMsecond0000000000000000000000002",
            "+14155552672",
            "+14155550100",
            "again",
        ),
        None,
    )
    .await;
    let list: Value = app.inbox(&org.client).await;
    assert_eq!(list[0]["contact_phone"], "+14155552672", "newest first");
    assert_eq!(list[0]["last_body"], "again");
    assert_eq!(list[0]["unread"], 2);
    assert_eq!(list[1]["unread"], 1);
    let _: Value = app
        .ok_as(
            &org.client,
            "/api/conversations/get",
            json!({"contact_id": list[0]["contact_id"]}),
        )
        .await;
    let list: Value = app.inbox(&org.client).await;
    assert_eq!(list[0]["unread"], 0, "opening a conversation reads it");
    assert_eq!(list[1]["unread"], 1);
}

async fn live_updates_reach_the_organisation(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let org = app.new_org("Live Co").await;
    let other = app.new_org("Other Co").await;
    app.add_number(&org, "+14155550100").await;
    let mut mine = open_live(&app, Some(&org), "inbox")
        .await
        .expect("a member may listen");
    let mut theirs = open_live(&app, Some(&other), "inbox")
        .await
        .expect("so may another organisation");
    let bad = open_live(&app, Some(&org), "nonsense").await.err();
    assert_eq!(
        bad,
        Some(StatusCode::BAD_REQUEST),
        "an unknown topic is refused"
    );
    tokio::time::sleep(Duration::from_millis(100)).await;
    app.post_webhook(
        &sms_params(
            "SMlive00000000000000000000000001",
            "+14155552671",
            "+14155550100",
            "live!",
        ),
        None,
    )
    .await;
    let text = next_event(&mut mine, Duration::from_secs(5))
        .await
        .expect("a live event");
    assert!(
        text.contains("MessageCreated") && text.contains("\"inbound\""),
        "{text}"
    );
    assert_eq!(
        next_event(&mut theirs, Duration::from_millis(500)).await,
        None,
        "another organisation hears nothing"
    );
}

async fn simulator_goes_through_the_webhook(backend: Backend) {
    let opts = Options {
        webhook_auth_token: Some("sim-token".into()),
        ..Default::default()
    };
    let Some(app) = spawn_app_with(backend, opts).await else {
        return;
    };
    let org = app.new_org("Sim Co").await;
    let number = app.add_number(&org, "+14155550100").await;
    let id: Value = app
        .ok_as(&org.client, "/api/simulator/send", json!({"text": {"from": "(415) 555-2690", "to_number_id": number, "body": "Hello from the simulator"}}))
        .await;
    assert!(id.is_string());
    let list: Value = app.inbox(&org.client).await;
    assert_eq!(list[0]["contact_phone"], "+14155552690");
    assert_eq!(list[0]["last_body"], "Hello from the simulator");
    let (status, _) = app
        .call_as(
            &org.client,
            "/api/simulator/send",
            json!({"text": {"from": "nope", "to_number_id": number, "body": "x"}}),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
}

on_both_databases!(
    compose_and_send_from_the_texted_number,
    opted_out_contacts_are_never_texted,
    inbox_order_and_unread,
    live_updates_reach_the_organisation,
    simulator_goes_through_the_webhook,
);
