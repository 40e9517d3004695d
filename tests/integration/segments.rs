//! Segments and plans over them at size: a saved filter counted exactly in SQL past 20,000
//! contacts, a tag plan whose audience the server resolves (the plan's JSON stays small), a
//! membership change between presentation and approval shown and refused once, every member
//! tagged on approval, a campaign over a segment, and hand-picked lists capped at 500.
use crate::campaign_support::assistant_agent;
use crate::helpers::*;
use crate::on_both_databases;
use crate::plan_support::ask;
use herald::messaging::entity as message;
use herald::plans::audience::model::AudienceEntry;
use herald::plans::model::{Audience, PlanAction};
use herald::plans::service::{present_plan, Presented};
use herald::platform::clock::ManualClock;
use herald::server::seed_scale::{seed, seeded_time, ScaleSpec};
use sea_orm::{EntityTrait, NotSet, Set};
use serde_json::{json, Value};
use std::sync::Arc;

on_both_databases!(
    segments_are_saved_named_filters_counted_exactly,
    a_tag_plan_over_a_segment_is_resolved_rechecked_and_run,
    the_assistant_plans_over_a_filter_not_a_list,
);

const N: usize = 25_000;
const QUIET_DAYS: i64 = 30;

fn spec() -> ScaleSpec {
    ScaleSpec {
        contacts: N,
        messages_each: 1,
        now: test_daytime(),
        unread_every: 0,
        vip_every: 10,
    }
}

/// Seeded contacts that are vip and have not texted in `QUIET_DAYS` days, counted by hand.
fn quiet_vips() -> u64 {
    let s = spec();
    let since = s.now - chrono::Duration::days(QUIET_DAYS);
    (0..N)
        .filter(|i| i % 10 == 0 && seeded_time(&s, *i, 0) < since)
        .count() as u64
}

/// A server whose clock stands still at the seed's "now": membership moves only when a test
/// moves it.
async fn still_app(backend: Backend) -> Option<(TestApp, Org, uuid::Uuid, Vec<uuid::Uuid>)> {
    let clock = Arc::new(ManualClock::at(test_daytime()));
    let app = spawn_app_with(
        backend,
        Options {
            clock: Some(clock),
            ..Default::default()
        },
    )
    .await?;
    let org = app.new_org("Segment Co").await;
    let number = app.add_number(&org, "+14155550100").await;
    let ids = seed(&app.state.db, org.org_id, number, &spec())
        .await
        .expect("seeds");
    Some((app, org, number, ids))
}

fn quiet_vip_filter() -> Value {
    json!({"tags_any": ["vip"], "no_reply_within_days": QUIET_DAYS})
}

