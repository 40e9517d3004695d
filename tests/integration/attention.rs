//! The navigation's counts: unread conversations, plans awaiting approval, the member's
//! unread notifications and the inbox's Mine and Unassigned views, each within the member's own
//! organisation.
use crate::campaign_support::*;
use crate::helpers::*;
use crate::on_both_databases;
use reqwest::StatusCode;
use serde_json::{json, Value};

async fn counts_what_waits_within_the_organisation(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let c = crm(&app).await;
    let other = app.new_org("Bravo").await;
    let zero = json!({"unread_conversations": 0, "plans_awaiting_approval": 0, "steps_waiting": 0, "unread_notifications": 0, "possible_opt_outs": 0, "mine": 0, "unassigned": 0, "banners": []});
    let counts = |client: reqwest::Client| {
        let app = &app;
        async move {
            app.ok_as::<Value>(&client, "/api/attention", Value::Null)
                .await
        }
    };

    // Alan texted while the CRM was set up; two texts from one more contact and one from Grace:
    // three unread conversations.
    for (sid, from, body) in [
        (
            "SMatt00000000000000000000000000001",
            "+14155552671",
            "hello?",
        ),
        (
            "SMatt00000000000000000000000000002",
            "+14155552671",
            "anyone there?",
        ),
        (
            "SMatt00000000000000000000000000003",
            "+14155552672",
            "question",
        ),
    ] {
        app.post_webhook(&sms_params(sid, from, "+14155550100", body), None)
            .await;
    }
    app.settle().await;
    // A plan that waits for a person.
    ask(&app, &c.org, FOLLOW_UP).await;
    assert_eq!(
        first_plan(&app, &c.org).await["status"],
        "awaiting_approval"
    );

    let mine = counts(c.org.client.clone()).await;
    assert_eq!(mine["unread_conversations"], 3, "{mine}");
    assert_eq!(mine["plans_awaiting_approval"], 1, "{mine}");
    // The sidebar's inbox views: every open conversation is nobody's yet.
    let open: Value = app
        .ok_as(&c.org.client, "/api/inbox/counts", json!({}))
        .await;
    assert_eq!(mine["unassigned"], open["unassigned"], "{mine} {open}");
    assert!(mine["unassigned"].as_u64().unwrap() >= 2, "{mine}");
    assert_eq!(mine["mine"], 0, "{mine}");
    let notes: Value = app
        .ok_as(&c.org.client, "/api/notifications", json!({}))
        .await;
    let notes = notes["items"].clone();
    let unread_notes = notes
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["read"] == false)
        .count();
    assert_eq!(mine["unread_notifications"], unread_notes, "{mine}");

    // Another organisation sees none of it; nobody signed in is told to sign in.
    assert_eq!(counts(other.client.clone()).await, zero);
    let (status, _) = app
        .call_as(&new_client(), "/api/attention", Value::Null)
        .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);

    // Reading a conversation takes it off the count.
    let convs: Value = app.inbox(&c.org.client).await;
    let first = convs
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["unread"].as_u64().unwrap_or(0) > 0)
        .expect("an unread conversation")["contact_id"]
        .clone();
    let _: Value = app
        .ok_as(
            &c.org.client,
            "/api/conversations/get",
            json!({"contact_id": first}),
        )
        .await;
    let after = counts(c.org.client.clone()).await;
    assert_eq!(after["unread_conversations"], 2, "{after}");

    // Taking it moves it from Unassigned to Mine; closing it takes it off both.
    let me: Value = app.ok_as(&c.org.client, "/api/auth/me", Value::Null).await;
    let _: Value = app
        .ok_as(
            &c.org.client,
            "/api/conversations/assign",
            json!({"contact_id": first, "assignee": me["user_id"]}),
        )
        .await;
    let taken = counts(c.org.client.clone()).await;
    assert_eq!(taken["mine"], 1, "{taken}");
    assert_eq!(
        taken["unassigned"].as_u64(),
        mine["unassigned"].as_u64().map(|n| n - 1),
        "{taken}"
    );
    let _: Value = app
        .ok_as(
            &c.org.client,
            "/api/conversations/state",
            json!({"contact_id": first, "change": {"to": "close"}}),
        )
        .await;
    let closed = counts(c.org.client.clone()).await;
    assert_eq!(closed["mine"], 0, "{closed}");
    assert_eq!(closed["unassigned"], taken["unassigned"], "{closed}");
    assert_eq!(counts(other.client.clone()).await, zero);
}

on_both_databases!(counts_what_waits_within_the_organisation);
