//! Agent plans end to end: the Assistant plans in plan mode, policies decide, people approve,
//! edit or reject, the executor tags contacts; safety under an adversarial scripted model.
use crate::helpers::*;
use crate::on_both_databases;
use herald::ai_agent::llm::scripted::ScriptedModel;
use herald::ai_agent::llm::{Completion, ToolCall};
use reqwest::StatusCode;
use sea_orm::ConnectionTrait;
use serde_json::{json, Value};
use std::sync::Arc;

const ASK: &str = "tag everyone who has not replied in 30 days as quiet";

struct Org2 {
    org: Org,
    ada: uuid::Uuid,
    grace: uuid::Uuid,
    opted: uuid::Uuid,
}

/// Ada texted today; Grace and Katherine never did; Boris opted out.
async fn crm(app: &TestApp) -> Org2 {
    let org = app.new_org("Plan Co").await;
    app.add_number(&org, "+14155550100").await;
    let ada = app.add_contact(&org, "Ada Lovelace", "+14155552671").await;
    let grace = app.add_contact(&org, "Grace Hopper", "+14155552672").await;
    app.add_contact(&org, "Katherine Johnson", "+14155552674")
        .await;
    let opted = app.add_contact(&org, "Boris Opted", "+14155552675").await;
    let _: Value = app
        .ok_as(
            &org.client,
            "/api/contacts/opt_out",
            json!({"id": opted, "opted_out": true}),
        )
        .await;
    app.post_webhook(
        &sms_params(
            "SMplan0000000000000000000000000001",
            "+14155552671",
            "+14155550100",
            "hello",
        ),
        None,
    )
    .await;
    app.settle().await;
    Org2 {
        org,
        ada,
        grace,
        opted,
    }
}

async fn ask(app: &TestApp, org: &Org, text: &str, plan_mode: bool) {
    let _: Value = app
        .ok_as(
            &org.client,
            "/api/assistant/ask",
            json!({"text": text, "plan_mode": plan_mode}),
        )
        .await;
    app.settle().await;
}

async fn plans(app: &TestApp, org: &Org) -> Vec<Value> {
    let v: Value = app
        .ok_as(
            &org.client,
            "/api/plans/list",
            json!({"status": null, "agent_id": null}),
        )
        .await;
    v.as_array().unwrap().clone()
}

async fn tags_of(app: &TestApp, org: &Org, id: uuid::Uuid) -> Vec<String> {
    let c: Value = app
        .ok_as(&org.client, "/api/contacts/get", json!({"id": id}))
        .await;
    serde_json::from_value(c["tags"].clone()).unwrap()
}

async fn set_policy(app: &TestApp, org: &Org, policy: &str, send_mode: &str) {
    let view: Value = app.ok_as(&org.client, "/api/assistant", Value::Null).await;
    let agent: Value = app
        .ok_as(
            &org.client,
            "/api/agents/get",
            json!({"id": view["agent_id"]}),
        )
        .await;
    let input = json!({"name": agent["name"], "persona": agent["persona"], "goals": agent["goals"], "rules": "", "send_mode": send_mode, "planning_enabled": true, "plan_approval": policy});
    let _: Value = app
        .ok_as(
            &org.client,
            "/api/agents/update",
            json!({"id": agent["id"], "input": input}),
        )
        .await;
}

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
    let n = app.state.runtime.plan_risk_max_rows;
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

