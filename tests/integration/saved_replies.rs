//! Saved replies (issue 28 §4): saved with known merge fields under a name unique in any case,
//! listed by the start of a name in exact, keyset pages, filled in for a contact from the member
//! who sends (a fallback for an empty field, a field nothing fills refused by name), sent, and
//! deleted by their creator or an owner only.
use crate::helpers::*;
use crate::on_both_databases;
use herald::saved_replies::service::STARTERS;
use reqwest::StatusCode;
use serde_json::{json, Value};

on_both_databases!(saved_replies_fill_in_for_the_contact_and_page_exactly);

async fn save(app: &TestApp, who: &Org, name: &str, body: &str) -> (StatusCode, Value) {
    app.call_as(
        &who.client,
        "/api/saved_replies/save",
        json!({"id": null, "input": {"name": name, "body": body}}),
    )
    .await
}

async fn saved_replies_fill_in_for_the_contact_and_page_exactly(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let owner = app.new_org("Bright Smiles").await;
    let number = app.add_number(&owner, "+14155550100").await;
    let dana = app.add_member(&owner, "Dana").await;
    let ada = app
        .add_contact(&owner, "Ada Lovelace", "+14155552671")
        .await;
    // Someone who texted first and was never named: their "name" is their number.
    app.post_webhook(
        &sms_params(
            "SMsaved0000000000000000000000001",
            "+14155552672",
            "+14155550100",
            "Hi",
        ),
        None,
    )
    .await;
    app.settle().await;
    let inbox: Value = app.inbox(&owner.client).await;
    let unnamed = inbox
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["contact_phone"] == "+14155552672")
        .unwrap()["contact_id"]
        .clone();

    let (status, hours) = save(
        &app,
        &dana,
        "Hours",
        "Hi {{contact.first_name|there}}, {{me.name}} at {{org.name}} here: we're open 9-5.",
    )
    .await;
    assert!(status.is_success(), "{hours}");
    // Refused with the reason: the same name in another case, an unknown field, an open field.
    let (status, body) = save(&app, &owner, "HOURS", "Again").await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    let (status, body) = save(&app, &owner, "Where", "We are at {{org.address}}").await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .contains("{{org.address}}"),
        "{body}"
    );
    let (status, _) = save(&app, &owner, "Open", "Hi {{contact.name").await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let (status, _) = save(&app, &owner, " ", "Hi").await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let (status, birthday) = save(
        &app,
        &owner,
        "Birthday",
        "Happy birthday on {{contact.birthday}}!",
    )
    .await;
    assert!(status.is_success(), "{birthday}");

    // Filled in for Ada from Dana; for the unnamed contact the fallback.
    let fill = |id: &Value, contact: &Value| json!({"id": id, "contact_id": contact});
    let text: String = app
        .ok_as(
            &dana.client,
            "/api/saved_replies/fill",
            fill(&hours["id"], &json!(ada)),
        )
        .await;
    assert_eq!(text, "Hi Ada, Dana at Bright Smiles here: we're open 9-5.");
    let text: String = app
        .ok_as(
            &owner.client,
            "/api/saved_replies/fill",
            fill(&hours["id"], &unnamed),
        )
        .await;
    assert_eq!(
        text,
        "Hi there, Owner at Bright Smiles here: we're open 9-5."
    );
    let (status, body) = app
        .call_as(
            &dana.client,
            "/api/saved_replies/fill",
            fill(&birthday["id"], &json!(ada)),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .contains("{{contact.birthday}}"),
        "{body}"
    );
    // A custom field fills it.
    let _: Value = app
        .ok_as(
            &owner.client,
            "/api/contacts/update",
            json!({"id": ada, "input": {"name": "Ada Lovelace", "phone": "+14155552671", "email": "", "tags": [], "custom_fields": {"birthday": "12 March"}}}),
        )
        .await;
    let text: String = app
        .ok_as(
            &dana.client,
            "/api/saved_replies/fill",
            fill(&birthday["id"], &json!(ada)),
        )
        .await;
    assert_eq!(text, "Happy birthday on 12 March!");
    let sent: Value = app
        .ok_as(
            &dana.client,
            "/api/messages/send",
            json!({"request": {"contact_id": ada, "phone_number_id": number, "body": text}}),
        )
        .await;
    assert_eq!(sent["body"], "Happy birthday on 12 March!");

    // Pages: 25 more, listed by the start of their name in name order, 20 then the rest.
    for i in 0..25 {
        let (status, body) = save(&app, &owner, &format!("Promo {i:02}"), "Spring offer").await;
        assert!(status.is_success(), "{body}");
    }
    let list = |query: &str, after: Value| json!({"query": query, "after": after});
    let first: Value = app
        .ok_as(&dana.client, "/api/saved_replies", list("pro", Value::Null))
        .await;
    assert_eq!(first["total"], 25);
    assert_eq!(first["items"].as_array().unwrap().len(), 20);
    assert_eq!(first["items"][0]["name"], "Promo 00");
    let rest: Value = app
        .ok_as(
            &dana.client,
            "/api/saved_replies",
            list("pro", first["next"].clone()),
        )
        .await;
    let names: Vec<&str> = rest["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["Promo 20", "Promo 21", "Promo 22", "Promo 23", "Promo 24"]
    );
    assert_eq!(rest["next"], Value::Null);
    let all: Value = app
        .ok_as(&dana.client, "/api/saved_replies", list("", Value::Null))
        .await;
    assert_eq!(
        all["total"],
        27 + STARTERS.len(),
        "a new organisation's starters, Birthday, Hours and 25 promos"
    );
    let thanks: Value = app
        .ok_as(
            &dana.client,
            "/api/saved_replies",
            list("thanks", Value::Null),
        )
        .await;
    assert_eq!(
        thanks["items"][0]["name"], "Thanks",
        "a starter, ready to use"
    );
    let odd: Value = app
        .ok_as(&dana.client, "/api/saved_replies", list("%", Value::Null))
        .await;
    assert_eq!(
        odd["total"], 0,
        "a % in the query is a character, not a wildcard"
    );

    // Deleting: the creator or an owner.
    let (status, body) = app
        .call_as(
            &dana.client,
            "/api/saved_replies/delete",
            json!({"id": birthday["id"]}),
        )
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    let _: Value = app
        .ok_as(
            &dana.client,
            "/api/saved_replies/delete",
            json!({"id": hours["id"]}),
        )
        .await;
    let _: Value = app
        .ok_as(
            &owner.client,
            "/api/saved_replies/delete",
            json!({"id": birthday["id"]}),
        )
        .await;
    let all: Value = app
        .ok_as(&dana.client, "/api/saved_replies", list("", Value::Null))
        .await;
    assert_eq!(all["total"], 25 + STARTERS.len());
}
