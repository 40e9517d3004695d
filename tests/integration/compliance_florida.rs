//! Issue 25's Florida rules on both databases: texts wait for 8 a.m. and three a day at most.
use crate::compliance_support::*;
use crate::helpers::*;
use crate::on_both_databases;
use herald::compliance::model::Purpose;
use herald::platform::clock::ManualClock;
use herald::platform::sms::outbox::OutboxTransport;
use serde_json::{json, Value};
use std::sync::Arc;

async fn florida_holds_at_eight_and_caps_three_a_day(backend: Backend) {
    use chrono::TimeZone;
    // 20:30 in Miami (EDT, UTC-4): federal hours allow it, Florida's do not.
    let clock = Arc::new(ManualClock::at(
        chrono::Utc.with_ymd_and_hms(2026, 6, 18, 0, 30, 0).unwrap(),
    ));
    let outbox = Arc::new(OutboxTransport::default());
    let Some(app) = spawn_app_with(
        backend,
        Options {
            transport: Some(outbox.clone()),
            clock: Some(clock.clone()),
            ..Default::default()
        },
    )
    .await
    else {
        return;
    };
    let org = app.new_org("Sunshine Co").await;
    let number = app.add_number(&org, "+13055550100").await;
    let flo = app.add_contact(&org, "Flo", "+13055550123").await;
    let v: Value = app
        .ok_as(&org.client, "/api/contacts/get", json!({"id": flo}))
        .await;
    assert!(
        v["inferred_zone"]
            .as_str()
            .unwrap()
            .contains("area code 305"),
        "{v}"
    );
    // A scheduled text due now is held until 08:00 Miami time (12:00 UTC).
    let id = schedule_due(
        &app,
        org.org_id,
        flo,
        number,
        "Your appointment is tomorrow",
    )
    .await;
    herald::messaging::scheduled::send_due(&app.state)
        .await
        .unwrap();
    let row = {
        use sea_orm::EntityTrait;
        herald::messaging::scheduled::entity::Entity::find_by_id(id)
            .one(&app.state.db)
            .await
            .unwrap()
            .unwrap()
    };
    assert_eq!(row.status, "scheduled");
    assert_eq!(
        row.send_at,
        chrono::Utc.with_ymd_and_hms(2026, 6, 18, 12, 0, 0).unwrap()
    );
    // A text sent straight at 20:30 is refused as it leaves.
    let late = herald::messaging::outbound::send(
        &app.state,
        herald::messaging::outbound::Outgoing::new(org.org_id, flo, number, "Late offer")
            .origin(Some("campaign"))
            .keyed(Some(uuid::Uuid::new_v4()))
            .purpose(Purpose::Outreach),
    )
    .await;
    assert!(format!("{late:?}").contains("Florida"), "{late:?}");
    // The next morning: three marketing texts go, the fourth in 24 hours is refused.
    clock.advance(chrono::Duration::hours(14));
    for i in 0..3 {
        herald::messaging::outbound::send(
            &app.state,
            herald::messaging::outbound::Outgoing::new(
                org.org_id,
                flo,
                number,
                &format!("Offer {i}"),
            )
            .origin(Some("campaign"))
            .keyed(Some(uuid::Uuid::new_v4()))
            .purpose(Purpose::Outreach),
        )
        .await
        .unwrap();
    }
    let fourth = herald::messaging::outbound::send(
        &app.state,
        herald::messaging::outbound::Outgoing::new(org.org_id, flo, number, "Offer 4")
            .origin(Some("campaign"))
            .keyed(Some(uuid::Uuid::new_v4()))
            .purpose(Purpose::Outreach),
    )
    .await;
    assert!(
        format!("{fourth:?}").contains("at most 3 marketing texts"),
        "{fourth:?}"
    );
    // A reply in a conversation she started is not marketing.
    assert!(app
        .post_webhook(
            &sms_params(
                "SMflo",
                "+13055550123",
                "+13055550100",
                "What time do you open?"
            ),
            None
        )
        .await
        .status()
        .is_success());
    app.settle().await;
    herald::messaging::outbound::send(
        &app.state,
        herald::messaging::outbound::Outgoing::new(org.org_id, flo, number, "We open at 9.")
            .origin(None),
    )
    .await
    .unwrap();
    assert_eq!(
        outbox
            .sent()
            .iter()
            .filter(|m| m.to == "+13055550123")
            .count(),
        4
    );
}

on_both_databases!(florida_holds_at_eight_and_caps_three_a_day,);
