//! The inbox and a conversation at size: 25,000 conversations (past every old hard limit) read
//! from the per-conversation rows, with exact totals and keyset pages that neither skip nor
//! repeat; a history paged in insertion order even when every text has the same timestamp.
use crate::helpers::*;
use crate::on_both_databases;
use herald::messaging::entity as message;
use herald::server::seed_scale::{seed, ScaleSpec};
use sea_orm::{EntityTrait, NotSet, Set};
use serde_json::{json, Value};
use std::collections::HashSet;

on_both_databases!(
    twenty_five_thousand_conversations_count_and_page_exactly,
    a_history_pages_in_the_order_texts_were_stored,
);

async fn page(app: &TestApp, org: &Org, filter: &str, after: &Value) -> Value {
    app.ok_as(
        &org.client,
        "/api/conversations",
        json!({"filter": filter, "after": after}),
    )
    .await
}

/// An organisation of `n` contacts with a text each: every 4th unread, every 10th tagged vip.
pub(crate) async fn seeded_org(app: &TestApp, n: usize) -> Org {
    let org = app.new_org("Scale Co").await;
    let number = app.add_number(&org, "+14155550100").await;
    let spec = ScaleSpec {
        contacts: n,
        messages_each: 1,
        now: test_daytime(),
        unread_every: 4,
        vip_every: 10,
    };
    seed(&app.state.db, org.org_id, number, &spec)
        .await
        .expect("seeds");
    org
}

async fn twenty_five_thousand_conversations_count_and_page_exactly(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let org = seeded_org(&app, 25_000).await;
    let unread = 25_000 / 4;

    let counts: Value = app.ok_as(&org.client, "/api/attention", Value::Null).await;
    assert_eq!(counts["unread_conversations"], unread, "{counts}");
    // The sidebar's Unassigned badge stops counting past 999 (it shows "999+"): every page
    // reads it. The inbox's own count of the view is exact.
    assert_eq!(counts["unassigned"], 1000, "{counts}");
    assert_eq!(counts["mine"], 0, "{counts}");
    let views: Value = app.ok_as(&org.client, "/api/inbox/counts", json!({})).await;
    assert_eq!(views["unassigned"], 25_000, "{views}");

    // All: the exact total, newest first; the first pages join without a gap or a repeat.
    let first = page(&app, &org, "all", &Value::Null).await;
    assert_eq!(first["total"], 25_000);
    assert_eq!(first["items"].as_array().unwrap().len(), 50);
    assert_eq!(first["items"][0]["contact_name"], "Contact 000000");
    let mut after = first["next"].clone();
    let mut seen = 50;
    for _ in 0..3 {
        let p = page(&app, &org, "all", &after).await;
        let items = p["items"].as_array().unwrap();
        assert_eq!(items.len(), 50);
        assert_eq!(
            items[0]["contact_name"],
            format!("Contact {seen:06}"),
            "the next page starts where the last one stopped"
        );
        seen += 50;
        after = p["next"].clone();
    }

    // Unread: walked to its end, every unread conversation once, in order, and no other.
    let mut after = Value::Null;
    let mut names = HashSet::new();
    let mut last_at: Option<String> = None;
    let mut pages = 0;
    loop {
        let p = page(&app, &org, "unread", &after).await;
        assert_eq!(p["total"], unread);
        for c in p["items"].as_array().unwrap() {
            assert!(c["unread"].as_u64().unwrap() > 0, "{c}");
            let at = c["last_at"].as_str().unwrap().to_owned();
            if let Some(prev) = &last_at {
                assert!(
                    chrono_of(&at) <= chrono_of(prev),
                    "newest first: {at} after {prev}"
                );
            }
            last_at = Some(at);
            assert!(names.insert(c["contact_name"].as_str().unwrap().to_owned()));
        }
        pages += 1;
        if p["next"].is_null() {
            break;
        }
        after = p["next"].clone();
    }
    assert_eq!(names.len(), unread);
    assert_eq!(pages, unread.div_ceil(50));
    assert!(names.contains("Contact 024996") && !names.contains("Contact 024997"));

    // Opening a conversation reads it: the counts go down by exactly one.
    let contact = first["items"][0]["contact_id"].clone();
    let _: Value = app
        .ok_as(
            &org.client,
            "/api/conversations/get",
            json!({"contact_id": contact}),
        )
        .await;
    let counts: Value = app.ok_as(&org.client, "/api/attention", Value::Null).await;
    assert_eq!(counts["unread_conversations"], unread - 1);
    assert_eq!(
        page(&app, &org, "unread", &Value::Null).await["total"],
        unread - 1
    );

    // The team inbox's views at size: exact counts; closing one moves it between views, and the
    // closed view's page holds it.
    let views: Value = app.ok_as(&org.client, "/api/inbox/counts", json!({})).await;
    assert_eq!(views["open"], 25_000, "{views}");
    assert_eq!(views["unassigned"], 25_000, "{views}");
    assert_eq!(views["closed"], 0, "{views}");
    let _: Value = app
        .ok_as(
            &org.client,
            "/api/conversations/state",
            json!({"contact_id": contact, "change": {"to": "close"}}),
        )
        .await;
    let views: Value = app.ok_as(&org.client, "/api/inbox/counts", json!({})).await;
    assert_eq!(views["open"], 24_999, "{views}");
    assert_eq!(views["closed"], 1, "{views}");
    let closed = page(&app, &org, "closed", &Value::Null).await;
    assert_eq!(closed["total"], 1);
    assert_eq!(closed["items"][0]["contact_id"], contact);
    assert_eq!(
        page(&app, &org, "open", &Value::Null).await["total"],
        24_999
    );
}

