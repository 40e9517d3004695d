//! A plan that starts a campaign is done only when the campaign ends (issue 29 §2): until then it
//! is executing, nobody holds it and the sweeper leaves it alone; its thread hears the drafting,
//! the review and the sending with their figures; a cancelled campaign stops its plan; and a
//! campaign that ended while no instance was there to tell its plan is settled by the sweep.
use crate::campaign_support::*;
use crate::helpers::*;
use crate::on_both_databases;
use crate::step_plan_support::*;
use herald::plans::model::{ApprovalPolicy, StepMode};
use serde_json::{json, Value};

on_both_databases!(a_campaign_plan_ends_with_its_campaign);

/// Presents, approves and confirms a plan that finds the quote leads and starts a campaign to
/// them; answers the plan once its campaign step has run, and the campaign's id.
pub(crate) async fn started(app: &TestApp, c: &Crm, thread: uuid::Uuid) -> (uuid::Uuid, Value) {
    let plan = present_with(
        app,
        c.org.org_id,
        Some(thread),
        ApprovalPolicy::HumanReview,
        StepMode::Eager,
        vec![
            step("find", "find_contacts", json!({"tag": "quote"})),
            step(
                "campaign",
                "start_campaign",
                json!({"contacts": "{{find.result.contacts}}", "message_concept": "Checking in on your quote"}),
            ),
        ],
    )
    .await
    .unwrap();
    let _: Value = app
        .ok_as(&c.org.client, "/api/plans/approve", json!({"id": plan.id}))
        .await;
    let p = until(app, &c.org, plan.id, |p| {
        status_of(p, "campaign") == "awaiting_confirmation"
    })
    .await;
    let (s, r) = decide(
        app,
        &c.org,
        plan.id,
        json!({"kind": "confirm", "step": "campaign", "arguments_hash": hash_of(&p, "campaign")}),
    )
    .await;
    assert_eq!(s, 200, "{r}");
    let p = until(app, &c.org, plan.id, |p| p["executed_ref"].is_string()).await;
    (plan.id, p["executed_ref"].clone())
}

async fn a_campaign_plan_ends_with_its_campaign(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let c = crm(&app).await;
    let thread = assistant_thread(&app, &c.org).await;
    let (plan_id, op) = started(&app, &c, thread).await;
    app.settle().await;
    // Drafted and waiting for review: the plan is not done, and nobody holds it.
    let p = get(&app, &c.org, plan_id).await;
    assert_eq!(p["status"], "executing", "{p}");
    assert_eq!(status_of(&p, "campaign"), "completed");
    let row = herald::plans::service::find_in_org(&app.state.db, c.org.org_id, plan_id)
        .await
        .unwrap();
    assert!(row.paused_at.is_some() && row.lease_owner.is_none());
    assert_eq!(
        herald::plans::executor::resume_pending(&app.state)
            .await
            .unwrap(),
        0,
        "the sweeper leaves a plan waiting on its campaign"
    );
    let notes = thread_notes(&app, &c.org).await;
    assert!(
        !notes.iter().any(|n| n.contains("is done")),
        "not done before it sent anything: {notes:?}"
    );
    assert!(
        notes
            .iter()
            .any(|n| n.contains("started its campaign: drafting 4 text(s)")),
        "{notes:?}"
    );
    assert!(
        notes
            .iter()
            .any(|n| n.contains("drafted 3 text(s) and left 1 out (1 ")),
        "{notes:?}"
    );
    // Approved by the owner: the thread hears it, then the outcome with its figures.
    let _: Value = app
        .ok_as(
            &c.org.client,
            "/api/operations/approve",
            app.approve_body(&c.org.client, &op).await,
        )
        .await;
    let p = until(&app, &c.org, plan_id, |p| p["status"] == "done").await;
    assert_eq!(p["executed_ref"], op);
    app.settle().await;
    let notes = thread_notes(&app, &c.org).await;
    assert!(
        notes.iter().any(|n| n.contains("approved the 3 draft(s)")),
        "{notes:?}"
    );
    assert!(
        notes
            .iter()
            .any(|n| n.contains("is done: its campaign 3 of 4 sent, 1 left out")),
        "{notes:?}"
    );
    assert_eq!(
        notes.iter().filter(|n| n.contains("is done")).count(),
        1,
        "told once: {notes:?}"
    );

    // A cancelled campaign stops its plan, and says so.
    let (plan_id, op) = started(&app, &c, thread).await;
    app.settle().await;
    let _: Value = app
        .ok_as(&c.org.client, "/api/operations/cancel", json!({"id": op}))
        .await;
    let p = until(&app, &c.org, plan_id, |p| p["status"] == "stopped").await;
    assert_eq!(p["executed_ref"], op);
    app.settle().await;
    assert!(
        thread_notes(&app, &c.org)
            .await
            .iter()
            .any(|n| n.contains("was cancelled, so the plan stopped")),
        "{:?}",
        thread_notes(&app, &c.org).await
    );

    // A campaign that ended while nobody told its plan (a crash between the two) is settled by
    // the sweep.
    let (plan_id, op) = started(&app, &c, thread).await;
    app.settle().await;
    {
        use herald::campaign::entity::operation;
        use sea_orm::{sea_query::Expr, ColumnTrait, EntityTrait, QueryFilter};
        operation::Entity::update_many()
            .col_expr(operation::Column::Status, Expr::value("done"))
            .filter(operation::Column::Id.eq(op.as_str().unwrap().parse::<uuid::Uuid>().unwrap()))
            .exec(&app.state.db)
            .await
            .unwrap();
    }
    // (The server's own sweep may get there first: it runs the same settling.)
    let settled = herald::plans::campaign_outcome::settle(&app.state)
        .await
        .unwrap();
    assert!(settled <= 1, "only this plan waits on an ended campaign");
    assert_eq!(get(&app, &c.org, plan_id).await["status"], "done");
    assert_eq!(
        herald::plans::campaign_outcome::settle(&app.state)
            .await
            .unwrap(),
        0,
        "once"
    );
}
