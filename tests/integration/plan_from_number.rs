//! A campaign plan names its from-number: the authoring agent's assigned number, else the
//! organisation's first; a person changes it before approval to another of the organisation's
//! numbers (never another organisation's), and the campaign sends from it.
use crate::campaign_support::*;
use crate::helpers::*;
use crate::on_both_databases;
use reqwest::StatusCode;
use sea_orm::EntityTrait;
use serde_json::{json, Value};

async fn get(app: &TestApp, org: &Org, id: uuid::Uuid) -> Value {
    app.ok_as(&org.client, "/api/plans/get", json!({"id": id}))
        .await
}

async fn assign(app: &TestApp, org: &Org, agent: uuid::Uuid, numbers: Value) {
    let _: Value = app
        .ok_as(
            &org.client,
            "/api/agents/assign_numbers",
            json!({"id": agent, "number_ids": numbers}),
        )
        .await;
}

async fn campaigns_send_from_the_plans_number(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let c = crm(&app).await; // its first number: +14155550100
    let second = app.add_number(&c.org, "+14155550101").await;
    let agent = assistant_agent(&app, c.org.org_id).await;
    let audience = include_all(&[c.katherine, c.linus]);

    // The agent's assigned number first.
    assign(&app, &c.org, agent.id, json!([second])).await;
    let assigned = campaign_plan(&app, &agent, &audience, "Assigned").await;
    assert_eq!(
        get(&app, &c.org, assigned.id).await["from_number"],
        "Main (+14155550101)",
        "by its label"
    );
    // With none assigned, the organisation's first.
    assign(&app, &c.org, agent.id, json!([])).await;
    let plan = campaign_plan(&app, &agent, &audience, "Default").await;
    let v = get(&app, &c.org, plan.id).await;
    assert_eq!(v["from_number"], "Main (+14155550100)");

    // Another organisation's number is refused, and nothing changes.
    let bravo = app.new_org("Bravo").await;
    let foreign = app.add_number(&bravo, "+14155550199").await;
    let (status, body) = app
        .call_as(
            &c.org.client,
            "/api/plans/edit",
            json!({"id": plan.id, "edit": {"title": null, "summary": null, "from_number_id": foreign}}),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert!(
        body.to_string().contains("not one of the organisation's"),
        "{body}"
    );
    assert_eq!(
        get(&app, &c.org, plan.id).await["from_number"],
        "Main (+14155550100)"
    );

    // A number on a tagging plan is refused too.
    let tagging = herald::plans::service::present_plan(
        &app.state,
        &agent,
        herald::plans::service::Presented {
            thread_id: None,
            title: "Tag",
            summary: "t",
            action: herald::plans::model::PlanAction::tagging(include_all(&[c.katherine])),
            policy_override: Some(herald::plans::model::ApprovalPolicy::HumanReview),
            source_key: None,
            revises: None,
        },
    )
    .await
    .unwrap();
    let (status, body) = app
        .call_as(
            &c.org.client,
            "/api/plans/edit",
            json!({"id": tagging.id, "edit": {"title": null, "summary": null, "from_number_id": second}}),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");

    // The person picks the second number; the audit shows it; the campaign sends from it.
    let edited: Value = app
        .ok_as(
            &c.org.client,
            "/api/plans/edit",
            json!({"id": plan.id, "edit": {"title": null, "summary": null, "from_number_id": second}}),
        )
        .await;
    assert_eq!(edited["from_number"], "Main (+14155550101)");
    let audit = edited["audit"].to_string();
    assert!(audit.contains(&second.to_string()), "{audit}");
    let _: Value = app
        .ok_as(&c.org.client, "/api/plans/approve", json!({"id": plan.id}))
        .await;
    app.settle().await;
    let op_id: uuid::Uuid = get(&app, &c.org, plan.id).await["executed_ref"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    let op = herald::campaign::entity::operation::Entity::find_by_id(op_id)
        .one(&app.state.db)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(op.phone_number_id, second);
}

on_both_databases!(campaigns_send_from_the_plans_number);
