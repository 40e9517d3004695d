//! Round-robin auto-assignment and the inbox by number (issue 28 §1): a number that assigns in
//! turn gives each new conversation to the next member online in the last 15 minutes (never to
//! one away longer), keeps a conversation with whoever has it, loses no turn when texts arrive at
//! once, and tells each assignee; a number that does not leaves its conversations unassigned. The
//! inbox narrowed to a number lists and counts its conversations only, and another
//! organisation's number is not found.
use crate::helpers::*;
use crate::on_both_databases;
use herald::platform::clock::ManualClock;
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::Arc;

on_both_databases!(new_conversations_go_to_the_members_online_in_turn);

const TURNS: &str = "+14155550100";
const PLAIN: &str = "+14155550111";

async fn user_id(app: &TestApp, who: &Org) -> String {
    let me: Value = app.ok_as(&who.client, "/api/auth/me", Value::Null).await;
    me["user_id"].as_str().unwrap().to_owned()
}

/// Each conversation's assignee (None: unassigned), by the contact's phone.
async fn assignees(app: &TestApp, who: &Org) -> HashMap<String, Option<String>> {
    let page: Value = app
        .ok_as(
            &who.client,
            "/api/conversations",
            json!({"filter": "all", "after": null}),
        )
        .await;
    page["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["contact_phone"].as_str().unwrap().to_owned(),
                c["triage"]["assignee"]["user_id"]
                    .as_str()
                    .map(str::to_owned),
            )
        })
        .collect()
}

async fn new_conversations_go_to_the_members_online_in_turn(backend: Backend) {
    let clock = Arc::new(ManualClock::at(test_daytime()));
    let opts = Options {
        clock: Some(clock.clone()),
        ..Default::default()
    };
    let Some(app) = spawn_app_with(backend, opts).await else {
        return;
    };
    let owner = app.new_org("Turns Co").await;
    let turns = app.add_number(&owner, TURNS).await;
    let plain = app.add_number(&owner, PLAIN).await;
    let dana = app.add_member(&owner, "Dana").await;
    let eve = app.add_member(&owner, "Eve").await;
    let owner_id = user_id(&app, &owner).await;
    let updated: Value = app
        .ok_as(
            &owner.client,
            "/api/numbers/update",
            json!({"id": turns, "input": {"number": TURNS, "friendly_name": "Front desk", "auto_assign": true}}),
        )
        .await;
    assert_eq!(updated["auto_assign"], true, "{updated}");
    // Twenty minutes on, only Dana and Eve have used Herald: the owner is away.
    clock.advance(chrono::Duration::minutes(20));
    let dana_id = user_id(&app, &dana).await;
    let eve_id = user_id(&app, &eve).await;

    // Four new conversations, one after another: Dana and Eve in turn.
    let mut order = Vec::new();
    for i in 0..4 {
        let from = format!("+1415555270{i}");
        app.post_webhook(
            &sms_params(&format!("SMturn{i:028}"), &from, TURNS, "Hi"),
            None,
        )
        .await;
        app.settle().await;
        let who = assignees(&app, &dana).await[&from].clone();
        order.push(who.expect("assigned to someone online"));
    }
    assert!(
        order.iter().all(|o| *o == dana_id || *o == eve_id),
        "only members online: {order:?} (the owner is {owner_id})"
    );
    assert!(order.windows(2).all(|w| w[0] != w[1]), "in turn: {order:?}");

    // A second text keeps the conversation with whoever has it.
    app.post_webhook(
        &sms_params(
            "SMturnagain000000000000000000001",
            "+14155552700",
            TURNS,
            "Still there?",
        ),
        None,
    )
    .await;
    app.settle().await;
    assert_eq!(
        assignees(&app, &dana).await["+14155552700"].as_ref(),
        Some(&order[0])
    );

    // Six at once: no turn lost, three each.
    let sends = (0..6).map(|i| {
        let app = &app;
        async move {
            let from = format!("+1415555271{i}");
            app.post_webhook(
                &sms_params(&format!("SMburstturn{i:023}"), &from, TURNS, "Hello"),
                None,
            )
            .await
        }
    });
    futures::future::join_all(sends).await;
    app.settle().await;
    let now = assignees(&app, &dana).await;
    let burst: Vec<&String> = (0..6)
        .map(|i| now[&format!("+1415555271{i}")].as_ref().expect("assigned"))
        .collect();
    let to_dana = burst.iter().filter(|o| ***o == dana_id).count();
    assert_eq!((to_dana, 6 - to_dana), (3, 3), "turns at once: {burst:?}");

    // The number that does not assign leaves its conversation in Unassigned.
    app.post_webhook(
        &sms_params(
            "SMplain000000000000000000000001",
            "+14155552790",
            PLAIN,
            "Hi",
        ),
        None,
    )
    .await;
    app.settle().await;
    assert_eq!(assignees(&app, &dana).await["+14155552790"], None);
    // Each assignee heard of each conversation.
    assert_eq!(
        app.count_where("notification", "kind = 'conversation_assigned'")
            .await,
        10
    );

    // The inbox narrowed to a number: its conversations and its counts only.
    let page: Value = app
        .ok_as(
            &dana.client,
            "/api/conversations",
            json!({"filter": "all", "after": null, "number_id": plain}),
        )
        .await;
    assert_eq!(page["total"], 1, "{page}");
    assert_eq!(page["items"][0]["contact_phone"], "+14155552790");
    let on_plain: Value = app
        .ok_as(
            &dana.client,
            "/api/inbox/counts",
            json!({"number_id": plain}),
        )
        .await;
    assert_eq!(
        (on_plain["all"].as_u64(), on_plain["unassigned"].as_u64()),
        (Some(1), Some(1))
    );
    let on_turns: Value = app
        .ok_as(
            &dana.client,
            "/api/inbox/counts",
            json!({"number_id": turns}),
        )
        .await;
    assert_eq!(
        (on_turns["all"].as_u64(), on_turns["unassigned"].as_u64()),
        (Some(10), Some(0))
    );
    let mine: Value = app
        .ok_as(
            &dana.client,
            "/api/conversations",
            json!({"filter": "mine", "after": null, "number_id": turns}),
        )
        .await;
    assert_eq!(
        mine["total"], 5,
        "Dana's: two one by one, three at once: {mine}"
    );

    // Another organisation's number is not found, and shows nothing.
    let other = app.new_org("Other Co").await;
    let theirs = app.add_number(&other, "+14155550199").await;
    let (status, _) = app
        .call_as(
            &dana.client,
            "/api/conversations",
            json!({"filter": "all", "after": null, "number_id": theirs}),
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}
