//! Internal notes (issue 28 §4): a note in a conversation is never sent and never counted as a
//! text; an `@name` notifies that member once (the author never); notes page newest first with
//! exact totals; an empty or too long note is refused, and another organisation's conversation
//! is not found.
use crate::helpers::*;
use crate::on_both_databases;
use reqwest::StatusCode;
use serde_json::{json, Value};

on_both_databases!(notes_stay_inside_and_mentions_notify);

async fn notes_stay_inside_and_mentions_notify(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let owner = app.new_org("Notes Co").await;
    app.add_number(&owner, "+14155550100").await;
    let dana = app.add_member(&owner, "Dana").await;
    let ada = app
        .add_contact(&owner, "Ada Lovelace", "+14155552671")
        .await;
    let add = |body: &str| json!({"contact_id": ada, "body": body});

    let note: Value = app
        .ok_as(
            &owner.client,
            "/api/conversations/notes/add",
            add("@dana she prefers mornings; @Owner knows"),
        )
        .await;
    assert_eq!(note["author"], "Owner");
    assert_eq!(note["mentioned"], json!(["Dana", "Owner"]), "in name order");
    // Dana was told once; the author was not told of themselves.
    assert_eq!(
        app.count_where("notification", "kind = 'note_mention'")
            .await,
        1
    );
    let feed: Value = app
        .ok_as(&dana.client, "/api/notifications", json!({"after": null}))
        .await;
    let first = &feed["items"][0];
    assert!(
        first["title"]
            .as_str()
            .unwrap()
            .contains("Owner mentioned you in a note on Ada Lovelace"),
        "{feed}"
    );
    // Never a text: nothing stored as a message, nothing sent.
    assert_eq!(app.count("message").await, 0);

    let (status, _) = app
        .call_as(&dana.client, "/api/conversations/notes/add", add("   "))
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let (status, _) = app
        .call_as(
            &dana.client,
            "/api/conversations/notes/add",
            add(&"x".repeat(2001)),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);

    // 24 more: newest first, 20 a page, exact totals.
    for i in 0..24 {
        let _: Value = app
            .ok_as(
                &dana.client,
                "/api/conversations/notes/add",
                add(&format!("Note {i:02}")),
            )
            .await;
    }
    let page: Value = app
        .ok_as(
            &owner.client,
            "/api/conversations/notes",
            json!({"contact_id": ada, "before": null}),
        )
        .await;
    assert_eq!(page["total"], 25);
    assert_eq!(page["items"].as_array().unwrap().len(), 20);
    let rest: Value = app
        .ok_as(
            &owner.client,
            "/api/conversations/notes",
            json!({"contact_id": ada, "before": page["next"]}),
        )
        .await;
    assert_eq!(rest["items"].as_array().unwrap().len(), 5);
    assert_eq!(rest["next"], Value::Null);
    let mut bodies: Vec<String> = page["items"]
        .as_array()
        .unwrap()
        .iter()
        .chain(rest["items"].as_array().unwrap())
        .map(|n| n["body"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(bodies.len(), 25);
    bodies.sort();
    bodies.dedup();
    assert_eq!(bodies.len(), 25, "each note once");

    // Another organisation: not found.
    let other = app.new_org("Other Co").await;
    let (status, _) = app
        .call_as(
            &other.client,
            "/api/conversations/notes",
            json!({"contact_id": ada, "before": null}),
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}
