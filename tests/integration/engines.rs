//! Engines that keep going: the draft and send engines and the plan executor hit transient
//! database errors (injected) and carry on after a backoff; a plan whose execution fails for
//! good records why and is not run again at the next start.
use crate::campaign_support::*;
use crate::helpers::*;
use crate::on_both_databases;
use herald::platform::faults::{DRAFT_LOOP, PLAN_EXECUTE, SEND_LOOP};
use herald::platform::sms::outbox::OutboxTransport;
use serde_json::{json, Value};
use std::sync::Arc;

async fn transient_errors_do_not_stop_the_engines(backend: Backend) {
    let outbox = Arc::new(OutboxTransport::default());
    let Some(app) = spawn_app_sending_to(backend, outbox.clone()).await else {
        return;
    };
    let c = crm(&app).await;
    app.state.faults.arm(PLAN_EXECUTE, 2);
    app.state.faults.arm(DRAFT_LOOP, 3);
    app.state.faults.arm(SEND_LOOP, 3);
    let agent = assistant_agent(&app, c.org.org_id).await;
    let plan = campaign_plan(
        &app,
        &agent,
        &include_all(&[c.katherine, c.linus]),
        "Hiccups",
    )
    .await;
    let _: Value = app
        .ok_as(&c.org.client, "/api/plans/approve", json!({"id": plan.id}))
        .await;
    app.settle().await;
    let p: Value = app
        .ok_as(&c.org.client, "/api/plans/get", json!({"id": plan.id}))
        .await;
    assert_eq!(
        p["status"], "executing",
        "the executor retried, and the plan waits on its campaign: {p}"
    );
    let op = p["executed_ref"].clone();
    let s = sheet(&app, &c.org, &op).await;
    assert_eq!(
        s["operation"]["status"], "awaiting_approval",
        "drafted after 3 failures"
    );
    let _: Value = app
        .ok_as(
            &c.org.client,
            "/api/operations/approve",
            app.approve_body(&c.org.client, &json!(op)).await,
        )
        .await;
    app.settle().await;
    let s = sheet(&app, &c.org, &op).await;
    assert_eq!(
        s["operation"]["status"], "done",
        "sent after 3 failures: {s}"
    );
    assert_eq!(outbox.sent().len(), 2);
    let p: Value = app
        .ok_as(&c.org.client, "/api/plans/get", json!({"id": plan.id}))
        .await;
    assert_eq!(p["status"], "done", "ended with its campaign: {p}");
    for point in [PLAN_EXECUTE, DRAFT_LOOP, SEND_LOOP] {
        assert!(app.state.faults.check(point).is_ok(), "{point} was used up");
    }
}

async fn a_failed_plan_is_not_run_again(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    // An organisation with no number: its campaign cannot be executed.
    let org = app.new_org("No Numbers").await;
    let ada = app.add_contact(&org, "Ada", "+14155552671").await;
    let agent = assistant_agent(&app, org.org_id).await;
    let plan = campaign_plan(&app, &agent, &include_all(&[ada]), "Nowhere").await;
    let _: Value = app
        .ok_as(&org.client, "/api/plans/approve", json!({"id": plan.id}))
        .await;
    app.settle().await;
    let p: Value = app
        .ok_as(&org.client, "/api/plans/get", json!({"id": plan.id}))
        .await;
    assert_eq!(p["status"], "failed");
    assert!(
        p["error"].as_str().unwrap().contains("no phone number"),
        "{p}"
    );
    // A restart looks for work: a failed plan is not work.
    let resumed = herald::plans::executor::resume_pending(&app.state)
        .await
        .unwrap();
    assert_eq!(resumed, 0);
}

on_both_databases!(
    transient_errors_do_not_stop_the_engines,
    a_failed_plan_is_not_run_again,
);
