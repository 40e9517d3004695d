//! Sender profiles (issue 30 §2): owners keep them on Settings → Sending and put numbers under
//! them, scoped to their organisation; each kind paces at its rate across two instances on one
//! database (measured within 10 %); and a 10DLC brand's daily cap rolls over at midnight
//! Pacific on an injected clock, the texts over it going at 08:00 in the recipient's zone, as
//! the campaign card's estimate said before approval; a conversation's texts count against the
//! day without waiting for it.
use crate::campaign_engine::new_york_campaign;
use crate::campaign_support::{approve_and_settle, january, sent_local};
use crate::helpers::*;
use crate::on_both_databases;
use herald::sender_profiles::pacing::{reserve, Slot};
use herald::sender_profiles::service;
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

on_both_databases!(
    owners_keep_sender_profiles,
    each_kind_paces_at_its_rate_across_two_instances,
    the_daily_cap_rolls_over_at_midnight_pacific,
    conversations_count_against_the_daily_cap,
);

fn profile_form<'a>(
    id: &'a str,
    name: &'a str,
    kind: &'a str,
    rate: &'a str,
    unit: &'a str,
    cap: &'a str,
) -> [(&'static str, &'a str); 6] {
    [
        ("id", id),
        ("name", name),
        ("kind", kind),
        ("rate", rate),
        ("rate_unit", unit),
        ("daily_cap", cap),
    ]
}

/// Adds a profile through the page's form as `org`'s owner; answers its id.
async fn add_profile(
    app: &TestApp,
    org: &Org,
    name: &str,
    kind: &str,
    rate: &str,
    unit: &str,
    cap: &str,
) -> uuid::Uuid {
    let res = org
        .client
        .post(app.url("/settings/sending/profiles"))
        .form(&profile_form("", name, kind, rate, unit, cap))
        .send()
        .await
        .unwrap();
    assert_eq!(
        res.status(),
        StatusCode::OK,
        "{}",
        res.text().await.unwrap()
    );
    service::list(&app.state, org.org_id)
        .await
        .unwrap()
        .into_iter()
        .find(|p| p.name == name)
        .expect("saved")
        .id
}

async fn put_number(
    app: &TestApp,
    org: &Org,
    number: uuid::Uuid,
    profile: &str,
) -> reqwest::Response {
    org.client
        .post(app.url("/settings/sending/numbers"))
        .form(&[
            ("number_id", number.to_string().as_str()),
            ("profile_id", profile),
        ])
        .send()
        .await
        .unwrap()
}

async fn profile_of(app: &TestApp, number: uuid::Uuid) -> Option<uuid::Uuid> {
    use sea_orm::EntityTrait;
    herald::phone_numbers::entity::Entity::find_by_id(number)
        .one(&app.state.db)
        .await
        .unwrap()
        .unwrap()
        .sender_profile_id
}

