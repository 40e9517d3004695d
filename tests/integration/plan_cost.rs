//! "Spends money" is a real check: a campaign plan states its estimated cost (texts × SMS
//! segments × price), on the plan and on its card, and a plan over the configured threshold
//! says so in its reason.
use crate::campaign_support::*;
use crate::helpers::*;
use crate::on_both_databases;
use serde_json::{json, Value};

async fn plan_view(app: &TestApp, org: &Org, id: uuid::Uuid) -> Value {
    app.ok_as(&org.client, "/api/plans/get", json!({"id": id}))
        .await
}

async fn campaign_costs_are_estimated_and_gated(backend: Backend) {
    // A threshold of two cents: two one-segment texts cost $0.0158, three cost $0.0237.
    let opts = Options {
        plan_risk_max_cost: 0.02,
        ..Default::default()
    };
    let Some(app) = spawn_app_with(backend, opts).await else {
        return;
    };
    let c = crm(&app).await;
    let agent = assistant_agent(&app, c.org.org_id).await;

    let two = campaign_plan(&app, &agent, &include_all(&[c.katherine, c.linus]), "Two").await;
    let v = plan_view(&app, &c.org, two.id).await;
    assert_eq!(v["status"], "awaiting_approval");
    assert_eq!(v["estimated_cost"]["texts"], 2);
    assert_eq!(v["estimated_cost"]["segments"], 2);
    let reason = v["decision_reason"].as_str().unwrap();
    assert!(
        reason.contains("It sends messages (2 texts · 2 segments · about $0.0158)"),
        "{reason}"
    );
    assert!(!reason.contains("spends"), "under the threshold: {reason}");

    let mut three = include_all(&[c.katherine, c.linus, c.boris]);
    // Boris opted out: left out of the audience, he costs nothing.
    three[2].include = false;
    three[2].reason = "opted out".into();
    three[2].kind = "opted_out".into();
    let still_two = campaign_plan(&app, &agent, &three, "Still two").await;
    let v = plan_view(&app, &c.org, still_two.id).await;
    assert_eq!(v["estimated_cost"]["texts"], 2, "{v}");

    let alan_id = {
        let v: Value = app.search_contacts(&c.org.client, json!("Alan")).await;
        v[0]["id"].as_str().unwrap().parse::<uuid::Uuid>().unwrap()
    };
    let three = campaign_plan(
        &app,
        &agent,
        &include_all(&[c.katherine, c.linus, alan_id]),
        "Three",
    )
    .await;
    let v = plan_view(&app, &c.org, three.id).await;
    let reason = v["decision_reason"].as_str().unwrap();
    assert!(
        reason.contains("It spends about $0.0237, more than the $0.02 allowed without review."),
        "{reason}"
    );
    assert!((v["estimated_cost"]["dollars"].as_f64().unwrap() - 3.0 * 0.0079).abs() < 1e-9);
    // Tagging spends nothing: no estimate at all.
    let tagging = herald::plans::service::present_plan(
        &app.state,
        &agent,
        herald::plans::service::Presented {
            thread_id: None,
            title: "Tag",
            summary: "t",
            action: herald::plans::model::PlanAction::tagging(include_all(&[c.katherine])),
            policy_override: None,
            source_key: None,
            revises: None,
        },
    )
    .await
    .unwrap();
    let v = plan_view(&app, &c.org, tagging.id).await;
    assert!(v["estimated_cost"].is_null(), "{v}");
}

on_both_databases!(campaign_costs_are_estimated_and_gated);
