//! Nobody misses a plan or a draft: a plan awaiting approval notifies its agent's owner with a
//! deep link to its card (read once decided); an auto-approved plan leaves a note in its thread;
//! a suggest-mode agent's drafts notify the owner with a link to the conversation, once.
use crate::agent_support::{first_message, setup, text_in};
use crate::helpers::*;
use crate::on_both_databases;
use crate::plan_support::*;
use herald::ai_agent::llm::scripted::ScriptedModel;
use serde_json::{json, Value};
use std::sync::Arc;

async fn notes(app: &TestApp, org: &Org) -> Vec<Value> {
    let v: Value = app
        .ok_as(&org.client, "/api/notifications", json!({}))
        .await;
    let v = v["items"].clone();
    v.as_array().unwrap().clone()
}

async fn unread(app: &TestApp, org: &Org) -> u64 {
    let v: Value = app.ok_as(&org.client, "/api/attention", Value::Null).await;
    v["unread_notifications"].as_u64().unwrap()
}

async fn plans_notify_and_auto_approvals_leave_a_note(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let c = crm(&app).await;
    let member = app.add_member(&c.org, "Mo").await;
    assert_eq!(unread(&app, &c.org).await, 0);
    ask(&app, &c.org, ASK, true).await;
    let plan = plans(&app, &c.org).await[0].clone();
    assert_eq!(plan["status"], "awaiting_approval");
    let list = notes(&app, &c.org).await;
    assert_eq!(list.len(), 1, "{list:?}");
    let n = &list[0];
    assert_eq!(n["kind"], "plan_awaiting");
    assert_eq!(n["title"], "Assistant has a plan for you to approve");
    assert_eq!(n["body"], plan["title"]);
    assert_eq!(
        n["link"],
        format!("/plans/{}", plan["id"].as_str().unwrap())
    );
    assert_eq!(unread(&app, &c.org).await, 1, "the navigation counts it");
    // The owner's assistant, the owner's notice: a member sees none of it.
    assert!(notes(&app, &member).await.is_empty());

    // Deciding reads it.
    let _: Value = app
        .ok_as(
            &c.org.client,
            "/api/plans/approve",
            json!({"id": plan["id"]}),
        )
        .await;
    app.settle().await;
    assert_eq!(unread(&app, &c.org).await, 0);
    assert_eq!(notes(&app, &c.org).await[0]["read"], true);

    // Auto-approved: no notice, a note in the thread.
    set_policy(&app, &c.org, "risk_gated", "suggest").await;
    ask(
        &app,
        &c.org,
        "tag everyone who has not replied in 30 days as dormant",
        true,
    )
    .await;
    let auto = plans(&app, &c.org).await[0].clone();
    assert_eq!(auto["decision"], "proceed", "{auto}");
    assert_eq!(
        notes(&app, &c.org).await.len(),
        1,
        "no notice for a plan nobody must approve"
    );
    let view: Value = app
        .ok_as(&c.org.client, "/api/assistant", Value::Null)
        .await;
    let notes_in_thread: Vec<&Value> = view["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["kind"] == "plan_note")
        .collect();
    assert_eq!(notes_in_thread.len(), 1, "{}", view["events"]);
    let summary = notes_in_thread[0]["summary"].as_str().unwrap();
    assert!(
        summary.starts_with("Plan auto-approved, executing: ")
            && summary.contains(auto["title"].as_str().unwrap()),
        "{summary}"
    );
    assert!(notes_in_thread[0]["detail"]
        .as_str()
        .unwrap()
        .starts_with("Low risk"));
}

async fn suggest_mode_drafts_notify_the_owner(backend: Backend) {
    let model = Arc::new(ScriptedModel::new());
    model.call(
        "propose_sms_replies",
        r#"{"options": ["Yes, 3pm works.", "Could we do 4pm?", "Let me check and text back."]}"#,
    );
    model.say("done");
    let Some(s) = setup(backend, "suggest", Some(model)).await else {
        return;
    };
    let alan = s
        .app
        .add_contact(&s.org, "Alan Turing", "+14155552673")
        .await;
    text_in(
        &s,
        "SMdraft000000000000000000000000001",
        "+14155552673",
        "+14155550100",
        "Is 3pm ok?",
    )
    .await;
    let list = notes(&s.app, &s.org).await;
    let drafts: Vec<&Value> = list.iter().filter(|n| n["kind"] == "drafts").collect();
    assert_eq!(drafts.len(), 1, "{list:?}");
    assert_eq!(
        drafts[0]["title"],
        "Text Reply drafted 3 replies for Alan Turing"
    );
    assert_eq!(drafts[0]["body"], "Yes, 3pm works.");
    assert_eq!(drafts[0]["link"], format!("/messaging/{alan}"));
    let (conv, _) = first_message(&s).await;
    assert_eq!(conv["contact_id"], json!(alan));
}

on_both_databases!(
    plans_notify_and_auto_approvals_leave_a_note,
    suggest_mode_drafts_notify_the_owner
);
