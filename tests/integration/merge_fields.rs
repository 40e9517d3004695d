//! A merge field nothing filled never reaches a person as braces (issue 28 §4): the composer's
//! send refuses the text with the field's name and stores nothing, and a text that reached the
//! send ledger by any other path is refused by the gate as it leaves. Prose in double braces
//! goes as written. A campaign's concept fills its merge fields per contact as drafts are
//! written: a contact whose field is empty fails alone, with the field's name.
use crate::campaign_support::*;
use crate::helpers::*;
use crate::on_both_databases;
use herald::compliance::model::Purpose;
use herald::platform::sms::outbox::OutboxTransport;
use reqwest::StatusCode;
use sea_orm::ActiveModelTrait;
use serde_json::{json, Value};
use std::sync::Arc;

on_both_databases!(
    an_unfilled_merge_field_never_leaves,
    a_campaign_concept_is_filled_in_per_contact
);

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

async fn a_campaign_concept_is_filled_in_per_contact(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let c = crm(&app).await;
    // Katherine has an offer on record; Linus has none.
    let _: Value = app
        .ok_as(
            &c.org.client,
            "/api/contacts/update",
            json!({"id": c.katherine, "input": {"name": "Katherine Johnson", "phone": "+14155552674", "email": "", "tags": ["lead", "quote"], "custom_fields": {"offer": "20% off whitening"}}}),
        )
        .await;
    let agent = assistant_agent(&app, c.org.org_id).await;
    let plan = campaign_plan(
        &app,
        &agent,
        &include_all(&[c.katherine, c.linus]),
        "Offers",
    )
    .await;
    // An unknown field is refused when the concept is edited.
    let edit = |concept: &str| json!({"id": plan.id, "edit": {"title": null, "summary": null, "include": [], "message_concept": concept}});
    let (status, body) = app
        .call_as(
            &c.org.client,
            "/api/plans/edit",
            edit("Visit {{org.address}}"),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .contains("{{org.address}}"),
        "{body}"
    );
    let _: Value = app
        .ok_as(
            &c.org.client,
            "/api/plans/edit",
            edit("{{contact.offer}} is waiting for you at {{org.name}}"),
        )
        .await;
    let op = approve_and_draft(&app, &c.org, &json!(plan.id)).await;
    let s = sheet(&app, &c.org, &op).await;
    let item = |name: &str| {
        s["items"]
            .as_array()
            .unwrap()
            .iter()
            .find(|i| i["contact_name"] == name)
            .unwrap()
            .clone()
    };
    let katherine = item("Katherine Johnson");
    // The offline drafter writes "Hi <first name>, <the concept in lower case>".
    assert_eq!(
        katherine["draft"], "Hi Katherine, 20% off whitening is waiting for you at campaign co",
        "{katherine}"
    );
    let linus = item("Linus Torvalds");
    assert_eq!(linus["status"], "failed", "{linus}");
    assert!(
        linus["error"]
            .as_str()
            .unwrap()
            .contains("{{contact.offer}}"),
        "{linus}"
    );
}
