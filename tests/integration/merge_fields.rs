//! A merge field nothing filled never reaches a person as braces (issue 28 §4): the composer's
//! send refuses the text with the field's name and stores nothing, and a text that reached the
//! send ledger by any other path is refused by the gate as it leaves. Prose in double braces
//! goes as written.
use crate::helpers::*;
use crate::on_both_databases;
use herald::compliance::model::Purpose;
use herald::messaging::transport::outbox::OutboxTransport;
use reqwest::StatusCode;
use sea_orm::ActiveModelTrait;
use serde_json::{json, Value};
use std::sync::Arc;

on_both_databases!(an_unfilled_merge_field_never_leaves);

async fn an_unfilled_merge_field_never_leaves(backend: Backend) {
    let outbox = Arc::new(OutboxTransport::default());
    let opts = Options {
        transport: Some(outbox.clone()),
        ..Default::default()
    };
    let Some(app) = spawn_app_with(backend, opts).await else {
        return;
    };
    let org = app.new_org("Merge Co").await;
    let number = app.add_number(&org, "+14155550100").await;
    app.post_webhook(
        &sms_params(
            "SMmerge00000000000000000000000001",
            "+14155552671",
            "+14155550100",
            "Hi",
        ),
        None,
    )
    .await;
    app.settle().await;
    let list: Value = app.inbox(&org.client).await;
    let contact = list[0]["contact_id"].clone();
    let send = |body: &str| json!({"request": {"contact_id": contact, "phone_number_id": number, "body": body}});

    let (status, body) = app
        .call_as(
            &org.client,
            "/api/messages/send",
            send("Hi {{contact.first_name}}, see you soon"),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    let said = body["message"].as_str().unwrap();
    assert!(
        said.contains("{{contact.first_name}}") && said.contains("braces"),
        "{said}"
    );
    assert_eq!(
        app.count_where("message", "direction = 'outbound'").await,
        0,
        "nothing stored"
    );

    // Prose in double braces is not a field.
    let sent: Value = app
        .ok_as(
            &org.client,
            "/api/messages/send",
            send("Reply {{ YES }} to confirm"),
        )
        .await;
    assert_eq!(sent["body"], "Reply {{ YES }} to confirm");

    // A text queued by another path (as a plan's step or a campaign would) meets the gate.
    let id = uuid::Uuid::new_v4();
    let contact_id: uuid::Uuid = contact.as_str().unwrap().parse().unwrap();
    herald::messaging::outbound::queued_row(
        id,
        org.org_id,
        contact_id,
        number,
        "Your code: {{find.result.data[0].code}}".into(),
        Some("agent"),
        id.to_string(),
        Purpose::Reply,
        app.state.clock.now(),
    )
    .insert(&app.state.db)
    .await
    .unwrap();
    let row = herald::messaging::ledger::deliver(&app.state, id)
        .await
        .unwrap();
    assert_eq!(row.status, "failed", "{row:?}");
    assert!(
        row.error
            .as_deref()
            .is_some_and(|e| e.contains("{{find.result.data[0].code}}")),
        "{row:?}"
    );
    let bodies: Vec<String> = outbox.sent().into_iter().map(|s| s.body).collect();
    assert_eq!(bodies, vec!["Reply {{ YES }} to confirm".to_owned()]);
}