fn chrono_of(s: &str) -> chrono::DateTime<chrono::Utc> {
    s.parse().expect("an RFC 3339 time")
}

async fn a_history_pages_in_the_order_texts_were_stored(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let org = app.new_org("History Co").await;
    let number = app.add_number(&org, "+14155550100").await;
    let contact = app.add_contact(&org, "Hana", "+14155552671").await;
    // 120 texts with one timestamp: only the order they were stored in can order them.
    let at = test_daytime();
    let rows = (0..120).map(|i| message::ActiveModel {
        id: Set(uuid::Uuid::new_v4()),
        organization_id: Set(org.org_id),
        contact_id: Set(contact),
        phone_number_id: Set(number),
        direction: Set(if i % 2 == 0 { "inbound" } else { "outbound" }.into()),
        body: Set(format!("m{i:03}")),
        media_count: Set(0),
        media_urls: Set(json!([])),
        media_types: Set(None),
        provider_sid: Set(Some(format!("SMhistory{i:024}"))),
        status: Set("received".into()),
        ai_origin: Set(None),
        keyword: Set(None),
        error: Set(None),
        idempotency_key: Set(None),
        read_at: Set(None),
        created_at: Set(at),
        routed_at: Set(Some(at)),
        send_state: Set(None),
        attempt_key: Set(None),
        attempt_started_at: Set(None),
        send_attempts: Set(0),
        reconcile_failures: Set(0),
        purpose: Set(None),
        seq: NotSet,
        rolled_up: NotSet,
        outcome_rolled: NotSet,
        agent_id: NotSet,
        cites: NotSet,
    });
    // Stored in two statements, the later one first in UUID order as often as not.
    let rows: Vec<_> = rows.collect();
    message::Entity::insert_many(rows[..70].to_vec())
        .exec(&app.state.db)
        .await
        .unwrap();
    message::Entity::insert_many(rows[70..].to_vec())
        .exec(&app.state.db)
        .await
        .unwrap();

    let inbox = app.inbox(&org.client).await;
    assert_eq!(inbox[0]["unread"], 60, "every inbound text is unread");
    assert_eq!(inbox[0]["last_body"], "m119");

    let conv: Value = app
        .ok_as(
            &org.client,
            "/api/conversations/get",
            json!({"contact_id": contact}),
        )
        .await;
    assert_eq!(conv["message_count"], 120);
    let bodies = |v: &Value| -> Vec<String> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|m| m["body"].as_str().unwrap().to_owned())
            .collect()
    };
    let mut all = bodies(&conv["messages"]);
    assert_eq!(all.len(), 50);
    let mut older = conv["older"].clone();
    let mut pages = 1;
    while !older.is_null() {
        let p: Value = app
            .ok_as(
                &org.client,
                "/api/conversations/older",
                json!({"contact_id": contact, "before": older}),
            )
            .await;
        let mut page = bodies(&p["messages"]);
        page.extend(all);
        all = page;
        older = p["older"].clone();
        pages += 1;
    }
    assert_eq!(pages, 3);
    let expected: Vec<String> = (0..120).map(|i| format!("m{i:03}")).collect();
    assert_eq!(all, expected, "oldest first, in the order they were stored");
    assert_eq!(app.inbox(&org.client).await[0]["unread"], 0, "opened: read");
}