async fn segments_are_saved_named_filters_counted_exactly(backend: Backend) {
    let Some((app, org, _, _)) = still_app(backend).await else {
        return;
    };
    // SQLite: the statistics the planner reads, gathered as the server does at start.
    if backend == Backend::Sqlite {
        use herald::platform::sqlite_optimize::{optimize, Pass};
        use sea_orm::ConnectionTrait;
        optimize(&app.state.db, Pass::AtStart).await.unwrap();
        let stats = app
            .state
            .db
            .query_one_raw(sea_orm::Statement::from_string(
                sea_orm::DbBackend::Sqlite,
                "SELECT count(*) AS n FROM sqlite_stat1 WHERE tbl = 'contact'",
            ))
            .await
            .unwrap()
            .unwrap();
        assert!(
            stats.try_get::<i64>("", "n").unwrap() > 0,
            "contact analysed"
        );
        optimize(&app.state.db, Pass::Hourly).await.unwrap();
    }
    let saved: Value = app
        .ok_as(
            &org.client,
            "/api/segments/save",
            json!({"name": "Quiet VIPs", "filter": quiet_vip_filter()}),
        )
        .await;
    assert_eq!(saved["name"], "Quiet VIPs");
    // Its exact count: the contacts list under its filter.
    let page: Value = app
        .ok_as(
            &org.client,
            "/api/contacts/list",
            json!({"filter": saved["filter"], "after": null}),
        )
        .await;
    assert_eq!(page["total"], quiet_vips(), "{}", page["total"]);
    assert!(quiet_vips() > 1_000);
    let all: Value = app
        .ok_as(
            &org.client,
            "/api/contacts/list",
            json!({"filter": {"tags_any": ["vip"]}, "after": null}),
        )
        .await;
    assert_eq!(all["total"], N as u64 / 10, "past 20,000 contacts, exactly");

    // The same name in another case, a bad filter, an empty one: refused, each saying why.
    let (status, body) = app
        .call_as(
            &org.client,
            "/api/segments/save",
            json!({"name": "quiet vips", "filter": {"tags_any": ["x"]}}),
        )
        .await;
    assert_eq!(status, 409, "{body}");
    assert!(body.to_string().contains("already"), "{body}");
    let (status, body) = app
        .call_as(
            &org.client,
            "/api/segments/save",
            json!({"name": "Never", "filter": {"no_reply_within_days": 0}}),
        )
        .await;
    assert_eq!(status, 400, "{body}");
    assert!(body.to_string().contains("1 to 3650 days"), "{body}");
    let (status, body) = app
        .call_as(
            &org.client,
            "/api/segments/save",
            json!({"name": "Everyone", "filter": {}}),
        )
        .await;
    assert_eq!(status, 400, "{body}");

    let list: Value = app.ok_as(&org.client, "/api/segments", json!({})).await;
    assert_eq!(list["total"], 1);
    assert_eq!(list["items"][0]["name"], "Quiet VIPs");

    // Another organisation neither sees it nor deletes it.
    let other = app.new_org("Other Co").await;
    let theirs: Value = app.ok_as(&other.client, "/api/segments", json!({})).await;
    assert_eq!(theirs["total"], 0);
    let (status, _) = app
        .call_as(
            &other.client,
            "/api/segments/delete",
            json!({"id": saved["id"]}),
        )
        .await;
    assert_eq!(status, 404);
    let _: Value = app
        .ok_as(
            &org.client,
            "/api/segments/delete",
            json!({"id": saved["id"]}),
        )
        .await;
    let list: Value = app.ok_as(&org.client, "/api/segments", json!({})).await;
    assert_eq!(list["total"], 0);
}

