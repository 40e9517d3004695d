//! Full-text message search on both databases: every word must appear (a word's start is
//! enough), counts are exact past a page, pages run newest first without a gap or a repeat,
//! a text that arrives by webhook is found at once, another organisation's never, and a query
//! with no words is refused with a reason.
use crate::helpers::*;
use crate::on_both_databases;
use herald::server::seed_scale::{seed, ScaleSpec};
use serde_json::{json, Value};
use std::collections::HashSet;

on_both_databases!(texts_are_found_by_their_words);

async fn search(app: &TestApp, org: &Org, q: &str, before: &Value) -> Value {
    app.ok_as(
        &org.client,
        "/api/messages/search",
        json!({"query": q, "before": before}),
    )
    .await
}

async fn texts_are_found_by_their_words(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let org = app.new_org("Search Co").await;
    let number = app.add_number(&org, "+14155550100").await;
    let spec = ScaleSpec {
        contacts: 2_000,
        messages_each: 2,
        now: test_daytime() - chrono::Duration::hours(1),
        unread_every: 0,
        vip_every: 0,
    };
    seed(&app.state.db, org.org_id, number, &spec)
        .await
        .unwrap();

    // "Text {j} with contact {i}": two texts each.
    let one = search(&app, &org, "contact 1234", &Value::Null).await;
    assert_eq!(one["total"], 2, "{one}");
    assert!(one["items"]
        .as_array()
        .unwrap()
        .iter()
        .all(|h| h["contact_name"] == "Contact 001234"));
    // A word's start is enough; case does not matter.
    let prefix = search(&app, &org, "CONT 1234", &Value::Null).await;
    assert_eq!(prefix["total"], 2);

    // Every text: the exact total, pages of 50 newest first that join without a repeat.
    let mut before = Value::Null;
    let mut seen = HashSet::new();
    let mut last_seq = i64::MAX;
    for _ in 0..3 {
        let p = search(&app, &org, "contact", &before).await;
        assert_eq!(p["total"], 4_000);
        let items = p["items"].as_array().unwrap();
        assert_eq!(items.len(), 50);
        for h in items {
            let seq = h["seq"].as_i64().unwrap();
            assert!(seq < last_seq, "newest first");
            last_seq = seq;
            assert!(seen.insert(h["message_id"].as_str().unwrap().to_owned()));
        }
        before = p["next"].clone();
    }

    // A text by webhook is found at once; another organisation never sees it.
    let params = sms_params(
        "SMsearch00000000000000000000000001",
        "+14155552671",
        "+14155550100",
        "See you Friday at the marina!",
    );
    assert!(app.post_webhook(&params, None).await.status().is_success());
    app.settle().await;
    let friday = search(&app, &org, "marina friday", &Value::Null).await;
    assert_eq!(friday["total"], 1, "{friday}");
    assert_eq!(friday["items"][0]["direction"], "inbound");
    assert_eq!(friday["next"], Value::Null);
    let other = app.new_org("Other Co").await;
    let theirs = search(&app, &other, "marina", &Value::Null).await;
    assert_eq!(theirs["total"], 0, "scoped to the organisation");

    // Search syntax typed by a person is only words: it neither errors nor widens the search.
    let odd = search(&app, &org, "\"marina\" OR * NEAR(", &Value::Null).await;
    assert_eq!(
        odd["total"], 0,
        "every word must appear, 'or' and 'near' too"
    );
    let (status, body) = app
        .call_as(
            &org.client,
            "/api/messages/search",
            json!({"query": " !!! ", "before": null}),
        )
        .await;
    assert_eq!(status, 400, "{body}");
    assert!(body.to_string().contains("Type a word"), "{body}");
}
