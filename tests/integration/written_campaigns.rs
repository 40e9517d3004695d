//! A person's own campaign (issue 51 §1): the audience counted exactly with who is left out and
//! why, the words filled in per contact, a member's campaign waiting for an owner, the same review
//! sheet, approval and send check as an agent's, overlapping campaigns named before approval, and
//! a campaign scheduled for a time that waits for it and for each contact's hours.
use crate::campaign_support::*;
use crate::helpers::*;
use crate::on_both_databases;
use herald::platform::clock::ManualClock;
use herald::platform::sms::outbox::OutboxTransport;
use serde_json::{json, Value};
use std::sync::Arc;

const BODY: &str = "Hi {{contact.first_name|there}}, {{org.name}} opens this Saturday 9-1.";

fn tagged(tag: &str) -> Value {
    json!({"kind": "tag", "tag": tag})
}

async fn create(app: &TestApp, org: &Org, campaign: Value) -> (u16, Value) {
    let (status, v) = app
        .call_as(
            &org.client,
            "/api/campaigns/create",
            json!({"campaign": campaign}),
        )
        .await;
    (status.as_u16(), v)
}

async fn sent_bodies(outbox: &OutboxTransport) -> Vec<String> {
    let mut v: Vec<String> = outbox.sent().into_iter().map(|s| s.body).collect();
    v.sort();
    v
}

