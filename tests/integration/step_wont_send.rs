//! A step plan's text that the send check would refuse at any hour (issue 51 §3) is said so on
//! the plan as it is presented ("opted out", "no consent on record"), left out of its estimate,
//! and still refused when it runs; a text that may go is Ready and counted.
use crate::campaign_support::*;
use crate::helpers::*;
use crate::on_both_databases;
use herald::plans::model::{PlanAction, SEND_TOOL};
use herald::steps::model::{PlanStep, StepMode};
use serde_json::{json, Value};

async fn texts_that_will_not_be_sent_are_said_so(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let c = crm(&app).await;
    let agent = assistant_agent(&app, c.org.org_id).await;
    let numbers: Value = app.ok_as(&c.org.client, "/api/numbers", Value::Null).await;
    let number = numbers[0]["id"].clone();
    let nora: Value = app
        .ok_as(
            &c.org.client,
            "/api/contacts/create",
            json!({"input": {"name": "Nora Quiet", "phone": "+14155552681", "email": "", "tags": []}}),
        )
        .await;
    let nora: uuid::Uuid = nora["id"].as_str().unwrap().parse().unwrap();
    let text = |id: &str, to: uuid::Uuid| {
        PlanStep::new(
            id,
            &format!("Text {id}"),
            SEND_TOOL,
            json!({"contact_id": to, "phone_number_id": number, "body": "Hi, see you Saturday."}),
        )
    };
    let plan = herald::plans::service::present_plan(
        &app.state,
        &agent,
        herald::plans::service::Presented {
            thread_id: None,
            title: "Saturday texts",
            summary: "Three texts",
            action: PlanAction::Steps {
                mode: StepMode::Eager,
                steps: vec![
                    text("kat", c.katherine),
                    text("boris", c.boris),
                    text("nora", nora),
                ],
            },
            policy_override: None,
            source_key: None,
            revises: None,
        },
    )
    .await
    .unwrap();
    let v: Value = app
        .ok_as(&c.org.client, "/api/plans/get", json!({"id": plan.id}))
        .await;
    let why = |i: usize| v["step_views"][i]["wont_send"].clone();
    assert_eq!(why(0), Value::Null, "Katherine consented: {v}");
    assert_eq!(why(1), "opted out");
    assert_eq!(why(2), "no consent on record");
    assert_eq!(
        v["estimated_cost"]["texts"], 1,
        "only Katherine's text counts: {v}"
    );
    assert_eq!(v["estimated_cost"]["segments"], 1);
    // Named by a step that has run: once the find has, Boris's text says so too.
    let find = PlanStep::new(
        "find",
        "Find Boris",
        "find_contacts",
        json!({"opted_out": true}),
    );
    let mut to_found = text("found", c.boris);
    to_found.arguments["contact_id"] = json!("{{find.result.contacts[0].id}}");
    let found = crate::step_plan_support::present(&app, c.org.org_id, vec![find, to_found])
        .await
        .unwrap();
    let before: Value = app
        .ok_as(&c.org.client, "/api/plans/get", json!({"id": found.id}))
        .await;
    assert_eq!(
        before["step_views"][1]["wont_send"],
        Value::Null,
        "not known before the find"
    );
    let _: Value = app
        .ok_as(&c.org.client, "/api/plans/approve", json!({"id": found.id}))
        .await;
    crate::step_plan_support::until(&app, &c.org, found.id, |p| {
        crate::step_plan_support::status_of(p, "found") == "awaiting_confirmation"
    })
    .await;
    let after: Value = app
        .ok_as(&c.org.client, "/api/plans/get", json!({"id": found.id}))
        .await;
    assert_eq!(after["step_views"][1]["wont_send"], "opted out", "{after}");
    // Another organisation's plans list says nothing of these contacts.
    let other = app.new_org("Other Co").await;
    let (status, _) = app
        .call_as(&other.client, "/api/plans/get", json!({"id": plan.id}))
        .await;
    assert_eq!(status.as_u16(), 404);
}

on_both_databases!(texts_that_will_not_be_sent_are_said_so);
