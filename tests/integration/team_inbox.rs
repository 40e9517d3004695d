//! The team inbox (issue 28 §1): conversations open, closed or snoozed, assigned to members; the
//! views and their exact counts; a new text reopening a closed or snoozed conversation; snoozes
//! waking on the injected clock, once, with the assignee told; a member who leaves giving their
//! conversations back; and nothing reaching past the organisation.
use crate::helpers::*;
use crate::on_both_databases;
use herald::platform::clock::{Clock, ManualClock};
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::sync::Arc;

on_both_databases!(views_states_and_assignment_follow_the_team_and_the_texts);

const NUMBER: &str = "+14155550100";
const PEOPLE: [(&str, &str); 3] = [
    ("+14155552601", "Ada"),
    ("+14155552602", "Ben"),
    ("+14155552603", "Cy"),
];

async fn counts(app: &TestApp, who: &Org) -> Value {
    app.ok_as(&who.client, "/api/inbox/counts", json!({})).await
}

async fn view(app: &TestApp, who: &Org, filter: &str) -> Vec<String> {
    let page: Value = app
        .ok_as(
            &who.client,
            "/api/conversations",
            json!({"filter": filter, "after": null}),
        )
        .await;
    let names: Vec<String> = page["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["contact_name"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(page["total"], names.len(), "{filter}: {page}");
    let mut names = names;
    names.sort();
    names
}

fn expect(c: &Value, want: [u64; 7]) {
    let keys = [
        "all",
        "mine",
        "unassigned",
        "unread",
        "open",
        "closed",
        "snoozed",
    ];
    for (k, n) in keys.iter().zip(want) {
        assert_eq!(c[k], n, "{k} in {c}");
    }
}

async fn text_in(app: &TestApp, sid: &str, from: &str, body: &str) {
    app.text_in(sid, from, NUMBER, body).await;
}

async fn views_states_and_assignment_follow_the_team_and_the_texts(backend: Backend) {
    let clock = Arc::new(ManualClock::at(test_daytime()));
    let opts = Options {
        clock: Some(clock.clone()),
        ..Default::default()
    };
    let Some(app) = spawn_app_with(backend, opts).await else {
        return;
    };
    let owner = app.new_org("Triage Co").await;
    app.add_number(&owner, NUMBER).await;
    let dana = app.add_member(&owner, "Dana").await;
    let me: Value = app.ok_as(&dana.client, "/api/auth/me", Value::Null).await;
    let dana_id = me["user_id"].as_str().unwrap().to_owned();
    for (i, (phone, name)) in PEOPLE.iter().enumerate() {
        text_in(
            &app,
            &format!("SMtri{i:029}"),
            phone,
            &format!("hi, {name} here"),
        )
        .await;
    }
    let ids: Vec<String> = {
        let items = app.inbox(&owner.client).await;
        let mut by_name: Vec<(String, String)> = items
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                (
                    c["contact_name"].as_str().unwrap().to_owned(),
                    c["contact_id"].as_str().unwrap().to_owned(),
                )
            })
            .collect();
        by_name.sort();
        by_name.into_iter().map(|(_, id)| id).collect()
    };
    assert_eq!(ids.len(), 3);
    let (ada, ben, cy) = (&ids[0], &ids[1], &ids[2]);
    // New conversations are open and nobody's. (Names are the phone numbers: unknown senders.)
    expect(&counts(&app, &owner).await, [3, 0, 3, 3, 3, 0, 0]);

    // The owner gives Ada's conversation to Dana: Dana is told, and it is hers.
    let t: Value = app
        .ok_as(
            &owner.client,
            "/api/conversations/assign",
            json!({"contact_id": ada, "assignee": dana_id}),
        )
        .await;
    assert_eq!(t["assignee"]["name"], "Dana", "{t}");
    let notes: Value = app
        .ok_as(&dana.client, "/api/notifications", json!({}))
        .await;
    let assigned: Vec<&Value> = notes["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["title"].as_str().unwrap_or("").contains("assigned you"))
        .collect();
    assert_eq!(assigned.len(), 1, "{notes}");
    assert_eq!(assigned[0]["link"], format!("/messaging/{ada}"));
    expect(&counts(&app, &dana).await, [3, 1, 2, 3, 3, 0, 0]);
    expect(&counts(&app, &owner).await, [3, 0, 2, 3, 3, 0, 0]);
    assert_eq!(view(&app, &dana, "mine").await.len(), 1);
    let page: Value = app
        .ok_as(
            &dana.client,
            "/api/conversations",
            json!({"filter": "mine", "after": null}),
        )
        .await;
    assert_eq!(page["items"][0]["contact_id"], *ada);
    assert_eq!(page["items"][0]["triage"]["assignee"]["name"], "Dana");

    // Nobody outside the organisation can be given a conversation, or touch one.
    let other = app.new_org("Elsewhere").await;
    let stranger: Value = app.ok_as(&other.client, "/api/auth/me", Value::Null).await;
    let (status, body) = app
        .call_as(
            &owner.client,
            "/api/conversations/assign",
            json!({"contact_id": ben, "assignee": stranger["user_id"]}),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert!(
        body.to_string().contains("members of this organisation"),
        "{body}"
    );
    for (path, args) in [
        (
            "/api/conversations/state",
            json!({"contact_id": ben, "change": {"to": "close"}}),
        ),
        (
            "/api/conversations/assign",
            json!({"contact_id": ben, "assignee": null}),
        ),
        ("/api/conversations/triage", json!({"contact_id": ben})),
    ] {
        let (status, body) = app.call_as(&other.client, path, args).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{path}: {body}");
    }
    expect(&counts(&app, &other).await, [0, 0, 0, 0, 0, 0, 0]);

    // Close Ben's; snooze Cy's for an hour (assigned to Dana first). A snooze of nothing, or of
    // more than 90 days, is refused with the reason.
    let t: Value = app
        .ok_as(
            &owner.client,
            "/api/conversations/state",
            json!({"contact_id": ben, "change": {"to": "close"}}),
        )
        .await;
    assert_eq!(t["state"], "closed");
    let _: Value = app
        .ok_as(
            &owner.client,
            "/api/conversations/assign",
            json!({"contact_id": cy, "assignee": dana_id}),
        )
        .await;
    for minutes in [0, 90 * 1440 + 1] {
        let (status, body) = app
            .call_as(
                &owner.client,
                "/api/conversations/state",
                json!({"contact_id": cy, "change": {"to": "snooze_for", "minutes": minutes}}),
            )
            .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
        assert!(body.to_string().contains("1 minute to 90 days"), "{body}");
    }
    let asked = clock.now();
    let t: Value = app
        .ok_as(
            &owner.client,
            "/api/conversations/state",
            json!({"contact_id": cy, "change": {"to": "snooze_for", "minutes": 60}}),
        )
        .await;
    assert_eq!(t["state"], "snoozed");
    let until: chrono::DateTime<chrono::Utc> =
        serde_json::from_value(t["snoozed_until"].clone()).unwrap();
    let hour = chrono::Duration::minutes(60);
    assert!(until >= asked + hour && until <= clock.now() + hour, "{t}");
    // all, mine (Dana), unassigned, unread, open, closed, snoozed
    expect(&counts(&app, &dana).await, [3, 1, 0, 3, 1, 1, 1]);
    assert_eq!(view(&app, &owner, "open").await.len(), 1);
    assert_eq!(view(&app, &owner, "closed").await.len(), 1);
    assert_eq!(view(&app, &owner, "snoozed").await.len(), 1);
    assert_eq!(view(&app, &owner, "all").await.len(), 3);

    // Ben texts again: his conversation is open again, in the same statement that stored it.
    text_in(
        &app,
        "SMtri00000000000000000000000000009",
        PEOPLE[1].0,
        "still there?",
    )
    .await;
    expect(&counts(&app, &dana).await, [3, 1, 1, 3, 2, 0, 1]);

    // An hour passes: Cy's snooze is due. It reads as open at once, and the waker reopens it
    // once, telling Dana once, however often it runs.
    clock.advance(chrono::Duration::minutes(61));
    expect(&counts(&app, &dana).await, [3, 2, 1, 3, 3, 0, 0]);
    assert_eq!(
        herald::inbox::service::wake_snoozed(&app.state)
            .await
            .unwrap(),
        1
    );
    assert_eq!(
        herald::inbox::service::wake_snoozed(&app.state)
            .await
            .unwrap(),
        0
    );
    let t: Value = app
        .ok_as(
            &owner.client,
            "/api/conversations/triage",
            json!({"contact_id": cy}),
        )
        .await;
    assert_eq!(t["state"], "open");
    assert!(t["snoozed_until"].is_null(), "{t}");
    assert_eq!(
        app.count_where("notification", "kind = 'conversation_woke'")
            .await,
        1
    );

    // Dana leaves: her conversations go back to the unassigned view.
    let _: Value = app
        .ok_as(
            &owner.client,
            "/api/members/remove",
            json!({"user_id": dana_id}),
        )
        .await;
    expect(&counts(&app, &owner).await, [3, 0, 3, 3, 3, 0, 0]);
    assert_eq!(
        app.count_where("conversation", "assignee_id IS NOT NULL")
            .await,
        0
    );
}