async fn a_written_campaign_goes_from_a_tag_to_sent_texts(backend: Backend) {
    let clock = Arc::new(ManualClock::at(test_daytime()));
    let outbox = Arc::new(OutboxTransport::default());
    let opts = Options {
        clock: Some(clock.clone()),
        transport: Some(outbox.clone()),
        send_concurrency: 1,
        ..Default::default()
    };
    let Some(app) = spawn_app_with(backend, opts).await else {
        return;
    };
    // Alan, Katherine and Linus are quote leads with consent; Boris (quote) opted out.
    let c = crm(&app).await;
    let org = &c.org;

    // The audience, counted exactly, and who is left out and why.
    let summary: Value = app
        .ok_as(
            &org.client,
            "/api/campaigns/audience",
            json!({"audience": tagged("quote"), "send_at_local": null}),
        )
        .await;
    assert_eq!(summary["label"], "contacts tagged quote");
    assert_eq!(summary["matched"], 4);
    assert_eq!(summary["reachable"], 3);
    assert_eq!(summary["left_out"], json!([["opted out", 1]]));
    assert_eq!(summary["overlaps"], json!([]));

    // Three texts filled in, as they will go.
    let samples: Vec<Value> = app
        .ok_as(
            &org.client,
            "/api/campaigns/preview",
            json!({"audience": tagged("quote"), "body": BODY}),
        )
        .await;
    assert_eq!(samples.len(), 3);
    let mut texts: Vec<&str> = samples
        .iter()
        .map(|s| s["text"].as_str().unwrap())
        .collect();
    texts.sort();
    assert_eq!(
        texts,
        [
            "Hi Alan, Campaign Co opens this Saturday 9-1.",
            "Hi Katherine, Campaign Co opens this Saturday 9-1.",
            "Hi Linus, Campaign Co opens this Saturday 9-1.",
        ]
    );

    // Bad input: a clear refusal, and nothing made.
    for (body, says) in [
        ("   ", "Write the text first"),
        ("Hi {{contact.first_name", "not closed"),
        (
            "Your size: {{contact.shoe_size}}",
            "None of the contacts tagged quote can be texted",
        ),
    ] {
        let (status, v) = create(
            &app,
            org,
            json!({"audience": tagged("quote"), "body": body}),
        )
        .await;
        assert_eq!(status, 400, "{body}: {v}");
        assert!(v.to_string().contains(says), "{body}: {v}");
    }
    let past = (test_daytime() - chrono::Duration::hours(2)).naive_utc();
    let (status, v) = create(
        &app,
        org,
        json!({"audience": tagged("quote"), "body": BODY, "send_at_local": past}),
    )
    .await;
    assert_eq!(status, 400, "{v}");
    assert!(v.to_string().contains("That time has passed"), "{v}");
    assert_eq!(app.count("assistant_operation").await, 0);

    // A member writes it: it waits for an owner, who is told.
    let member = app.add_member(org, "Mo").await;
    let (status, op) = create(
        &app,
        &member,
        json!({"audience": tagged("quote"), "body": BODY}),
    )
    .await;
    assert_eq!(status, 200, "{op}");
    let notes: Value = app
        .ok_as(&org.client, "/api/notifications", json!({}))
        .await;
    let note = notes["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["title"] == "A campaign waits for your approval")
        .cloned()
        .expect("the owner is told");
    assert_eq!(
        note["link"],
        format!("/operations/{}", op.as_str().unwrap())
    );
    let (status, _) = app
        .call_as(
            &member.client,
            "/api/operations/approve",
            app.approve_body(&member.client, &op).await,
        )
        .await;
    assert_eq!(status.as_u16(), 403, "an owner approves");

    // The review sheet: each contact's words filled in, Boris skipped, and editable per contact.
    let s = sheet(&app, org, &op).await;
    assert_eq!(s["operation"]["status"], "awaiting_approval");
    let items = s["items"].as_array().unwrap();
    assert_eq!(items.len(), 4);
    let boris = items
        .iter()
        .find(|i| i["contact_id"] == c.boris.to_string())
        .unwrap();
    assert_eq!(boris["status"], "skipped");
    assert_eq!(boris["skip_reason"], "opted out");
    let kat = items
        .iter()
        .find(|i| i["contact_id"] == c.katherine.to_string())
        .unwrap();
    assert_eq!(
        kat["draft"],
        "Hi Katherine, Campaign Co opens this Saturday 9-1."
    );
    edit_item(&app, org, &kat["id"], "Katherine, we open Saturday 9-1!").await;
    // A person's own words are never rewritten by a model.
    assert_eq!(s["operation"]["written"], true);
    let (status, v) = app
        .call_as(
            &org.client,
            "/api/operations/items/regenerate",
            json!({"item_id": kat["id"]}),
        )
        .await;
    assert_eq!(status.as_u16(), 400, "{v}");
    assert!(v.to_string().contains("own words"), "{v}");

    approve_and_settle(&app, org, &op).await;
    let done = eventually(20, "the campaign sent", || async {
        let s = sheet(&app, org, &op).await;
        (s["operation"]["status"] == "done").then_some(s)
    })
    .await;
    assert_eq!(done["operation"]["sent"], 3);
    assert_eq!(
        sent_bodies(&outbox).await,
        [
            "Hi Alan, Campaign Co opens this Saturday 9-1.",
            "Hi Linus, Campaign Co opens this Saturday 9-1.",
            "Katherine, we open Saturday 9-1!",
        ]
    );
    let notes: Value = app
        .ok_as(&org.client, "/api/notifications", json!({}))
        .await;
    assert!(
        notes["items"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|n| n["title"] == "A campaign waits for your approval")
            .all(|n| n["read"] == true),
        "approving resolves the notice: {notes}"
    );

    // A second campaign to an overlapping group is told before it can be approved.
    let summary: Value = app
        .ok_as(
            &org.client,
            "/api/campaigns/audience",
            json!({"audience": tagged("lead"), "send_at_local": null}),
        )
        .await;
    let overlaps = summary["overlaps"].as_array().unwrap();
    assert_eq!(overlaps.len(), 1, "{summary}");
    assert_eq!(
        overlaps[0],
        "3 of these contacts are in 'Hi there, [org.name] opens this Saturday…', sent today 16:00"
    );

    // Scheduled for tomorrow 10:00 at the business (UTC here): sent no earlier, and no earlier
    // than each contact's morning (these are in California, where 10:00 UTC is 03:00).
    let tomorrow = (test_daytime() + chrono::Duration::days(1))
        .date_naive()
        .and_hms_opt(10, 0, 0)
        .unwrap();
    let (status, op2) = create(
        &app,
        org,
        json!({"audience": tagged("lead"), "body": "Reminder: open Saturday.", "send_at_local": tomorrow}),
    )
    .await;
    assert_eq!(status, 200, "{op2}");
    let s2 = sheet(&app, org, &op2).await;
    assert_eq!(s2["schedule"], "Sends tomorrow 10:00 (UTC), once approved.");
    assert_eq!(
        s2["overlaps"][0],
        "3 of these contacts are in 'Hi there, [org.name] opens this Saturday…', sent today 16:00"
    );
    approve_and_settle(&app, org, &op2).await;
    eventually(20, "the scheduled campaign sent", || async {
        let s = sheet(&app, org, &op2).await;
        (s["operation"]["status"] == "done").then_some(())
    })
    .await;
    let la: chrono_tz::Tz = "America/Los_Angeles".parse().unwrap();
    let id = op2.as_str().unwrap().parse().unwrap();
    let items = herald::campaign::create::items_of(&app.state, id)
        .await
        .unwrap();
    let when: Vec<chrono::NaiveDateTime> = items
        .iter()
        .filter_map(|i| i.sent_at)
        .map(|at| at.with_timezone(&la).naive_local())
        .collect();
    assert_eq!(when.len(), 3, "Boris, opted out, is skipped");
    let due = tomorrow.and_utc().with_timezone(&la).naive_local();
    for at in when {
        assert!(at >= due, "{at} before {due}");
        assert!(
            at.time() >= chrono::NaiveTime::from_hms_opt(8, 0, 0).unwrap(),
            "{at} in the contact's quiet hours"
        );
    }
}

on_both_databases!(a_written_campaign_goes_from_a_tag_to_sent_texts);

/// At size: the audience's counts equal a hand count in SQL, and a segment picked on Contacts is
/// the same audience.
async fn counts_are_exact_on_a_large_organisation(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let org = app.new_org("Large Co").await;
    let number = app.add_number(&org, "+14155550100").await;
    let spec = herald::server::seed_scale::ScaleSpec {
        contacts: 5_000,
        messages_each: 0,
        now: test_daytime(),
        unread_every: 0,
        vip_every: 7,
    };
    herald::server::seed_scale::seed(&app.state.db, org.org_id, number, &spec)
        .await
        .unwrap();
    // Every 7th seeded contact is a vip, counted by hand.
    let vips = (0..5_000).filter(|i| i % 7 == 0).count() as u64;
    let segment: Value = app
        .ok_as(
            &org.client,
            "/api/segments/save",
            json!({"name": "VIPs", "filter": {"tags_any": ["vip"]}}),
        )
        .await;
    let by_segment: Value = app
        .ok_as(
            &org.client,
            "/api/campaigns/audience",
            json!({"audience": {"kind": "segment", "id": segment["id"]}, "send_at_local": null}),
        )
        .await;
    assert_eq!(by_segment["matched"], vips);
    assert_eq!(
        by_segment["reachable"], vips,
        "seeded with consent: {by_segment}"
    );
    assert_eq!(by_segment["label"], "contacts in the segment 'VIPs'");
    let by_tag: Value = app
        .ok_as(
            &org.client,
            "/api/campaigns/audience",
            json!({"audience": tagged("vip"), "send_at_local": null}),
        )
        .await;
    assert_eq!(by_tag["matched"], by_segment["matched"]);
    let everyone: Value = app
        .ok_as(
            &org.client,
            "/api/campaigns/audience",
            json!({"audience": {"kind": "filter", "filter": {}}, "send_at_local": null}),
        )
        .await;
    assert_eq!(everyone["matched"], 5_000);
    assert_eq!(everyone["label"], "contacts");
    let (status, op) = create(&app, &org, json!({"audience": tagged("vip"), "body": BODY})).await;
    assert_eq!(status, 200, "{op}");
    let s: Value = app
        .ok_as(&org.client, "/api/operations/sheet", json!({"id": op}))
        .await;
    assert_eq!(s["total_items"], vips);
    assert_eq!(s["operation"]["total"], vips);
}

on_both_databases!(counts_are_exact_on_a_large_organisation);
