//! Agent plans end to end: plan mode, policies, approval, rejection and revision, audited edits.

use crate::helpers::*;
use crate::on_both_databases;
use crate::plan_support::*;
use reqwest::StatusCode;
use serde_json::{json, Value};

async fn plan_mode_lifecycle(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let c = crm(&app).await;
    ask(&app, &c.org, ASK, true).await;
    let list = plans(&app, &c.org).await;
    assert_eq!(list.len(), 1);
    let p = &list[0];
    assert_eq!(p["status"], "awaiting_approval");
    assert_eq!(p["approval_policy"], "human_review");
    assert_eq!(p["decision"], "gate");
    let contacts = p["contacts"].as_array().unwrap();
    let included: Vec<&str> = contacts
        .iter()
        .filter(|c| c["change"]["include"] == true)
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        included,
        vec!["Grace Hopper", "Katherine Johnson"],
        "Ada replied today"
    );
    let out: Vec<&Value> = contacts
        .iter()
        .filter(|c| c["change"]["include"] == false)
        .collect();
    assert_eq!(out.len(), 1);
    assert_eq!(out[0]["change"]["reason"], "opted out");
    // Nothing changed before approval.
    assert!(
        tags_of(&app, &c.org, c.grace).await.is_empty(),
        "an unapproved plan has changed nothing"
    );
    // The synthetic tool result ended the turn.
    let view: Value = app
        .ok_as(&c.org.client, "/api/assistant", Value::Null)
        .await;
    let results: Vec<&Value> = view["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["summary"] == "present_plan result")
        .collect();
    assert!(results[0]["detail"]
        .as_str()
        .unwrap()
        .contains("Plan submitted for review"));
    // Approve: executes off the request path, then Done.
    let approved: Value = app
        .ok_as(&c.org.client, "/api/plans/approve", json!({"id": p["id"]}))
        .await;
    assert!(["approved", "executing", "done"].contains(&approved["status"].as_str().unwrap()));
    app.settle().await;
    let done: Value = app
        .ok_as(&c.org.client, "/api/plans/get", json!({"id": p["id"]}))
        .await;
    assert_eq!(done["status"], "done");
    assert!(done["approved_by_name"].is_string());
    assert_eq!(tags_of(&app, &c.org, c.grace).await, vec!["quiet"]);
    assert!(tags_of(&app, &c.org, c.ada).await.is_empty());
    assert!(tags_of(&app, &c.org, c.opted).await.is_empty());
    // Illegal transitions are clear errors.
    let (status, body) = app
        .call_as(&c.org.client, "/api/plans/approve", json!({"id": p["id"]}))
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    let (status, _) = app
        .call_as(
            &c.org.client,
            "/api/plans/reject",
            json!({"id": p["id"], "reason": "too late"}),
        )
        .await;
    assert_eq!(status, StatusCode::CONFLICT);
    let audit = done["audit"].as_array().unwrap();
    assert_eq!(audit[0]["actor"], "policy");
    assert_eq!(audit[0]["decision"], "gate");
    assert_eq!(audit[1]["actor"], "user");
    assert_eq!(audit[1]["decision"], "proceed");
}

