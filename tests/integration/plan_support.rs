//! Plan test support: a small CRM, the assistant, and plan shortcuts.
#![allow(dead_code)]
use crate::helpers::*;
use serde_json::{json, Value};

pub const ASK: &str = "tag everyone who has not replied in 30 days as quiet";

pub struct Org2 {
    pub org: Org,
    pub ada: uuid::Uuid,
    pub grace: uuid::Uuid,
    pub opted: uuid::Uuid,
}

/// Ada texted today; Grace and Katherine never did; Boris opted out.
pub async fn crm(app: &TestApp) -> Org2 {
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

pub async fn ask(app: &TestApp, org: &Org, text: &str, plan_mode: bool) {
    let _: Value = app
        .ok_as(
            &org.client,
            "/api/assistant/ask",
            json!({"text": text, "plan_mode": plan_mode}),
        )
        .await;
    app.settle().await;
}

pub async fn plans(app: &TestApp, org: &Org) -> Vec<Value> {
    let v: Value = app
        .ok_as(
            &org.client,
            "/api/plans/list",
            json!({"status": null, "agent_id": null}),
        )
        .await;
    v["items"].as_array().unwrap().clone()
}

pub async fn tags_of(app: &TestApp, org: &Org, id: uuid::Uuid) -> Vec<String> {
    let c: Value = app
        .ok_as(&org.client, "/api/contacts/get", json!({"id": id}))
        .await;
    serde_json::from_value(c["tags"].clone()).unwrap()
}

pub async fn set_policy(app: &TestApp, org: &Org, policy: &str, send_mode: &str) {
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