async fn a_tag_plan_over_a_segment_is_resolved_rechecked_and_run(backend: Backend) {
    let Some((app, org, number, ids)) = still_app(backend).await else {
        return;
    };
    let _: Value = app
        .ok_as(
            &org.client,
            "/api/segments/save",
            json!({"name": "Quiet VIPs", "filter": quiet_vip_filter()}),
        )
        .await;
    let agent = assistant_agent(&app, org.org_id).await;
    // Contact 24990 is a quiet vip (the oldest texts): left out by hand.
    let left_out = ids[24_990];
    let present = |action: PlanAction| {
        let (app, agent) = (&app, &agent);
        async move {
            present_plan(
                &app.state,
                agent,
                Presented {
                    thread_id: None,
                    title: "Tag the quiet VIPs",
                    summary: "They have gone quiet.",
                    action,
                    policy_override: None,
                    source_key: None,
                    revises: None,
                },
            )
            .await
        }
    };
    let plan = present(PlanAction::TagContacts {
        changes: vec![],
        segment: Some(Audience {
            segment: Some("quiet vips".into()),
            exclude: vec![AudienceEntry {
                contact_id: left_out,
                reason: "asked for no tags".into(),
            }],
            ..Default::default()
        }),
        add_tags: vec!["quiet".into()],
        remove_tags: vec![],
    })
    .await
    .expect("presented");
    let expected = quiet_vips() - 1;
    let view: Value = app
        .ok_as(&org.client, "/api/plans/get", json!({"id": plan.id}))
        .await;
    assert_eq!(
        view["status"], "awaiting_approval",
        "always a person's call"
    );
    let a = &view["audience"];
    assert_eq!(a["members"], expected, "{a}");
    assert!(a["label"].as_str().unwrap().contains("Quiet VIPs"), "{a}");
    assert_eq!(a["exclusions"], json!([["asked for no tags", 1]]));
    assert_eq!(a["first"]["items"].as_array().unwrap().len(), 50);
    assert_eq!(a["first"]["total"], expected);
    assert!(
        view.to_string().len() < 100_000,
        "the card's payload stays small: {} bytes",
        view.to_string().len()
    );
    assert!(
        plan.action_payload.to_string().len() < 2_000,
        "the plan's JSON names the filter, not the members"
    );
    // Members page through and search.
    let page: Value = app
        .ok_as(
            &org.client,
            "/api/plans/audience",
            json!({"plan_id": plan.id, "search": "Contact 0249", "after": null}),
        )
        .await;
    assert_eq!(
        page["total"], 9,
        "24900..24980 by tens, less the one left out"
    );

    // Before approval: one quiet vip texts in (leaves), and a new vip who never texted joins.
    let leaver = ids[24_980];
    message::Entity::insert(message::ActiveModel {
        id: Set(uuid::Uuid::new_v4()),
        organization_id: Set(org.org_id),
        contact_id: Set(leaver),
        phone_number_id: Set(number),
        direction: Set("inbound".into()),
        body: Set("Still here!".into()),
        media_count: Set(0),
        media_urls: Set(json!([])),
        media_types: Set(None),
        provider_sid: Set(Some("SMleaver".into())),
        status: Set("received".into()),
        ai_origin: Set(None),
        keyword: Set(None),
        error: Set(None),
        idempotency_key: Set(None),
        read_at: Set(None),
        created_at: Set(test_daytime()),
        routed_at: Set(Some(test_daytime())),
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
    })
    .exec(&app.state.db)
    .await
    .unwrap();
    let _: Value = app
        .ok_as(
            &org.client,
            "/api/contacts/create",
            json!({"input": {"name": "Newcomer", "phone": "+14155559999", "email": "", "tags": ["vip"],
                "custom_fields": {}, "notes": "", "time_zone": "", "consent": null}}),
        )
        .await;

    // A person leaves one member out from the card: only that contact is resolved again, so the
    // change above is still found at approval.
    let left_by_hand = view["audience"]["first"]["items"][0]["contact_id"].clone();
    let edited: Value = app
        .ok_as(
            &org.client,
            "/api/plans/edit",
            json!({"id": plan.id, "edit": {"include": [[left_by_hand, false]]}}),
        )
        .await;
    assert_eq!(
        edited["audience"]["members"],
        expected - 1,
        "{}",
        edited["audience"]
    );
    assert!(edited["audience"]["exclusions"]
        .as_array()
        .unwrap()
        .contains(&json!(["left out by the operator", 1])));
    let (status, body) = app
        .call_as(&org.client, "/api/plans/approve", json!({"id": plan.id}))
        .await;
    assert_eq!(status, 409, "{body}");
    assert!(
        body.to_string()
            .contains("1 joined, 1 left since this plan was written"),
        "{body}"
    );
    let view: Value = app
        .ok_as(&org.client, "/api/plans/get", json!({"id": plan.id}))
        .await;
    assert_eq!(view["status"], "awaiting_approval");
    assert_eq!(
        view["audience"]["changed"],
        "1 joined, 1 left since this plan was written"
    );
    assert_eq!(view["audience"]["members"], expected - 1);
    assert!(view["audit"]
        .as_array()
        .unwrap()
        .iter()
        .any(|e| e["kind"] == "audience_changed"));

    // Seen: the second approval finds the same members and runs.
    let _: Value = app
        .ok_as(&org.client, "/api/plans/approve", json!({"id": plan.id}))
        .await;
    app.settle().await;
    let view: Value = app
        .ok_as(&org.client, "/api/plans/get", json!({"id": plan.id}))
        .await;
    assert_eq!(view["status"], "done", "{view}");
    let tagged: Value = app
        .ok_as(
            &org.client,
            "/api/contacts/list",
            json!({"filter": {"tags_any": ["quiet"]}, "after": null}),
        )
        .await;
    assert_eq!(
        tagged["total"],
        expected - 1,
        "every member tagged, nobody else"
    );
    let untouched: Value = app
        .ok_as(
            &org.client,
            "/api/contacts/get",
            json!({"id": left_by_hand}),
        )
        .await;
    assert!(
        !untouched["tags"].to_string().contains("quiet"),
        "{untouched}"
    );
    let left_tags: Value = app
        .ok_as(&org.client, "/api/contacts/get", json!({"id": left_out}))
        .await;
    assert_eq!(
        left_tags["tags"],
        json!(["vip"]),
        "the one left out is untouched"
    );

    // A hand-picked list of more than 500 is refused, pointing to a segment.
    let many = ids[..501]
        .iter()
        .map(|id| herald::plans::model::ContactChange {
            contact_id: *id,
            include: true,
            reason: "picked".into(),
            add_tags: vec!["picked".into()],
            remove_tags: vec![],
            kind: String::new(),
        })
        .collect();
    let err = present(PlanAction::tagging(many)).await.unwrap_err();
    assert!(err.to_string().contains("at most 500"), "{err}");
    // An unknown segment is refused, naming the ones there are.
    let err = present(PlanAction::TagContacts {
        changes: vec![],
        segment: Some(Audience {
            segment: Some("Nobody".into()),
            ..Default::default()
        }),
        add_tags: vec!["x".into()],
        remove_tags: vec![],
    })
    .await
    .unwrap_err();
    assert!(err.to_string().contains("Quiet VIPs"), "{err}");

    // A campaign over the segment: its operation's items are the members, resolved again.
    let campaign = present(PlanAction::BulkSmsCampaign {
        audience: vec![],
        segment: Some(Audience {
            filter: Some(serde_json::from_value(quiet_vip_filter()).unwrap()),
            ..Default::default()
        }),
        message_concept: "We miss you".into(),
        from_number_id: None,
    })
    .await
    .expect("presented");
    let view: Value = app
        .ok_as(&org.client, "/api/plans/get", json!({"id": campaign.id}))
        .await;
    let members = view["audience"]["members"].as_u64().unwrap();
    // The leaver is out; the newcomer gave no written consent, so a campaign leaves them out.
    assert_eq!(members, quiet_vips() - 1);
    assert_eq!(
        view["audience"]["exclusions"],
        json!([["no marketing consent on record", 1]])
    );
    assert_eq!(view["estimated_cost"]["texts"], members);
    let _: Value = app
        .ok_as(
            &org.client,
            "/api/plans/approve",
            json!({"id": campaign.id}),
        )
        .await;
    app.settle().await;
    let view: Value = app
        .ok_as(&org.client, "/api/plans/get", json!({"id": campaign.id}))
        .await;
    let op = view["executed_ref"]
        .as_str()
        .expect("a campaign")
        .to_owned();
    let sheet: Value = app
        .ok_as(&org.client, "/api/operations/get", json!({"id": op}))
        .await;
    assert_eq!(sheet["total"], members, "{sheet}");
}

async fn the_assistant_plans_over_a_filter_not_a_list(backend: Backend) {
    let Some((app, org, _, _)) = still_app(backend).await else {
        return;
    };
    ask(
        &app,
        &org,
        "tag everyone who has not replied in 30 days as dormant",
        true,
    )
    .await;
    let list: Value = app
        .ok_as(
            &org.client,
            "/api/plans/list",
            json!({"status": null, "agent_id": null}),
        )
        .await;
    let plan = &list["items"][0];
    let s = spec();
    let since = s.now - chrono::Duration::days(QUIET_DAYS);
    let quiet = (0..N).filter(|i| seeded_time(&s, *i, 0) < since).count() as u64;
    assert!(quiet > 15_000, "{quiet}");
    assert_eq!(
        plan["action"]["segment"]["filter"]["no_reply_within_days"], 30,
        "{}",
        plan["action"]
    );
    assert_eq!(plan["audience"]["members"], quiet);
    assert!(
        plan["title"].as_str().unwrap().contains(&quiet.to_string()),
        "{}",
        plan["title"]
    );
}
