//! A follow-up text for later as a plan's step (issue 11 §2): scheduled once however often the
//! step runs, sent once when due through the send ledger (a sweep, or a process that died mid-
//! send, never sends twice), held to the recipient's daytime hours, refused if they opted out
//! meanwhile, and cancellable from the conversation until it goes.
use crate::campaign_support::*;
use crate::helpers::*;
use crate::on_both_databases;
use crate::step_plan_support::*;
use herald::messaging::scheduled::{entity as scheduled, send_due};
use sea_orm::{sea_query::Expr, ColumnTrait, EntityTrait, QueryFilter};
use serde_json::{json, Value};

/// Makes a scheduled text due now (or sets it `sending`, as a process that died left it).
pub(crate) async fn due(app: &TestApp, id: uuid::Uuid, status: &str) {
    let past = app.state.clock.now() - chrono::Duration::minutes(5);
    scheduled::Entity::update_many()
        .col_expr(scheduled::Column::SendAt, Expr::value(past))
        .col_expr(scheduled::Column::UpdatedAt, Expr::value(past))
        .col_expr(scheduled::Column::Status, Expr::value(status))
        .filter(scheduled::Column::Id.eq(id))
        .exec(&app.state.db)
        .await
        .unwrap();
}

pub(crate) async fn list(app: &TestApp, org: &Org, contact: uuid::Uuid) -> Vec<Value> {
    app.ok_as(
        &org.client,
        "/api/scheduled/list",
        json!({"contact_id": contact}),
    )
    .await
}

async fn a_plan_schedules_a_text_that_goes_once_when_due(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let c = crm(&app).await;
    let later = |who: uuid::Uuid, id: &str| {
        step(
            id,
            "schedule_text",
            json!({"contact_id": who, "body": "Any questions about the quote?", "in_hours": 48}),
        )
    };
    let plan = present(
        &app,
        c.org.org_id,
        vec![later(c.katherine, "kat"), later(c.linus, "linus")],
    )
    .await
    .unwrap();
    let sim: Value = app
        .ok_as(&c.org.client, "/api/plans/simulate", json!({"id": plan.id}))
        .await;
    assert!(
        sim["steps"][0]["effect"]
            .as_str()
            .unwrap()
            .starts_with("Would schedule the text for"),
        "{sim}"
    );
    assert_eq!(
        app.count("scheduled_text").await,
        0,
        "the dry run scheduled nothing"
    );
    let _: Value = app
        .ok_as(&c.org.client, "/api/plans/approve", json!({"id": plan.id}))
        .await;
    until(&app, &c.org, plan.id, |p| {
        status_of(p, "kat") == "awaiting_confirmation"
    })
    .await;
    // The owner's Assistant plan is the owner's: another member cannot even see it (the role
    // check on a member's own plan is in `access`).
    let member = app.add_member(&c.org, "Mo").await;
    let (status, _) = decide(&app, &member, plan.id, json!({"kind": "confirm_all"})).await;
    assert_eq!(status, 404);
    let (status, reply) = decide(&app, &c.org, plan.id, json!({"kind": "confirm_all"})).await;
    assert_eq!(status, 200, "{reply}");
    let done = until(&app, &c.org, plan.id, |p| p["status"] == "done").await;
    let kat_id: uuid::Uuid = done["action"]["steps"][0]["result"]["scheduled_id"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    let shown = list(&app, &c.org, c.katherine).await;
    assert_eq!(shown.len(), 1);
    assert_eq!(shown[0]["status"], "scheduled");
    let outbound = || app.count_where("message", "direction = 'outbound'");
    assert_eq!(outbound().await, 0, "nothing goes before its time");
    assert_eq!(send_due(&app.state).await.unwrap(), 0);
    // Due: sent once, and a second sweep sends nothing.
    due(&app, kat_id, "scheduled").await;
    assert_eq!(send_due(&app.state).await.unwrap(), 1);
    assert_eq!(send_due(&app.state).await.unwrap(), 0);
    assert_eq!(outbound().await, 1);
    assert_eq!(list(&app, &c.org, c.katherine).await[0]["status"], "sent");
    // A process that died mid-send left it `sending`: sent again under the same key, not twice.
    due(&app, kat_id, "sending").await;
    assert_eq!(send_due(&app.state).await.unwrap(), 1);
    assert_eq!(outbound().await, 1, "the ledger's key kept it to one text");
    // Linus opts out before his text is due: it is refused, not sent.
    let _: Value = app
        .ok_as(
            &c.org.client,
            "/api/contacts/opt_out",
            json!({"id": c.linus, "opted_out": true}),
        )
        .await;
    let linus = list(&app, &c.org, c.linus).await;
    let linus_id: uuid::Uuid = linus[0]["id"].as_str().unwrap().parse().unwrap();
    due(&app, linus_id, "scheduled").await;
    send_due(&app.state).await.unwrap();
    let linus = list(&app, &c.org, c.linus).await;
    assert_eq!(linus[0]["status"], "failed");
    assert!(linus[0]["error"].as_str().unwrap().contains("opted out"));
    assert_eq!(outbound().await, 1);
}

async fn a_scheduled_text_waits_for_daytime_and_can_be_cancelled(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let c = crm(&app).await;
    // 16:00 UTC is 01:00 in Tokyo.
    let yuki = yuki_in_tokyo(&app, &c.org, &[]).await;
    let number = app.add_number(&c.org, "+14155550111").await;
    let at = app.state.clock.now() + chrono::Duration::hours(2);
    let s = |who: uuid::Uuid| {
        herald::messaging::scheduled::schedule(
            &app.state,
            uuid::Uuid::new_v4(),
            c.org.org_id,
            who,
            number,
            "Good morning!",
            at,
            None,
            None,
        )
    };
    let for_yuki = s(yuki).await.unwrap();
    due(&app, for_yuki.id, "scheduled").await;
    assert_eq!(send_due(&app.state).await.unwrap(), 1);
    let held = &list(&app, &c.org, yuki).await[0];
    assert_eq!(held["status"], "scheduled", "held, not sent: {held}");
    let send_at: chrono::DateTime<chrono::Utc> =
        serde_json::from_value(held["send_at"].clone()).unwrap();
    let tokyo: chrono_tz::Tz = "Asia/Tokyo".parse().unwrap();
    assert_eq!(
        send_at.with_timezone(&tokyo).format("%H:%M").to_string(),
        "08:00",
        "held until her morning"
    );
    assert_eq!(
        app.count_where("message", "direction = 'outbound'").await,
        0
    );
    // Cancelled from the conversation: it never goes, and a second cancel says why not.
    let (status, v) = app
        .call_as(
            &c.org.client,
            "/api/scheduled/cancel",
            json!({"id": for_yuki.id}),
        )
        .await;
    assert_eq!(status.as_u16(), 200, "{v}");
    assert_eq!(v["status"], "canceled");
    due(&app, for_yuki.id, "canceled").await;
    assert_eq!(send_due(&app.state).await.unwrap(), 0);
    let (status, v) = app
        .call_as(
            &c.org.client,
            "/api/scheduled/cancel",
            json!({"id": for_yuki.id}),
        )
        .await;
    assert_eq!(status.as_u16(), 409, "{v}");
    // Scheduling checks what a send checks: an opted-out contact is refused at once.
    let err = s(c.boris).await.unwrap_err();
    assert!(err.to_string().contains("opted out"), "{err}");
}

on_both_databases!(
    a_plan_schedules_a_text_that_goes_once_when_due,
    a_scheduled_text_waits_for_daytime_and_can_be_cancelled,
);
