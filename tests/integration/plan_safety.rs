//! Plan safety: read-only planning under attack, one execution for concurrent approvals,
//! restart pickup and failures, and cross-organisation access.

use crate::helpers::*;
use crate::on_both_databases;
use crate::plan_support::*;
use herald::ai_agent::llm::scripted::ScriptedModel;
use herald::ai_agent::llm::{Completion, ToolCall};
use reqwest::StatusCode;
use sea_orm::ConnectionTrait;
use serde_json::{json, Value};
use std::sync::Arc;

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
    // A corrupt plan is still shown, as unreadable, and says it failed.
    let b: Value = app
        .ok_as(&c.org.client, "/api/plans/get", json!({"id": bad}))
        .await;
    assert!(b["unreadable"].is_string(), "{b}");
    assert_eq!(b["status"], "failed");
    use herald::plans::entity::plan;
    use sea_orm::EntityTrait;
    let row = plan::Entity::find_by_id(bad.parse::<uuid::Uuid>().unwrap())
        .one(&app.state.db)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(row.status, herald::plans::model::PlanStatus::Failed);
    assert!(row.error.unwrap().contains("can no longer be read"));
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
    planning_is_read_only_under_attack,
    concurrent_approvals_execute_once,
    restart_resumes_and_failures_show,
    plans_are_scoped,
);
