//! Legacy suggesters can be created, edited and bound by the owner: a text to a bound number
//! with no AI agent gets the suggester's three replies; a contact bound to one gets them on any
//! number without an agent; a member cannot change them; bad input changes nothing.
use crate::helpers::*;
use crate::on_both_databases;
use reqwest::StatusCode;
use serde_json::{json, Value};

fn input(name: &str, threshold: f64) -> Value {
    json!({"name": name, "persona": "Warm and brief, for Bright Smile Dental.", "auto_reply": false, "confidence_threshold": threshold})
}

async fn suggestion_sources(app: &TestApp, org: &Org) -> Vec<String> {
    let list: Value = app.inbox(&org.client).await;
    let mut out = Vec::new();
    for c in list.as_array().unwrap() {
        let conv: Value = app
            .ok_as(
                &org.client,
                "/api/conversations/get",
                json!({"contact_id": c["contact_id"]}),
            )
            .await;
        for m in conv["messages"].as_array().unwrap() {
            let sets: Value = app
                .ok_as(
                    &org.client,
                    "/api/suggestions",
                    json!({"message_id": m["id"]}),
                )
                .await;
            for s in sets.as_array().unwrap() {
                out.push(format!(
                    "{}:{}",
                    s["source"].as_str().unwrap_or(""),
                    s["options"].as_array().map_or(0, |o| o.len())
                ));
            }
        }
    }
    out
}

async fn owners_make_and_bind_suggesters(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let org = app.new_org("Suggest Co").await;
    let line = app.add_number(&org, "+14155550101").await;
    let member = app.add_member(&org, "Mo").await;

    let (status, _) = app
        .call_as(
            &member.client,
            "/api/text_agents/create",
            json!({"input": input("Mine", 0.9)}),
        )
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    for bad in [
        input(" ", 0.9),
        input("Ok", 1.5),
        input(&"x".repeat(121), 0.5),
    ] {
        let (status, body) = app
            .call_as(
                &org.client,
                "/api/text_agents/create",
                json!({"input": bad}),
            )
            .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    }
    let none: Value = app
        .ok_as(&org.client, "/api/text_agents", Value::Null)
        .await;
    assert_eq!(none, json!([]));

    let s: Value = app
        .ok_as(
            &org.client,
            "/api/text_agents/create",
            json!({"input": input(" Reminders ", 0.8)}),
        )
        .await;
    assert_eq!(s["name"], "Reminders");
    let id = s["id"].clone();
    let edited: Value = app
        .ok_as(
            &org.client,
            "/api/text_agents/update",
            json!({"id": id, "input": input("Reminders suggester", 0.7)}),
        )
        .await;
    assert_eq!(edited["confidence_threshold"], 0.7);
    let (status, _) = app
        .call_as(
            &member.client,
            "/api/text_agents/bind",
            json!({"id": id, "number_ids": [line], "contact_ids": []}),
        )
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let bravo = app.new_org("Bravo").await;
    let foreign = app.add_number(&bravo, "+14155550199").await;
    let (status, _) = app
        .call_as(
            &org.client,
            "/api/text_agents/bind",
            json!({"id": id, "number_ids": [foreign], "contact_ids": []}),
        )
        .await;
    assert_eq!(
        status,
        StatusCode::NOT_FOUND,
        "another organisation's number"
    );
    let bound: Value = app
        .ok_as(
            &org.client,
            "/api/text_agents/bind",
            json!({"id": id, "number_ids": [line], "contact_ids": []}),
        )
        .await;
    assert_eq!(bound["number_ids"], json!([line]));

    // A text to the bound number gets the suggester's three options.
    app.post_webhook(
        &sms_params(
            "SMsug0000000000000000000000000001",
            "+14155552671",
            "+14155550101",
            "Can I move my cleaning?",
        ),
        None,
    )
    .await;
    app.settle().await;
    let sources = suggestion_sources(&app, &org).await;
    assert_eq!(
        sources,
        vec!["Reminders suggester:3".to_string()],
        "{sources:?}"
    );

    // Bound to a contact instead: the contact's texts to an unbound number get suggestions too.
    let other = app.add_number(&org, "+14155550102").await;
    let grace = app.add_contact(&org, "Grace Hopper", "+14155552672").await;
    let bound: Value = app
        .ok_as(
            &org.client,
            "/api/text_agents/bind",
            json!({"id": id, "number_ids": [], "contact_ids": [grace]}),
        )
        .await;
    assert_eq!(bound["number_ids"], json!([]));
    assert_eq!(bound["contacts"][0][1], "Grace Hopper");
    let _ = other;
    app.post_webhook(
        &sms_params(
            "SMsug0000000000000000000000000002",
            "+14155552672",
            "+14155550102",
            "Is Tuesday free?",
        ),
        None,
    )
    .await;
    app.settle().await;
    let sources = suggestion_sources(&app, &org).await;
    assert_eq!(sources.len(), 2, "{sources:?}");
    let listed: Value = app
        .ok_as(&member.client, "/api/text_agents", Value::Null)
        .await;
    assert_eq!(
        listed[0]["name"], "Reminders suggester",
        "members read them"
    );
}

on_both_databases!(owners_make_and_bind_suggesters);