async fn the_agent_can_enter_plan_mode_itself(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let c = crm(&app).await;
    ask(&app, &c.org, ASK, false).await;
    let view: Value = app
        .ok_as(&c.org.client, "/api/assistant", Value::Null)
        .await;
    let summaries: Vec<&str> = view["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["summary"].as_str().unwrap())
        .collect();
    assert!(
        summaries.contains(&"Calls enter_plan_mode"),
        "{summaries:?}"
    );
    assert_eq!(plans(&app, &c.org).await[0]["status"], "awaiting_approval");
}

async fn policies_decide(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let c = crm(&app).await;
    // RiskGated, small plan: runs with no human.
    set_policy(&app, &c.org, "risk_gated", "suggest").await;
    ask(&app, &c.org, ASK, true).await;
    let p = &plans(&app, &c.org).await[0];
    assert_eq!(p["status"], "done", "{p}");
    assert_eq!(p["decision"], "proceed");
    assert!(p["decision_reason"]
        .as_str()
        .unwrap()
        .starts_with("Low risk"));
    assert_eq!(tags_of(&app, &c.org, c.grace).await, vec!["quiet"]);
    // RiskGated over the row limit gates.
    let n = app.state.plan_risk().max_rows;
    assert_eq!(n, 25, "the default N");
    for i in 0..30 {
        app.add_contact(
            &c.org,
            &format!("Lead {i}"),
            &format!("+1415555{:04}", 3100 + i),
        )
        .await;
    }
    ask(
        &app,
        &c.org,
        "tag everyone who has not replied in 30 days as dormant",
        true,
    )
    .await;
    let p = &plans(&app, &c.org).await[0];
    assert_eq!(p["status"], "awaiting_approval");
    assert!(p["decision_reason"]
        .as_str()
        .unwrap()
        .contains("more than the 25"));
    // Auto proceeds whatever the size.
    set_policy(&app, &c.org, "auto", "suggest").await;
    ask(
        &app,
        &c.org,
        "tag everyone who has not replied in 30 days as cold",
        true,
    )
    .await;
    let p = &plans(&app, &c.org).await[0];
    assert_eq!(p["approval_policy"], "auto");
    assert_eq!(p["status"], "done");
}

async fn rejection_leads_to_a_revised_plan(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let c = crm(&app).await;
    ask(&app, &c.org, ASK, true).await;
    let id = plans(&app, &c.org).await[0]["id"].clone();
    let (status, _) = app
        .call_as(
            &c.org.client,
            "/api/plans/reject",
            json!({"id": id, "reason": "  "}),
        )
        .await;
    assert_eq!(
        status,
        StatusCode::BAD_REQUEST,
        "a rejection needs a reason"
    );
    let rejected: Value = app
        .ok_as(
            &c.org.client,
            "/api/plans/reject",
            json!({"id": id, "reason": "Leave Grace out, she is a partner"}),
        )
        .await;
    assert_eq!(rejected["status"], "rejected");
    app.settle().await;
    let list = plans(&app, &c.org).await;
    assert_eq!(list.len(), 2, "the agent presented a revised plan");
    let revised = &list[0];
    assert_eq!(revised["status"], "awaiting_approval");
    let grace = revised["contacts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["name"] == "Grace Hopper")
        .unwrap();
    assert_eq!(grace["change"]["include"], false);
    assert_eq!(grace["change"]["reason"], "excluded at review");
    assert!(revised["summary"].as_str().unwrap().contains("Revised"));
}

async fn edits_are_audited_and_opt_outs_refused(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let c = crm(&app).await;
    ask(&app, &c.org, ASK, true).await;
    let id = plans(&app, &c.org).await[0]["id"].clone();
    let (status, body) = app.call_as(&c.org.client, "/api/plans/edit", json!({"id": id, "edit": {"title": null, "summary": null, "include": [[c.opted, true]]}})).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .contains("Boris Opted has opted out"),
        "{body}"
    );
    let edited: Value = app
        .ok_as(&c.org.client, "/api/plans/edit", json!({"id": id, "edit": {"title": "Tag the quiet ones", "summary": null, "include": [[c.grace, false]]}}))
        .await;
    assert_eq!(edited["title"], "Tag the quiet ones");
    let edit = edited["audit"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["kind"] == "edit")
        .unwrap();
    assert!(edit["before"]["title"]
        .as_str()
        .unwrap()
        .starts_with("Tag 2"));
    assert_eq!(edit["after"]["title"], "Tag the quiet ones");
    let (status, _) = app
        .call_as(
            &c.org.client,
            "/api/plans/edit",
            json!({"id": id, "edit": {"title": "  ", "summary": null, "include": []}}),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let _: Value = app
        .ok_as(&c.org.client, "/api/plans/approve", json!({"id": id}))
        .await;
    app.settle().await;
    assert!(
        tags_of(&app, &c.org, c.grace).await.is_empty(),
        "the edit took Grace out"
    );
}

on_both_databases!(
    plan_mode_lifecycle,
    the_agent_can_enter_plan_mode_itself,
    policies_decide,
    rejection_leads_to_a_revised_plan,
    edits_are_audited_and_opt_outs_refused,
);