async fn planning_is_read_only_under_attack(backend: Backend) {
    let model = Arc::new(ScriptedModel::new());
    let opts = Options {
        model: Some(model.clone()),
        ..Default::default()
    };
    let Some(app) = spawn_app_with(backend, opts).await else {
        return;
    };
    let c = crm(&app).await;
    // An assistant that could send (autonomous) is asked to plan; the model tries 100 writes.
    set_policy(&app, &c.org, "auto", "autonomous").await;
    let number = herald::phone_numbers::service::list(&app.state, c.org.org_id)
        .await
        .unwrap()[0]
        .id;
    let mut calls = Vec::new();
    for i in 0..100 {
        let (name, args) = match i % 4 {
            0 => (
                "send_sms",
                json!({"body": "gotcha", "contact_id": c.grace, "phone_number_id": number}),
            ),
            1 => (
                "send_sms",
                json!({"body": "again", "contact_id": c.opted, "phone_number_id": number}),
            ),
            2 => ("propose_sms_replies", json!({"options": ["a", "b"]})),
            _ => (
                "tag_contacts",
                json!({"contact_ids": [c.grace], "tags": ["pwned"]}),
            ),
        };
        calls.push(ToolCall {
            id: format!("c{i}"),
            name: name.into(),
            arguments: args.to_string(),
        });
    }
    model.push(Ok(Completion {
        text: None,
        tool_calls: calls,
    }));
    model.say("done");
    let messages_before = app.count("message").await;
    ask(&app, &c.org, "text everyone right now", true).await;
    let offered = model.seen_tools.lock().unwrap()[0].clone();
    assert!(
        !offered.contains(&"send_sms".to_string()),
        "layer 1: writes are not offered while planning: {offered:?}"
    );
    assert!(offered.contains(&"present_plan".to_string()));
    assert_eq!(
        app.count("message").await,
        messages_before,
        "no send during planning"
    );
    assert_eq!(app.count("text_agent_suggestion").await, 0);
    assert!(tags_of(&app, &c.org, c.grace).await.is_empty());
    assert_eq!(app.count("ai_agent_plan").await, 0);
    let view: Value = app
        .ok_as(&c.org.client, "/api/assistant", Value::Null)
        .await;
    let refused: Vec<&Value> = view["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["summary"].as_str().unwrap().ends_with("refused"))
        .collect();
    assert_eq!(refused.len(), 100, "each of the 100 calls was refused");
    let planning_refusals = refused
        .iter()
        .filter(|e| e["detail"].as_str().unwrap().contains("You are planning"))
        .count();
    assert_eq!(
        planning_refusals, 50,
        "layer 2: send_sms refused at execution while planning"
    );
}

async fn concurrent_approvals_execute_once(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let c = crm(&app).await;
    ask(&app, &c.org, ASK, true).await;
    let id = plans(&app, &c.org).await[0]["id"].clone();
    let tries = (0..8).map(|_| app.call_as(&c.org.client, "/api/plans/approve", json!({"id": id})));
    let results = futures::future::join_all(tries).await;
    assert_eq!(
        results.iter().filter(|(s, _)| s.is_success()).count(),
        1,
        "one approval wins"
    );
    assert_eq!(
        results
            .iter()
            .filter(|(s, _)| *s == StatusCode::CONFLICT)
            .count(),
        7
    );
    app.settle().await;
    let p: Value = app
        .ok_as(&c.org.client, "/api/plans/get", json!({"id": id}))
        .await;
    assert_eq!(p["status"], "done");
    let user_decisions = p["audit"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|a| a["actor"] == "user")
        .count();
    assert_eq!(user_decisions, 1);
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

async fn restart_resumes_and_failures_show(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let c = crm(&app).await;
    ask(&app, &c.org, ASK, true).await;
    ask(
        &app,
        &c.org,
        "tag everyone who has not replied in 30 days as later",
        true,
    )
    .await;
    let list = plans(&app, &c.org).await;
    let (good, bad) = (
        list[1]["id"].as_str().unwrap().to_owned(),
        list[0]["id"].as_str().unwrap().to_owned(),
    );
    // As if the server died after approving, before executing; the other's payload is broken.
    app.state
        .db
        .execute_unprepared("UPDATE ai_agent_plan SET status = 'approved' WHERE title LIKE 'Tag%'")
        .await
        .unwrap();
    let broken = if app.state.db.get_database_backend() == sea_orm::DbBackend::Postgres {
        "'{\"type\": \"nope\"}'::json".to_owned()
    } else {
        "'{\"type\": \"nope\"}'".to_owned()
    };
    let bad_id = if app.state.db.get_database_backend() == sea_orm::DbBackend::Postgres {
        format!("'{bad}'")
    } else {
        format!("X'{}'", bad.replace('-', ""))
    };
    app.state
        .db
        .execute_unprepared(&format!(
            "UPDATE ai_agent_plan SET action_payload = {broken} WHERE id = {bad_id}"
        ))
        .await
        .unwrap();
    let resumed = herald::plans::executor::resume_pending(&app.state)
        .await
        .unwrap();
    assert_eq!(resumed, 2);
    app.settle().await;
    let g: Value = app
        .ok_as(&c.org.client, "/api/plans/get", json!({"id": good}))
        .await;
    assert_eq!(g["status"], "done");
    assert_eq!(tags_of(&app, &c.org, c.grace).await, vec!["quiet"]);
    let (status, _) = app
        .call_as(&c.org.client, "/api/plans/get", json!({"id": bad}))
        .await;
    assert_eq!(
        status,
        StatusCode::INTERNAL_SERVER_ERROR,
        "a corrupt plan cannot be shown"
    );
    use herald::plans::entity::plan;
    use sea_orm::EntityTrait;
    let row = plan::Entity::find_by_id(bad.parse::<uuid::Uuid>().unwrap())
        .one(&app.state.db)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(row.status, "failed");
    assert!(row.error.unwrap().contains("stored plan action"));
}

async fn plans_are_scoped(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let c = crm(&app).await;
    let other = app.new_org("Other").await;
    ask(&app, &c.org, ASK, true).await;
    let id = plans(&app, &c.org).await[0]["id"].clone();
    for (path, body) in [
        ("/api/plans/get", json!({"id": id})),
        ("/api/plans/approve", json!({"id": id})),
        ("/api/plans/reject", json!({"id": id, "reason": "no"})),
        (
            "/api/plans/edit",
            json!({"id": id, "edit": {"title": "mine", "summary": null, "include": []}}),
        ),
    ] {
        let (status, reply) = app.call_as(&other.client, path, body).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{path}: {reply}");
    }
    assert!(plans(&app, &other).await.is_empty());
    assert_eq!(
        plans(&app, &c.org).await[0]["status"],
        "awaiting_approval",
        "unchanged"
    );
}

on_both_databases!(
    plan_mode_lifecycle,
    the_agent_can_enter_plan_mode_itself,
    policies_decide,
    planning_is_read_only_under_attack,
    concurrent_approvals_execute_once,
    rejection_leads_to_a_revised_plan,
    edits_are_audited_and_opt_outs_refused,
    restart_resumes_and_failures_show,
    plans_are_scoped,
);