async fn owners_keep_sender_profiles(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let owner = app.new_org("Bright Smiles").await;
    let number = app.add_number(&owner, "+14155550100").await;
    let dana = app.add_member(&owner, "Dana").await;
    let post = |c: &reqwest::Client, form: [(&'static str, &'static str); 6]| {
        c.post(app.url("/settings/sending/profiles"))
            .form(&form)
            .send()
    };
    let html = app.page_text(&owner.client, "/settings/sending").await;
    assert!(
        html.contains("No sender profiles yet.") && html.contains("texts a second, on its own"),
        "{html}"
    );
    // Bad input: why, and the form as typed.
    let res = post(
        &owner.client,
        profile_form("", "Spring promos", "10dlc", "lots", "minute", "2000"),
    )
    .await
    .unwrap();
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    let html = res.text().await.unwrap();
    assert!(
        html.contains("is not a whole number of texts")
            && html.contains("value=\"lots\"")
            && html.contains("value=\"Spring promos\""),
        "{html}"
    );
    let res = post(
        &owner.client,
        profile_form("", "TF", "toll_free", "3", "second", "500"),
    )
    .await
    .unwrap();
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    // A member reads, and is refused a change before the form is read.
    let res = post(
        &dana.client,
        profile_form("", "Spring promos", "10dlc", "4500", "minute", "2000"),
    )
    .await
    .unwrap();
    assert_eq!(res.status(), StatusCode::FORBIDDEN);
    assert!(service::list(&app.state, owner.org_id)
        .await
        .unwrap()
        .is_empty());

    let spring = add_profile(
        &app,
        &owner,
        "Spring promos",
        "10dlc",
        "4,500",
        "minute",
        "2000",
    )
    .await;
    let html = app.page_text(&owner.client, "/settings/sending").await;
    assert!(
        html.contains("4,500 texts a minute") && html.contains("0 of 2,000"),
        "{html}"
    );
    let same = post(
        &owner.client,
        profile_form("", "Spring promos", "short_code", "", "second", ""),
    )
    .await
    .unwrap();
    assert_eq!(same.status(), StatusCode::BAD_REQUEST);
    assert!(same
        .text()
        .await
        .unwrap()
        .contains("already a profile named"));

    // Numbers move under it, and back.
    assert_eq!(
        put_number(&app, &dana, number, &spring.to_string())
            .await
            .status(),
        StatusCode::FORBIDDEN
    );
    assert_eq!(
        put_number(&app, &owner, number, &spring.to_string())
            .await
            .status(),
        StatusCode::OK
    );
    assert_eq!(profile_of(&app, number).await, Some(spring));
    let html = app.page_text(&dana.client, "/settings/sending").await;
    assert!(html.contains("Only an owner changes these."), "{html}");

    // Another organisation reaches neither the profile nor the number.
    let other = app.new_org("Other Co").await;
    let theirs = app.add_number(&other, "+14155550199").await;
    assert_eq!(
        put_number(&app, &other, theirs, &spring.to_string())
            .await
            .status(),
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        put_number(&app, &other, number, "").await.status(),
        StatusCode::NOT_FOUND
    );
    let spring_id = spring.to_string();
    let res = other
        .client
        .post(app.url("/settings/sending/profiles"))
        .form(&profile_form(
            &spring_id,
            "Mine now",
            "short_code",
            "",
            "second",
            "",
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::NOT_FOUND);
    assert_eq!(profile_of(&app, theirs).await, None);

    // Changed, then removed: its number sends on its own again.
    let id = spring.to_string();
    let res = owner
        .client
        .post(app.url("/settings/sending/profiles"))
        .form(&profile_form(
            &id,
            "Spring promos",
            "10dlc",
            "75",
            "minute",
            "",
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let p = service::find(&app.state, owner.org_id, spring)
        .await
        .unwrap();
    assert_eq!(
        (p.rate, p.rate_unit.as_str(), p.daily_cap),
        (75, "minute", None)
    );
    let res = owner
        .client
        .post(app.url("/settings/sending/profiles/delete"))
        .form(&[("id", id.as_str())])
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(profile_of(&app, number).await, None);
    assert!(service::list(&app.state, owner.org_id)
        .await
        .unwrap()
        .is_empty());
}

/// Each kind's profile, with two numbers, reserved by senders split between two instances at
/// once; each send waits for its slot as the engine does, and the rate measured from the first
/// send to the last is the profile's, within 10 %.
async fn each_kind_paces_at_its_rate_across_two_instances(backend: Backend) {
    let Some(a) = spawn_app(backend).await else {
        return;
    };
    // One clock for both, as one wall clock serves two machines.
    let b = spawn_app_with(
        backend,
        Options {
            database: Some(a.db_url.clone()),
            clock: Some(a.state.clock.clone()),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    let owner = a.new_org("Pace Co").await;
    let kinds = [
        ("unregistered", "2", "second", 2.0_f64, 11),
        ("toll_free", "3", "second", 3.0, 16),
        ("short_code", "100", "second", 100.0, 301),
        ("10dlc", "600", "minute", 10.0, 41),
    ];
    let mut runs = Vec::new();
    for (i, (kind, rate, unit, per_second, n)) in kinds.into_iter().enumerate() {
        let profile = add_profile(&a, &owner, kind, kind, rate, unit, "").await;
        let mut numbers = Vec::new();
        for k in 0..2 {
            let number = a.add_number(&owner, &format!("+1415555{i}{k:02}0")).await;
            assert_eq!(
                put_number(&a, &owner, number, &profile.to_string())
                    .await
                    .status(),
                StatusCode::OK
            );
            numbers.push(number);
        }
        let taken = Arc::new(AtomicUsize::new(0));
        let mut senders = Vec::new();
        // Enough senders to hold a third of a second of slots between them, as the engine's
        // workers do: a loaded machine's slow round trip then never leaves a slot unused.
        let workers = ((per_second / 3.0).ceil() as usize).max(8);
        for (w, state) in (0..workers).map(|w| {
            (
                w,
                if w % 2 == 0 {
                    a.state.clone()
                } else {
                    b.state.clone()
                },
            )
        }) {
            let (taken, numbers) = (taken.clone(), numbers.clone());
            senders.push(tokio::spawn(async move {
                let mut sent = Vec::new();
                while taken.fetch_add(1, Ordering::SeqCst) < n {
                    let number = numbers[(w + sent.len()) % 2];
                    let Slot::At(at) = reserve(&state, number, Duration::from_secs(1))
                        .await
                        .unwrap()
                    else {
                        panic!("no cap was set");
                    };
                    let wait = (at - state.clock.now()).to_std().unwrap_or_default();
                    state.clock.sleep(wait).await;
                    sent.push(state.clock.now());
                }
                (w % 2, sent)
            }));
        }
        runs.push((kind, per_second, n, senders));
    }
    for (kind, per_second, n, senders) in runs {
        let mut times = Vec::new();
        let mut by_instance = [0; 2];
        for s in senders {
            let (instance, sent) = s.await.unwrap();
            by_instance[instance] += sent.len();
            times.extend(sent);
        }
        times.sort();
        assert_eq!(times.len(), n, "{kind}");
        assert!(
            by_instance.iter().all(|k| *k > 0),
            "{kind}: both instances sent: {by_instance:?}"
        );
        let span = (times[n - 1] - times[0]).num_microseconds().unwrap() as f64 / 1e6;
        let measured = (n - 1) as f64 / span;
        println!("{kind}: {measured:.2} texts a second measured, {per_second} set ({n} texts over {span:.2} s)");
        assert!(
            (measured - per_second).abs() <= per_second * 0.10,
            "{kind}: measured {measured:.2}/s, set {per_second}/s"
        );
    }
}

/// A four-text New York campaign awaiting approval at 15:00 New York (12:00 Pacific) on a
/// manual clock, its number under a 10DLC profile at 60 a minute with a daily cap of `cap`.
async fn capped_campaign(
    backend: Backend,
    cap: &str,
) -> Option<(
    TestApp,
    crate::campaign_support::Crm,
    Arc<herald::platform::clock::ManualClock>,
    Arc<herald::platform::sms::outbox::OutboxTransport>,
    Value,
    uuid::Uuid,
    uuid::Uuid,
)> {
    use chrono::TimeZone;
    let ny: chrono_tz::Tz = "America/New_York".parse().unwrap();
    let start = ny
        .with_ymd_and_hms(2026, 1, 15, 15, 0, 0)
        .unwrap()
        .with_timezone(&chrono::Utc);
    let (app, c, clock, outbox, op) = new_york_campaign(backend, start, 4).await?;
    let profile = add_profile(&app, &c.org, "Winter brand", "10dlc", "60", "minute", cap).await;
    let number = {
        use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
        herald::phone_numbers::entity::Entity::find()
            .filter(herald::phone_numbers::entity::Column::OrganizationId.eq(c.org.org_id))
            .one(&app.state.db)
            .await
            .unwrap()
            .unwrap()
            .id
    };
    assert_eq!(
        put_number(&app, &c.org, number, &profile.to_string())
            .await
            .status(),
        StatusCode::OK
    );
    Some((app, c, clock, outbox, op, profile, number))
}

/// A 10DLC profile at 60 a minute with a daily cap of 2, and a four-text New York campaign
/// approved at 15:00 New York (12:00 Pacific) on a manual clock: two go at once, the cap is
/// spent, and the other two wait for midnight Pacific and then for 08:00 in New York.
async fn the_daily_cap_rolls_over_at_midnight_pacific(backend: Backend) {
    let ny: chrono_tz::Tz = "America/New_York".parse().unwrap();
    let Some((app, c, clock, outbox, op, profile, _)) = capped_campaign(backend, "2").await else {
        return;
    };
    // Before approval, the card says when it will finish and that the cap holds it back.
    let card: Value = app
        .ok_as(&c.org.client, "/api/operations/get", json!({"id": op}))
        .await;
    assert_eq!(card["finish"]["held_by"], "daily_cap", "{card}");
    let words = card["finish"]["words"].as_str().unwrap();
    assert!(
        words.contains("Fri 16 Jan") && words.contains("2 texts a Pacific day"),
        "{words}"
    );

    approve_and_settle(&app, &c.org, &json!(op)).await;
    assert_eq!(outbox.sent().len(), 4, "everyone is texted in the end");
    let local = sent_local(&app, &op, ny).await;
    let at = january;
    assert_eq!(
        local,
        vec![
            at(15, 15, 0, 0),
            at(15, 15, 0, 1),
            at(16, 8, 0, 0),
            at(16, 8, 0, 1)
        ],
        "two within the cap, two the next morning in New York"
    );
    let slept = clock.slept.lock().unwrap().clone();
    assert!(
        slept.contains(&Duration::from_secs(12 * 3600 - 1)),
        "waited from 15:00:01 New York for midnight Pacific: {slept:?}"
    );
    assert!(
        slept.contains(&Duration::from_secs(5 * 3600)),
        "then for 08:00 in New York: {slept:?}"
    );
    let p = service::find(&app.state, c.org.org_id, profile)
        .await
        .unwrap();
    assert_eq!(
        (p.cap_day.as_deref(), p.cap_used),
        (Some("2026-01-16"), 2),
        "the new day's count"
    );
}

/// A conversation's texts count against the brand's day and are never held by it: with a cap of
/// 3, two texts a person sends before approval leave one for the campaign today; a person's text
/// once the cap is spent still goes at once.
async fn conversations_count_against_the_daily_cap(backend: Backend) {
    let ny: chrono_tz::Tz = "America/New_York".parse().unwrap();
    let Some((app, c, clock, outbox, op, profile, number)) = capped_campaign(backend, "3").await
    else {
        return;
    };
    let send = |contact: uuid::Uuid, body: &'static str| {
        let client = c.org.client.clone();
        let app = &app;
        async move {
            let sent: Value = app
                .ok_as(&client, "/api/messages/send", json!({"request": {"contact_id": contact, "phone_number_id": number, "body": body}}))
                .await;
            assert_eq!(sent["status"], "sent", "{sent}");
        }
    };
    send(c.katherine, "Your quote is ready").await;
    send(c.linus, "Your quote is ready too").await;
    let used = |app: &TestApp| {
        let (state, org) = (app.state.clone(), c.org.org_id);
        async move {
            let p = service::find(&state, org, profile).await.unwrap();
            (p.cap_day, p.cap_used)
        }
    };
    assert_eq!(used(&app).await, (Some("2026-01-15".into()), 2));
    let card: Value = app
        .ok_as(&c.org.client, "/api/operations/get", json!({"id": op}))
        .await;
    assert_eq!(card["finish"]["held_by"], "daily_cap", "{card}");

    approve_and_settle(&app, &c.org, &json!(op)).await;
    let at = january;
    assert_eq!(
        sent_local(&app, &op, ny).await,
        vec![
            at(15, 15, 0, 0),
            at(16, 8, 0, 0),
            at(16, 8, 0, 1),
            at(16, 8, 0, 2)
        ],
        "one left today after the person's two; three the next morning"
    );
    assert_eq!(outbox.sent().len(), 6);
    assert_eq!(used(&app).await, (Some("2026-01-16".into()), 3));
    // The day's cap is spent: a person's text (at 09:00 in California) still goes at once,
    // and counts.
    clock.advance(chrono::Duration::hours(4));
    send(c.katherine, "Thanks for booking!").await;
    assert_eq!(outbox.sent().len(), 7);
    assert_eq!(used(&app).await, (Some("2026-01-16".into()), 4));
}
