//! "Send later" (issue 53 §5): a member sets a text for a time on the contact's own clock (their
//! area code's zone here), sees when it will really go (after their quiet hours), changes it
//! while it waits, and it leaves once as the member's text; a time that has passed and one past
//! 30 days are refused by name (one the clocks skip: `send_later`'s unit tests); an opt-out
//! cancels what waits, with the reason, and nothing goes.
use crate::helpers::*;
use crate::on_both_databases;
use crate::scheduled_texts::{due, list};
use herald::messaging::scheduled::send_due;
use reqwest::StatusCode;
use serde_json::{json, Value};

on_both_databases!(a_member_sets_a_text_for_the_contacts_clock);

async fn later(
    app: &TestApp,
    org: &Org,
    contact: uuid::Uuid,
    number: uuid::Uuid,
    body: &str,
    at: &str,
) -> (StatusCode, Value) {
    app.call_as(
        &org.client,
        "/api/scheduled/add",
        json!({"request": {"contact_id": contact, "phone_number_id": number, "body": body, "at": at}}),
    )
    .await
}

async fn a_member_sets_a_text_for_the_contacts_clock(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let org = app.new_org("Later Clinic").await;
    let number = app.add_number(&org, "+14155550100").await;
    // A New York number: 12:00 their time when the test clock reads 16:00 UTC in June.
    let nina = app.add_contact(&org, "Nina", "+12125550123").await;
    app.give_consent(&org, nina).await;

    let when: Value = app
        .ok_as(
            &org.client,
            "/api/scheduled/when",
            json!({"contact_id": nina, "at": null}),
        )
        .await;
    assert!(
        when["zone"].as_str().unwrap().contains("America/New_York"),
        "{when}"
    );
    assert!(
        when["their_now"]
            .as_str()
            .unwrap()
            .starts_with("2026-06-17T12:"),
        "{when}"
    );
    // 22:00 their time is in their quiet hours: it would go at 08:00 the next morning.
    let when: Value = app
        .ok_as(
            &org.client,
            "/api/scheduled/when",
            json!({"contact_id": nina, "at": "2026-06-18T22:00:00"}),
        )
        .await;
    assert!(
        when["goes"]
            .as_str()
            .unwrap()
            .contains("19 Jun, 08:00 their time"),
        "{when}"
    );
    assert!(
        when["held"].as_str().unwrap().contains("quiet hours"),
        "{when}"
    );

    // Refused by name, and nothing kept.
    for (at, why) in [
        ("2026-06-17T11:00:00", "passed"),
        ("2026-08-01T10:00:00", "30 days"),
    ] {
        let (status, body) = later(&app, &org, nina, number, "Hello", at).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{at}: {body}");
        assert!(body.to_string().contains(why), "{at}: {body}");
    }
    let (status, _) = later(&app, &org, nina, number, "   ", "2026-06-18T09:30:00").await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "no words, no text");
    assert_eq!(app.count("scheduled_text").await, 0);

    // 09:30 their time is 13:30 UTC.
    let (status, set) = later(
        &app,
        &org,
        nina,
        number,
        "Your cleaning is tomorrow at 10.",
        "2026-06-18T09:30:00",
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{set}");
    assert_eq!(set["by_person"], true);
    assert_eq!(set["send_at"], "2026-06-18T13:30:00Z");
    let id: uuid::Uuid = serde_json::from_value(set["id"].clone()).unwrap();
    let shown = list(&app, &org, nina).await;
    assert_eq!(shown[0]["their_time"], "2026-06-18T09:30");

    // Changed while it waits.
    let changed: Value = app
        .ok_as(
            &org.client,
            "/api/scheduled/edit",
            json!({"id": id, "body": "Your cleaning is tomorrow at 10:30.", "at": "2026-06-18T10:15:00"}),
        )
        .await;
    assert_eq!(changed["send_at"], "2026-06-18T14:15:00Z");
    assert_eq!(
        list(&app, &org, nina).await[0]["body"],
        "Your cleaning is tomorrow at 10:30."
    );

    // Due: it leaves once, as the member's text (no agent's mark on it).
    due(&app, id, "scheduled").await;
    assert_eq!(send_due(&app.state).await.unwrap(), 1);
    assert_eq!(send_due(&app.state).await.unwrap(), 0);
    let conv: Value = app
        .ok_as(
            &org.client,
            "/api/conversations/get",
            json!({"contact_id": nina}),
        )
        .await;
    let last = conv["messages"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["body"], "Your cleaning is tomorrow at 10:30.");
    assert!(last["ai_origin"].is_null(), "{last}");
    let (status, _) = app
        .call_as(
            &org.client,
            "/api/scheduled/edit",
            json!({"id": id, "body": "Too late", "at": "2026-06-18T11:00:00"}),
        )
        .await;
    assert_eq!(
        status,
        StatusCode::CONFLICT,
        "a text that left cannot change"
    );

    // An opt-out cancels what waits, with the reason, and nothing goes.
    let (status, waiting) = later(
        &app,
        &org,
        nina,
        number,
        "See you next week.",
        "2026-06-20T09:00:00",
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{waiting}");
    let waiting: uuid::Uuid = serde_json::from_value(waiting["id"].clone()).unwrap();
    let _: Value = app
        .ok_as(
            &org.client,
            "/api/contacts/opt_out",
            json!({"id": nina, "opted_out": true, "reason": "asked on the phone"}),
        )
        .await;
    assert_eq!(
        herald::messaging::send_later::cancel_opted_out(&app.state)
            .await
            .unwrap(),
        1
    );
    let shown = list(&app, &org, nina).await;
    let row = shown.iter().find(|t| t["id"] == json!(waiting)).unwrap();
    assert_eq!(row["status"], "canceled");
    assert_eq!(row["error"], herald::messaging::send_later::OPTED_OUT);
    due(&app, waiting, "canceled").await;
    assert_eq!(send_due(&app.state).await.unwrap(), 0);
    let (status, _) = later(&app, &org, nina, number, "One more?", "2026-06-20T09:00:00").await;
    assert_eq!(
        status,
        StatusCode::UNPROCESSABLE_ENTITY,
        "an opted-out contact cannot be set a text (the send check's refusal)"
    );
}
